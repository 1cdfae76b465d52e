package neuroncore

import (
	"context"
	"errors"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"sort"
	"strings"
	"time"

	"github.com/npukit/npukit/alloc"
)

// Byte placement through package alloc.
//
// Once every automatic tensor has its partitions (start partition and
// quadrant spread, chosen by fit), the byte offsets (SBUF) or banks (PSUM)
// of all tensors of one memory are one alloc.Problem:
//
//   - a buffer per tensor: its physical tiles side by side, Size the bytes
//     per partition they need (PSUM: banks, one physical tile per bank, so
//     that accumulation groups never share a bank), alignment the minimum
//     alignment of the memory, alive over the span of its tiles' lifetimes
//     in the unrolled step order;
//   - partition quadrants are independent memories that share the offset
//     axis: time is laid out quadrant-major (quadrant k, step s is time
//     k*T+s, T the number of steps), and a tensor covering quadrants
//     [qa, qb) is one buffer alive in each of them, with gaps between, so
//     that it keeps one offset in all its quadrants. Start partitions are
//     multiples of 32, so two tensors touching one quadrant both hold its
//     first partition: sharing a quadrant is a real overlap;
//   - the physical tiles of directly allocated tensors are fixed buffers
//     (per quadrant; obstacles that overlap each other are merged);
//   - capacity: the usable partition bytes (PSUM: the banks).
//
// alloc.Exact solves it (sound and complete; it tries alloc.Heuristic
// first) within a work budget (DefaultSolveBudget, or PlaceOptions.SolveTimeout
// in time when set); when it runs out alloc.Heuristic's
// placement is taken when it fits, else fit's first-fit offsets when they
// fit. Infeasible proves that these tile counts cannot be placed on these
// partitions; when no tensor had a choice of partitions (all wider than 64
// partitions) that proves the counts infeasible outright, else layoutAll
// tries a second choice (balancedPartitions) before giving up.

// DefaultSolveBudget bounds one exact solve of Place in work
// (alloc.Options.Budget's units, per search strategy): about 100 ms at the
// rate that option states (4*10^7 a second on one core), the time limit
// it replaced. A budget stops at the same point on every machine, so a
// placement does not depend on the load (100 ms did: the heuristic's
// placement was taken when the machine was busy).
const DefaultSolveBudget = 4e6

// quadrantPartitions is the size of a partition quadrant.
const quadrantPartitions = 32

// layoutAll places every automatic tensor at its current level: fit
// chooses each tensor's partitions (in placeOrder), then one alloc.Problem
// per memory gives the byte offsets (SBUF) and banks (PSUM). When that
// fails and some tensor had a choice of partitions, the partitions
// balancedPartitions chooses are tried too. It fails with a *placeError
// when the counts do not fit.
func layoutAll(a *Arch, pts []*placeTensor, fixed []rect, timeout time.Duration) ([]layout, error) {
	out := fitPartitions(a, pts, fixed)
	err := solveAll(a, pts, out, fixed, timeout)
	var pe *placeError
	if !errors.As(err, &pe) || pe.complete {
		return out, err
	}
	alt := balancedPartitions(a, pts, fixed)
	same := true
	for i := range alt {
		same = same && alt[i].p0 == out[i].p0 && alt[i].q == out[i].q
	}
	if !same {
		if err2 := solveAll(a, pts, alt, fixed, timeout); err2 == nil {
			return alt, nil
		}
	}
	return nil, err
}

// fitPartitions chooses every tensor's partitions with fit, in placeOrder.
func fitPartitions(a *Arch, pts []*placeTensor, fixed []rect) []layout {
	used := append([]rect(nil), fixed...)
	out := make([]layout, len(pts))
	for _, i := range placeOrder(pts) {
		pt := pts[i]
		l := fit(a, pt, used)
		out[i] = l
		used = append(used, rect{buf: pt.t.Buffer, p0: l.p0, p1: l.p0 + (l.q-1)*l.stride + pt.t.Partitions, u0: l.u0, u1: l.u0 + l.units, s: pt.s, e: pt.e})
	}
	return out
}

// solveAll sets the offsets of lay, one solve per memory.
func solveAll(a *Arch, pts []*placeTensor, lay []layout, fixed []rect, timeout time.Duration) error {
	for _, buf := range []Buffer{SBUF, PSUM} {
		var idx []int
		for i, pt := range pts {
			if pt.t.Buffer == buf {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		if err := solveOffsets(a, buf, pts, idx, lay, fixed, timeout); err != nil {
			return err
		}
	}
	return nil
}

// balancedPartitions chooses every tensor's partitions by load, in
// placeOrder: the candidate whose quadrants' peak (units alive at one step,
// directly allocated tensors included) ends lowest; ties go to the earlier
// candidate (fewer quadrants, lower start partition). Offsets are left 0.
func balancedPartitions(a *Arch, pts []*placeTensor, fixed []rect) []layout {
	nq := (int64(a.Partitions) + quadrantPartitions - 1) / quadrantPartitions
	T := 1
	for _, pt := range pts {
		T = max(T, pt.e, pt.s+1)
	}
	for _, r := range fixed {
		T = max(T, r.e)
	}
	load := map[Buffer][][]int64{}
	get := func(b Buffer) [][]int64 {
		if load[b] == nil {
			m := make([][]int64, nq)
			for k := range m {
				m[k] = make([]int64, T)
			}
			load[b] = m
		}
		return load[b]
	}
	add := func(b Buffer, p0, p1 int64, s, e int, units int64) {
		m := get(b)
		qa, qb := quadrants(p0, p1)
		for k := max(qa, 0); k < min(qb, nq); k++ {
			for t := max(s, 0); t < e; t++ {
				m[k][t] += units
			}
		}
	}
	for _, r := range fixed {
		add(r.buf, r.p0, r.p1, r.s, r.e, r.u1-r.u0)
	}
	out := make([]layout, len(pts))
	for _, i := range placeOrder(pts) {
		pt := pts[i]
		s, e := pt.s, max(pt.e, pt.s+1)
		m := get(pt.t.Buffer)
		var best layout
		bestPeak := int64(-1)
		for _, l := range candidates(a, pt) {
			qa, qb := quadrants(l.p0, l.p0+(l.q-1)*l.stride+pt.t.Partitions)
			peak := int64(0)
			for k := qa; k < min(qb, nq); k++ {
				for t := s; t < e; t++ {
					peak = max(peak, m[k][t]+l.units)
				}
			}
			if bestPeak < 0 || peak < bestPeak {
				best, bestPeak = l, peak
			}
		}
		out[i] = best
		add(pt.t.Buffer, best.p0, best.p0+(best.q-1)*best.stride+pt.t.Partitions, s, e, best.units)
	}
	return out
}

// placeError is a set of tile counts that could not be placed.
type placeError struct {
	msg string
	// proven: the exact solver proved that no placement exists (for the
	// partitions chosen; complete tells whether there was no other choice).
	proven, complete bool
}

func (e *placeError) Error() string { return e.msg }

// Is makes every placeError an ErrUnplaceable.
func (e *placeError) Is(target error) bool { return target == ErrUnplaceable }

// RejectedCounts is a set of physical tile counts the tile-count search
// tried and could not place.
type RejectedCounts struct {
	// Tiles lists tensor=count for every automatic tensor.
	Tiles string `json:"tiles"`
	// Reason: "infeasible" (the exact solver proved no placement exists),
	// "infeasible-partitions" (proved for the two partition choices tried,
	// fit's and balancedPartitions'; other partition choices were not
	// searched) or "timeout" (neither
	// the exact solver within its time limit nor the heuristic placed it).
	Reason string `json:"reason"`
}

func (e *placeError) reason() string {
	switch {
	case e.proven && e.complete:
		return "infeasible"
	case e.proven:
		return "infeasible-partitions"
	}
	return "timeout"
}

func countsOf(pts []*placeTensor) string {
	var b strings.Builder
	for i, pt := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", pt.t.Name, numElems(pt.tuple()))
	}
	return b.String()
}

// quadrants returns the quadrants [qa, qb) partitions [p0, p1) touch.
func quadrants(p0, p1 int64) (int64, int64) {
	return p0 / quadrantPartitions, (p1 + quadrantPartitions - 1) / quadrantPartitions
}

// spanBuffer is a buffer alive over steps [s, e) in quadrants [qa, qb)
// of the quadrant-major time axis with T steps per quadrant.
func spanBuffer(id string, qa, qb int64, s, e int, T int64) alloc.Buffer {
	b := alloc.Buffer{ID: id, Lower: qa*T + int64(s), Upper: (qb-1)*T + int64(e)}
	for k := qa; k+1 < qb; k++ {
		if g := (alloc.Gap{Lower: k*T + int64(e), Upper: (k+1)*T + int64(s)}); g.Lower < g.Upper {
			b.Gaps = append(b.Gaps, g)
		}
	}
	return b
}

// busyBuffer is a buffer busy over the intervals ivs (sorted, disjoint,
// within [0, T)) in each of the quadrants [qa, qb) of the quadrant-major
// time axis with T steps per quadrant: one offset, gaps wherever no tile
// of the tensor is alive.
func busyBuffer(id string, qa, qb int64, ivs [][2]int, T int64) alloc.Buffer {
	var b alloc.Buffer
	b.ID = id
	first := true
	var prevEnd int64
	for k := qa; k < qb; k++ {
		for _, iv := range ivs {
			s, e := k*T+int64(iv[0]), k*T+int64(iv[1])
			if first {
				b.Lower, first = s, false
			} else if s > prevEnd {
				b.Gaps = append(b.Gaps, alloc.Gap{Lower: prevEnd, Upper: s})
			}
			prevEnd = e
		}
	}
	b.Upper = prevEnd
	return b
}

// solveOffsets sets the offsets (u0) of the tensors idx (all in memory buf)
// of lay by one exact solve.
func solveOffsets(a *Arch, buf Buffer, pts []*placeTensor, idx []int, lay []layout, fixed []rect, timeout time.Duration) error {
	capacity, align := a.SBUFUsableBytes, a.SBUFAlign
	if buf == PSUM {
		capacity, align = int64(a.PSUMBanks), 1
	}
	life := func(pt *placeTensor) (int, int) {
		return pt.s, max(pt.e, pt.s+1) // a tensor never touched still gets a place
	}
	T := int64(1)
	for _, i := range idx {
		_, e := life(pts[i])
		T = max(T, int64(e))
	}
	for _, r := range fixed {
		T = max(T, int64(r.e))
	}
	prob := &alloc.Problem{Capacity: capacity}
	complete := true
	for _, i := range idx {
		pt, l := pts[i], lay[i]
		qa, qb := quadrants(l.p0, l.p0+(l.q-1)*l.stride+pt.t.Partitions)
		b := busyBuffer(pt.t.Name, qa, qb, pt.busy, T)
		b.Size, b.Alignment = l.units, align
		prob.Buffers = append(prob.Buffers, b)
		if len(candidates(a, pt)) > 1 {
			complete = false
		}
	}
	for _, o := range fixedObstacles(buf, fixed, capacity) {
		b := spanBuffer(fmt.Sprintf("direct@%d", o.u0), o.k, o.k+1, o.s, o.e, T)
		b.Size, b.Offset, b.Fixed = o.u1-o.u0, o.u0, true
		prob.Buffers = append(prob.Buffers, b)
	}
	// timeout > 0: a time limit the caller chose; else the work budget.
	ctx, cancel := context.WithCancel(context.Background())
	opt := alloc.Options{Workers: 1, Budget: DefaultSolveBudget}
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
		opt.Budget = 0
	}
	sol, st, _ := alloc.Exact(ctx, prob, opt)
	cancel()
	what := func() string {
		var names []string
		for _, i := range idx {
			t := pts[i].t
			n := numElems(pts[i].tuple())
			names = append(names, fmt.Sprintf("%s: %s", t.Name, humanize.Plural(int(n), "tile")))
		}
		unit := fmt.Sprintf("%s usable bytes per partition", humanize.Count(capacity))
		if buf == PSUM {
			unit = humanize.Plural(int(capacity), "bank")
		}
		return fmt.Sprintf("the physical tiles (%s) do not fit in the %s of %s beside the tensors alive at the same time", strings.Join(names, ", "), unit, buf)
	}
	switch st {
	case alloc.Solved:
	case alloc.Infeasible:
		how := "the exact solver proves that no placement exists"
		if !complete {
			how += " for the partition choices tried"
		}
		if peak := peakNeed(buf, pts, idx, lay, fixed, capacity); peak != "" {
			how += ": " + peak
		}
		return &placeError{msg: fmt.Sprintf("%s: %s", what(), how), proven: true, complete: complete}
	default:
		// Timed out: alloc's heuristic, else the offsets fit found.
		sol = alloc.Heuristic(prob)
		if len(alloc.Validate(prob, sol)) != 0 {
			sol = &alloc.Solution{Offsets: make([]int64, len(prob.Buffers))}
			for j, b := range prob.Buffers {
				sol.Offsets[j] = b.Offset
				if j < len(idx) {
					sol.Offsets[j] = lay[idx[j]].u0
				}
			}
			if len(alloc.Validate(prob, sol)) != 0 {
				limit := "its work budget"
				if timeout > 0 {
					limit = timeout.String()
				}
				return &placeError{msg: fmt.Sprintf("%s: the exact solver found no placement within %s, nor did the heuristics", what(), limit)}
			}
		}
	}
	if rep := alloc.Validate(prob, sol); len(rep) != 0 {
		return fmt.Errorf("internal error: %s placement does not validate: %v", buf, rep)
	}
	for j, i := range idx {
		lay[i].u0 = sol.Offsets[j]
	}
	return nil
}

// obstacle is a directly allocated range in one quadrant.
type obstacle struct {
	k      int64 // quadrant
	u0, u1 int64
	s, e   int
}

// fixedObstacles splits the direct rects of memory buf into quadrants and
// merges those that overlap (in steps and units) into their bounding box,
// so that the fixed buffers of the problem never overlap each other.
// Ranges beyond the capacity are clipped (sbuf check reports them).
func fixedObstacles(buf Buffer, fixed []rect, capacity int64) []obstacle {
	byQ := map[int64][]obstacle{}
	for _, r := range fixed {
		u1 := min(r.u1, capacity)
		if r.buf != buf || r.e <= r.s || r.u0 >= u1 || r.u0 < 0 {
			continue
		}
		qa, qb := quadrants(r.p0, r.p1)
		for k := qa; k < qb; k++ {
			byQ[k] = append(byQ[k], obstacle{k: k, u0: r.u0, u1: u1, s: r.s, e: r.e})
		}
	}
	var out []obstacle
	for _, os := range byQ {
		for merged := true; merged; {
			merged = false
			for i := 0; i < len(os); i++ {
				for j := i + 1; j < len(os); j++ {
					a, b := os[i], os[j]
					if a.s < b.e && b.s < a.e && a.u0 < b.u1 && b.u0 < a.u1 {
						os[i] = obstacle{k: a.k, u0: min(a.u0, b.u0), u1: max(a.u1, b.u1), s: min(a.s, b.s), e: max(a.e, b.e)}
						os = append(os[:j], os[j+1:]...)
						merged = true
						j--
					}
				}
			}
		}
		out = append(out, os...)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.k != b.k {
			return a.k < b.k
		}
		if a.u0 != b.u0 {
			return a.u0 < b.u0
		}
		return a.s < b.s
	})
	return out
}

// peakNeed explains an infeasible memory by its busiest step, when the
// tensors busy there (with the directly allocated ranges) need more than
// the capacity in one partition quadrant: "at step S (path), partitions
// P..: N bytes per partition needed, C available: t (file:line) n, ...".
// "" when no single step exceeds the capacity (the layout, not the
// total, is what does not fit).
func peakNeed(buf Buffer, pts []*placeTensor, idx []int, lay []layout, fixed []rect, capacity int64) string {
	T := 1
	for _, i := range idx {
		T = max(T, pts[i].e, pts[i].s+1)
	}
	nq := int64(0)
	for _, i := range idx {
		l := lay[i]
		_, qb := quadrants(l.p0, l.p0+(l.q-1)*l.stride+pts[i].t.Partitions)
		nq = max(nq, qb)
	}
	if nq == 0 || int64(T)*nq > 1<<24 {
		return ""
	}
	load := make([][]int64, nq)
	for k := range load {
		load[k] = make([]int64, T+1)
	}
	add := func(qa, qb int64, s, e int, units int64) {
		for k := max(qa, 0); k < min(qb, nq); k++ {
			load[k][min(max(s, 0), T)] += units
			load[k][min(max(e, 0), T)] -= units
		}
	}
	for _, i := range idx {
		pt, l := pts[i], lay[i]
		qa, qb := quadrants(l.p0, l.p0+(l.q-1)*l.stride+pt.t.Partitions)
		for _, iv := range pt.busy {
			add(qa, qb, iv[0], iv[1], l.units)
		}
	}
	for _, o := range fixedObstacles(buf, fixed, capacity) {
		add(o.k, o.k+1, o.s, o.e, o.u1-o.u0)
	}
	bestK, bestT, best := int64(0), 0, int64(0)
	for k := range load {
		cur := int64(0)
		for t := 0; t < T; t++ {
			cur += load[k][t]
			if cur > best {
				bestK, bestT, best = int64(k), t, cur
			}
		}
	}
	if best <= capacity {
		return ""
	}
	type part struct {
		name  string
		units int64
	}
	var parts []part
	for _, i := range idx {
		pt, l := pts[i], lay[i]
		qa, qb := quadrants(l.p0, l.p0+(l.q-1)*l.stride+pt.t.Partitions)
		if bestK < qa || bestK >= qb {
			continue
		}
		for _, iv := range pt.busy {
			if iv[0] <= bestT && bestT < iv[1] {
				name := fmt.Sprintf("%s (%s)", pt.t.Name, pt.t.Path)
				if pt.maxAlive > 1 {
					name += fmt.Sprintf(" with %s tiles alive at once", humanize.Count(int64(pt.maxAlive)))
				}
				parts = append(parts, part{name, l.units})
				break
			}
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].units > parts[j].units })
	unit := "bytes per partition"
	if buf == PSUM {
		unit = "banks"
	}
	var list []string
	for i, p := range parts {
		if i == 4 {
			list = append(list, fmt.Sprintf("%s more", humanize.Count(int64(len(parts)-i))))
			break
		}
		list = append(list, fmt.Sprintf("%s: %s", p.name, humanize.Count(p.units)))
	}
	where := fmt.Sprintf("step %d", bestT)
	if x := pts[idx[0]].x; x != nil && bestT < len(x.Events) {
		where = x.EventName(bestT)
	}
	return fmt.Sprintf("at %s the tensors alive need %s %s, %s available (%s)", where, humanize.Count(best), unit, humanize.Count(capacity), strings.Join(list, "; "))
}
