package npukit

import (
	"strings"
	"testing"
)

// A small ratio keeps two significant digits (0.003 printed "0.00", read
// as "predicted nothing"); a quantity the model prices at zero reads 0,
// not the "-" of a row not compared.
func TestMeasuredRatioText(t *testing.T) {
	for _, c := range []struct {
		r    MeasuredRow
		want string
	}{
		{MeasuredRow{PredictedUs: 0.192, MeasuredUs: 60.995, Ratio: 0.192 / 60.995}, "0.0031"},
		{MeasuredRow{PredictedUs: 17.71, MeasuredUs: 0.452, Ratio: 17.71 / 0.452}, "39.18"},
		{MeasuredRow{PredictedUs: 44.233, MeasuredUs: 46.471, Ratio: 44.233 / 46.471}, "0.95"},
		{MeasuredRow{PredictedUs: 0, MeasuredUs: 4.792}, "0"},
		{MeasuredRow{MeasuredUs: 1.388, Note: "not simulated"}, "-"},
		{MeasuredRow{PredictedUs: 3}, "-"},
	} {
		if got := c.r.RatioText(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// The comparison's DMA queue rows are queue-time summed over the name's
// queues (1,685.6 us of qPoolDynamic in a 261 us kernel): each row says
// how many it sums and the text explains it.
func TestMeasuredQueueRowsLabelled(t *testing.T) {
	a, capb := transposePair(t)
	out, err := a.Simulate(&Options{NeffMeasured: capb})
	if err != nil {
		t.Fatal(err)
	}
	m := out.(*NeffMeasured)
	n := 0
	for _, r := range m.Rows {
		if strings.Contains(r.What, "qSPIO0") {
			n++
			if !strings.HasSuffix(r.What, " queues summed)") {
				t.Errorf("queue row %q does not say it sums queues", r.What)
			}
		}
	}
	var sb strings.Builder
	if err := m.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	if n == 0 || !strings.Contains(sb.String(), "queue-time") {
		t.Errorf("%d qSPIO0 rows; text:\n%s", n, sb.String())
	}
}
