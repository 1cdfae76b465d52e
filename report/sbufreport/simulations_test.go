package sbufreport

import (
	"testing"

	"github.com/npukit/npukit/internal/simhook"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
)

// A kernel's page simulates each plan once: the plan as checked (the
// run "Simulated time" gives and the timeline draws) and each placement
// the search tries, the one drawn included (nki report simulated the plan
// and the placed plan twice each, 1.75 times the memory of nki sim).
// Simulations are counted per plan through neuroncore's hook.
func TestKernelPageSimulatesEachPlanOnce(t *testing.T) {
	m, err := nki.ReadManifest("../../examples/nki/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for i := range m.Entries {
		e := &m.Entries[i]
		res, err := nki.Trace(nki.OptionsFor(m, e))
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		arch, _ := neuroncore.ArchByName(e.NCVersion)
		ck, err := nki.CheckKernel(res, arch)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		seen := map[any]int{}
		restore := simhook.Set(func(p any) { seen[p]++ })
		page, err := KernelPage(ck, e.File)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if seen[ck.Plan] == 0 {
			t.Errorf("%s: the checked plan was not simulated", e.ID)
		}
		for p, n := range seen {
			if n > 1 {
				what := "a placement of the plan"
				if p == ck.Plan {
					what = "the checked plan"
				}
				t.Errorf("%s: %s simulated %d times", e.ID, what, n)
			}
		}
		for _, kv := range page.Summary {
			if kv.Key == "Simulated time, placed" {
				placed++
				if len(seen) < 2 {
					t.Errorf("%s: a placed time without a simulation of a placement", e.ID)
				}
			}
		}
	}
	if placed == 0 {
		t.Fatal("no example kernel's page has a placed time: the test sees no placement")
	}
}
