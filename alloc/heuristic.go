package alloc

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// span is an occupied address range [lo, hi).
type span struct{ lo, hi int64 }

// alignUp rounds x up to a multiple of a (a <= 1 means no alignment).
func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	if r := x % a; r != 0 {
		return x + a - r
	}
	return x
}

// lowestFit returns the lowest aligned x >= from such that [x, x+size)
// misses every span in busy (sorted by lo).
func lowestFit(busy []span, from, size, align int64) int64 {
	x := alignUp(from, align)
	for _, s := range busy {
		if s.hi <= x {
			continue
		}
		if s.lo >= x+size {
			break
		}
		x = alignUp(s.hi, align)
	}
	return x
}

// Heuristic places buffers greedily, largest first (then longest-lived),
// each at the lowest aligned offset that misses every buffer already
// placed and alive at the same time; fixed buffers stay where they are.
// It is fast (a quick first answer) but gives no guarantee: the returned
// placement may exceed the capacity (see Height).
func Heuristic(p *Problem) *Solution {
	return heuristic(context.Background(), p)
}

// HeuristicContext is Heuristic that gives up (nil) once ctx is done: it
// costs O(n^2) on n buffers alive together.
func HeuristicContext(ctx context.Context, p *Problem) *Solution {
	return heuristic(ctx, p)
}

func heuristic(ctx context.Context, p *Problem) *Solution {
	return greedy(ctx, p, true)
}

// greedy is the heuristic; scan allows the offset-ordered scan when no
// buffer has a window (tests compare both paths).
func greedy(ctx context.Context, p *Problem, scan bool) *Solution {
	// Its preparation alone (pieces, sort) takes a second on 10^6
	// buffers: not started, nor continued, past the deadline.
	if ctxErr(ctx) != nil {
		return nil
	}
	n := len(p.Buffers)
	sol := &Solution{Offsets: make([]int64, n)}
	pieces := make([][]Piece, n)
	var order []int
	var placed []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		pieces[i] = Pieces(b)
		switch {
		case b.Fixed:
			sol.Offsets[i] = b.Offset
			if len(pieces[i]) > 0 {
				placed = append(placed, i)
			}
		case len(pieces[i]) == 0:
			sol.Offsets[i] = 0
		default:
			order = append(order, i)
		}
	}
	sizeOrder(p, order)
	if ctxErr(ctx) != nil {
		return nil
	}
	// Without windowed gaps every piece covers the whole buffer, so the
	// busy ranges of buffer i are the placed buffers' own ranges: kept
	// sorted by offset, the lowest fit is a scan that stops at the first
	// hole, with no per-buffer sort (O(n) per buffer rather than
	// O(n log n) on n buffers alive together).
	whole := scan
	for i := range pieces {
		for _, pc := range pieces[i] {
			whole = whole && pc.Lo == 0 && pc.Hi == p.Buffers[i].Size
		}
	}
	if whole {
		byOff := slices.Clone(placed)
		slices.SortFunc(byOff, func(a, b int) int { return cmp.Compare(sol.Offsets[a], sol.Offsets[b]) })
		for done, i := range order {
			if done&255 == 255 && ctxErr(ctx) != nil {
				return nil
			}
			size, align := p.Buffers[i].Size, p.Buffers[i].Alignment
			x := alignUp(0, align)
			for _, j := range byOff {
				oj := sol.Offsets[j]
				hi := oj + p.Buffers[j].Size
				if hi <= x {
					continue
				}
				if oj >= x+size {
					break
				}
				if meetTime(pieces[i], pieces[j]) {
					x = alignUp(hi, align)
				}
			}
			sol.Offsets[i] = x
			pos, _ := slices.BinarySearchFunc(byOff, x, func(j int, x int64) int { return cmp.Compare(sol.Offsets[j], x) })
			byOff = slices.Insert(byOff, pos, i)
		}
		return sol
	}
	var busy []span
	for done, i := range order {
		if done&255 == 255 && ctxErr(ctx) != nil {
			return nil
		}
		busy = busy[:0]
		for _, j := range placed {
			for _, pi := range pieces[i] {
				for _, pj := range pieces[j] {
					if pi.T0 < pj.T1 && pj.T0 < pi.T1 {
						// i at x collides with j when x+pi.Lo < oj+pj.Hi and
						// oj+pj.Lo < x+pi.Hi: forbid x in (oj+pj.Lo-pi.Hi, oj+pj.Hi-pi.Lo),
						// expressed as a busy range for a buffer of the same size.
						oj := sol.Offsets[j]
						busy = append(busy, span{oj + pj.Lo - pi.Hi + p.Buffers[i].Size, oj + pj.Hi - pi.Lo})
					}
				}
			}
		}
		slices.SortFunc(busy, func(a, c span) int { return cmp.Compare(a.lo, c.lo) })
		sol.Offsets[i] = lowestFit(busy, 0, p.Buffers[i].Size, p.Buffers[i].Alignment)
		placed = append(placed, i)
	}
	return sol
}

// meetTime reports whether two footprints share a moment.
func meetTime(a, b []Piece) bool {
	for _, x := range a {
		for _, y := range b {
			if x.T0 < y.T1 && y.T0 < x.T1 {
				return true
			}
		}
	}
	return false
}

// HeuristicSolver wraps Heuristic in the Solver contract: Solved when the
// greedy placement fits the capacity, TimedOut (undecided) otherwise.
func HeuristicSolver(ctx context.Context, p *Problem, _ Options) (*Solution, Status, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, TimedOut, err
	}
	sol := Heuristic(p)
	if len(Validate(p, sol)) == 0 {
		return sol, Solved, nil
	}
	return nil, TimedOut, nil
}

// bestFit is the size-ordered greedy placement choosing, for each buffer,
// the tightest hole among the placed buffers alive at the same time
// rather than the lowest: it fragments less on some real traces. Buffers
// with windowed gaps or alignment are left to greedy (nil).
func bestFit(ctx context.Context, p *Problem) *Solution {
	if ctxErr(ctx) != nil {
		return nil
	}
	n := len(p.Buffers)
	sol := &Solution{Offsets: make([]int64, n)}
	var byOff, order []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) > 0 || b.Alignment > 1 {
			return nil
		}
		switch {
		case b.Fixed:
			sol.Offsets[i] = b.Offset
			byOff = append(byOff, i)
		case b.Upper > b.Lower && b.Size > 0:
			order = append(order, i)
		}
	}
	slices.SortFunc(byOff, func(a, c int) int { return cmp.Compare(sol.Offsets[a], sol.Offsets[c]) })
	sizeOrder(p, order)
	for done, i := range order {
		if done&255 == 255 && ctxErr(ctx) != nil {
			return nil
		}
		bi := &p.Buffers[i]
		best, bestSlack, x := int64(-1), int64(math.MaxInt64), int64(0)
		for _, j := range byOff {
			bj := &p.Buffers[j]
			if !(bi.Lower < bj.Upper && bj.Lower < bi.Upper) {
				continue
			}
			if oj := sol.Offsets[j]; oj > x {
				if hole := oj - x; hole >= bi.Size && hole-bi.Size < bestSlack {
					best, bestSlack = x, hole-bi.Size
				}
			}
			x = max(x, sol.Offsets[j]+bj.Size)
		}
		if best < 0 {
			best = x
		}
		sol.Offsets[i] = best
		pos, _ := slices.BinarySearchFunc(byOff, best, func(j int, x int64) int { return cmp.Compare(sol.Offsets[j], x) })
		byOff = slices.Insert(byOff, pos, i)
	}
	return sol
}

// sizeOrder sorts buffer indices larger first, then longer-lived, then in
// file order. The keys are gathered first and the order is total, so an
// unstable sort over contiguous keys gives the stable result: on 10^6
// buffers sort.SliceStable over the buffers took seconds that no timeout
// could interrupt.
func sizeOrder(p *Problem, order []int) {
	type key struct {
		size, life int64
		i          int
	}
	keys := make([]key, len(order))
	for k, i := range order {
		b := &p.Buffers[i]
		keys[k] = key{b.Size, b.Upper - b.Lower, i}
	}
	slices.SortFunc(keys, func(x, y key) int {
		return cmp.Or(cmp.Compare(y.size, x.size), cmp.Compare(y.life, x.life), cmp.Compare(x.i, y.i))
	})
	for k := range keys {
		order[k] = keys[k].i
	}
}
