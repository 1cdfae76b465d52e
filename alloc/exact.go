package alloc

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// The exact solver searches canonical solutions (the idea behind
// MiniMalloc, Moffitt, ASPLOS 2023; this is an independent design).
//
// Canonical form: among all valid placements take one with the smallest
// sum of offsets. Sorted by offset, every buffer in it sits at the lowest
// aligned offset at or above the tops of the earlier buffers that share a
// moment with it, missing the fixed buffers (else it could move down:
// later buffers that share a moment with it start at or above its top).
// The search therefore only chooses WHICH buffer comes next: its offset
// is determined, offsets never decrease, and a placement exists iff the
// search finds one. (Gaps that shrink a buffer to a window break this
// argument; those pieces are searched as if the whole buffer were alive,
// which keeps answers sound but makes an infeasibility proof impossible.)
//
// Pruning, all sound (the brute-force property tests check them):
//   - time is cut into sections at every lifespan bound; the floor of a
//     section is the top of the highest buffer placed in it, and a
//     buffer's next offset the highest floor among its sections. A
//     buffer below the last offset must wait for a floor to rise.
//   - section inference: in every section the buffers still to place
//     stack above max(floor, the lowest offset any of them can take,
//     the last offset) and must fit below the capacity.
//   - a child that raises the last offset above capacity minus the bytes
//     left in the most critical section it does not touch is not tried.
//   - dominance: a buffer is not placed at or above the end of another
//     that fits entirely below it (the smaller-sum placement exists).
//   - buffers that land at the same offset commute; one order is tried.
//   - failed states (remaining set, floors of live sections, last
//     offset) are remembered by a 128-bit hash.
//   - time-disjoint groups are independent sub-problems, split off
//     statically and during the search.
//
// Search: restarts over preorderings (WAT, TAW, TWA: width, area, section
// total) with node budgets growing x3, in a portfolio on all cores with a
// MiniMalloc-style dynamic decomposition variant and a persistent search.

// ErrWindowedGaps is returned with TimedOut when the search found no
// placement for a problem with windowed gaps: windows are searched
// conservatively, so that is not a proof of infeasibility.
var ErrWindowedGaps = errors.New("no placement found, but windowed gaps are searched conservatively: infeasibility not proven")

// Exact is the exact solver (see the package comment above). It first
// tries Heuristic and returns its placement when it fits.
func Exact(ctx context.Context, p *Problem, opt Options) (*Solution, Status, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, TimedOut, err // no second spent past the deadline
	}
	if rep := CheckProblem(p); rep.HasErrors() {
		return nil, Infeasible, nil
	}
	n := len(p.Buffers)
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if !b.Fixed && b.Size > p.Capacity {
			return nil, Infeasible, nil
		}
	}
	if n >= skylineFirst && skylineOK(p) {
		// On many buffers the skyline is the quick first answer: the
		// greedy below scans every placed buffer per buffer (quadratic),
		// the skyline only those alive at the same time.
		ix := newTimeIndex(p)
		if s := skyline(ctx, p, ix, skyRanks(p, ix, nil, skyPriorities[0])); s != nil && len(Validate(p, s)) == 0 {
			return s, Solved, nil
		}
	}
	h := heuristic(ctx, p)
	if h == nil {
		return nil, TimedOut, ctxErr(ctx)
	}
	if len(Validate(p, h)) == 0 {
		return h, Solved, nil
	}
	sol := &Solution{Offsets: make([]int64, n)}
	// Components are sized first and built one at a time, just before
	// their search, so one component's structures are alive at a time.
	comps, windowed, build := decompose(p, sol, true)
	var explored atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Components one after the other, largest first (an infeasible one
	// ends the solve early), each searched by the portfolio. The order
	// is total (ties by first buffer) so the work charged is the same
	// on every run.
	sort.SliceStable(comps, func(a, b int) bool { return len(comps[a].bufs) > len(comps[b].bufs) })
	results := make([]searchResult, len(comps))
	for ci := range results {
		results[ci].st = TimedOut
	}
	for _, c := range comps {
		if c.tooLarge {
			return nil, TimedOut, ErrTooLarge
		}
	}
	// The budget is shared by the components: each gets what the ones
	// before it left.
	left := opt.Budget
	var charged, decidedNodes int64
	exhausted := false
	for ci, c := range comps {
		c = build(c)
		if c.tooLarge {
			// Past the sizing's bound (fixed neighbours, exact pairs).
			return nil, TimedOut, ErrTooLarge
		}
		limit := int64(math.MaxInt64)
		if opt.Budget > 0 {
			limit = left
		}
		var r searchResult
		if len(c.bufs) > maxPortfolioBuffers || c.entries() > maxPortfolioEntries {
			// One search bounds the memory of a large component (each
			// search's undo log grows with the neighbour lists).
			r = c.search(ctx, 0, false, -1, &explored, opt.Progress, limit, nil)
		} else {
			r = c.solvePortfolio(ctx, limit, &explored, opt.Progress)
		}
		results[ci] = r
		if r.st != TimedOut {
			charged += r.work
			left -= r.work
			decidedNodes += r.nodes
		} else if r.exhausted {
			charged += limit
			exhausted = true
			decidedNodes += r.nodes // every strategy ran to its budget
		}
		if r.st != Solved {
			break
		}
	}
	if opt.charge != nil {
		opt.charge(charged)
	}
	if opt.Searched != nil {
		opt.Searched(decidedNodes)
	}
	status := Solved
	for ci, r := range results {
		switch r.st {
		case Infeasible:
			status = Infeasible
		case TimedOut:
			if status == Solved {
				status = TimedOut
			}
		case Solved:
			for k, i := range comps[ci].bufs {
				sol.Offsets[i] = r.off[k]
			}
		}
	}
	switch {
	case status == TimedOut && exhausted:
		return nil, TimedOut, ErrBudget
	case status == Infeasible && windowed:
		return nil, TimedOut, ErrWindowedGaps
	case status == Infeasible:
		return nil, Infeasible, nil
	case status == TimedOut:
		err := ctxErr(ctx)
		if err == nil || errors.Is(err, context.Canceled) {
			if e := context.Cause(ctx); e != nil {
				err = e
			}
		}
		return nil, TimedOut, err
	}
	return sol, Solved, nil
}

// component is an independent sub-problem in local indices.
type component struct {
	bufs     []int       // problem indices
	capacity int64       //
	nsec     int         // number of sections
	secs     [][]int32   // sections where each buffer is alive
	adj      [][]int32   // buffers sharing a section
	fixed    [][]span    // fixed buffers sharing a moment, sorted by lo
	size     []int64     //
	align    []int64     //
	life     []int64     // total alive time
	lower    []int64     // first moment
	total    []int64     // max bytes alive in one of its sections
	plain    bool        // no fixed neighbours and no alignment anywhere
	tooLarge bool        // adjacency beyond maxAdjacency: not searched
	zob      [2][]uint64 // per-buffer hash keys
}

// decompose fills sol for buffers that need no search (fixed, empty) and
// splits the rest into time-connected components.
// With check, components are only sized (tooLarge set), not built.
// build builds a sized component.
func decompose(p *Problem, sol *Solution, check bool) ([]*component, bool, func(*component) *component) {
	type ival struct {
		t0, t1 int64
		b      int
	}
	var ivs []ival
	windowed := false
	alive := make([][]Piece, len(p.Buffers))
	var fixedIdx []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		pcs := Pieces(b)
		if b.Fixed {
			sol.Offsets[i] = b.Offset
			if len(pcs) > 0 {
				fixedIdx = append(fixedIdx, i)
			}
			alive[i] = pcs
			continue
		}
		if len(pcs) == 0 {
			continue
		}
		// Conservative: a windowed piece counts as the whole buffer.
		for k := range pcs {
			if pcs[k].Lo != 0 || pcs[k].Hi != b.Size {
				windowed = true
				pcs[k].Lo, pcs[k].Hi = 0, b.Size
			}
		}
		alive[i] = pcs
		for _, pc := range pcs {
			ivs = append(ivs, ival{pc.T0, pc.T1, i})
		}
	}
	sort.Slice(ivs, func(a, b int) bool { return ivs[a].t0 < ivs[b].t0 })
	// Union-find over buffers whose alive intervals chain in time.
	parent := make([]int, len(p.Buffers))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	var end int64
	rep := -1
	for _, iv := range ivs {
		if rep >= 0 && iv.t0 < end {
			parent[find(iv.b)] = find(rep)
			end = max(end, iv.t1)
		} else {
			rep, end = iv.b, iv.t1
		}
	}
	groups := map[int][]int{}
	var roots []int
	for i := range p.Buffers {
		if p.Buffers[i].Fixed || len(alive[i]) == 0 {
			continue
		}
		r := find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], i)
	}
	var comps []*component
	for _, r := range roots {
		comps = append(comps, newComponent(p, groups[r], alive, fixedIdx, check))
	}
	build := func(c *component) *component {
		if c.tooLarge {
			return c
		}
		return newComponent(p, c.bufs, alive, fixedIdx, false)
	}
	return comps, windowed, build
}

func newComponent(p *Problem, bufs []int, alive [][]Piece, fixedIdx []int, check bool) *component {
	n := len(bufs)
	c := &component{bufs: bufs, capacity: p.Capacity}
	var cuts []int64
	for _, i := range bufs {
		for _, pc := range alive[i] {
			cuts = append(cuts, pc.T0, pc.T1)
		}
	}
	sort.Slice(cuts, func(a, b int) bool { return cuts[a] < cuts[b] })
	uniq := cuts[:0]
	for _, t := range cuts {
		if len(uniq) == 0 || uniq[len(uniq)-1] != t {
			uniq = append(uniq, t)
		}
	}
	cuts = uniq
	c.nsec = max(len(cuts)-1, 0)
	c.secs = make([][]int32, n)
	c.size = make([]int64, n)
	c.align = make([]int64, n)
	c.life = make([]int64, n)
	c.lower = make([]int64, n)
	c.fixed = make([][]span, n)
	// Section lists cost O(buffers x sections) and fixed-neighbour lists
	// O(buffers x fixed): bounded like the adjacency.
	var entries int64
	firsts := make([]int32, n)
	lasts := make([]int32, n)
	counts := make([]int32, n)
	for k, i := range bufs {
		for j, pc := range alive[i] {
			s0 := sort.Search(len(cuts), func(x int) bool { return cuts[x] >= pc.T0 })
			s1 := sort.Search(len(cuts), func(x int) bool { return cuts[x] >= pc.T1 })
			entries += int64(s1 - s0)
			counts[k] += int32(s1 - s0)
			if j == 0 {
				firsts[k] = int32(s0)
			}
			lasts[k] = int32(s1 - 1)
		}
	}
	if entries > maxAdjacency || n > maxSearchBuffers {
		c.tooLarge = true
		return c
	}
	if check {
		// Sized only: the adjacency's bound from the hulls.
		c.tooLarge = hullPairs(firsts, lasts) > maxAdjacency
		return c
	}
	// One array holds every buffer's sections.
	flat := make([]int32, entries)
	for k := range bufs {
		c.secs[k], flat = flat[:0:counts[k]], flat[counts[k]:]
	}
	for k, i := range bufs {
		b := &p.Buffers[i]
		c.size[k] = b.Size
		c.align[k] = max(b.Alignment, 1)
		c.lower[k] = alive[i][0].T0
		for _, pc := range alive[i] {
			c.life[k] += pc.T1 - pc.T0
			s0 := sort.Search(len(cuts), func(x int) bool { return cuts[x] >= pc.T0 })
			for s := s0; s < len(cuts)-1 && cuts[s] < pc.T1; s++ {
				c.secs[k] = append(c.secs[k], int32(s))
			}
		}
		for _, j := range fixedIdx {
			fb := &p.Buffers[j]
			for _, pi := range alive[i] {
				hit := false
				for _, pj := range alive[j] {
					if pi.T0 < pj.T1 && pj.T0 < pi.T1 {
						c.fixed[k] = append(c.fixed[k], span{fb.Offset + pj.Lo, fb.Offset + pj.Hi})
						hit = true
						if entries++; entries > maxAdjacency {
							c.tooLarge = true
							return c
						}
					}
				}
				if hit {
					break
				}
			}
		}
		sort.Slice(c.fixed[k], func(a, b int) bool { return c.fixed[k][a].lo < c.fixed[k][b].lo })
	}
	load := make([]int64, c.nsec)
	for k := range bufs {
		for _, sec := range c.secs[k] {
			load[sec] += c.size[k]
		}
	}
	c.total = make([]int64, n)
	for k := range bufs {
		for _, sec := range c.secs[k] {
			c.total[k] = max(c.total[k], load[sec])
		}
	}
	c.plain = true
	for k := range bufs {
		if len(c.fixed[k]) > 0 || c.align[k] > 1 {
			c.plain = false
		}
	}
	c.adj, c.tooLarge = adjacency(c.secs)
	seed := uint64(0x9e3779b97f4a7c15)
	for h := 0; h < 2; h++ {
		c.zob[h] = make([]uint64, n)
		for k := range c.zob[h] {
			seed = splitmix(seed)
			c.zob[h][k] = seed
		}
	}
	return c
}

// maxAdjacency bounds the neighbour lists of a component (directed
// entries, 4 bytes each), and maxSearchBuffers the buffers of one
// component the search takes on (its per-level sets cost O(n^2) memory).
// Past them the component is not searched: Exact reports ErrTooLarge and
// the heuristic placement is the answer on offer.
const (
	maxAdjacency     = 1 << 24
	maxSearchBuffers = 12000
	// maxPortfolioBuffers: larger components get one search, not one per
	// core, to bound memory.
	maxPortfolioBuffers = 4096
	// maxPortfolioEntries: nor do components with more section and
	// neighbour entries than this.
	maxPortfolioEntries = 1 << 21
)

// entries counts a component's section and neighbour entries.
func (c *component) entries() int {
	n := 0
	for k := range c.secs {
		n += len(c.secs[k]) + len(c.adj[k])
	}
	return n
}

// ErrTooLarge is returned with TimedOut when a component is too large or
// too densely connected for the exact search.
var ErrTooLarge = errors.New("too many buffers alive together for the exact search")

// adjacency lists, per buffer, the buffers that share a section with it.
// Section lists are sorted; a buffer without gaps covers a contiguous
// run. Sweeping the buffers by first section with the list of those still
// alive costs O(n log n + pairs); the pair count is bounded first (hulls
// that overlap, an upper bound), so a dense component is refused before
// anything quadratic is built.
func adjacency(secs [][]int32) ([][]int32, bool) {
	n := len(secs)
	firsts := make([]int32, n)
	lasts := make([]int32, n)
	for k, ss := range secs {
		firsts[k], lasts[k] = ss[0], ss[len(ss)-1]
	}
	hull := hullDegrees(firsts, lasts)
	var pairs int64
	for _, d := range hull {
		pairs += int64(d)
	}
	if pairs > maxAdjacency || n > maxSearchBuffers {
		return nil, true
	}
	order := make([]int32, n)
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(firsts[a], firsts[b]) })
	contiguous := func(k int32) bool { return int(lasts[k]-firsts[k])+1 == len(secs[k]) }
	meet := func(a, b int32) bool {
		if contiguous(a) && contiguous(b) {
			return true // hulls overlap
		}
		x, y := secs[a], secs[b]
		for len(x) > 0 && len(y) > 0 {
			switch {
			case x[0] == y[0]:
				return true
			case x[0] < y[0]:
				x = x[1:]
			default:
				y = y[1:]
			}
		}
		return false
	}
	// One array holds every list, each sized by its hull bound (an upper
	// bound on its neighbours), so no list grows by copying.
	adj := make([][]int32, n)
	flat := make([]int32, pairs)
	for k, d := range hull {
		adj[k], flat = flat[:0:d], flat[d:]
	}
	var active []int32
	for _, k := range order {
		keep := active[:0]
		for _, j := range active {
			if lasts[j] >= firsts[k] {
				keep = append(keep, j)
				if meet(j, k) {
					adj[j] = append(adj[j], k)
					adj[k] = append(adj[k], j)
				}
			}
		}
		active = append(keep, k)
	}
	return adj, false
}

// hullDegrees returns, per buffer, the buffers whose section hulls
// [first, last] overlap its own: an upper bound on its neighbours.
func hullDegrees(firsts, lasts []int32) []int32 {
	sf, sl := slices.Clone(firsts), slices.Clone(lasts)
	slices.Sort(sf)
	slices.Sort(sl)
	deg := make([]int32, len(firsts))
	for k := range firsts {
		// Buffers starting at or before k's last section, minus those
		// ending before k's first, minus k itself.
		starts, _ := slices.BinarySearch(sf, lasts[k]+1)
		ends, _ := slices.BinarySearch(sl, firsts[k])
		deg[k] = int32(starts - ends - 1)
	}
	return deg
}

// hullPairs is the sum of hullDegrees.
func hullPairs(firsts, lasts []int32) int64 {
	var pairs int64
	for _, d := range hullDegrees(firsts, lasts) {
		pairs += int64(d)
	}
	return pairs
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	z := x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Static orderings tried by the portfolio, as in MiniMalloc's
// preordering heuristics: W = lifetime width, A = area (size x time),
// T = the largest total of bytes alive in any of the buffer's sections;
// each descending, compared in the order of the letters.
var orderings = []string{"WAT", "TAW", "TWA"}

func (c *component) key(k int, letter byte) int64 {
	switch letter {
	case 'W':
		return c.life[k]
	case 'A':
		// Saturates: lifetimes and sizes up to MaxValue overflow a product.
		if hi, lo := bits.Mul64(uint64(c.life[k]), uint64(c.size[k])); hi != 0 || lo > math.MaxInt64 {
			return math.MaxInt64
		}
		return c.life[k] * c.size[k]
	case 'Z':
		return c.size[k]
	}
	return c.total[k]
}

// portfolio is the set of searches run on a component: restarting searches with static and with dynamic
// decomposition (they win on heavy-tailed problems) and one persistent
// search (TAW, dynamic decomposition, no restarts: it wins when a long
// single run is needed). All are complete; they share the cores.
//
// They share the work in rounds (see rounds), each in proportion to its
// weight: the restarting search with static decomposition decided first
// with the least work on 7 of MiniMalloc's 11 benchmark problems, the
// persistent one on 3 (by 4-16x where it did), the restarting dynamic
// one on 1, but it decided on every one of them (within 26*10^6 work
// units, where each of the others ran 3*10^8 on some without deciding):
// it is the safety net, at the smallest share. (Weights 4:3:2 gave the
// lowest worst ratio to MiniMalloc's time on one core of those tried:
// 1:1:1, 4:3:1, 4:3:2.) Past a work in proportion to the component's
// buffers squared the persistent and the dynamic restarting searches'
// shares taper (see allowance): E 0.13 -> 0.09 of MiniMalloc's CPU time,
// D 0.10 -> 0.085, A and B less, the others the same work.
var portfolio = []struct {
	dynamic bool
	only    int   // ordering without restarts, or -1 to restart over all
	scale   int64 // work is weighed as work x scale: 12/weight
	// descents: past this many times the component's buffers squared
	// (twice that many descents from the root to a leaf) the strategy's
	// share shrinks as the square root of the level (0: never).
	descents int64
}{{false, -1, 3, 0}, {true, 1, 4, 300}, {true, -1, 6, 50}}

// taper is the work past which a strategy with the given descents
// tapers (see portfolio) on this component, saturating; 0 for none.
func (c *component) taper(descents int64) int64 {
	n := int64(len(c.bufs))
	if descents == 0 || n == 0 {
		return 0
	}
	if n > math.MaxInt64/n/descents {
		return math.MaxInt64
	}
	return descents * n * n
}

// searchResult is the outcome of one search strategy: its status, the
// placement when solved, the work it did and whether its budget ran out.
type searchResult struct {
	st        Status
	off       []int64
	work      int64
	nodes     int64
	exhausted bool
}

// solvePortfolio runs every strategy of the portfolio, each in its own
// goroutine (the runtime spreads them over the cores it has), in rounds:
// in each round a strategy may do its weight's share of a level of work
// that grows 1/8 a round (the losers overrun the winner by less than
// that), and waits for the others at the round's end.
// The answer is that of the strategy that decided (Solved or Infeasible:
// every search is complete) in the first round in which any decided,
// with the least weighed work, ties to the first. Each strategy is
// deterministic in its own work and which round a strategy decides in
// does not depend on the others, so that answer is the same on one core
// or two, loaded or not. A strategy stops once its weighed work passes a
// decided one's, or at the end of the round in which one decided. (Taking
// the first to finish in time made the placement depend on the machine's
// load; racing all three at once cost three times the winner's work on
// one core.) limit bounds each strategy's work.
func (c *component) solvePortfolio(ctx context.Context, limit int64, explored *atomic.Int64, progress func(int64)) searchResult {
	rs := newRounds(len(portfolio), int64(1)<<18)
	results := make([]searchResult, len(portfolio))
	keys := make([]int64, len(portfolio))
	done := make(chan struct{}, len(portfolio))
	for w := range portfolio {
		go func(w int) {
			defer func() { done <- struct{}{} }()
			cfg := portfolio[w]
			slot := &strategySlot{rs, w, cfg.scale, c.taper(cfg.descents)}
			r := c.search(ctx, 0, cfg.dynamic, cfg.only, explored, progress, limit, slot)
			results[w] = r
			keys[w] = slot.weighed(r.work)
			rs.finish(r.st != TimedOut, keys[w])
		}(w)
	}
	for range portfolio {
		<-done
	}
	best := searchResult{st: TimedOut, exhausted: true}
	bestKey := int64(math.MaxInt64)
	var all int64
	for w, r := range results {
		all += r.nodes
		switch {
		case r.st != TimedOut:
			if keys[w] < bestKey {
				best, bestKey = r, keys[w]
			}
		case best.st == TimedOut && !r.exhausted && ctxErr(ctx) != nil:
			best.exhausted = false // stopped by the context, not the budget
		}
	}
	if best.st == TimedOut {
		best.nodes = all
	}
	return best
}

// paceHook, set by tests only, is called by each portfolio strategy at
// every check point with its index: a test slows one strategy down to
// check that the answer does not depend on which finishes first.
var paceHook func(strategy int)

// weighed is the strategy's work as the portfolio compares it: the
// level at which its share reaches that work (see allowance).
func (sl *strategySlot) weighed(work int64) int64 {
	if sl.taper > 0 && work > sl.taper {
		hi, lo := bits.Mul64(uint64(work), uint64(work))
		if hi >= uint64(sl.taper) {
			return math.MaxInt64
		}
		q, r := bits.Div64(hi, lo, uint64(sl.taper))
		if r != 0 {
			q++ // the least level whose allowance covers work
		}
		if q > math.MaxInt64 {
			return math.MaxInt64
		}
		work = int64(q)
	}
	return weighed(work, sl.scale, sl.idx)
}

// allowance is the work a strategy may have done by the end of a round
// of the given level: its share (level / scale) up to its taper, then
// the geometric mean of the share and the taper. (The persistent search
// decides within 300 n^2 work or not at all on MiniMalloc's problems,
// on B at 281 n^2, C 50, H 34 (n: the component's buffers); the
// restarting dynamic one, the safety net, where it alone decides, on I,
// at 32 n^2: where both tapered the static search decided first, their
// shares past the taper were work lost (E: 0.13 -> 0.1 of MiniMalloc's
// time). Fitted on those 11 problems; no strategy ever stops growing, so
// the search stays complete.)
func (sl *strategySlot) allowance(level int64) int64 {
	x := share(level, sl.scale)
	if sl.taper == 0 || x <= sl.taper {
		return x
	}
	return min(x, isqrtMul(x, sl.taper))
}

// isqrtMul is the integer square root of a x b (both positive), exact.
func isqrtMul(a, b int64) int64 {
	phi, plo := bits.Mul64(uint64(a), uint64(b))
	le := func(r uint64) bool { // r^2 <= a x b
		hi, lo := bits.Mul64(r, r)
		return hi < phi || hi == phi && lo <= plo
	}
	r := uint64(math.Sqrt(float64(a) * float64(b))) // < 2^63+1: r^2 fits
	for r > 0 && !le(r) {
		r--
	}
	for le(r + 1) {
		r++
	}
	return int64(min(r, math.MaxInt64))
}

// weighed is a strategy's work as the portfolio compares it: work x
// scale, with the strategy's index in the low bits (ties to the first).
func weighed(work, scale int64, idx int) int64 {
	if work > math.MaxInt64/64/scale {
		return math.MaxInt64
	}
	return work*scale<<2 | int64(idx)
}

// rounds paces the portfolio's strategies: a strategy that has done its
// share of the current level waits until every running strategy has,
// then all go on to the next level. Once one decides, the others stop at
// the end of the round (or earlier, once their weighed work passes it).
type rounds struct {
	mu      sync.Mutex
	cond    *sync.Cond
	level   int64 // weighed work allowed in the current round
	gen     int
	active  int // strategies still searching
	waiting int
	decided bool
	best    atomic.Int64 // least weighed work of a decided strategy
}

func newRounds(n int, level int64) *rounds {
	rs := &rounds{level: level, active: n}
	rs.cond = sync.NewCond(&rs.mu)
	rs.best.Store(math.MaxInt64)
	return rs
}

// next is called by a strategy that has done its share of the round. It
// returns the next round's level once every running strategy has done
// its share, or false when one has decided (the caller stops).
func (rs *rounds) next() (int64, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.decided {
		return 0, false
	}
	gen := rs.gen
	rs.waiting++
	if rs.waiting == rs.active {
		rs.advance()
	}
	for rs.gen == gen && !rs.decided {
		rs.cond.Wait()
	}
	if rs.decided {
		return 0, false
	}
	return rs.level, true
}

func (rs *rounds) advance() {
	rs.gen++
	rs.level += rs.level / 8
	rs.waiting = 0
	rs.cond.Broadcast()
}

// finish is called once by each strategy when its search ends.
func (rs *rounds) finish(decided bool, key int64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.active--
	if decided {
		rs.decided = true
		for {
			cur := rs.best.Load()
			if key >= cur || rs.best.CompareAndSwap(cur, key) {
				break
			}
		}
		rs.cond.Broadcast()
		return
	}
	if rs.active > 0 && rs.waiting == rs.active {
		rs.advance()
	}
}

// strategySlot is one strategy's place in the rounds.
type strategySlot struct {
	rs    *rounds
	idx   int
	scale int64
	taper int64 // work past which the share tapers (0: never)
}

// searcher is the state of one depth-first search over a component.
type searcher struct {
	c        *component
	ctx      context.Context
	rank     []int32 // static ordering position
	ordering int     // which ordering rank comes from
	rankID   uint64  // identifies the rank array (sub-problems re-rank)
	// dynamic makes each time-independent group found during the search a
	// fresh sub-problem (offsets from 0, re-ranked by the bytes left), as
	// MiniMalloc does; otherwise groups keep the monotone last offset.
	// Both are complete; they search differently, so the portfolio runs
	// both.
	dynamic bool
	floor   []int64 // per section
	rem     []int64 // per section: bytes still to place
	mf      []int64 // per buffer: max floor over its sections
	xs      []int64 // per buffer scratch: lowest offset it can still take
	raw     []int64 // per buffer scratch: its canonical offset now
	low     []int64 // per section scratch: lowest offset of a buffer over it
	// levels > 0: the section bound's minima come from sparseMin, with
	// this many levels in sparse (sparse[0] is low).
	levels int
	sparse [][]int64
	critX  int64 // section bound: lowest capacity minus bytes left
	// The section bound's rescuers (see rescue): per section scratch,
	// how many buffers can still start low enough there and the lowest
	// and highest of them; starve holds, for the nodes on the current
	// path, the sections with one or two (each node's after its
	// parent's).
	resc      []rescuers
	contig    []bool // per buffer: alive in every section of its hull
	starve    []starved
	placed    []bool
	off       []int64
	stack     []int32   // placed buffers, in order
	cands     [][]int32 // per level: candidates, by position in the node's set
	rankStack []int32   // old ranks saved by subRank
	first     []int32   // per buffer: first section
	lastSec   []int32   // per buffer: last section
	h         [2]uint64 // hash of placed set and floors
	failed    memo
	nodes     int64
	flushed   int64 // nodes counted before the last flush
	// checkMask: the context is polled every checkMask+1 nodes, fewer on
	// large components where a node costs O(buffers).
	checkMask int64
	// packBits > 0: candidates are sorted as offset<<(2 packBits) |
	// rank<<packBits | position (sortPacked), which fits when ranks and
	// positions are below 2^packBits and offsets (below the capacity)
	// below 2^(64-2 packBits).
	packBits uint
	keys     []uint64 // sortPacked's scratch
	pre      []int32  // solve's scratch: candidates before the dominance rule
	flushAt  int64    // nodes between progress reports (fewer on large components)
	budget   int64    // nodes left before a restart
	halt     bool     // budget exhausted or stopped: unwind without remembering
	explored *atomic.Int64
	progress func(int64)
	stop     bool
	// work counts the buffers and sections scanned (a deterministic
	// measure of effort); limit bounds it; slot paces it against rival
	// strategies (nil: none), allow is the work at which this round's
	// share is done.
	work      int64
	limit     int64
	slot      *strategySlot
	allow     int64
	exhausted bool
	// The undo log, compact: runs of equal old floors over consecutive
	// sections, and the old max-floors of neighbours (the bytes left per
	// section are restored from the placed buffers' sizes, unlogged).
	floorLog []floorRun
	runFrom  int // the current placement's first run (older runs are not extended)
	mfK      []int32
	mfOld    []int64
}

// floorRun records that sections [sec, sec+n) had floor old.
type floorRun struct {
	sec, n int32
	old    int64
}

// mark is a position in the undo log.
type mark struct{ floors, mfs, stack int }

// maxMemo bounds each search's failed-state memo (about 40 bytes an entry:
// three searches at 2^21 entries held 180 MB on a 3.5 KB problem).
const maxMemo = 1 << 19

func (c *component) search(ctx context.Context, worker int, dynamic bool, only int, explored *atomic.Int64, progress func(int64), limit int64, slot *strategySlot) searchResult {
	n := len(c.bufs)
	s := &searcher{
		c: c, ctx: ctx, explored: explored, progress: progress, limit: limit, slot: slot,
		allow:   math.MaxInt64,
		floor:   make([]int64, c.nsec),
		rem:     make([]int64, c.nsec),
		mf:      make([]int64, n),
		xs:      make([]int64, n),
		raw:     make([]int64, n),
		low:     make([]int64, c.nsec+1),
		placed:  make([]bool, n),
		off:     make([]int64, n),
		cands:   make([][]int32, 2*n+2),
		first:   make([]int32, n),
		lastSec: make([]int32, n),
		resc:    make([]rescuers, c.nsec+1),
		contig:  make([]bool, n),
	}
	if slot != nil {
		s.allow = slot.allowance(slot.rs.level)
	}
	// Where hulls average more than two section bound levels each
	// (buffers alive across much of the component: 34 sections of 102 on
	// MiniMalloc's D, 8-18 on the others), the bound's minima are built
	// from runs of 2^j sections (sparseMin): 22% less time on D. Fitted
	// on MiniMalloc's 11 problems, hulls / levels per buffer: D 4.8 and J
	// 5.0, then C 2.5, A and B 2.3, I 2.2 (sparse: 4-11% less time, since
	// the section bound paints only where the least offset passes), then
	// G and H 1.7 (the same time either way), E 1.5-1.6 and K 1.4 (16%
	// and 2% more time if sparse).
	var hulls, longest int
	for k := range n {
		l := int(c.secs[k][len(c.secs[k])-1]-c.secs[k][0]) + 1
		hulls += l
		longest = max(longest, l)
	}
	if lv := bits.Len(uint(longest)); n > 0 && hulls > 2*lv*n {
		s.levels = lv
		s.sparse = make([][]int64, lv)
		s.sparse[0] = s.low
		for j := 1; j < lv; j++ {
			s.sparse[j] = make([]int64, len(s.low))
		}
	}
	if b := uint(bits.Len(uint(n))); c.capacity >= 0 && uint(bits.Len64(uint64(c.capacity)))+2*b <= 64 {
		s.packBits = b
	}
	s.checkMask = 1023
	s.flushAt = max(1024, (1<<24)/int64(max(n, 1)))
	for s.checkMask > 0 && (s.checkMask+1)*int64(n) > 1<<18 {
		s.checkMask >>= 1
	}
	set := make([]int32, n)
	for k := range n {
		set[k] = int32(k)
		s.first[k] = c.secs[k][0]
		s.lastSec[k] = c.secs[k][len(c.secs[k])-1]
		s.contig[k] = int(s.lastSec[k]-s.first[k])+1 == len(c.secs[k])
		for _, sec := range c.secs[k] {
			s.rem[sec] += c.size[k]
		}
	}
	// Sets stay sorted by first section, so time-independent groups are
	// contiguous runs.
	sort.SliceStable(set, func(a, b int) bool { return s.first[set[a]] < s.first[set[b]] })
	// Restarts, as MiniMalloc does: each of this worker's orderings gets
	// a node budget that doubles every round, so a search stuck below a
	// bad early choice is abandoned for another ordering. Failed states
	// stay remembered: their failure does not depend on the ordering.
	// (Tripling instead took 1.4x the work on MiniMalloc's D and 1.2-2.5x
	// on A, C and I; 1.15x less on E.)
	var ranks [][]int32
	var ids []int
	// Workers lead with different orderings: static decomposition from
	// TWA, dynamic from TAW (diversity; each still tries all of them).
	lead := 2
	if dynamic {
		lead = 1
	}
	for i := range orderings {
		o := (lead + worker + i) % len(orderings)
		ranks = append(ranks, c.rank(orderings[o]))
		ids = append(ids, o)
	}
	s.dynamic = dynamic
	if only >= 0 {
		// One ordering, no restarts.
		s.rank, s.ordering, s.rankID = c.rank(orderings[only]), only, uint64(only)
		s.budget = math.MaxInt64
		s.starve = s.starve[:0]
		ok := s.solve(set, c.setHash(set), c.apart(set), 0, 0, -1)
		s.flush()
		switch {
		case ok:
			return s.result(Solved)
		case s.stop:
			return s.result(TimedOut)
		}
		return s.result(Infeasible)
	}
	for limit := int64(2 * n); ; limit *= 2 {
		rr, ri := ranks, ids
		for i, r := range rr {
			s.rank, s.ordering, s.rankID = r, ri[i], uint64(ri[i])
			s.budget, s.halt = limit, false
			s.starve = s.starve[:0]
			ok := s.solve(set, c.setHash(set), c.apart(set), 0, 0, -1)
			switch {
			case ok:
				s.flush()
				return s.result(Solved)
			case s.stop:
				s.flush()
				return s.result(TimedOut)
			case !s.halt:
				s.flush()
				return s.result(Infeasible)
			}
		}
	}
}

// share is the work at which a strategy of the given scale has done its
// share of a round's level.
func share(level, scale int64) int64 {
	return (level + scale - 1) / scale
}

func (s *searcher) result(st Status) searchResult {
	r := searchResult{st: st, work: s.work, nodes: s.flushed + s.nodes, exhausted: s.exhausted && st == TimedOut}
	if st == Solved {
		r.off = s.off
	}
	return r
}

// subRank ranks the buffers of a sub-problem by the current ordering's
// heuristic, with T taken from the bytes still to place.
// It writes the new ranks into s.rank in place (ranks only compare
// buffers of one sub-problem), after pushing the old ones on rankStack;
// restoreRank takes them back.
func (s *searcher) subRank(comp []int32) {
	c := s.c
	h := orderings[s.ordering%len(orderings)]
	for _, k := range comp {
		s.rankStack = append(s.rankStack, s.rank[k])
	}
	rank := s.rank
	type item struct {
		k    int32
		keys [3]int64
	}
	items := make([]item, len(comp))
	for i, k := range comp {
		var total int64
		for _, sec := range c.secs[k] {
			total = max(total, s.rem[sec])
		}
		items[i].k = k
		for j := 0; j < len(h) && j < 3; j++ {
			switch h[j] {
			case 'T':
				items[i].keys[j] = total
			default:
				items[i].keys[j] = c.key(int(k), h[j])
			}
		}
	}
	sort.SliceStable(items, func(a, b int) bool {
		for j := 0; j < 3; j++ {
			if items[a].keys[j] != items[b].keys[j] {
				return items[a].keys[j] > items[b].keys[j]
			}
		}
		return items[a].k < items[b].k
	})
	for r, it := range items {
		rank[it.k] = int32(r)
	}
}

// restoreRank undoes subRank(comp) (comp in the same order).
func (s *searcher) restoreRank(comp []int32) {
	base := len(s.rankStack) - len(comp)
	for i, k := range comp {
		s.rank[k] = s.rankStack[base+i]
	}
	s.rankStack = s.rankStack[:base]
}

// apart reports whether a set sorted by first section falls apart into
// time-disjoint groups.
func (c *component) apart(set []int32) bool {
	runMax := int32(-1)
	for i, k := range set {
		if i > 0 && c.secs[k][0] > runMax {
			return true
		}
		runMax = max(runMax, c.secs[k][len(c.secs[k])-1])
	}
	return false
}

// setHash keys a set of buffers for the failed-state memo (updated
// incrementally as buffers leave the set).
func (c *component) setHash(set []int32) [2]uint64 {
	var h [2]uint64
	for _, k := range set {
		h[0] += c.zob[1][k]
		h[1] ^= c.zob[0][k] * 0x9e3779b97f4a7c15
	}
	return h
}

// rank orders buffers by a preordering heuristic.
func (c *component) rank(h string) []int32 {
	n := len(c.bufs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		for i := 0; i < len(h); i++ {
			if x, y := c.key(order[a], h[i]), c.key(order[b], h[i]); x != y {
				return x > y
			}
		}
		return false
	})
	rank := make([]int32, n)
	for r, k := range order {
		rank[k] = int32(r)
	}
	return rank
}

func (s *searcher) flush() {
	if s.nodes > 0 {
		t := s.explored.Add(s.nodes)
		if s.progress != nil {
			s.progress(t)
		}
		s.flushed += s.nodes
		s.nodes = 0
	}
}

func (s *searcher) mark() mark {
	return mark{len(s.floorLog), len(s.mfK), len(s.stack)}
}

// undo restores the state to a mark taken before placements.
func (s *searcher) undo(m mark) {
	for i := len(s.floorLog) - 1; i >= m.floors; i-- {
		r := s.floorLog[i]
		for sec := r.sec; sec < r.sec+r.n; sec++ {
			s.floor[sec] = r.old
		}
	}
	s.floorLog = s.floorLog[:m.floors]
	for i := len(s.mfK) - 1; i >= m.mfs; i-- {
		s.mf[s.mfK[i]] = s.mfOld[i]
	}
	s.mfK, s.mfOld = s.mfK[:m.mfs], s.mfOld[:m.mfs]
	c := s.c
	for len(s.stack) > m.stack {
		k := s.stack[len(s.stack)-1]
		s.placed[k] = false
		for _, sec := range c.secs[k] {
			s.rem[sec] += c.size[k]
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// setFloor raises section sec's floor to top, logging the old floor
// (extending the last run when it continues it).
func (s *searcher) setFloor(sec int32, top int64) {
	old := s.floor[sec]
	if n := len(s.floorLog); n > s.runFrom {
		if r := &s.floorLog[n-1]; r.old == old && r.sec+r.n == sec {
			r.n++
			s.floor[sec] = top
			return
		}
	}
	s.floorLog = append(s.floorLog, floorRun{sec, 1, old})
	s.floor[sec] = top
}

// lowest returns buffer k's canonical offset: the lowest aligned offset
// at or above the tops of the placed buffers it meets, missing fixed ones.
func (s *searcher) lowest(k int) int64 {
	c := s.c
	x := s.mf[k]
	if len(c.fixed[k]) == 0 {
		return alignUp(x, c.align[k])
	}
	return lowestFit(c.fixed[k], x, c.size[k], c.align[k])
}

// solve places the buffers of set (sorted by first section); last is the
// offset of the previous placement and prev its buffer (-1 at the root).
// On success the placements stay; on failure the state is as on entry.
func (s *searcher) solve(set []int32, sh [2]uint64, split bool, level int, last int64, prev int) bool {
	c := s.c
	if len(set) == 0 {
		return true
	}
	s.nodes++
	s.work += int64(len(set))
	s.budget--
	if s.budget < 0 {
		s.halt = true
	}
	if s.work >= s.allow && !s.halt {
		// This round's share is done: wait for the rivals.
		if level, ok := s.slot.rs.next(); ok {
			s.allow = s.slot.allowance(level)
		} else {
			s.stop, s.halt = true, true
		}
	}
	if s.nodes&s.checkMask == 0 {
		if paceHook != nil && s.slot != nil {
			paceHook(s.slot.idx)
		}
		switch {
		case ctxErr(s.ctx) != nil:
			s.stop, s.halt = true, true
		case s.work > s.limit:
			s.stop, s.halt, s.exhausted = true, true, true
		case s.slot != nil && s.slot.weighed(s.work) > s.slot.rs.best.Load():
			// A rival decided with less work: this one cannot win.
			s.stop, s.halt = true, true
		}
		if s.nodes >= s.flushAt {
			s.flush()
		}
	}
	if s.halt {
		return false
	}
	// Dynamic decomposition: buffers left in time-disjoint groups are
	// independent sub-problems (each keeps the monotone last offset), so
	// a failure in one is not retried against the choices of another.
	if split {
		// The groups are runs of set itself: each child gives the array
		// back as it found it.
		cp := set
		m := s.mark()
		h := s.h
		base := len(s.starve)
		start := 0
		runMax := int32(-1)
		for i := 0; i <= len(cp); i++ {
			if i == len(cp) || (i > start && s.first[cp[i]] > runMax) {
				comp := cp[start:i]
				sh := s.c.setHash(comp)
				ok := false
				if s.dynamic {
					// A fresh sub-problem: its own canonical order from
					// offset 0 and its own preordering by what is left.
					id := s.rankID
					s.subRank(comp)
					s.rankID = id ^ sh[0]
					ok = s.solve(comp, sh, false, level+1, 0, -1)
					s.restoreRank(comp)
					s.rankID = id
				} else {
					ok = s.solve(comp, sh, false, level+1, last, prev)
				}
				s.starve = s.starve[:base]
				if !ok {
					s.undo(m)
					s.h = h
					return false
				}
				start = i
				runMax = -1
			}
			if i < len(cp) {
				runMax = max(runMax, s.lastSec[cp[i]])
			}
		}
		return true
	}

	// The subtree below a node is a function of (set, floors of the
	// sections where buffers remain, last, prev, ordering), so a failed
	// node's key prunes identical nodes. A node that skipped no candidate failed because no placement
	// of the rest exists at all; one that skipped some is remembered with
	// prev and the ordering in its key.
	key := [2]uint64{(s.h[0] ^ splitmix(uint64(last))) + sh[0], s.h[1] ^ splitmix(uint64(last)^0x5851f42d4c957f2d) ^ sh[1]}
	// keyPrev shares key's first half (its bucket in the memo): they
	// differ in the second, which mixes in prev and the ordering.
	keyPrev := [2]uint64{key[0], key[1] ^ splitmix(uint64(prev)^0x3c6ef372fe94f82b^splitmix(s.rankID+uint64(prev)<<32))}
	if s.failed.has(key) || s.failed.has(keyPrev) {
		s.budget++
		return false
	}
	capa := c.capacity
	skipped := false
	minEnd := int64(math.MaxInt64) // lowest end of any next placement
	cs := s.cands[level][:0]
	dead := false
	least := int64(math.MaxInt64) // lowest offset any buffer can take
	hi := int32(0)                // last section of the set
	// One pass over the set. The slices are read into locals: the
	// compiler reloads fields through s and c after every store.
	// Candidates: those below the lowest end seen so far go to a shared
	// scratch list (a superset), which a second pass over that list
	// filters with the final minEnd: a level keeps only the few that
	// survive the dominance rule (memory stays linear in the depth).
	plain := c.plain
	mf, xs, raw, size, lastSec := s.mf, s.xs, s.raw, c.size, s.lastSec
	pre := s.pre[:0]
	for pos, k32 := range set {
		k := int(k32)
		x := mf[k]
		if !plain {
			x = s.lowest(k)
		}
		sz := size[k]
		xl := max(x, last)
		if xl+sz > capa {
			dead = true // offsets never go below last
		}
		minEnd = min(minEnd, x+sz)
		xs[k] = xl
		least = min(least, xl)
		hi = max(hi, lastSec[k])
		raw[k] = x
		if x >= last && x < minEnd {
			pre = append(pre, int32(pos))
		}
	}
	s.pre = pre
	rank := s.rank
	maxTop := int64(math.MinInt64) // highest top of a candidate
	for _, pos := range pre {
		k := set[pos]
		x := raw[k]
		if x >= minEnd {
			// Below last (not in pre) it is not canonical now: it
			// must rest on a buffer placed later.
			continue
		}
		if x == last && prev >= 0 && rank[k] < rank[prev] {
			skipped = true
			continue // commutes with prev; explored in rank order
		}
		cs = append(cs, pos)
		maxTop = max(maxTop, x+size[k])
	}
	// Section bound: the buffers left in a section stack above its floor,
	// the last offset and the lowest offset any of them can take. One
	// sweep over the sections with a min-heap of the buffers alive there
	// (a buffer counts over its whole hull: a lower minimum only weakens
	// the bound, it stays sound).
	tFrom := len(s.starve)
	if !dead {
		dead = s.sectionBound(set, hi, least, capa, maxTop)
	}
	tTo := len(s.starve)
	if dead {
		// Nodes that fail their own checks do not count against the
		// restart budget (they are the inference at work, not search).
		s.budget++
		s.remember(key)
		return false
	}
	// A candidate is kept as its position in set (4 bytes: the lists of
	// all levels are alive at once); set is the same after each child,
	// and so is the candidate's offset, recomputed from the state.
	// By offset, then rank (a total order: ranks differ), without
	// sort.Slice's reflection (a tenth of the search): insertion sort for
	// a few candidates, else pdqsort (insertion sort's quadratic cost was
	// a fifth of the search on MiniMalloc's G, where levels keep many).
	if s.packBits > 0 {
		s.sortPacked(set, cs)
	} else if len(cs) > 12 {
		slices.SortFunc(cs, func(a, b int32) int {
			ka, kb := set[a], set[b]
			if c := cmp.Compare(s.raw[ka], s.raw[kb]); c != 0 {
				return c
			}
			return cmp.Compare(s.rank[ka], s.rank[kb])
		})
	} else {
		s.insertionSort(set, cs)
	}
	s.cands[level] = cs
	critX := s.critX
	for _, pos32 := range cs {
		k := int(set[pos32])
		x := s.mf[k]
		if !c.plain {
			x = s.lowest(k)
		}
		if x > critX {
			// The child would fail its section bound, and so would every
			// later candidate (they come by offset): the buffers left in
			// the critical section (the one with the most bytes left)
			// all go at or above x. Where k is alive there too, they go
			// above k's top and have k's size fewer bytes to place:
			// x + bytes left > capacity either way. (Testing only the
			// critical sections outside k's lifetime left those
			// children to fail their own bound: a quarter of the work
			// on MiniMalloc's G, a sixth on E.)
			break
		}
		if x >= minEnd {
			// Dominated: some other buffer fits entirely below x, and
			// placing it first leaves the same future with one buffer
			// fewer to place.
			break
		}
		top := x + c.size[k]
		if tTo > tFrom && s.starves(k, top, s.starve[tFrom:tTo]) {
			continue
		}
		m := s.mark()
		h := s.h
		s.placed[k] = true
		s.stack = append(s.stack, int32(k))
		s.off[k] = x
		s.runFrom = len(s.floorLog)
		for _, sec := range c.secs[k] {
			// The hash covers the floors of live sections only (where
			// buffers remain): the rest cannot affect the future.
			old := s.floor[sec]
			s.h[0] -= floorHash(sec, old, 0) - floorHash(sec, 0, 0)
			s.h[1] -= floorHash(sec, old, 1) - floorHash(sec, 0, 1)
			s.setFloor(sec, top)
			s.rem[sec] -= c.size[k]
			if s.rem[sec] > 0 {
				s.h[0] += floorHash(sec, top, 0) - floorHash(sec, 0, 0)
				s.h[1] += floorHash(sec, top, 1) - floorHash(sec, 0, 1)
			}
		}
		for _, o := range c.adj[k] {
			if !s.placed[o] && s.mf[o] < top {
				s.mfK = append(s.mfK, o)
				s.mfOld = append(s.mfOld, s.mf[o])
				s.mf[o] = top
			}
		}
		s.work += int64(len(c.secs[k]) + len(c.adj[k]))
		// The rest, in the same order, in place: k leaves the array
		// (the buffers after it move down one) and comes back after the
		// child, whatever its answer, so all levels share one array
		// (a copy per level cost O(n^2): 216 MB on 5,620 buffers).
		// Noting whether the rest falls apart into time-disjoint groups.
		pos := int(pos32)
		copy(set[pos:], set[pos+1:])
		rest := set[:len(set)-1]
		apart := false
		runMax := int32(-1)
		for i, o := range rest {
			if i > 0 && s.first[o] > runMax {
				apart = true
				break
			}
			runMax = max(runMax, s.lastSec[o])
		}
		ok := s.solve(rest, [2]uint64{sh[0] - c.zob[1][k], sh[1] ^ c.zob[0][k]*0x9e3779b97f4a7c15}, apart, level+1, x, k)
		s.starve = s.starve[:tTo]
		copy(set[pos+1:], set[pos:len(set)-1])
		set[pos] = int32(k)
		if ok {
			return true
		}
		s.undo(m)
		s.h = h
		if s.halt {
			return false
		}
	}
	if skipped {
		s.remember(keyPrev)
	} else {
		s.remember(key)
	}
	return false
}

// sortPacked sorts candidates (positions in set) by offset, then rank,
// as one integer each: offset, rank and position packed into a uint64
// (see packBits), sorted without a comparison function (its calls
// through the slice of ranks and offsets were a fifth of the search on
// MiniMalloc's G and H). Ranks differ within a set, so the order is the
// same as the comparison's.
func (s *searcher) sortPacked(set, cs []int32) {
	b := s.packBits
	keys := s.keys[:0]
	for _, pos := range cs {
		k := set[pos]
		keys = append(keys, uint64(s.raw[k])<<(2*b)|uint64(s.rank[k])<<b|uint64(pos))
	}
	if len(keys) > 12 {
		slices.Sort(keys)
	} else {
		for i := 1; i < len(keys); i++ {
			for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
			}
		}
	}
	mask := uint64(1)<<b - 1
	for i, key := range keys {
		cs[i] = int32(key & mask)
	}
	s.keys = keys
}

// insertionSort sorts candidates (positions in set) by offset, then rank.
func (s *searcher) insertionSort(set, cs []int32) {
	for i := 1; i < len(cs); i++ {
		p := cs[i]
		kp := set[p]
		j := i
		for ; j > 0; j-- {
			kq := set[cs[j-1]]
			if s.raw[kq] < s.raw[kp] || (s.raw[kq] == s.raw[kp] && s.rank[kq] <= s.rank[kp]) {
				break
			}
			cs[j] = cs[j-1]
		}
		cs[j] = p
	}
}

// sectionBound reports whether some section cannot hold the buffers of
// set still to place in it: the bytes left in a section stack above its
// floor and the lowest offset any buffer alive there can take. A buffer
// counts over its whole hull (a lower minimum only weakens the bound, it
// stays sound). Where hulls are short the sections are painted over the
// hulls (see rescue, which also keeps the sections few buffers can
// save); on these components (hulls of tens of sections) that is a
// fraction of the cost of sorting the buffers by offset and painting the
// sections in that order, which it replaced.
//
// hi is the set's last section and least the lowest offset of any of its
// buffers. The set has no time gap (a node with one splits), so its
// hulls cover every section from its first to hi, and a section fails
// already with least for its lowest offset (a lower bound of the
// minimum): that check, one pass over the sections, comes first and
// decides most of the failing nodes on MiniMalloc's G (71% of the
// calls), H (48%), I (44%) without the minima.
func (s *searcher) sectionBound(set []int32, hi int32, least, capa, maxTop int64) bool {
	lo := s.first[set[0]]
	s.work += int64(hi - lo + 1)
	rem := s.rem[lo : hi+1]
	floor := s.floor[lo : hi+1]
	// Branch-free (with an early exit it cost C and E 10% more time for
	// as many instructions): where no bytes are left (r <= 0) the sum is
	// at most the capacity (floors and least are below it), so those
	// sections need no test.
	top, most := int64(math.MinInt64), int64(0)
	for i, r := range rem {
		top = max(top, max(floor[i], least)+r)
		most = max(most, r)
	}
	if top > capa {
		return true
	}
	// The critical section: the one with the most bytes left.
	s.critX = math.MaxInt64
	if most > 0 {
		s.critX = capa - most
	}
	low := s.low[lo : hi+1]
	if s.levels > 0 {
		s.sparseMin(set, lo, hi) // low holds MaxInt64 - the minima
		for i, r := range rem {
			if r > 0 && low[i] != 0 && max(floor[i], math.MaxInt64-low[i])+r > capa {
				return true
			}
		}
		return false
	}
	return s.rescue(set, lo, hi, capa, maxTop)
}

// starved is a section that at most two buffers left can still start
// low enough to save (see rescue): t is the highest offset from which
// its bytes left still fit below the capacity.
type starved struct {
	t          int64
	sec        int32
	res0, res1 int32
}

// rescue is the section bound's second half where the minima are
// painted over the hulls: a buffer rescues a section of its hull when
// the section's bytes left fit above the lowest offset it can take
// (floors already passed the first half). A section that no buffer
// rescues fails the node. One that one or two rescue is pushed on
// s.starve when its t is below maxTop (the highest top of a candidate):
// a child that places k with its top above t, alive outside that
// section and meeting both rescuers, lifts them above t (their floors
// rise to k's top) while the others already start above it, so the
// child would fail its bound (see starves). Rather than evaluate such
// children one by one (about half the children on MiniMalloc's E, each
// costing a node), the parent skips them.
func (s *searcher) rescue(set []int32, lo, hi int32, capa, maxTop int64) bool {
	rem := s.rem[lo : hi+1]
	resc := s.resc[lo : hi+1]
	clear(resc)
	first, lastSec, xs := s.first, s.lastSec, s.xs
	for _, k := range set {
		v := capa - xs[k] // rescues sections with at most v bytes left
		f, l := first[k]-lo, lastSec[k]-lo+1
		r := rem[f:l]
		rs := resc[f:l]
		rs = rs[:len(r)]
		// The lowest rescuer is kept as the highest MaxInt32 - k (0, a
		// cleared entry, is below any): a test of the count for the
		// first cost a branch mispredicted a tenth of the time.
		lowID := math.MaxInt32 - k
		for i, x := range r {
			if x <= v {
				e := &rs[i]
				e.n++
				e.low = max(e.low, lowID)
				e.high = max(e.high, k)
			}
		}
	}
	from := len(s.starve)
	for i, r := range rem {
		if r <= 0 {
			continue
		}
		switch e := &resc[i]; {
		case e.n == 0:
			s.starve = s.starve[:from]
			return true
		case e.n <= 2 && capa-r < maxTop && len(s.starve)-from < maxStarved && len(s.starve) < maxStarvedPath:
			s.starve = append(s.starve, starved{capa - r, lo + int32(i), math.MaxInt32 - e.low, e.high})
		}
	}
	return false
}

// rescuers counts the buffers that rescue a section (see rescue), with
// the lowest (as MaxInt32 minus it) and the highest of them.
type rescuers struct{ n, low, high int32 }

// maxStarved bounds the starved sections a node keeps, maxStarvedPath
// those of all the nodes on the path (24 bytes each: 1.5 MB).
const (
	maxStarved     = 32
	maxStarvedPath = 1 << 16
)

// starves reports whether placing k with the given top leaves one of the
// node's starved sections without a rescuer (see rescue). Neighbours are
// told by their hulls, which is exact for buffers alive over the whole
// of theirs; a gap leaves the child to its own bound.
func (s *searcher) starves(k int, top int64, es []starved) bool {
	if !s.contig[k] {
		return false
	}
	f, l := s.first[k], s.lastSec[k]
	meets := func(o int32) bool {
		return s.contig[o] && s.first[o] <= l && f <= s.lastSec[o]
	}
	for _, e := range es {
		if top > e.t && (e.sec < f || e.sec > l) && meets(e.res0) && meets(e.res1) {
			return true
		}
	}
	return false
}

// sparseMin fills s.low[lo..hi] with the minimum s.xs over the buffers
// of set whose hulls cover each section, in O(len(set) + levels x
// sections) rather than O(sum of hulls): a hull [f, l] is covered by two
// runs of length 2^j (j = floor(log2(l-f+1))), one from each end; level
// j keeps a minimum per run start, and each level is pushed down into
// the two halves of its runs. It is used on components whose buffers
// live across many sections (see search), where the plain minimum costs
// a buffer's whole hull.
//
// The levels hold MaxInt64 - offset, so that "no buffer" is 0 and each
// level is emptied by clear (a vectorised memclr: filling them with
// MaxInt64 one by one was a third of this function); minima of offsets
// are maxima there. s.low[i] is then MaxInt64 - the minimum, 0 for none.
func (s *searcher) sparseMin(set []int32, lo, hi int32) {
	levels := s.levels
	for j := 0; j < levels; j++ {
		clear(s.sparse[j][lo : hi+1])
	}
	for _, k := range set {
		v := math.MaxInt64 - s.xs[k]
		f, l := s.first[k], s.lastSec[k]
		j := bits.Len(uint(l-f+1)) - 1
		t := s.sparse[j]
		t[f] = max(t[f], v)
		g := l - int32(1)<<j + 1
		t[g] = max(t[g], v)
	}
	for j := levels - 1; j >= 1; j-- {
		t, u := s.sparse[j], s.sparse[j-1]
		h := int32(1) << (j - 1)
		for i := lo; i+2*h-1 <= hi; i++ {
			x := t[i]
			u[i] = max(u[i], x)
			u[i+h] = max(u[i+h], x)
		}
	}
}

// floorHash mixes a section's floor into the state hash (two independent
// halves make a 128-bit key).
func floorHash(sec int32, floor int64, half int) uint64 {
	return splitmix(uint64(sec)<<40 ^ uint64(floor) ^ uint64(half)*0xd1b54a32d192ed03)
}

func (s *searcher) remember(key [2]uint64) {
	if s.failed.n >= maxMemo {
		s.failed.clear()
	}
	s.failed.add(key)
}

// memo is the failed-state set: open addressing over 128-bit keys (a Go
// map of [2]uint64 cost a tenth of the search in hashing and probing its
// groups). Slots come in buckets of four, one cache line; a key is looked
// for from its home bucket, then in the buckets after it. The
// two keys of a node (with and without its predecessor) share a home, so
// a node's two look-ups touch one line of memory: on a table of
// megabytes, a cache miss each was a fifth of the search. The keys are
// random hashes already, so the first half's low bits pick the bucket
// (a node's two keys differ in their second half only). The table
// doubles at half load.
type memo struct {
	b [][4][2]uint64
	n int
}

// memoKey makes a key non-zero (zero marks an empty slot).
func memoKey(k [2]uint64) [2]uint64 {
	k[1] |= 1
	return k
}

func (m *memo) has(k [2]uint64) bool {
	if m.n == 0 {
		return false
	}
	k = memoKey(k)
	mask := uint64(len(m.b) - 1)
	for i := k[0] & mask; ; i = (i + 1) & mask {
		b := &m.b[i]
		for j := range b {
			switch b[j] {
			case k:
				return true
			case [2]uint64{}:
				return false
			}
		}
	}
}

func (m *memo) add(k [2]uint64) {
	if 2*(m.n+1) > 4*len(m.b) {
		old := m.b
		m.b = make([][4][2]uint64, max(256, 2*len(old)))
		m.n = 0
		for _, b := range old {
			for _, o := range b {
				if o != ([2]uint64{}) {
					m.put(o)
				}
			}
		}
	}
	m.put(memoKey(k))
}

// put stores a non-zero key.
func (m *memo) put(k [2]uint64) {
	mask := uint64(len(m.b) - 1)
	for i := k[0] & mask; ; i = (i + 1) & mask {
		b := &m.b[i]
		for j := range b {
			switch b[j] {
			case k:
				return
			case [2]uint64{}:
				b[j] = k
				m.n++
				return
			}
		}
	}
}

func (m *memo) clear() {
	clear(m.b)
	m.n = 0
}
