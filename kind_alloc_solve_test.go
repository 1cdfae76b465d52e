package npukit

import (
	"context"
	"strings"
	"testing"

	"github.com/npukit/npukit/alloc"
)

// Without a capacity SolveAlloc finds the smallest one (proven here);
// with too small a capacity it answers infeasible and says why.
func TestSolveAllocPolicy(t *testing.T) {
	csv := "id,lower,upper,size\na,0,2,400\nb,1,3,300\nc,2,4,500\n"
	tab, err := alloc.ReadCSV(strings.NewReader(csv), 0, alloc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := SolveAlloc(context.Background(), "p.csv", tab, alloc.OffsetsAuto, AllocSolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "solved" || !res.Minimized || !res.Proven || res.Capacity != res.Peak || res.Solution == nil {
		t.Fatalf("minimise: %+v", res)
	}
	tab, _ = alloc.ReadCSV(strings.NewReader(csv), res.Peak-1, alloc.Limits{})
	res, err = SolveAlloc(context.Background(), "p.csv", tab, alloc.OffsetsAuto, AllocSolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "infeasible" || res.Solution != nil || !strings.Contains(res.Message, "infeasible") && res.Message == "" {
		t.Fatalf("too small: %+v", res)
	}
}
