package alloc

import (
	"context"
	"math"
	"slices"
)

// Peak-first placement, for problems too large for one exact search.
//
// The buffers alive around the moment of the live-bytes peak must stack
// within the capacity there with (almost) no room to spare, and how they
// stack decides what fits around them later. So the buffers alive in a
// short window of time around the peak are placed first, by the exact
// search at the peak as capacity (a few hundred to a few thousand buffers,
// nearly all alive together, which it handles), then kept fixed while the
// greedy places the rest around them. On a trace whose tight spot is the
// peak (MindSpore SOMAS PanGu 2.6B) this reaches the peak itself, a proven
// minimum, where every greedy order leaves 0.7-3% of fragmentation.
//
// The window is also a lower bound: any placement of the whole problem
// places the window's buffers, so when the window does not fit at the
// peak, the window's own smallest capacity bounds the problem's from
// below, better than the peak.

// peakWindows are the half-widths of the windows tried, in distinct event
// times on either side of the peak.
var peakWindows = []int{8, 32}

// peakFirst improves best (and best.LowerBound) with peak-first
// placements, each window's exact search bounded by perWindow work.
func peakFirst(ctx context.Context, p *Problem, best *Minimum, perWindow int64, workers int) {
	if !improvable(p) {
		return
	}
	times, tp := peakMoment(p)
	if len(times) == 0 {
		return
	}
	k, _ := slices.BinarySearch(times, tp)
	seen := -1
	for _, w := range peakWindows {
		if ctxErr(ctx) != nil || best.Capacity <= best.LowerBound {
			return
		}
		t0, t1 := times[max(0, k-w)], times[min(len(times)-1, k+w)]+1
		sub := &Problem{Capacity: best.LowerBound}
		var idx []int
		for i := range p.Buffers {
			b := &p.Buffers[i]
			if b.Size > 0 && b.Lower < t1 && t0 < b.Upper {
				sub.Buffers = append(sub.Buffers, *b)
				idx = append(idx, i)
			}
		}
		if len(idx) == seen || len(idx) == 0 {
			continue // the same window as the last one
		}
		seen = len(idx)
		sol, st, _ := Exact(ctx, sub, Options{Workers: workers, Budget: perWindow})
		switch st {
		case Infeasible:
			// The window alone needs more than the peak: its minimum
			// is a better lower bound (only a proven one is kept).
			m, err := Minimize(ctx, sub, Exact, Options{Workers: workers, Budget: perWindow})
			bound := sub.Capacity + 1
			if err == nil && m.LowerBound > bound {
				bound = m.LowerBound
			}
			best.LowerBound = max(best.LowerBound, bound)
			if err != nil {
				continue
			}
			sol = m.Solution // the window at its smallest capacity found
		case Solved:
		default:
			continue
		}
		q := &Problem{Capacity: math.MaxInt64 / 4, Buffers: slices.Clone(p.Buffers)}
		for n, i := range idx {
			q.Buffers[i].Fixed, q.Buffers[i].Offset = true, sol.Offsets[n]
		}
		if s := heuristic(ctx, q); s != nil {
			// Never below the bound: an empty fixed buffer past the
			// height still needs its offset within the capacity.
			if h := max(Height(q, s), best.LowerBound); h < best.Capacity {
				best.Capacity, best.Solution = h, s
			}
		}
	}
}

// peakMoment returns the distinct times at which buffers start or end,
// sorted, and the first moment at which the most bytes are alive.
func peakMoment(p *Problem) ([]int64, int64) {
	evs := loadEvents(p)
	var times []int64
	var cur, peak, tp int64
	for k, e := range evs {
		cur += e.d
		if k+1 == len(evs) || evs[k+1].t != e.t {
			times = append(times, e.t)
			if cur > peak {
				peak, tp = cur, e.t
			}
		}
	}
	return times, tp
}

// improvable reports whether p has no gaps (every buffer occupies its
// whole range for its whole life), which the time-window methods assume.
func improvable(p *Problem) bool {
	for i := range p.Buffers {
		if len(p.Buffers[i].Gaps) > 0 {
			return false
		}
	}
	return true
}
