package neuroncore

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Automatic placement (`npukit sbuf place`).
//
// Every tensor left automatic gets a number of physical tiles and a place
// in SBUF or PSUM:
//
//   - The physical tiles of a tensor form a mod_alloc ladder: the tuple
//     F = (1, .., 1, f, B[j+1], .., B[n-1]) over the block dims B maps the
//     logical tile idx to physical tile lin(F, idx mod F). A count is
//     feasible when no two logical tiles alive at the same time (lifetimes
//     from the kernel body, fresh instances of scoped tensors included)
//     share a physical tile. The fewest feasible count is the start.
//   - Placement respects lifetimes: two tensors may share memory only
//     when the spans of their lifetimes are disjoint. It is
//     partition-quadrant aware: a tensor of at most 64 (32) partitions may
//     start at partition 64 (32, 64, 96) and may spread its physical tiles
//     over 2 (4) partition quadrants, using fewer bytes per partition; such
//     a layout is written as mod_alloc with num_par_tiles when the modulo
//     formula can express it, else as an ncc.sbuf.alloc function (a table
//     in the plan file). fit chooses each tensor's partitions (where a
//     first-fit would end lowest); the bytes (SBUF) and whole 2 KiB banks
//     (PSUM, one physical tile per bank, so that accumulation groups never
//     share a bank) are then placed by package alloc's exact solver, one
//     alloc.Problem per memory with the quadrants on its time axis
//     (place_solve.go). Directly allocated tensors of the plan are fixed
//     obstacles. Counts the solver proves infeasible are not taken and are
//     listed in Placement.Rejected.
//   - The counts are then raised while the plan still fits and the
//     simulated time (SimulateExecution) drops: every tensor one step up at
//     once, and when that does not gain, one tensor at a time (each step
//     kept if it gains), until nothing gains, the time with unlimited
//     memory is reached or PlaceOptions.MaxEvaluations simulations have
//     run.

// PlaceOptions control Place.
type PlaceOptions struct {
	// MaxEvaluations bounds the simulations of the tile-count search
	// (0 = DefaultPlaceEvaluations).
	MaxEvaluations int
	// Fewest keeps the fewest feasible physical tiles (no search).
	Fewest bool
	// SolveTimeout bounds each exact placement solve in time instead of
	// work (0 = the work budget DefaultSolveBudget, the same answer on
	// every machine); when it runs out the heuristic's placement is
	// used when it fits.
	SolveTimeout time.Duration
	// Unbounded is the caller's simulation of the execution being placed
	// (automatic tensors given unlimited memory), when it has one: the
	// search starts from its time instead of simulating the body again
	// (nki report draws that run and simulated it twice). Ignored unless
	// it simulated the same execution.
	Unbounded *SimResult
}

// DefaultPlaceEvaluations is the default simulation budget of Place.
const DefaultPlaceEvaluations = 64

// MaxPlacedTableTiles is the most logical tiles a tensor may have for Place
// to spread it over partition quadrants, which needs an alloc table with an
// entry per logical tile; larger tensors stay in one quadrant (mod_alloc).
const MaxPlacedTableTiles = 4096

// maxLadderScan bounds how many ladder entries are tested for feasibility
// before falling back to one physical tile per logical tile.
const maxLadderScan = 64

// Placement is the result of Place.
type Placement struct {
	// Plan is a copy of the input plan with every automatic tensor
	// allocated directly (tensors already direct are shared, unchanged).
	Plan    *Plan          `json:"-"`
	Name    string         `json:"plan"`
	Arch    string         `json:"arch"`
	Tensors []PlacedTensor `json:"tensors"`
	// FewestNs is the simulated time with the fewest feasible physical
	// tiles; TimeNs with the counts chosen. Like `npukit sbuf sim`'s time
	// (SimResult.TimeNs) every time includes the launch, LaunchNs.
	FewestNs float64 `json:"fewest_tiles_time_ns"`
	TimeNs   float64 `json:"time_ns"`
	// UnboundedNs is the simulated time with a private location for every
	// logical tile of the automatic tensors (no reuse hazards at all): the
	// best any tile count can reach, and the time `npukit sbuf sim` gives
	// the plan.
	UnboundedNs float64 `json:"unbounded_time_ns"`
	LaunchNs    float64 `json:"launch_ns"`
	Evaluations int     `json:"simulations"`
	// SBUFBytes is the highest byte used in any SBUF partition (end of
	// the last placed range); PSUMBanks the number of PSUM banks used.
	SBUFBytes int64 `json:"sbuf_bytes_per_partition"`
	PSUMBanks int64 `json:"psum_banks"`
	// Rejected lists the tile counts the search tried that could not be
	// placed, in the order tried.
	Rejected []RejectedCounts `json:"rejected,omitempty"`

	exec *Execution
}

// Execution is Plan's unrolled body. Placing changes where tiles lie, not
// the body nor the tensors' blocks and scopes that unrolling reads, so it
// is the placed execution's events and lifetimes with Plan in place of its
// plan (as the search simulates each candidate), without unrolling again.
func (pl *Placement) Execution() (*Execution, error) {
	if pl.exec != nil {
		return pl.exec, nil
	}
	return pl.Plan.Execute()
}

// withPlan is x with a placement of its plan, pp (see Placement.Execution).
func (x *Execution) withPlan(pp *Plan) *Execution {
	xx := *x
	xx.Plan = pp
	return &xx
}

// PlacedTensor is one tensor Place allocated.
type PlacedTensor struct {
	Tensor       string `json:"tensor"`
	Buffer       string `json:"buffer"`
	LogicalTiles int64  `json:"logical_tiles"`
	MaxAlive     int    `json:"max_alive"`
	Fewest       int64  `json:"fewest_physical_tiles"`
	Physical     int64  `json:"physical_tiles"`
	// Where the tensor's physical tiles lie: partitions [StartPartition,
	// StartPartition+Partitions) and bytes [Addr, Addr+Bytes) of each
	// (PSUM: banks [Bank, Bank+Banks)).
	StartPartition int64 `json:"start_partition"`
	Partitions     int64 `json:"partitions"`
	Addr           int64 `json:"byte_addr"`
	Bytes          int64 `json:"bytes_per_partition"`
	Bank           int64 `json:"bank,omitempty"`
	Banks          int64 `json:"banks,omitempty"`
	// Quadrants is how many partition quadrants the tiles are spread over
	// (1: all at StartPartition).
	Quadrants int64 `json:"quadrants"`
	// Lifetime is the span of the tensor's tiles in body steps [first, end).
	Lifetime [2]int `json:"lifetime"`
	Alloc    string `json:"alloc"` // "mod_alloc" or "alloc"
	Code     string `json:"code"`  // the NKI allocation expression
	// Func is the Python definition an alloc code refers to ("" for
	// mod_alloc).
	Func string `json:"func,omitempty"`
	// TileCounts is the mod_alloc ladder tuple over the block dims: the
	// logical tile idx is on physical tile j = lin(TileCounts, idx mod
	// TileCounts); spread over Quadrants, j lies at partition
	// StartPartition + (j % Quadrants) * QuadrantStride and byte Addr +
	// (j / Quadrants) * the tile's bytes.
	TileCounts     []int64 `json:"tile_counts,omitempty"`
	QuadrantStride int64   `json:"quadrant_stride,omitempty"`
}

// placeTensor is the search state of one automatic tensor.
type placeTensor struct {
	x        *Execution
	ti       int
	t        *Tensor
	lts      []int    // indices into Execution.Lifetimes
	s, e     int      // span of the lifetimes
	busy     [][2]int // the union of the lifetimes, merged (see busyIntervals)
	maxAlive int
	ladder   [][]int64 // feasible tile-count tuples found so far, ascending
	level    int
	exhaust  bool // no feasible tuple above the last ladder entry
}

// rect is a placed range with the span of its lifetimes.
type rect struct {
	buf    Buffer
	p0, p1 int64 // partitions
	u0, u1 int64 // bytes (SBUF) or banks (PSUM)
	s, e   int
}

// layout is where one tensor's physical tiles went.
type layout struct {
	p0, u0   int64
	q        int64 // partition quadrants used
	stride   int64 // partition distance between quadrant slots
	perQuad  int64 // physical tiles per quadrant slot
	units    int64 // bytes (SBUF) or banks (PSUM) per partition
	physical int64
}

// ErrNothingToPlace is returned by Place for a plan whose tensors all have
// a direct allocation already.
var ErrNothingToPlace = errors.New("no automatic tensors to place: every tensor has a direct allocation")

// ErrUnplaceable matches (errors.Is) the errors of a plan that cannot be
// placed: a tile too large for any location, scoped instances that
// always conflict, tile counts that do not fit. It is a finding about the
// plan, not unusable input.
var ErrUnplaceable = errors.New("the plan cannot be placed")

// Place allocates every automatic tensor of the plan directly. It fails
// when a tensor cannot be allocated at all (a tile larger than a partition
// or a PSUM bank, scoped instances alive together) or when the plan does
// not fit even with the fewest feasible physical tiles.
func Place(p *Plan, opt PlaceOptions) (*Placement, error) {
	x, err := p.Execute()
	if err != nil {
		return nil, err
	}
	return PlaceExecution(x, opt)
}

// PlaceExecution is Place on an unrolled body.
func PlaceExecution(x *Execution, opt PlaceOptions) (*Placement, error) {
	p := x.Plan
	if opt.MaxEvaluations <= 0 {
		opt.MaxEvaluations = DefaultPlaceEvaluations
	}
	pts, err := newPlaceTensors(x)
	if err != nil {
		return nil, err
	}
	fixed := directRects(x)

	pl := &Placement{Name: p.Name, Arch: p.Arch.Name, LaunchNs: p.Arch.LaunchNs}
	// The search compares kernel bodies' critical paths; the times
	// reported are SimResult.TimeNs, as sbuf sim prints them.
	// Only two numbers of that run are needed: it is not kept alive
	// through the search (it is as large as each run the search makes).
	r := opt.Unbounded
	opt.Unbounded = nil
	if r == nil || r.Exec != x {
		if r, err = SimulateExecution(x); err != nil {
			return nil, err
		}
	}
	unboundedNs := float64(r.Timeline.Makespan) / 1000
	pl.UnboundedNs = r.TimeNs()
	lay, err := layoutAll(p.Arch, pts, fixed, opt.SolveTimeout)
	if err != nil {
		return nil, fmt.Errorf("the fewest physical tiles: %w", err)
	}
	// tryLayout tries the current counts, noting counts that do not fit
	// (each set once: a rejected set is not solved again).
	rejected := map[string]bool{}
	tryLayout := func() ([]layout, bool) {
		counts := countsOf(pts)
		if rejected[counts] {
			return nil, false
		}
		l, err := layoutAll(p.Arch, pts, fixed, opt.SolveTimeout)
		var pe *placeError
		if errors.As(err, &pe) {
			rejected[counts] = true
			pl.Rejected = append(pl.Rejected, RejectedCounts{Tiles: counts, Reason: pe.reason()})
		}
		return l, err == nil
	}
	reported := map[*Plan]float64{} // SimResult.TimeNs of each plan simulated
	eval := func(lay []layout) (*Plan, float64, error) {
		pp := applyLayout(p, pts, lay)
		r, err := SimulateExecution(x.withPlan(pp))
		pl.Evaluations++
		if err != nil {
			return nil, 0, err
		}
		reported[pp] = r.TimeNs()
		return pp, float64(r.Timeline.Makespan) / 1000, nil
	}
	best, bestNs, err := eval(lay)
	if err != nil {
		return nil, err
	}
	pl.FewestNs = reported[best]
	for !opt.Fewest && pl.Evaluations < opt.MaxEvaluations && bestNs > unboundedNs {
		// Every tensor that can, one step up at once.
		var moved []*placeTensor
		for _, pt := range pts {
			if pt.up(x) {
				moved = append(moved, pt)
			}
		}
		if len(moved) == 0 {
			break
		}
		if l2, ok := tryLayout(); ok {
			if pp, ns, err := eval(l2); err != nil {
				return nil, err
			} else if ns < bestNs {
				best, bestNs, lay = pp, ns, l2
				continue
			}
		}
		for _, pt := range moved {
			pt.level--
		}
		// One tensor at a time: keep every step that gains (a pass over
		// the tensors), then go back to moving all at once.
		gained := false
		for _, pt := range pts {
			if pl.Evaluations >= opt.MaxEvaluations || bestNs <= unboundedNs {
				break
			}
			if !pt.up(x) {
				continue
			}
			if l2, ok := tryLayout(); ok {
				pp, ns, err := eval(l2)
				if err != nil {
					return nil, err
				}
				if ns < bestNs {
					best, bestNs, lay, gained = pp, ns, l2, true
					continue
				}
			}
			pt.level--
		}
		if !gained {
			break
		}
	}
	pl.Plan, pl.TimeNs, pl.exec = best, reported[best], x.withPlan(best)
	for i, pt := range pts {
		pl.Tensors = append(pl.Tensors, describePlaced(p.Arch, pt, lay[i], best.Tensors[pt.ti]))
		l := lay[i]
		if pt.t.Buffer == SBUF {
			pl.SBUFBytes = max(pl.SBUFBytes, l.u0+l.units)
		} else {
			pl.PSUMBanks = max(pl.PSUMBanks, l.u0+l.units)
		}
	}
	for _, r := range fixed {
		if r.buf == SBUF {
			pl.SBUFBytes = max(pl.SBUFBytes, r.u1)
		} else {
			pl.PSUMBanks = max(pl.PSUMBanks, r.u1)
		}
	}
	return pl, nil
}

// newPlaceTensors returns the automatic tensors of the plan, each with its
// lifetimes and the fewest feasible physical tile count.
func newPlaceTensors(x *Execution) ([]*placeTensor, error) {
	p := x.Plan
	maxAlive, _ := x.MaxAlive()
	var pts []*placeTensor
	byTensor := make([]*placeTensor, len(p.Tensors))
	for ti, t := range p.Tensors {
		if t.Direct() {
			continue
		}
		pt := &placeTensor{x: x, ti: ti, t: t, maxAlive: maxAlive[ti], s: -1}
		byTensor[ti] = pt
		pts = append(pts, pt)
	}
	if len(pts) == 0 {
		return nil, ErrNothingToPlace
	}
	for i := range x.Lifetimes {
		l := &x.Lifetimes[i]
		pt := byTensor[l.Key.Tensor]
		if pt == nil {
			continue
		}
		pt.lts = append(pt.lts, i)
		if pt.s < 0 || l.Start < pt.s {
			pt.s = l.Start
		}
		pt.e = max(pt.e, l.End)
	}
	for _, pt := range pts {
		if pt.s < 0 {
			pt.s = 0
		}
		pt.busy = busyIntervals(x, pt.lts, maxBusyIntervals)
		if err := checkPlaceable(p.Arch, pt.t); err != nil {
			return nil, err
		}
		first, ok := pt.nextFeasible(x, 0)
		if !ok {
			return nil, &InstancesAliveError{Tensor: pt.ti, msg: fmt.Sprintf("%s: tensor %s: no physical tile count avoids a lifetime conflict (instances of a scoped tensor alive at the same time?)", pt.t.Path, pt.t.Name)}
		}
		pt.ladder = [][]int64{first}
	}
	return pts, nil
}

// maxBusyIntervals bounds the intervals of one tensor's busy set (the gaps
// of its alloc.Buffer).
const maxBusyIntervals = 256

// busyIntervals is the union of the lifetimes lts: the steps in which some
// tile of the tensor holds data, as sorted disjoint [start, end) intervals.
// The direct allocation guide (spec 002, "Lifetime Conflicts") requires
// unique addresses only for physical tiles that must be alive
// simultaneously, so ranges busy at disjoint steps may share bytes.
// Between them no tile of the tensor is alive (a tensor declared in a loop
// body is dead from its last use in one iteration to its first write in
// the next), so another tensor may use its bytes there. Beyond max
// intervals the closest neighbours are merged, which only adds occupancy.
func busyIntervals(x *Execution, lts []int, maxN int) [][2]int {
	ivs := make([][2]int, 0, len(lts))
	for _, li := range lts {
		l := &x.Lifetimes[li]
		ivs = append(ivs, [2]int{l.Start, max(l.End, l.Start+1)})
	}
	if len(ivs) == 0 {
		return [][2]int{{0, 1}}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i][0] < ivs[j][0] })
	out := ivs[:1]
	for _, iv := range ivs[1:] {
		last := &out[len(out)-1]
		if iv[0] <= last[1] {
			last[1] = max(last[1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	for len(out) > maxN {
		// close the gaps up to the smallest one that leaves at most max
		gaps := make([]int, 0, len(out)-1)
		for i := 1; i < len(out); i++ {
			gaps = append(gaps, out[i][0]-out[i-1][1])
		}
		sort.Ints(gaps)
		limit := gaps[len(out)-maxN-1]
		merged := out[:1]
		for _, iv := range out[1:] {
			last := &merged[len(merged)-1]
			if iv[0]-last[1] <= limit {
				last[1] = iv[1]
				continue
			}
			merged = append(merged, iv)
		}
		out = merged
	}
	return append([][2]int(nil), out...)
}

// InstancesAliveError is an automatic tensor whose declaration instances
// (each execution of a scoped declaration) are alive at the same time in
// the same logical tile, so that no ladder of physical tiles over its
// block index separates them. In a plan that is a finding (ErrUnplaceable);
// a kernel's declarations are separate tensor objects, so there it says
// only that one location per declaration cannot hold them.
type InstancesAliveError struct {
	Tensor int // index into the plan's tensors
	msg    string
}

func (e *InstancesAliveError) Error() string { return e.msg }

// Is makes an InstancesAliveError an ErrUnplaceable.
func (e *InstancesAliveError) Is(target error) bool { return target == ErrUnplaceable }

// checkPlaceable rejects tensors no placement can hold.
func checkPlaceable(a *Arch, t *Tensor) error {
	if t.Partitions > int64(a.Partitions) {
		return &placeError{msg: fmt.Sprintf("%s: tensor %s: a tile of %d partitions exceeds the %d partitions of %s", t.Path, t.Name, t.Partitions, a.Partitions, t.Buffer)}
	}
	tb := t.TileBytes()
	if t.Buffer == PSUM && tb > a.PSUMTileMaxBytes() {
		return &placeError{msg: fmt.Sprintf("%s: tensor %s: a tile of %d bytes per partition does not fit the %d bytes a PSUM tile may span", t.Path, t.Name, tb, a.PSUMTileMaxBytes())}
	}
	if t.Buffer == PSUM && tb > a.PSUMBankBytes() {
		// valid on NeuronCore-v4, but the placement gives each PSUM tile
		// one bank: a refusal, not a finding about the kernel
		return fmt.Errorf("%s: tensor %s: a tile of %d bytes per partition spans %d PSUM banks; place gives each PSUM tile one %d-byte bank and does not place tiles across banks",
			t.Path, t.Name, tb, (tb+a.PSUMBankBytes()-1)/a.PSUMBankBytes(), a.PSUMBankBytes())
	}
	if t.Buffer == SBUF && tb > a.SBUFUsableBytes {
		return &placeError{msg: fmt.Sprintf("%s: tensor %s: a tile of %d bytes per partition exceeds the %d usable bytes of a partition", t.Path, t.Name, tb, a.SBUFUsableBytes)}
	}
	return nil
}

// tuple returns the ladder tuple at the current level.
func (pt *placeTensor) tuple() []int64 { return pt.ladder[pt.level] }

// up moves one step up the ladder, extending it when needed; false when
// already at the top.
func (pt *placeTensor) up(x *Execution) bool {
	if pt.level+1 < len(pt.ladder) {
		pt.level++
		return true
	}
	if pt.exhaust {
		return false
	}
	next, ok := pt.nextFeasible(x, numElems(pt.tuple()))
	if !ok {
		pt.exhaust = true
		return false
	}
	pt.ladder = append(pt.ladder, next)
	pt.level++
	return true
}

// nextFeasible returns the first feasible tuple with more physical tiles
// than prev (0: the fewest), testing at most maxLadderScan candidates
// before trying one physical tile per logical tile.
func (pt *placeTensor) nextFeasible(x *Execution, prev int64) ([]int64, bool) {
	t := pt.t
	if prev >= t.Tiles() {
		return nil, false
	}
	need := max(int64(pt.maxAlive), prev+1)
	scanned := 0
	var found []int64
	ok := false
	ladderCounts(t.Block, func(f []int64, n int64) bool {
		if n < need {
			return true
		}
		if scanned++; scanned > maxLadderScan {
			return false
		}
		if feasible(x, t, pt.lts, f) {
			found, ok = append([]int64(nil), f...), true
			return false
		}
		return true
	})
	if !ok && scanned > maxLadderScan {
		full := append([]int64(nil), t.Block...)
		if feasible(x, t, pt.lts, full) {
			found, ok = full, true
		}
	}
	return found, ok
}

// ladderCounts calls f with the tuples (1, .., 1, k, B[j+1], ..) in
// ascending order of their product, each product once, until f returns
// false. A tensor with no block dims has the single tuple ().
func ladderCounts(block []int64, f func(tuple []int64, n int64) bool) {
	n := len(block)
	if n == 0 {
		f(nil, 1)
		return
	}
	tup := make([]int64, n)
	last := int64(0)
	for j := n - 1; j >= 0; j-- {
		for d := range tup {
			switch {
			case d < j:
				tup[d] = 1
			case d > j:
				tup[d] = block[d]
			}
		}
		inner := numElems(block[j+1:])
		for k := int64(1); k <= block[j]; k++ {
			tup[j] = k
			c := k * inner
			if c <= last {
				continue
			}
			last = c
			if !f(tup, c) {
				return
			}
		}
	}
}

// feasible reports whether mapping the tensor's logical tiles to physical
// tile lin(f, idx mod f) keeps tiles alive at the same time apart.
func feasible(x *Execution, t *Tensor, lts []int, f []int64) bool {
	type iv struct {
		phys int64
		s, e int
	}
	ivs := make([]iv, len(lts))
	for i, li := range lts {
		l := &x.Lifetimes[li]
		ivs[i] = iv{modLinear(f, t.BlockIndex(l.Key.Tile)), l.Start, l.End}
	}
	sort.Slice(ivs, func(i, j int) bool {
		if ivs[i].phys != ivs[j].phys {
			return ivs[i].phys < ivs[j].phys
		}
		return ivs[i].s < ivs[j].s
	})
	for i := 1; i < len(ivs); i++ {
		if ivs[i].phys == ivs[i-1].phys && ivs[i].s < ivs[i-1].e {
			return false
		}
		if ivs[i].phys == ivs[i-1].phys {
			ivs[i].e = max(ivs[i].e, ivs[i-1].e)
		}
	}
	return true
}

// directRects are the physical tiles of directly allocated tensors, each
// with the span of the lifetimes of the logical tiles on it.
func directRects(x *Execution) []rect {
	p := x.Plan
	bank := p.Arch.PSUMBankBytes()
	idx := map[rect]int{}
	var out []rect
	for _, l := range x.Lifetimes {
		t := p.Tensors[l.Key.Tensor]
		pr, ok := rectOf(p.Arch, t, l.Key.Tile)
		if !ok {
			continue
		}
		r := rect{buf: pr.buf, p0: pr.p0, p1: pr.p1, u0: pr.b0, u1: pr.b1}
		if r.buf == PSUM {
			r.u0, r.u1 = pr.b0/bank, (pr.b1+bank-1)/bank
		}
		i, ok := idx[r]
		if !ok {
			i = len(out)
			idx[r] = i
			r.s, r.e = l.Start, l.End
			out = append(out, r)
			continue
		}
		out[i].s = min(out[i].s, l.Start)
		out[i].e = max(out[i].e, l.End)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.buf != b.buf {
			return a.buf < b.buf
		}
		if a.u0 != b.u0 {
			return a.u0 < b.u0
		}
		return a.p0 < b.p0
	})
	return out
}

// quadrantStride is the partition distance between the start partitions a
// tile of p partitions may use (128 when only 0 is allowed).
func quadrantStride(p int64) int64 {
	switch {
	case p <= 32:
		return 32
	case p <= 64:
		return 64
	}
	return 128
}

// placeOrder is the order fit chooses partitions in: by memory, largest
// footprint first, then by start.
func placeOrder(pts []*placeTensor) []int {
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	foot := func(pt *placeTensor) int64 { return numElems(pt.tuple()) * pt.t.TileBytes() * pt.t.Partitions }
	sort.SliceStable(order, func(i, j int) bool {
		a, b := pts[order[i]], pts[order[j]]
		if a.t.Buffer != b.t.Buffer {
			return a.t.Buffer < b.t.Buffer
		}
		if fa, fb := foot(a), foot(b); fa != fb {
			return fa > fb
		}
		return a.s < b.s
	})
	return order
}

// fit chooses the partitions of a tensor's physical tiles: over every
// quadrant spread and start partition, the one where a first-fit start (the
// lowest aligned start of a free range of the units needed, among the
// ranges of tensors alive at the same time) ends lowest; ties go to fewer
// quadrants, then to the lower partition. When nothing fits within the
// capacity, the lowest end beyond it. The byte offset it finds is only the
// criterion: solveOffsets places the bytes.
func fit(a *Arch, pt *placeTensor, used []rect) layout {
	t := pt.t
	capacity, align := a.SBUFUsableBytes, a.SBUFAlign
	if t.Buffer == PSUM {
		capacity, align = int64(a.PSUMBanks), 1
	}
	best, over := layout{u0: -1}, layout{u0: -1}
	var ranges [][2]int64
	for _, l := range candidates(a, pt) {
		p1 := l.p0 + (l.q-1)*l.stride + t.Partitions
		ranges = ranges[:0]
		for _, r := range used {
			if r.buf == t.Buffer && r.s < pt.e && pt.s < r.e && r.p0 < p1 && l.p0 < r.p1 {
				ranges = append(ranges, [2]int64{r.u0, r.u1})
			}
		}
		sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
		addr := int64(0)
		for _, r := range ranges {
			if r[0] >= addr+l.units {
				break
			}
			addr = max(addr, alignUp(r[1], align))
		}
		l.u0 = addr
		if addr+l.units > capacity {
			if over.u0 < 0 || addr+l.units < over.u0+over.units {
				over = l
			}
			continue
		}
		if best.u0 < 0 || addr+l.units < best.u0+best.units {
			best = l
		}
	}
	if best.u0 < 0 {
		return over
	}
	return best
}

// candidates lists the partitions a tensor's physical tiles may take at
// its current count: every quadrant spread (SBUF tensors small enough for
// an alloc table) and allowed start partition, fewer quadrants first, then
// by start partition. Offsets are left 0.
func candidates(a *Arch, pt *placeTensor) []layout {
	t := pt.t
	k := numElems(pt.tuple())
	unit := t.TileBytes()
	if t.Buffer == PSUM {
		unit = 1
	}
	stride := quadrantStride(t.Partitions)
	maxQ := int64(1)
	if t.Buffer == SBUF && t.Tiles() <= MaxPlacedTableTiles {
		maxQ = min(int64(a.Partitions)/stride, k)
	}
	var out []layout
	for q := int64(1); q <= maxQ; q *= 2 {
		perQuad := (k + q - 1) / q
		span := (q-1)*stride + t.Partitions
		for p0 := int64(0); p0+span <= int64(a.Partitions); p0 += stride {
			if StartPartitionAllowed(t.Partitions, p0) {
				out = append(out, layout{p0: p0, q: q, stride: stride, perQuad: perQuad, units: perQuad * unit, physical: k})
			}
		}
	}
	return out
}

func alignUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

// applyLayout returns a copy of the plan with the automatic tensors
// allocated as laid out.
func applyLayout(p *Plan, pts []*placeTensor, lay []layout) *Plan {
	pp := *p
	pp.Tensors = append([]*Tensor(nil), p.Tensors...)
	for i, pt := range pts {
		t := *pt.t
		l := lay[i]
		f := pt.tuple()
		switch {
		case t.Buffer == PSUM:
			t.Kind = Mod
			t.Mod = &ModAlloc{BaseBank: l.u0, NumBankTiles: trimOnes(f)}
		case l.q == 1:
			t.Kind = Mod
			t.Mod = &ModAlloc{BaseAddr: l.u0, BasePartition: l.p0, NumFreeTiles: trimOnes(f)}
		case quadrantMod(&t, f, l) != nil:
			t.Kind = Mod
			t.Mod = quadrantMod(&t, f, l)
		default:
			t.Kind = Table
			t.Table = make([]TableEntry, t.Tiles())
			for lin := range t.Table {
				idx := t.BlockIndex(int64(lin))
				j := modLinear(f, idx)
				t.Table[lin] = TableEntry{Index: idx, Loc: Location{Partition: l.p0 + (j%l.q)*l.stride, Addr: l.u0 + (j/l.q)*t.TileBytes()}}
			}
		}
		pp.Tensors[pt.ti] = &t
	}
	return &pp
}

// quadrantMod expresses a layout spread over partition quadrants as
// mod_alloc when it can (the guide's num_par_tiles multi-buffering): the
// tile spans exactly one quadrant stride (32 or 64 partitions), only the last
// block dim varies, and the k = q*f physical tiles split into q partition
// slots and f free slots with gcd(q, f) = 1, so that (i mod q, i mod f)
// tells the k classes i mod k apart (Chinese remainder theorem) exactly as
// the table would. Otherwise nil.
func quadrantMod(t *Tensor, f []int64, l layout) *ModAlloc {
	n := len(f)
	if n == 0 || t.Partitions != l.stride || l.q*l.perQuad != l.physical || gcd(l.q, l.perQuad) != 1 {
		return nil
	}
	for _, v := range f[:n-1] {
		if v != 1 {
			return nil
		}
	}
	par := make([]int64, n)
	free := make([]int64, n)
	for d := range par {
		par[d], free[d] = 1, 1
	}
	par[n-1], free[n-1] = l.q, l.perQuad
	return &ModAlloc{BaseAddr: l.u0, BasePartition: l.p0, NumParTiles: trimOnes(par), NumFreeTiles: trimOnes(free)}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// trimOnes returns nil for an all-ones tuple (mod_alloc's default).
func trimOnes(f []int64) []int64 {
	for _, v := range f {
		if v != 1 {
			return append([]int64(nil), f...)
		}
	}
	return nil
}

func describePlaced(a *Arch, pt *placeTensor, l layout, placedT *Tensor) PlacedTensor {
	t := pt.t
	d := PlacedTensor{
		Tensor: t.Name, Buffer: t.Buffer.String(), LogicalTiles: t.Tiles(), MaxAlive: pt.maxAlive,
		Fewest: numElems(pt.ladder[0]), Physical: l.physical,
		StartPartition: l.p0, Partitions: (l.q-1)*l.stride + t.Partitions, Quadrants: l.q,
		Lifetime:   [2]int{pt.s, pt.e},
		TileCounts: append([]int64(nil), pt.tuple()...),
	}
	if l.q > 1 {
		d.QuadrantStride = l.stride
	}
	if t.Buffer == PSUM {
		d.Bank, d.Banks, d.Bytes = l.u0, l.units, t.TileBytes()
	} else {
		d.Addr, d.Bytes = l.u0, l.units
	}
	if placedT.Kind == Mod {
		d.Alloc, d.Code = "mod_alloc", placedT.Mod.Code(t.Buffer)
		return d
	}
	d.Alloc = "alloc"
	fn := t.Name + "_alloc"
	d.Code = fmt.Sprintf("ncc.%s.alloc(%s)", t.Buffer, fn)
	var b strings.Builder
	fmt.Fprintf(&b, "def %s(idx, pdim_size, fdim_size):\n", fn)
	fmt.Fprintf(&b, "    j = 0\n    for i, n in zip(idx, %s):\n        j = j * n + i %% n\n", pyTuple(pt.tuple()))
	fmt.Fprintf(&b, "    return (%d + (j %% %d) * %d, %d + (j // %d) * fdim_size)\n", l.p0, l.q, l.stride, l.u0, l.q)
	d.Func = b.String()
	return d
}
