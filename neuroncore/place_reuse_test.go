package neuroncore

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/simhook"
)

// A placement's execution is the placed plan's unrolled body, as
// unrolling it again gives (the report draws it without unrolling
// again), and a search given the caller's run of the plan makes the same
// placement with one simulation fewer, none of the plan itself.
func TestPlaceReusesRunAndUnrolling(t *testing.T) {
	b, err := os.ReadFile("../examples/sbuf/too-few-tiles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.ReplaceAll(string(b), "alloc: {mod_alloc: {base_addr: 0, num_free_tiles: [2]}}", "alloc: auto")
	src = strings.ReplaceAll(src, "alloc: {mod_alloc: {base_addr: 2048, num_free_tiles: [2]}}", "alloc: auto")
	srcs := map[string]string{"too-few-tiles, automatic": src}
	if b, err := os.ReadFile("../examples/sbuf/place-32.yaml"); err == nil {
		srcs["place-32"] = string(b)
	} else {
		t.Fatal(err)
	}
	for name, src := range srcs {
		p := mustParse(t, src)
		x, err := p.Execute()
		if err != nil {
			t.Fatal(err)
		}
		count := func(f func()) map[any]int {
			seen := map[any]int{}
			defer simhook.Set(func(p any) { seen[p]++ })()
			f()
			return seen
		}
		var alone, given *Placement
		runs := count(func() {
			if alone, err = PlaceExecution(x, PlaceOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		r, err := SimulateExecution(x)
		if err != nil {
			t.Fatal(err)
		}
		runsGiven := count(func() {
			if given, err = PlaceExecution(x, PlaceOptions{Unbounded: r}); err != nil {
				t.Fatal(err)
			}
		})
		if runs[p] != 1 || runsGiven[p] != 0 {
			t.Errorf("%s: the plan itself simulated %d times alone, %d times given its run (want 1, 0)", name, runs[p], runsGiven[p])
		}
		if len(runsGiven) != len(runs)-1 || given.Evaluations != alone.Evaluations || given.TimeNs != alone.TimeNs ||
			given.UnboundedNs != alone.UnboundedNs || !reflect.DeepEqual(given.Tensors, alone.Tensors) {
			t.Errorf("%s: given the plan's run the search differs: %d plans simulated for %d, %+v for %+v", name, len(runsGiven), len(runs), given, alone)
		}
		got, err := given.Execution()
		if err != nil {
			t.Fatal(err)
		}
		want, err := given.Plan.Execute()
		if err != nil {
			t.Fatal(err)
		}
		if got.Plan != given.Plan || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the placement's execution is not the placed plan's unrolled body", name)
		}
	}
}
