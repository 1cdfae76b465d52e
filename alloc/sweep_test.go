package alloc

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/npukit/npukit/internal/conformance"
)

// tracelike builds a long trace: n buffers in layers over time, a few
// alive for the whole run, sizes over four orders of magnitude.
func tracelike(r *rand.Rand, n int) *Problem {
	p := &Problem{}
	for i := 0; i < n; i++ {
		lo := int64(i / 4)
		life := int64(1 + r.IntN(12))
		if r.IntN(50) == 0 {
			life = int64(n)
		}
		p.Buffers = append(p.Buffers, Buffer{Lower: lo, Upper: lo + life, Size: int64(1) << r.IntN(14)})
	}
	return p
}

// bestFit and Sweep return valid placements (Sweep within the capacity, or
// nothing), and BestEffort is never worse than the greedy placement.
func TestIncompletePlacementsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for iter := 0; iter < 300; iter++ {
		p := randomProblem(r, false)
		if q := (Problem{Capacity: 1 << 40, Buffers: p.Buffers}); CheckProblem(&q).HasErrors() {
			continue // fixed buffers that overlap: no placement exists
		}
		q := *p
		q.Capacity = 1 << 40
		if s := bestFit(context.Background(), &q); s != nil {
			if rep := Validate(&q, s); len(rep) > 0 {
				t.Fatalf("bestFit %+v: %v", p, rep)
			}
		}
		if s := Sweep(context.Background(), p, SweepOptions{Window: 2}); s != nil {
			if rep := Validate(p, s); len(rep) > 0 {
				t.Fatalf("Sweep %+v: %v", p, rep)
			}
		}
	}
	for _, n := range []int{300, 2000} {
		p := tracelike(r, n)
		q := *p
		q.Capacity = 1 << 40
		g := Height(&q, Heuristic(&q))
		p.Capacity = Peak(p) + Peak(p)/100
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		b := BestEffort(ctx, p)
		if b == nil || len(Validate(&q, b)) > 0 || Height(&q, b) > g {
			t.Fatalf("n=%d: BestEffort height %d, greedy %d", n, Height(&q, b), g)
		}
		if s := Sweep(ctx, p, SweepOptions{Budget: 5e6}); s != nil && len(Validate(p, s)) > 0 {
			t.Fatalf("n=%d: Sweep placement invalid", n)
		}
	}
}

// The whole portfolio runs on one worker too: benchmark problems that only
// the dynamic strategy decides fast are solved with Workers 1 (pinned to one
// core, only the first strategy ran, and two of them took over a minute).
func TestOneWorkerRunsThePortfolio(t *testing.T) {
	dir := conformance.Benchmarks(t, "minimalloc")
	for _, path := range conformance.Files(t, dir, "*.csv") {
		c, _ := CapacityFromName(path)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := ReadCSV(f, c, Limits{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		sol, st, err := Exact(ctx, &tb.Problem, Options{Workers: 1})
		cancel()
		if st != Solved || len(Validate(&tb.Problem, sol)) > 0 {
			t.Errorf("%s: %v %v", filepath.Base(path), st, err)
		}
	}
}
