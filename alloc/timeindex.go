package alloc

import (
	"cmp"
	"slices"
)

// timeIndex answers "which buffers are alive at some moment of [l, u)"
// without a conflict graph: on real traces (IOPDDL S_1: 28k buffers,
// 43M pairs alive together) the graph alone would take hundreds of MB.
// Buffers are sorted by start; at every step-th start (a checkpoint) the
// index keeps the buffers that started earlier and are still alive. A
// buffer that meets [l, u) either started before the last checkpoint at
// or before l, and then is alive at that checkpoint, or started between
// that checkpoint and u: two disjoint candidate lists, no duplicates.
type timeIndex struct {
	order  []int32 // buffers with a footprint, by Lower
	lowers []int64 // Lower of order[k]
	uppers []int64 // Upper of order[k]
	upper  []int64 // Upper of buffer i (compact: the scans stay in cache)
	marks  []int   // checkpoint c sits at order position marks[c]
	alive  [][]int32
}

// indexStep is the number of starts between two checkpoints: memory is
// (buffers/indexStep) x (buffers alive together), a query scans at most
// indexStep extra starts.
const indexStep = 64

func newTimeIndex(p *Problem) *timeIndex {
	ix := &timeIndex{}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Size > 0 && b.Upper > b.Lower {
			ix.order = append(ix.order, int32(i))
		}
	}
	slices.SortFunc(ix.order, func(a, b int32) int {
		return cmp.Compare(p.Buffers[a].Lower, p.Buffers[b].Lower)
	})
	ix.lowers = make([]int64, len(ix.order))
	ix.uppers = make([]int64, len(ix.order))
	ix.upper = make([]int64, len(p.Buffers))
	for k, i := range ix.order {
		ix.lowers[k] = p.Buffers[i].Lower
		ix.uppers[k] = p.Buffers[i].Upper
	}
	for i := range p.Buffers {
		ix.upper[i] = p.Buffers[i].Upper
	}
	// Checkpoints sit at the first buffer of a start time, so that every
	// buffer before the position started strictly earlier.
	var live []int32
	last := 0
	for k := 0; k < len(ix.order); k++ {
		if k > 0 && ix.lowers[k] == ix.lowers[k-1] {
			continue
		}
		if len(ix.marks) > 0 && k-ix.marks[len(ix.marks)-1] < indexStep {
			continue
		}
		t := ix.lowers[k]
		keep := live[:0]
		for _, j := range live {
			if p.Buffers[j].Upper > t {
				keep = append(keep, j)
			}
		}
		live = keep
		for _, j := range ix.order[last:k] {
			if p.Buffers[j].Upper > t {
				live = append(live, j)
			}
		}
		last = k
		ix.marks = append(ix.marks, k)
		ix.alive = append(ix.alive, slices.Clone(live))
	}
	return ix
}

// each calls f for every buffer alive at some moment of [l, u).
func (ix *timeIndex) each(p *Problem, l, u int64, f func(j int32)) {
	if len(ix.marks) == 0 {
		return
	}
	// The last checkpoint whose time is <= l.
	c, _ := slices.BinarySearchFunc(ix.marks, l, func(k int, t int64) int {
		if ix.lowers[k] <= t {
			return -1
		}
		return 1
	})
	from := 0
	if c > 0 {
		c--
		for _, j := range ix.alive[c] {
			if ix.upper[j] > l {
				f(j)
			}
		}
		from = ix.marks[c]
	}
	for k := from; k < len(ix.order) && ix.lowers[k] < u; k++ {
		if ix.uppers[k] > l {
			f(ix.order[k])
		}
	}
}
