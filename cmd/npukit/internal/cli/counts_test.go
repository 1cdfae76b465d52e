package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/nki"
)

// The text outputs of the NEFF, Gemini and NKI commands write counts of
// four digits or more with thousands separators, as the rest of each
// output does (humanize.BareCounts): NEFF inspect tabled "3,344" instructions
// beside 2388 DMA entries, check said "moves 1776 bytes per partition"
// beside "24,664 infos", nki sim "8452 steps" where nki check said
// "8,452 steps executed".
func TestCountsCarrySeparators(t *testing.T) {
	var runs [][]string
	for _, f := range conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff") {
		runs = append(runs, []string{"inspect", f}, []string{"check", f}, []string{"neff", "dma", f})
	}
	for _, f := range conformance.Files(t, conformance.Corpus(t, "gemini"), "*.json") {
		runs = append(runs, []string{"inspect", f}, []string{"sim", f})
	}
	mp := filepath.Join(conformance.Shared(t, "corpus3"), "nki", "manifest.json")
	m, err := nki.ReadManifest(mp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries {
		runs = append(runs, []string{"nki", "sim", "--manifest", mp, "--entry", e.ID})
	}
	for _, args := range runs {
		r := run(t, "", args...)
		for _, out := range []string{r.stdout, r.stderr} {
			if bare := humanize.BareCounts(out); len(bare) > 0 {
				t.Errorf("npukit %v writes %v without separators", args, bare)
			}
		}
	}
}
