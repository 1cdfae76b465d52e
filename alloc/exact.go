package alloc

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// The exact solver searches canonical solutions (the idea behind
// MiniMalloc, Moffitt, ASPLOS 2023; this is an independent design).
//
// Canonical form: take any valid placement and repeatedly move each
// buffer, in increasing offset order, down to the lowest aligned offset
// that is at or above the tops of the buffers before it that share a
// moment with it and misses every fixed buffer. Each move lowers the sum
// of offsets, so this ends; in the result every buffer sits at
// lowest-fit(max(tops of earlier time-overlapping buffers, previous
// offset)). The search therefore only chooses WHICH buffer comes next:
// its offset is determined, offsets never decrease, and a placement
// exists iff the search finds one. Moving a buffer down cannot hit a
// later buffer: a later buffer that shares a moment with it started at
// or above its old top. (Gaps that shrink a buffer to a window break this
// argument; those pieces are searched as if the whole buffer were alive,
// which keeps answers sound but makes an infeasibility proof impossible.)
//
// Pruning, all sound:
//   - time is cut into sections at every lifespan bound; the floor of a
//     section is the top of the highest buffer placed in it. A buffer's
//     next offset is the max of its sections' floors and the last offset.
//   - in every section, the buffers still to place are stacked above
//     max(floor, last offset): their sizes must fit below the capacity.
//   - if any unplaced buffer's lowest offset plus size exceeds the
//     capacity, the node fails.
//   - two buffers that would land at the same offset commute; only the
//     order by index is explored.
//   - failed states (placed set, floors, last offset) are remembered by a
//     128-bit hash and not searched again.
//   - independent sub-problems (time-connected components) are solved
//     separately, in parallel.

// ErrWindowedGaps is returned with TimedOut when the search found no
// placement for a problem with windowed gaps: windows are searched
// conservatively, so that is not a proof of infeasibility.
var ErrWindowedGaps = errors.New("no placement found, but windowed gaps are searched conservatively: infeasibility not proven")

// Exact is the exact solver (see the package comment above). It first
// tries Heuristic and returns its placement when it fits.
func Exact(ctx context.Context, p *Problem, opt Options) (*Solution, Status, error) {
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
	if h := Heuristic(p); len(Validate(p, h)) == 0 {
		return h, Solved, nil
	}
	sol := &Solution{Offsets: make([]int64, n)}
	comps, windowed := decompose(p, sol)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var explored atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Largest components first, so the parallel pool ends evenly.
	sort.Slice(comps, func(a, b int) bool { return len(comps[a].bufs) > len(comps[b].bufs) })
	type result struct {
		st  Status
		off []int64
	}
	results := make([]result, len(comps))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := 0; w < min(workers, max(len(comps), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ci := range jobs {
				if failed.Load() {
					results[ci] = result{st: TimedOut}
					continue
				}
				// A lone component gets a portfolio of orderings on
				// the spare workers; the first answer wins.
				k := 1
				if len(comps) == 1 {
					k = workers
				}
				st, off := comps[ci].solvePortfolio(ctx, k, &explored, opt.Progress)
				results[ci] = result{st, off}
				if st != Solved {
					failed.Store(true)
					cancel()
				}
			}
		}()
	}
	for ci := range comps {
		jobs <- ci
	}
	close(jobs)
	wg.Wait()
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
	case status == Infeasible && windowed:
		return nil, TimedOut, ErrWindowedGaps
	case status == Infeasible:
		return nil, Infeasible, nil
	case status == TimedOut:
		err := ctx.Err()
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
	zob      [2][]uint64 // per-buffer hash keys
}

// decompose fills sol for buffers that need no search (fixed, empty) and
// splits the rest into time-connected components.
func decompose(p *Problem, sol *Solution) ([]*component, bool) {
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
		comps = append(comps, newComponent(p, groups[r], alive, fixedIdx))
	}
	return comps, windowed
}

func newComponent(p *Problem, bufs []int, alive [][]Piece, fixedIdx []int) *component {
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
	members := make([][]int32, c.nsec)
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
				members[s] = append(members[s], int32(k))
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
	c.adj = make([][]int32, n)
	mark := make([]int, n)
	for k := range mark {
		mark[k] = -1
	}
	for k := range bufs {
		for _, s := range c.secs[k] {
			for _, o := range members[s] {
				if int(o) != k && mark[o] != k {
					mark[o] = k
					c.adj[k] = append(c.adj[k], o)
				}
			}
		}
	}
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
		return c.life[k] * c.size[k]
	}
	return c.total[k]
}

// solvePortfolio runs k searches with different orderings; the first
// decisive answer (Solved or Infeasible: both searches are complete)
// cancels the others.
func (c *component) solvePortfolio(ctx context.Context, k int, explored *atomic.Int64, progress func(int64)) (Status, []int64) {
	k = max(1, min(k, len(orderings)))
	if k == 1 {
		return c.search(ctx, 0, explored, progress)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		st  Status
		off []int64
	}
	ch := make(chan res, k)
	for o := 0; o < k; o++ {
		go func(o int) {
			st, off := c.search(ctx, o, explored, progress)
			ch <- res{st, off}
		}(o)
	}
	best := res{st: TimedOut}
	for o := 0; o < k; o++ {
		r := <-ch
		if r.st != TimedOut && best.st == TimedOut {
			best = r
			cancel()
		}
	}
	return best.st, best.off
}

type cand struct {
	off int64
	b   int32
}

// searcher is the state of one depth-first search over a component.
type searcher struct {
	c        *component
	ctx      context.Context
	rank     []int32 // static ordering position
	floor    []int64 // per section
	rem      []int64 // per section: bytes still to place
	mf       []int64 // per buffer: max floor over its sections
	low      []int64 // per section scratch: lowest next offset of its buffers
	placed   []bool
	off      []int64
	trail    []trailEntry
	cands    [][]cand // per depth
	h        [2]uint64
	failed   map[[2]uint64]struct{}
	nodes    int64
	explored *atomic.Int64
	progress func(int64)
	stop     bool
}

type trailEntry struct {
	p   *int64
	old int64
}

const maxMemo = 1 << 21

func (c *component) search(ctx context.Context, ordering int, explored *atomic.Int64, progress func(int64)) (Status, []int64) {
	n := len(c.bufs)
	s := &searcher{
		c: c, ctx: ctx, explored: explored, progress: progress,
		rank:   make([]int32, n),
		floor:  make([]int64, c.nsec),
		rem:    make([]int64, c.nsec),
		mf:     make([]int64, n),
		low:    make([]int64, c.nsec),
		placed: make([]bool, n),
		off:    make([]int64, n),
		cands:  make([][]cand, n+1),
		failed: map[[2]uint64]struct{}{},
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	h := orderings[ordering]
	sort.SliceStable(order, func(a, b int) bool {
		for i := 0; i < len(h); i++ {
			if x, y := c.key(order[a], h[i]), c.key(order[b], h[i]); x != y {
				return x > y
			}
		}
		return false
	})
	for r, k := range order {
		s.rank[k] = int32(r)
	}
	for sec := range s.low {
		s.low[sec] = math.MaxInt64
	}
	for k := range n {
		for _, sec := range c.secs[k] {
			s.rem[sec] += c.size[k]
		}
	}
	ok := s.dfs(0, 0, -1)
	s.flush()
	switch {
	case ok:
		return Solved, s.off
	case s.stop:
		return TimedOut, nil
	}
	return Infeasible, nil
}

func (s *searcher) flush() {
	if s.nodes > 0 {
		t := s.explored.Add(s.nodes)
		if s.progress != nil {
			s.progress(t)
		}
		s.nodes = 0
	}
}

func (s *searcher) set(p *int64, v int64) {
	s.trail = append(s.trail, trailEntry{p, *p})
	*p = v
}

// lowest returns buffer k's canonical offset given the last offset.
func (s *searcher) lowest(k int, last int64) int64 {
	c := s.c
	x := max(s.mf[k], last)
	if len(c.fixed[k]) == 0 {
		return alignUp(x, c.align[k])
	}
	return lowestFit(c.fixed[k], x, c.size[k], c.align[k])
}

// dfs places the remaining buffers; last is the offset of the previous
// placement and prev its buffer (-1 at the root).
func (s *searcher) dfs(depth int, last int64, prev int) bool {
	c := s.c
	n := len(c.bufs)
	if depth == n {
		return true
	}
	s.nodes++
	if s.nodes&1023 == 0 {
		if s.ctx.Err() != nil {
			s.stop = true
		}
		if s.nodes >= 1<<16 {
			s.flush()
		}
	}
	if s.stop {
		return false
	}
	capa := c.capacity
	// The subtree below a node is a function of (placed set, floors,
	// last, prev), so a failed node's key prunes identical nodes. prev
	// only matters when it made the node skip a candidate: such nodes are
	// remembered with prev in the key.
	key := [2]uint64{s.h[0] ^ splitmix(uint64(last)), s.h[1] ^ splitmix(uint64(last)^0x5851f42d4c957f2d)}
	keyPrev := [2]uint64{key[0] ^ splitmix(uint64(prev)+0x1234567), key[1] ^ splitmix(uint64(prev)^0x3c6ef372fe94f82b)}
	if _, seen := s.failed[key]; seen {
		return false
	}
	if _, seen := s.failed[keyPrev]; seen {
		return false
	}
	skipped := false
	minEnd := int64(math.MaxInt64) // lowest end of any next placement
	cs := s.cands[depth][:0]
	for k := 0; k < n; k++ {
		if s.placed[k] {
			continue
		}
		x := s.lowest(k, last)
		if x+c.size[k] > capa {
			for sec := range s.low {
				s.low[sec] = math.MaxInt64
			}
			s.remember(key)
			return false
		}
		if x+c.size[k] < minEnd {
			minEnd = x + c.size[k]
		}
		for _, sec := range c.secs[k] {
			s.low[sec] = min(s.low[sec], x)
		}
		if x == last && prev >= 0 && k < prev {
			skipped = true
			continue // commutes with prev; explored in index order
		}
		cs = append(cs, cand{x, int32(k)})
	}
	// Section bound: the buffers left in a section stack above its floor,
	// the last offset and the lowest offset any of them can take.
	over := false
	for sec := 0; sec < c.nsec; sec++ {
		lo := s.low[sec]
		s.low[sec] = math.MaxInt64
		if s.rem[sec] > 0 && max(s.floor[sec], lo)+s.rem[sec] > capa {
			over = true
		}
	}
	if over {
		s.remember(key)
		return false
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].off != cs[b].off {
			return cs[a].off < cs[b].off
		}
		return s.rank[cs[a].b] < s.rank[cs[b].b]
	})
	s.cands[depth] = cs
	for _, cd := range cs {
		k := int(cd.b)
		x := cd.off
		if x >= minEnd {
			// Dominated: some other buffer fits entirely below x, and
			// placing it first leaves the same future with one buffer
			// fewer to place.
			break
		}
		top := x + c.size[k]
		mark := len(s.trail)
		h0, h1 := s.h[0], s.h[1]
		s.placed[k] = true
		s.off[k] = x
		s.h[0] ^= c.zob[0][k]
		s.h[1] ^= c.zob[1][k]
		for _, sec := range c.secs[k] {
			old := s.floor[sec]
			s.h[0] += floorHash(sec, top, 0) - floorHash(sec, old, 0)
			s.h[1] += floorHash(sec, top, 1) - floorHash(sec, old, 1)
			s.set(&s.floor[sec], top)
			s.rem[sec] -= c.size[k]
		}
		for _, o := range c.adj[k] {
			if !s.placed[o] && s.mf[o] < top {
				s.set(&s.mf[o], top)
			}
		}
		if s.dfs(depth+1, x, k) {
			return true
		}
		s.h[0], s.h[1] = h0, h1
		for len(s.trail) > mark {
			e := s.trail[len(s.trail)-1]
			*e.p = e.old
			s.trail = s.trail[:len(s.trail)-1]
		}
		for _, sec := range c.secs[k] {
			s.rem[sec] += c.size[k]
		}
		s.placed[k] = false
		if s.stop {
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

// floorHash mixes a section's floor into the state hash (two independent
// halves make a 128-bit key).
func floorHash(sec int32, floor int64, half int) uint64 {
	return splitmix(uint64(sec)<<40 ^ uint64(floor) ^ uint64(half)*0xd1b54a32d192ed03)
}

func (s *searcher) remember(key [2]uint64) {
	if len(s.failed) >= maxMemo {
		clear(s.failed)
	}
	s.failed[key] = struct{}{}
}
