package edgetpureport

import (
	"testing"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
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
