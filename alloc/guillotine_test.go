package alloc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// guillotine cuts a capacity x time rectangle into n buffers: a perfect
// packing, so the problem is feasible at exactly that capacity (every
// moment is full), the tightest case for the solver's inference.
func guillotine(r *rand.Rand, n int, capa, T int64) *Problem {
	type rect struct{ t0, t1, a0, a1 int64 }
	rs := []rect{{0, T, 0, capa}}
	for len(rs) < n {
		i := r.IntN(len(rs))
		x := rs[i]
		if r.IntN(2) == 0 && x.t1-x.t0 > 1 {
			m := x.t0 + 1 + r.Int64N(x.t1-x.t0-1)
			rs[i] = rect{x.t0, m, x.a0, x.a1}
			rs = append(rs, rect{m, x.t1, x.a0, x.a1})
		} else if x.a1-x.a0 > 1 {
			m := x.a0 + 1 + r.Int64N(x.a1-x.a0-1)
			rs[i] = rect{x.t0, x.t1, x.a0, m}
			rs = append(rs, rect{x.t0, x.t1, m, x.a1})
		}
	}
	p := &Problem{Capacity: capa}
	for i, x := range rs {
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprint(i), Lower: x.t0, Upper: x.t1, Size: x.a1 - x.a0})
	}
	return p
}

func TestExactSolvesPerfectPackings(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 40; iter++ {
		n := 10 + iter*3
		p := guillotine(r, n, 1<<12, 1<<12)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		sol, st, err := Exact(ctx, p, Options{})
		cancel()
		if st != Solved {
			t.Fatalf("perfect packing %d (%d buffers): %v %v", iter, n, st, err)
		}
		if rep := Validate(p, sol); len(rep) > 0 {
			t.Fatalf("perfect packing %d: %v", iter, rep)
		}
		// One byte less is infeasible: every moment is full.
		p.Capacity--
		if _, st, _ := Exact(context.Background(), p, Options{}); st != Infeasible {
			t.Fatalf("perfect packing %d at capacity-1: %v", iter, st)
		}
	}
}
