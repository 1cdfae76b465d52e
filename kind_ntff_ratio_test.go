package npukit

import (
	"encoding/json"
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

// In the JSON, a row not compared has a null ratio, as the text prints
// "-" for it; 0 is kept for a quantity the model prices at nothing (a
// "not simulated" row read "ratio": 0, audit5 F8). A quantity not
// simulated has no predicted_us either.
func TestMeasuredRatioJSONNullWhenNotCompared(t *testing.T) {
	for _, c := range []struct {
		r                MeasuredRow
		ratio, predicted string
	}{
		{MeasuredRow{PredictedUs: 44.5, MeasuredUs: 44.5, Ratio: 1}, `1`, `44.5`},
		{MeasuredRow{PredictedUs: 0, MeasuredUs: 4.792}, `0`, `0`},
		{MeasuredRow{MeasuredUs: 1.075, Note: "not simulated"}, `null`, `null`},
		{MeasuredRow{PredictedUs: 3}, `null`, `3`},
	} {
		b, err := json.Marshal(c.r)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if string(got["ratio"]) != c.ratio || string(got["predicted_us"]) != c.predicted {
			t.Errorf("%+v: %s, want ratio %s, predicted_us %s", c.r, b, c.ratio, c.predicted)
		}
	}
	// every --measured JSON row goes through it: the whole comparison
	a, capb := transposePair(t)
	out, err := a.Simulate(&Options{NeffMeasured: capb})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"comparison"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) == 0 {
		t.Fatal("no comparison rows in the JSON")
	}
	for _, r := range doc.Rows {
		if r["note"] != nil && r["ratio"] != nil {
			t.Errorf("row %v: not compared (%v) but ratio %v", r["what"], r["note"], r["ratio"])
		}
		if r["note"] == nil && r["ratio"] == nil && r["measured_us"] != 0.0 {
			t.Errorf("row %v: compared but ratio null", r["what"])
		}
	}
}
