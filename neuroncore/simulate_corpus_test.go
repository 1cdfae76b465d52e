package neuroncore_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
)

// maxCompareSteps bounds the kernels TestSimEdgesCorpus3 simulates with
// the redundant edges, which are quadratic in the readers of a tile (work,
// not time: the 64k-step kernel's placement needs 1.2 GB that way).
const maxCompareSteps = 20000

// corpus3's kernels, unbounded and placed with the fewest tiles (tensors
// sharing bytes), simulate to the same task times without the redundant
// write-after-read edges as with them.
func TestSimEdgesCorpus3(t *testing.T) {
	m, err := nki.ReadManifest(filepath.Join(conformance.SharedDir(), "corpus3", "nki", "manifest.json"))
	if err != nil {
		if os.Getenv("NPUKIT_REQUIRE_SHARED") != "" {
			t.Fatalf("corpus3/nki: %v", err)
		}
		t.Skip("corpus3/nki not present")
	}
	placed := 0
	for i := range m.Entries {
		e := &m.Entries[i]
		ck, err := nki.TraceCheck(nki.OptionsFor(m, e))
		if err != nil || len(ck.Exec.Events) > maxCompareSteps {
			continue
		}
		xs := []*neuroncore.Execution{ck.Exec}
		if pl, err := neuroncore.PlaceExecution(ck.Exec, neuroncore.PlaceOptions{Fewest: true}); err == nil {
			if x, err := pl.Plan.Execute(); err == nil {
				xs = append(xs, x)
				placed++
			}
		}
		for j, x := range xs {
			r, err := neuroncore.SimulateExecution(x)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			ra, err := neuroncore.SimulateAllReaders(x)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			a, b := r.Timeline, ra.Timeline
			t.Logf("%s (placed %v): %d steps, %d edges (%d with the redundant ones), %d ps", e.ID, j == 1, len(x.Events), len(r.Graph.Edges), len(ra.Graph.Edges), a.Makespan)
			if a.Makespan != b.Makespan || !slices.Equal(a.Start, b.Start) || !slices.Equal(a.End, b.End) {
				t.Errorf("%s (placed %v): the times differ without the redundant edges: %d ps, with them %d ps", e.ID, j == 1, a.Makespan, b.Makespan)
			}
		}
	}
	if placed < 3 {
		t.Errorf("only %d corpus3 kernels placed and compared", placed)
	}
}
