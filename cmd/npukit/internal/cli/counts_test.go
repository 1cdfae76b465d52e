package cli_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/nki"
)

// The text outputs of the NEFF, NTFF, Edge TPU, Gemini, NKI and alloc
// commands write counts of four digits or more with thousands separators,
// as the rest of each output does (humanize.BareCounts): NEFF inspect
// tabled "3,344" instructions beside 2388 DMA entries, check said "moves
// 1776 bytes per partition" beside "24,664 infos", nki sim "8452 steps"
// where nki check said "8,452 steps executed"; NTFF inspect tabled 8202
// instructions and 1782 packets per queue below "Instructions: ...
// 16,404"; Edge TPU sim assumed "the input's 923601 pixels", plan refused
// a resize "to 5526549 output elements" and inspect placed a package "at
// offset 138600" (a position: now in hex); alloc reported "skyline
// placements (28526 buffers: ...)" under "(28,526 buffers)".
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
	for _, f := range conformance.Files(t, filepath.Join(conformance.Shared(t, "corpus3"), "ntff"), "*.ntff") {
		runs = append(runs, []string{"inspect", f})
	}
	for _, dir := range []string{conformance.Corpus(t, "edgetpu"), filepath.Join(conformance.Shared(t, "corpus2"), "edgetpu-pairs", "models")} {
		for _, f := range conformance.Files(t, dir, "*.tflite") {
			runs = append(runs, []string{"inspect", f}, []string{"sim", f}, []string{"edgetpu", "plan", f})
		}
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

// alloc's progress line (on stderr after 2 s) says what the solver is
// doing: on a real trace too large for the exact search, "skyline
// placements (18692 buffers: ...)" beside the "18,692 buffers" of its
// output. The line is timed, so the stages are taken from the solve
// itself, stopped at the first one.
func TestAllocStagesCarrySeparators(t *testing.T) {
	f := filepath.Join(conformance.Shared(t, "corpus2"), "alloc", "idealloc__somas_tensors_pangu_2.6B.csv")
	a, err := npukit.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := a.AllocTable(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var stages []string
	_, _ = npukit.SolveAlloc(ctx, f, tab, alloc.OffsetsAuto, npukit.AllocSolveOptions{Stage: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		stages = append(stages, s)
		cancel()
	}})
	mu.Lock()
	defer mu.Unlock()
	if len(stages) == 0 {
		t.Fatal("the solve told no stage")
	}
	for _, s := range stages {
		if bare := humanize.BareCounts(s); len(bare) > 0 {
			t.Errorf("alloc stage %q writes %v without separators", s, bare)
		}
	}
}
