package alloc

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// bruteForce decides feasibility by trying every aligned offset of every
// buffer (no canonical reasoning): the reference for the exact solver.
func bruteForce(p *Problem) bool {
	n := len(p.Buffers)
	pieces := make([][]Piece, n)
	for i := range p.Buffers {
		pieces[i] = Pieces(&p.Buffers[i])
	}
	offs := make([]int64, n)
	var try func(i int) bool
	try = func(i int) bool {
		if i == n {
			return true
		}
		b := &p.Buffers[i]
		lo, hi := int64(0), p.Capacity-b.Size
		if b.Fixed {
			lo, hi = b.Offset, b.Offset
			if b.Offset < 0 || b.Offset+b.Size > p.Capacity {
				return false
			}
		}
		for x := lo; x <= hi; x++ {
			if b.Alignment > 1 && x%b.Alignment != 0 {
				continue
			}
			ok := true
			for j := 0; j < i && ok; j++ {
				if _, hit := meet(pieces[i], x, pieces[j], offs[j]); hit {
					ok = false
				}
			}
			if ok {
				offs[i] = x
				if try(i + 1) {
					return true
				}
			}
		}
		return false
	}
	return try(0)
}

func randomProblem(r *rand.Rand, windows bool) *Problem {
	n := 1 + r.IntN(6)
	p := &Problem{Capacity: int64(2 + r.IntN(11))}
	for i := 0; i < n; i++ {
		lo := int64(r.IntN(8))
		b := Buffer{ID: string(rune('a' + i)), Lower: lo, Upper: lo + int64(r.IntN(6)), Size: int64(r.IntN(7))}
		if r.IntN(4) == 0 {
			b.Alignment = int64(1 + r.IntN(4))
		}
		if r.IntN(6) == 0 {
			b.Fixed, b.Offset = true, int64(r.IntN(int(p.Capacity)))
		}
		if r.IntN(5) == 0 && b.Upper-b.Lower > 2 {
			g := Gap{Lower: b.Lower + 1, Upper: b.Lower + 1 + int64(r.IntN(int(b.Upper-b.Lower-1)))}
			if windows && r.IntN(2) == 0 && b.Size > 1 {
				g.Window = &Window{Lo: 0, Hi: 1 + int64(r.IntN(int(b.Size-1)))}
			}
			b.Gaps = []Gap{g}
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

func TestExactMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[Status]int{}
	for iter := 0; iter < 5000; iter++ {
		p := randomProblem(r, false)
		want := bruteForce(p)
		for _, workers := range []int{1, 2} {
			sol, st, err := Exact(context.Background(), p, Options{Workers: workers})
			if err != nil {
				t.Fatalf("problem %d: %v", iter, err)
			}
			counts[st]++
			if (st == Solved) != want || st == TimedOut {
				t.Fatalf("problem %d %+v: status %v, brute force says feasible=%v", iter, p, st, want)
			}
			if st == Solved {
				if rep := Validate(p, sol); len(rep) > 0 {
					t.Fatalf("problem %d %+v: invalid solution %v: %v", iter, p, sol.Offsets, rep)
				}
			}
		}
	}
	if counts[Solved] < 1000 || counts[Infeasible] < 1000 {
		t.Errorf("unbalanced random problems: %v", counts)
	}
}

// The search itself (not the heuristic shortcut) must agree too: tight
// problems where the greedy placement fails.
func TestSearchMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	searched := 0
	for iter := 0; iter < 40000 && searched < 1500; iter++ {
		p := randomProblem(r, false)
		p.Buffers = append(p.Buffers, randomProblem(r, false).Buffers...)
		p.Buffers = p.Buffers[:min(len(p.Buffers), 8)]
		for i := range p.Buffers {
			p.Buffers[i].ID = string(rune('a' + i))
		}
		if len(Validate(p, Heuristic(p))) == 0 || CheckProblem(p).HasErrors() {
			continue
		}
		searched++
		want := bruteForce(p)
		sol, st, err := Exact(context.Background(), p, Options{Workers: 1 + iter%2})
		if err != nil || st == TimedOut {
			t.Fatalf("problem %d: %v %v", iter, st, err)
		}
		if (st == Solved) != want {
			t.Fatalf("problem %d %+v: status %v, brute force says feasible=%v", iter, p, st, want)
		}
		if st == Solved {
			if rep := Validate(p, sol); len(rep) > 0 {
				t.Fatalf("problem %d: invalid solution %v: %v", iter, sol.Offsets, rep)
			}
		}
	}
	if searched < 500 {
		t.Errorf("only %d problems reached the search", searched)
	}
}

func TestExactWindowedGapsAreSound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 3000; iter++ {
		p := randomProblem(r, true)
		want := bruteForce(p)
		sol, st, err := Exact(context.Background(), p, Options{Workers: 1})
		switch st {
		case Solved:
			if rep := Validate(p, sol); len(rep) > 0 {
				t.Fatalf("problem %d: invalid solution: %v", iter, rep)
			}
		case Infeasible:
			if want {
				t.Fatalf("problem %d %+v: claimed infeasible, brute force found a placement", iter, p)
			}
		case TimedOut:
			if !errors.Is(err, ErrWindowedGaps) {
				t.Fatalf("problem %d: timed out: %v", iter, err)
			}
		}
	}
}

func TestExactTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &Problem{Capacity: 10, Buffers: []Buffer{{ID: "a", Lower: 0, Upper: 2, Size: 6}, {ID: "b", Lower: 1, Upper: 3, Size: 6}}}
	if _, st, err := Exact(ctx, p, Options{}); st != Infeasible || err != nil {
		// Trivially infeasible problems are answered before the search.
		t.Logf("status %v err %v", st, err)
	}
}
