package npukit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/ntff"
)

// sim X.ntff --trace says where the trace ends and what it holds: on a
// format 5 capture the counted events run past the total (the capture's
// last event is after the kernel time), which the text did not say.
func TestNtffReplaySaysWhereTheTraceEnds(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.ntff"))
	n := 0
	for _, path := range paths {
		a, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Ntff()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, how := p.Counting(); how != ntff.ToCaptureEnd {
			continue
		}
		rp, err := p.Timeline()
		if err != nil {
			t.Fatal(err)
		}
		s := ntff.Summarize(p, path)
		if rp.Timeline.Makespan <= s.TotalTimePs {
			continue
		}
		n++
		out, err := a.Simulate(&Options{TracePath: filepath.Join(t.TempDir(), "t.json")})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := out.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		want := s.Span() + "), 0 to " + humanize.Micros(float64(rp.Timeline.Makespan)/1e6)
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: replay text lacks %q:\n%s", filepath.Base(path), want, b.String())
		}
	}
	if n == 0 {
		t.Skip("no format 5 capture whose events run past its total")
	}
}
