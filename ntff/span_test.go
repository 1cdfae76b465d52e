package ntff

import (
	"strings"
	"testing"
)

// The total time of a format 5 capture is the kernel time the runtime
// recorded, as on every format; only its counts run to the capture's
// last event. inspect printed "Total time: 46.471 us (core 0; counted
// from the estimated window start to the capture's last event)", as if
// the total had been counted over that span (46.73 us on transpose_1024).
func TestTotalTimeLineSaysWhatRunsToCaptureEnd(t *testing.T) {
	for _, c := range []struct{ window, want string }{
		{ToCaptureEnd, "(core 0; window estimated; counts run from its start to the capture's last event)"},
		{"recorded", "(core 0; window recorded)"},
		{WholeCapture, "(core 0; window whole capture)"},
	} {
		s := &Summary{File: "x.ntff", Format: 5, TotalTimeUs: 46.471, Window: c.window}
		var b strings.Builder
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		line := strings.SplitN(b.String()[strings.Index(b.String(), "Total time:"):], "\n", 2)[0]
		if !strings.Contains(line, c.want) {
			t.Errorf("window %q: %q, want %q", c.window, line, c.want)
		}
	}
}
