package alloc

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Sweep places a problem too large for one exact search by deciding it
// window by window along time: buffers are taken in order of their start,
// a window at a time, and each window is an exact sub-problem at the
// problem's capacity whose free buffers are the window's and whose fixed
// buffers are those already placed that live at the same time (their
// offsets stay). Real allocation traces (compiler SOMAS dumps, IOPDDL)
// hold tens of thousands of buffers but few alive together, so each window
// is small for the exact search, while the greedy placement of the whole
// problem loses a few percent to fragmentation.
//
// Sweep is not complete: a window decided early can leave a later one
// without room, so a failure (nil) proves nothing. It returns a valid
// placement within the capacity or nil.
func Sweep(ctx context.Context, p *Problem, opt SweepOptions) *Solution {
	n := len(p.Buffers)
	if opt.Window <= 0 {
		opt.Window = 192
	}
	if opt.Budget <= 0 {
		opt.Budget = sweepWork
	}
	left := opt.Budget
	order := make([]int, 0, n)
	sol := &Solution{Offsets: make([]int64, n)}
	var live []int // placed buffers that may still overlap later windows
	for i := range p.Buffers {
		b := &p.Buffers[i]
		switch {
		case b.Fixed:
			sol.Offsets[i] = b.Offset
			live = append(live, i)
		case b.Upper <= b.Lower || b.Size == 0:
		default:
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, c int) int {
		x, y := &p.Buffers[a], &p.Buffers[c]
		return cmp.Or(cmp.Compare(x.Lower, y.Lower), cmp.Compare(y.Size, x.Size))
	})
	windows := (len(order) + opt.Window - 1) / opt.Window
	for w := 0; w < windows; w++ {
		if ctxErr(ctx) != nil || left <= 0 {
			return nil
		}
		free := order[w*opt.Window : min(len(order), (w+1)*opt.Window)]
		// The free buffers' lifetimes as a union of intervals.
		spans := make([][2]int64, 0, len(free))
		for _, i := range free {
			spans = append(spans, [2]int64{p.Buffers[i].Lower, p.Buffers[i].Upper})
		}
		slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		union := spans[:0:0]
		for _, s := range spans {
			if k := len(union); k > 0 && s[0] <= union[k-1][1] {
				union[k-1][1] = max(union[k-1][1], s[1])
				continue
			}
			union = append(union, s)
		}
		start := union[0][0]
		// Drop placed buffers that ended before this window starts: windows
		// start no earlier than the previous ones.
		keep := live[:0]
		for _, i := range live {
			if p.Buffers[i].Upper > start || p.Buffers[i].Fixed {
				keep = append(keep, i)
			}
		}
		live = keep
		sub := Problem{Capacity: p.Capacity}
		var idx []int // sub-problem buffer -> problem buffer (free ones)
		for _, i := range free {
			sub.Buffers = append(sub.Buffers, p.Buffers[i])
			idx = append(idx, i)
		}
		for _, j := range live {
			b := p.Buffers[j]
			if !overlapsUnion(b.Lower, b.Upper, union) {
				continue
			}
			b.Offset, b.Fixed, b.Gaps = sol.Offsets[j], true, nil
			sub.Buffers = append(sub.Buffers, b)
		}
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if opt.PerWindow > 0 {
			wctx, cancel = context.WithTimeout(ctx, opt.PerWindow)
		}
		// Each window is charged its search's work and, for the
		// placements tried before it, its buffers squared.
		left -= int64(len(sub.Buffers)) * int64(len(sub.Buffers))
		s, st, _ := Exact(wctx, &sub, Options{Budget: max(left, 1), charge: func(w int64) { left -= w }})
		cancel()
		if st != Solved {
			return nil
		}
		for k, i := range idx {
			sol.Offsets[i] = s.Offsets[k]
		}
		live = append(live, free...)
	}
	if len(Validate(p, sol)) > 0 {
		return nil
	}
	return sol
}

// SweepOptions tunes Sweep.
type SweepOptions struct {
	// Window is the number of buffers decided together (default 192).
	Window int
	// Budget bounds the work of the whole sweep (Options.Budget's units;
	// default sweepWork): a sweep that runs out fails. It stops at the
	// same point on every machine.
	Budget int64
	// PerWindow, when set, also bounds each window's search in time
	// (then the answer may depend on the machine).
	PerWindow time.Duration
}

// sweepWork is the default work of a sweep: about five seconds on one
// core here.
const sweepWork = 2e8

func overlapsUnion(lo, hi int64, union [][2]int64) bool {
	k, _ := slices.BinarySearchFunc(union, lo, func(s [2]int64, t int64) int {
		if s[1] <= t {
			return -1
		}
		return 1
	})
	return k < len(union) && union[k][0] < hi
}
