package alloc

import (
	"cmp"
	"container/heap"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"slices"
	"sort"

	"github.com/npukit/npukit/diag"
)

// Rule IDs of the allocation validator.
const (
	RuleOverlap        = "alloc/overlap"
	RuleCapacity       = "alloc/capacity"
	RuleNegativeOffset = "alloc/negative-offset"
	RuleAlignment      = "alloc/alignment"
	RuleFixedOffset    = "alloc/fixed-offset"
	RuleSolutionSize   = "alloc/solution-size"
	RuleOverPeak       = "alloc/peak-over-capacity"
	RuleEndConvention  = "alloc/end-convention"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleOverlap, Severity: diag.Error, Description: "two buffers alive at the same time overlap in memory"},
		diag.Rule{ID: RuleCapacity, Severity: diag.Error, Description: "a buffer ends beyond the capacity"},
		diag.Rule{ID: RuleNegativeOffset, Severity: diag.Error, Description: "a buffer is placed at a negative offset"},
		diag.Rule{ID: RuleAlignment, Severity: diag.Error, Description: "a buffer's offset is not a multiple of its alignment"},
		diag.Rule{ID: RuleFixedOffset, Severity: diag.Error, Description: "a buffer with a fixed offset is placed elsewhere"},
		diag.Rule{ID: RuleSolutionSize, Severity: diag.Error, Description: "the solution does not give one offset per buffer"},
		diag.Rule{ID: RuleOverPeak, Severity: diag.Error, Description: "the bytes alive at some time exceed the capacity, so no placement exists"},
		diag.Rule{ID: RuleEndConvention, Severity: diag.Warning, Description: "with the `end` column read as inclusive (MiniMalloc's convention) more bytes are alive at once than the capacity, but with half-open ends they fit: the file probably writes half-open ends under `end` (as MiniMalloc's own files did for a while); rename the column to `upper` to read it so"},
	)
}

// Piece is a part of a buffer's footprint: during [T0, T1) it occupies
// [offset+Lo, offset+Hi).
type Piece struct {
	T0, T1 int64
	Lo, Hi int64
}

// Pieces returns the footprint of b in time order: its lifespan split by
// its gaps. A gap without a window removes the buffer for its duration; a
// gap with a window shrinks it to that window. Empty pieces are dropped.
func Pieces(b *Buffer) []Piece {
	if b.Size <= 0 || b.Upper <= b.Lower {
		return nil
	}
	if len(b.Gaps) == 0 {
		return []Piece{{b.Lower, b.Upper, 0, b.Size}}
	}
	cuts := []int64{b.Lower, b.Upper}
	for _, g := range b.Gaps {
		for _, t := range []int64{g.Lower, g.Upper} {
			if t > b.Lower && t < b.Upper {
				cuts = append(cuts, t)
			}
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	var out []Piece
	for i := 0; i+1 < len(cuts); i++ {
		t0, t1 := cuts[i], cuts[i+1]
		if t0 == t1 {
			continue
		}
		lo, hi := int64(0), b.Size
		for _, g := range b.Gaps {
			if g.Lower <= t0 && t1 <= g.Upper {
				if g.Window == nil {
					lo, hi = 0, 0
				} else {
					lo, hi = max(lo, g.Window.Lo), min(hi, g.Window.Hi)
				}
			}
		}
		if hi <= lo {
			continue
		}
		if n := len(out); n > 0 && out[n-1].T1 == t0 && out[n-1].Lo == lo && out[n-1].Hi == hi {
			out[n-1].T1 = t1
			continue
		}
		out = append(out, Piece{t0, t1, lo, hi})
	}
	return out
}

func bufLoc(p *Problem, i int) string {
	return fmt.Sprintf("buffer %s (row %d)", p.Buffers[i].ID, i+1)
}

// Validate checks a solution against its problem and reports every
// violation: offsets below zero or ending beyond the capacity, misaligned
// offsets, moved fixed offsets, and every pair of buffers that overlap in
// both time and memory.
func Validate(p *Problem, sol *Solution) diag.Report {
	var rep diag.Report
	if sol == nil || len(sol.Offsets) != len(p.Buffers) {
		n := 0
		if sol != nil {
			n = len(sol.Offsets)
		}
		rep.Add(RuleSolutionSize, "", "%d offsets for %d buffers", n, len(p.Buffers))
		return rep
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		off := sol.Offsets[i]
		if off < 0 {
			rep.Add(RuleNegativeOffset, bufLoc(p, i), "offset %d is negative", off)
		}
		if off+b.Size > p.Capacity || off+b.Size < off {
			rep.Add(RuleCapacity, bufLoc(p, i), "occupies [%d, %d), beyond the capacity %d", off, off+b.Size, p.Capacity)
		}
		if b.Alignment > 1 && off%b.Alignment != 0 {
			rep.Add(RuleAlignment, bufLoc(p, i), "offset %d is not a multiple of the alignment %d", off, b.Alignment)
		}
		if b.Fixed && off != b.Offset {
			rep.Add(RuleFixedOffset, bufLoc(p, i), "placed at %d, but its offset is fixed at %d", off, b.Offset)
		}
	}
	cs, truncated := conflicts(p, sol.Offsets)
	for _, c := range cs {
		rep.Add(RuleOverlap, bufLoc(p, c.i), "overlaps buffer %s (row %d) during [%d, %d) in [%d, %d)",
			p.Buffers[c.j].ID, c.j+1, c.t0, c.t1, c.a0, c.a1)
	}
	if truncated {
		rep.Add(RuleOverlap, "", "more overlapping pairs not listed (the first %d are)", maxConflicts)
	}
	return rep
}

type conflict struct {
	i, j   int
	t0, t1 int64
	a0, a1 int64
}

// maxConflicts bounds the overlapping pairs listed: a placement with
// every buffer at offset 0 has n^2/2 of them.
const maxConflicts = 10000

// conflicts lists overlapping pairs (i < j), with the first time and
// memory range where they meet, in a sweep over lifespans; every pair
// unless there are more than maxConflicts (then truncated is true and
// the first maxConflicts found are returned).
func conflicts(p *Problem, offs []int64) (out []conflict, truncated bool) {
	n := len(p.Buffers)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Buffers[order[a]].Lower < p.Buffers[order[b]].Lower })
	pieces := make([][]Piece, n)
	gaps := false
	for i := range p.Buffers {
		pieces[i] = Pieces(&p.Buffers[i])
		gaps = gaps || len(p.Buffers[i].Gaps) > 0
	}
	add := func(i, j int) bool {
		if c, ok := meet(pieces[i], offs[i], pieces[j], offs[j]); ok {
			c.i, c.j = min(i, j), max(i, j)
			out = append(out, c)
			if len(out) >= maxConflicts {
				truncated = true
				return false
			}
		}
		return true
	}
	// Fast path (no gaps): while the buffers alive are pairwise disjoint
	// in memory, kept sorted by offset their ends are sorted too, so the
	// ones a new buffer meets are found by a binary search and a short
	// scan. Once a pair meets, the rest of the sweep scans every buffer
	// alive (a placement that is wrong anyway).
	fast := !gaps
	var active []int // sorted by (offset, index) on the fast path
	less := func(a, b int) bool { return offs[a] < offs[b] || (offs[a] == offs[b] && a < b) }
	// ends holds the fast path's alive buffers by end time (a min-heap),
	// so expiring them costs O(log n) each rather than a scan per buffer.
	ends := &endHeap{p: p}
	for _, i := range order {
		b := &p.Buffers[i]
		if fast {
			for ends.Len() > 0 && p.Buffers[ends.idx[0]].Upper <= b.Lower {
				j := heap.Pop(ends).(int)
				pos, _ := slices.BinarySearchFunc(active, j, func(a, j int) int {
					if less(a, j) {
						return -1
					}
					if a == j {
						return 0
					}
					return 1
				})
				active = slices.Delete(active, pos, pos+1)
			}
		} else {
			keep := active[:0]
			for _, j := range active {
				if p.Buffers[j].Upper > b.Lower {
					keep = append(keep, j)
				}
			}
			active = keep
		}
		if len(pieces[i]) == 0 {
			continue
		}
		if fast {
			// First alive buffer starting at or past i's end.
			end := offs[i] + b.Size
			k := sort.Search(len(active), func(x int) bool { return offs[active[x]] >= end })
			found := false
			for x := k - 1; x >= 0; x-- {
				j := active[x]
				if offs[j]+p.Buffers[j].Size <= offs[i] {
					break
				}
				found = true
				if !add(i, j) {
					return out, truncated
				}
			}
			pos := sort.Search(len(active), func(x int) bool { return less(i, active[x]) })
			active = slices.Insert(active, pos, i)
			heap.Push(ends, i)
			if found {
				fast = false
			}
			continue
		}
		for _, j := range active {
			if !add(i, j) {
				return out, truncated
			}
		}
		active = append(active, i)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].i != out[b].i {
			return out[a].i < out[b].i
		}
		return out[a].j < out[b].j
	})
	return out, truncated
}

// endHeap orders buffer indices by their lifespan's end.
type endHeap struct {
	p   *Problem
	idx []int
}

func (h *endHeap) Len() int { return len(h.idx) }
func (h *endHeap) Less(a, b int) bool {
	return h.p.Buffers[h.idx[a]].Upper < h.p.Buffers[h.idx[b]].Upper
}
func (h *endHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *endHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *endHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

func meet(pa []Piece, oa int64, pb []Piece, ob int64) (conflict, bool) {
	for _, x := range pa {
		for _, y := range pb {
			t0, t1 := max(x.T0, y.T0), min(x.T1, y.T1)
			if t0 >= t1 {
				continue
			}
			a0, a1 := max(oa+x.Lo, ob+y.Lo), min(oa+x.Hi, ob+y.Hi)
			if a0 < a1 {
				return conflict{t0: t0, t1: t1, a0: a0, a1: a1}, true
			}
		}
	}
	return conflict{}, false
}

// Height is the highest end offset of a solution: max(offset + size).
func Height(p *Problem, sol *Solution) int64 {
	var h int64
	for i, b := range p.Buffers {
		if b.Size > 0 {
			h = max(h, sol.Offsets[i]+b.Size)
		}
	}
	return h
}

// Peak is the largest number of bytes alive at one time: a lower bound on
// the capacity of any solution (buffers' footprints, gaps honoured).
func Peak(p *Problem) int64 {
	// Starts and ends apart, each sorted by time only, then merged with
	// the ends of a moment before its starts (half-open lifetimes): on
	// 10^6 buffers this is a third of the time of one sort of all events
	// by time and sign (Peak runs several times per solve).
	type ev struct{ t, d int64 }
	starts := make([]ev, 0, len(p.Buffers))
	ends := make([]ev, 0, len(p.Buffers))
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) == 0 {
			// One piece, without building it (no allocation per buffer).
			if b.Size > 0 && b.Upper > b.Lower {
				starts = append(starts, ev{b.Lower, b.Size})
				ends = append(ends, ev{b.Upper, b.Size})
			}
			continue
		}
		for _, pc := range Pieces(b) {
			starts = append(starts, ev{pc.T0, pc.Hi - pc.Lo})
			ends = append(ends, ev{pc.T1, pc.Hi - pc.Lo})
		}
	}
	byTime := func(a, b ev) int { return cmp.Compare(a.t, b.t) }
	slices.SortFunc(starts, byTime)
	slices.SortFunc(ends, byTime)
	var cur, peak int64
	k := 0
	for _, s := range starts {
		for k < len(ends) && ends[k].t <= s.t {
			cur -= ends[k].d
			k++
		}
		cur += s.d
		peak = max(peak, cur)
	}
	return peak
}

// CheckProblem verifies a problem on its own: the bytes alive at one time
// fit the capacity (when it is known, > 0), fixed offsets are aligned,
// within capacity and do not overlap each other.
func CheckProblem(p *Problem) diag.Report {
	var rep diag.Report
	if p.Capacity > 0 {
		if pk := Peak(p); pk > p.Capacity {
			rep.Add(RuleOverPeak, "", "%s bytes are alive at once, more than the capacity %s", humanize.Count(pk), humanize.Count(p.Capacity))
		}
	}
	var fixed Problem
	fixed.Capacity = p.Capacity
	var offs []int64
	var idx []int
	for i, b := range p.Buffers {
		if !b.Fixed {
			continue
		}
		fixed.Buffers = append(fixed.Buffers, b)
		offs = append(offs, b.Offset)
		idx = append(idx, i)
		if b.Alignment > 1 && b.Offset%b.Alignment != 0 {
			rep.Add(RuleAlignment, bufLoc(p, i), "fixed offset %d is not a multiple of the alignment %d", b.Offset, b.Alignment)
		}
		if b.Offset < 0 {
			rep.Add(RuleNegativeOffset, bufLoc(p, i), "fixed offset %d is negative", b.Offset)
		}
		if p.Capacity > 0 && b.Offset+b.Size > p.Capacity {
			rep.Add(RuleCapacity, bufLoc(p, i), "fixed at [%d, %d), beyond the capacity %d", b.Offset, b.Offset+b.Size, p.Capacity)
		}
	}
	cs, truncated := conflicts(&fixed, offs)
	if truncated {
		rep.Add(RuleOverlap, "", "more overlapping fixed pairs not listed (the first %d are)", maxConflicts)
	}
	for _, c := range cs {
		i, j := idx[c.i], idx[c.j]
		rep.Add(RuleOverlap, bufLoc(p, i), "fixed offset overlaps fixed buffer %s (row %d) during [%d, %d) in [%d, %d)",
			p.Buffers[j].ID, j+1, c.t0, c.t1, c.a0, c.a1)
	}
	return rep
}
