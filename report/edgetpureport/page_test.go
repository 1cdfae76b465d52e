package edgetpureport

import (
	"testing"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// A page of several models summarises all of them, not the first: the
// cached parameters of a three-segment pipeline are the three segments'.
func TestSummaryCoversEveryModel(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "edgetpu"), "pipeline__*_of_3_edgetpu.tflite")
	var models []edgetpu.NamedModel
	var cached int64
	exes := 0
	for _, f := range files {
		m, err := edgetpu.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, edgetpu.NamedModel{Path: f, Model: m})
		for _, p := range m.Packages() {
			cached += edgetpu.MemoryOf(p).Cached
			exes += len(p.Executables)
		}
	}
	if len(models) < 2 {
		t.Skip("fewer than two pipeline segments in the corpus")
	}
	page, err := Page(models)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range page.Summary {
		got[kv.Key] = kv.Value
	}
	if got["On-chip cached parameters (all models)"] != humanize.Bytes(cached) || got["Models"] == "" {
		t.Errorf("summary %v, want cached %s over %d models", page.Summary, humanize.Bytes(cached), len(models))
	}
	if got["Executables"] == "" || got["Executables"] != itoa(exes) {
		t.Errorf("executables %q, want %d", got["Executables"], exes)
	}
}

func itoa(n int) string { return humanize.Count(int64(n)) }

// The page shows the latency next to the mapping: a section per model with
// a bar per host class and the parts on the default host, the Edge TPU
// compute among them.
func TestPageLatencySection(t *testing.T) {
	f := conformance.Files(t, conformance.Corpus(t, "edgetpu"), "mobilenet_v1_0.5_160_quant_edgetpu.tflite")
	if len(f) == 0 {
		t.Skip("no model")
	}
	m, err := edgetpu.ReadFile(f[0])
	if err != nil {
		t.Fatal(err)
	}
	page, err := Page([]edgetpu.NamedModel{{Path: f[0], Model: m}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range page.Sections {
		if s.ID != "latency-0" {
			continue
		}
		if i == 0 || page.Sections[i-1].ID != "ops-0" {
			t.Errorf("latency section not next to the operators")
		}
		chart, ok := s.Blocks[0].(*report.BarChart)
		if !ok || len(chart.Bars) != len(edgetpu.Hosts()) {
			t.Fatalf("latency chart: %#v", s.Blocks[0])
		}
		tab := s.Blocks[1].(*report.Table)
		found := false
		for _, r := range tab.Rows {
			found = found || r[1] == edgetpu.PartTPU
		}
		if !found {
			t.Errorf("no Edge TPU compute part: %v", tab.Rows)
		}
		return
	}
	t.Fatal("no latency section")
}
