package neuroncore

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
)

// Rule IDs of `npukit sbuf check`.
const (
	RuleStartPartition    = "sbuf/start-partition"
	RuleByteRange         = "sbuf/byte-range"
	RuleAlignment         = "sbuf/alignment"
	RulePSUMBank          = "sbuf/psum-bank"
	RulePSUMModBase       = "sbuf/psum-mod-alloc-base"
	RuleLifetimeOverlap   = "sbuf/lifetime-overlap"
	RuleTooFewTiles       = "sbuf/too-few-physical-tiles"
	RuleMixedAllocation   = "sbuf/mixed-allocation"
	RuleAccInterleave     = "sbuf/accumulation-interleave"
	RuleImplicitTensor    = "sbuf/implicit-tensor"
	RuleNonIOHBM          = "sbuf/non-io-hbm"
	RuleIndexRange        = "sbuf/index-out-of-range"
	RuleReadBeforeWrite   = "sbuf/read-before-write"
	RuleMatmulShape       = "sbuf/matmul-shape"
	RuleUnplaced          = "sbuf/unplaced"
	RuleUnusedPhysical    = "sbuf/unused-tensor"
	RuleAccumulateNoGroup = "sbuf/accumulate-without-start"
	RuleTileTooLarge      = "sbuf/tile-too-large"
	RuleLiveOverCapacity  = "sbuf/live-over-capacity"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleStartPartition, Severity: diag.Error, Description: "a tile's start partition breaks the ISA rule (p > 64: 0; 32 < p <= 64: 0 or 64; p <= 32: 0, 32, 64 or 96)"},
		diag.Rule{ID: RuleByteRange, Severity: diag.Error, Description: "a tile's bytes run past the usable bytes of a partition (SBUF: physical size minus the compiler's reserve)"},
		diag.Rule{ID: RuleAlignment, Severity: diag.Error, Description: "a tile's byte address is not a multiple of sbuf_min_align / psum_min_align"},
		diag.Rule{ID: RulePSUMBank, Severity: diag.Error, Description: "a PSUM tile crosses a 2 KiB bank boundary or lies past the last bank"},
		diag.Rule{ID: RulePSUMModBase, Severity: diag.Error, Description: "psum.mod_alloc with base_addr or base_partition other than 0 (a documented limitation)"},
		diag.Rule{ID: RuleLifetimeOverlap, Severity: diag.Error, Description: "two logical tiles alive at the same time occupy overlapping physical memory"},
		diag.Rule{ID: RuleTooFewTiles, Severity: diag.Error, Description: "more logical tiles of a tensor are alive at once than it has physical tiles"},
		diag.Rule{ID: RuleMixedAllocation, Severity: diag.Error, Description: "a Beta-1 kernel mixes direct allocation with automatic allocation"},
		diag.Rule{ID: RuleAccInterleave, Severity: diag.Error, Description: "two matmul accumulation groups interleave in one PSUM bank (compiler error SCH713)"},
		diag.Rule{ID: RuleImplicitTensor, Severity: diag.Error, Description: "a step creates implicit tensors (TensorE transpose identity, high-level API intermediates) in a directly allocated Beta-1 kernel"},
		diag.Rule{ID: RuleNonIOHBM, Severity: diag.Error, Description: "a directly allocated Beta-1 kernel declares an HBM tensor that is not a kernel output"},
		diag.Rule{ID: RuleIndexRange, Severity: diag.Error, Description: "a tile index evaluates outside the tensor's block dimensions"},
		diag.Rule{ID: RuleReadBeforeWrite, Severity: diag.Warning, Description: "a logical tile is read before any step writes it"},
		diag.Rule{ID: RuleMatmulShape, Severity: diag.Error, Description: "a matmul's operands break TensorE limits (moving free <= 512, stationary free <= 128, equal partitions)"},
		diag.Rule{ID: RuleUnplaced, Severity: diag.Info, Description: "tensors are left to automatic allocation; `npukit sbuf place` assigns them"},
		diag.Rule{ID: RuleUnusedPhysical, Severity: diag.Warning, Description: "a directly allocated tensor is never used by the kernel body"},
		diag.Rule{ID: RuleAccumulateNoGroup, Severity: diag.Warning, Description: "a matmul accumulates into a PSUM tile no matmul started (its previous content is undefined)"},
		diag.Rule{ID: RuleLiveOverCapacity, Severity: diag.Error, Description: "the automatically allocated tiles of more than 64 partitions alive at one time (all start at partition 0) need more bytes than a partition holds, so no allocation exists"},
		diag.Rule{ID: RuleTileTooLarge, Severity: diag.Error, Description: "an automatically allocated tensor's tile spans more partitions than the memory has, or is larger than a partition's usable SBUF bytes or its PSUM banks (8 of 2 KiB), so no allocation can hold it"},
	)
}

// Check verifies a plan: placement rules for every logical tile of every
// directly allocated tensor, lifetime conflicts computed from the kernel
// body, allocation mixing, PSUM accumulation groups and operation shapes.
// It fails only when the body cannot be unrolled (too large).
func Check(p *Plan) (diag.Report, *Execution, error) { return CheckWithout(p) }

// CheckWithout runs the checks of Check except the rules named in skip,
// which are not evaluated at all: a front end whose own semantics make a
// rule meaningless (nki.CheckKernel) does not pay for it either.
func CheckWithout(p *Plan, skip ...string) (diag.Report, *Execution, error) {
	var rep diag.Report
	x, err := p.Execute()
	if err != nil {
		return nil, nil, err
	}
	checkMixed(p, &rep)
	a, auto := tileArch(p), autoTileArch(p)
	for _, t := range p.Tensors {
		if t.Direct() {
			checkPlacement(a, t, &rep)
		} else {
			checkTileSize(auto, t, &rep)
		}
	}
	for _, ie := range x.IndexErrs {
		t := p.Tensors[ie.Ref.Tensor]
		rep.Add(RuleIndexRange, ie.Ref.Text, "%s: index %d of %s is %d, outside [0, %d)",
			x.EventName(ie.Event), ie.Dim, t.Name, ie.Value, t.Block[ie.Dim])
	}
	checkReadBeforeWrite(x, &rep)
	checkUnused(x, &rep)
	if !slices.Contains(skip, RuleMatmulShape) {
		checkMatmuls(x, &rep)
	}
	checkLifetimes(x, &rep)
	checkLiveBytes(x, &rep)
	checkAccumulation(x, &rep, !slices.Contains(skip, RuleAccumulateNoGroup))
	rep.Sort()
	return rep, x, nil
}

// tileArch is the architecture the per-tensor geometry rules hold a plan
// to. In the current API a PSUM tensor is not limited to one bank:
// nl.tile_size.psum_fmax "does not represent the free-dim size per
// partition" (deprecated since NKI 0.4.0 in favour of psum_bank_fmax, the
// per-bank figure; nki.language.tile_size, Neuron 2.33 docs), and
// nki-library's rmsnorm_quant (62cb67d) declares a (128, 4096) float32 PSUM
// tensor whose matmuls each write one 512-value bank of it. Such a tensor
// may span every bank of a partition. Directly allocated tensors of Beta 1
// keep the direct allocation guide's "a PSUM tile cannot cross bank
// boundaries".
//
// An automatically allocated PSUM tensor may span every bank in Beta 1
// too: the guide's rule is direct allocation's, and a Beta-1 kernel run on
// trn2 (kda-for-trainium's bmm_softmax copy-elimination probe, benchmark
// row of 2026-07-11: passed, 6.63 ms) keeps a (128, 4096) float32 score
// tile in PSUM, each matmul writing one 512-value bank, and reduces and
// exponentiates it in place. autoTileArch is the architecture automatic
// tensors are held to.
func tileArch(p *Plan) *Arch {
	if p.API != "current" || p.Arch.PSUMTileBanks >= p.Arch.PSUMBanks {
		return p.Arch
	}
	a := *p.Arch
	a.PSUMTileBanks = a.PSUMBanks
	return &a
}

func checkMixed(p *Plan, rep *diag.Report) {
	var direct, auto []string
	for _, t := range p.Tensors {
		if t.Direct() {
			direct = append(direct, t.Name)
		} else {
			auto = append(auto, t.Name)
		}
	}
	// The Beta-1 guide forbids the mix ("Common Errors" 1); for the current
	// API no document does, and nki-library's direct-allocation
	// mlp_tkg_gate_up_projection declares an automatic PSUM tile beside
	// address= tensors, so there the automatic tensors are only listed.
	if len(direct) > 0 && len(auto) > 0 && p.API != "current" {
		rep.Add(RuleMixedAllocation, "tensors", "%s use direct allocation but %s %s automatic; every tensor of a directly allocated kernel must be allocated directly (run `npukit sbuf place` to assign them)",
			list(direct), list(auto), isAre(len(auto)))
	} else if len(auto) > 0 {
		rep.Add(RuleUnplaced, "tensors", "%s %s automatic allocation", list(auto), humanize.Agree(len(auto), "uses", "use"))
	}
	if len(direct) == 0 {
		return
	}
	if p.API == "current" {
		// The two rules below are the Beta-1 guide's. The current API
		// names HBM tensors (and gives them addresses), and its compiler
		// allocates a TensorE transpose's identity itself: nki-library's
		// address= kernels declare scratch HBM tensors (alloc_hbm) and
		// transpose on TensorE (attention_cte).
		return
	}
	for _, h := range p.HBM {
		if h.Kind != "shared_hbm" || !h.Output {
			why := "is not returned by the kernel"
			if h.Kind != "shared_hbm" {
				why = "is declared in " + h.Kind
			}
			rep.Add(RuleNonIOHBM, "hbm "+h.Name, "Non IO HBM tensor is not supported in allocated NKI kernel: %s %s", h.Name, why)
		}
	}
	seen := map[*Step]bool{}
	walkSteps(p.Body, func(s *Step) {
		if s.Implicit() && !seen[s] {
			seen[s] = true
			what := "its lowering creates intermediate tensors"
			if s.Op == OpTranspose {
				what = "a TensorE transpose multiplies by an identity matrix the kernel cannot allocate; use engine: vector"
			}
			rep.Add(RuleImplicitTensor, s.Path, "step %q: %s", s.Name, what)
		}
	})
}

func walkSteps(ns []Node, f func(*Step)) {
	for _, n := range ns {
		if n.Step != nil {
			f(n.Step)
		} else {
			walkSteps(n.Loop.Body, f)
		}
	}
}

func autoTileArch(p *Plan) *Arch {
	if p.Arch.PSUMTileBanks >= p.Arch.PSUMBanks {
		return p.Arch
	}
	a := *p.Arch
	a.PSUMTileBanks = a.PSUMBanks
	return &a
}

// checkTileSize reports an automatic tensor whose tile cannot be placed
// anywhere: SBUF byte_addr ranges over [0, 192 KiB - 16 KiB) on v2 (the
// direct allocation guide), and "a PSUM tile cannot cross bank
// boundaries", 2 KiB per partition (same guide; the architecture guide:
// 8 banks of 512 FP32 values). Direct tensors get byte-range/psum-bank.
func checkTileSize(a *Arch, t *Tensor, rep *diag.Report) {
	if t.Partitions > int64(a.Partitions) {
		// "the hardware supports up to 128 partitions": an on-chip
		// tensor's partition dimension is at most nl.tile_size.pmax
		// (NKI docs, "What is Tiling?" and nki.language.tile_size)
		rep.Add(RuleTileTooLarge, t.Path, "tensor %s: a tile spans %d partitions, more than the %d partitions of %s (the partition dimension of an on-chip tensor is at most nl.tile_size.pmax)",
			t.Name, t.Partitions, a.Partitions, t.Buffer)
		return
	}
	limit, what := a.Capacity(t.Buffer), "usable bytes of an SBUF partition"
	if t.Buffer == PSUM {
		limit, what = a.PSUMTileMaxBytes(), "bytes of a PSUM bank (a PSUM tile cannot cross banks)"
		if a.PSUMTileBanks > 1 {
			what = fmt.Sprintf("bytes of the %d PSUM banks a tile may span", a.PSUMTileBanks)
		}
	}
	if b := t.TileBytes(); b > limit {
		rep.Add(RuleTileTooLarge, t.Path, "tensor %s: a tile takes %s bytes per partition (%s x %s), more than the %s %s",
			t.Name, humanize.Count(b), humanize.Count(t.FreeElems()), t.DType, humanize.Count(limit), what)
	}
}

// checkLiveBytes reports, per buffer, the first step at which the
// automatic tiles alive together cannot fit. Only tiles of more than 64
// partitions are counted: their start partition must be 0 (the direct
// allocation guide's start_partition rule), so they all occupy partition
// 0 and their bytes per partition add up there (a sound lower bound; tiles
// of 64 partitions or fewer may use another quadrant). Tiles too large on
// their own are sbuf/tile-too-large's.
func checkLiveBytes(x *Execution, rep *diag.Report) {
	a := autoTileArch(x.Plan)
	type edge struct {
		t     int
		bytes int64
	}
	var edges [2][]edge
	for _, l := range x.Lifetimes {
		t := x.Plan.Tensors[l.Key.Tensor]
		if t.Direct() || t.Partitions <= 64 || l.End <= l.Start {
			continue
		}
		b := t.TileBytes()
		if b > a.Capacity(t.Buffer) || (t.Buffer == PSUM && b > a.PSUMTileMaxBytes()) {
			continue // sbuf/tile-too-large
		}
		edges[t.Buffer] = append(edges[t.Buffer], edge{l.Start, b}, edge{l.End, -b})
	}
	for buf, es := range edges {
		limit := a.Capacity(Buffer(buf))
		sort.Slice(es, func(i, j int) bool {
			if es[i].t != es[j].t {
				return es[i].t < es[j].t
			}
			return es[i].bytes < es[j].bytes // ends first: [Start, End)
		})
		var cur int64
		for _, e := range es {
			cur += e.bytes
			if cur > limit && e.bytes > 0 {
				rep.Add(RuleLiveOverCapacity, "tensors", "at %s the automatic tiles of more than 64 partitions alive together need %s bytes per partition of %s, more than its %s",
					x.EventName(e.t), humanize.Count(cur), Buffer(buf), humanize.Count(int64(limit)))
				break
			}
		}
	}
}

// checkPlacement checks every logical tile's location against the ISA and
// geometry rules, reporting each rule once per tensor with the first
// offending tile and how many tiles break it.
func checkPlacement(a *Arch, t *Tensor, rep *diag.Report) {
	if t.Kind == Mod && t.Buffer == PSUM && (t.Mod.BaseAddr != 0 || t.Mod.BasePartition != 0) {
		rep.Add(RulePSUMModBase, t.Path, "tensor %s: psum.mod_alloc needs base_addr=0 and base_partition=0 (got %d and %d): one physical tile per PSUM bank, starting at partition 0",
			t.Name, t.Mod.BaseAddr, t.Mod.BasePartition)
	}
	type finding struct {
		first string
		n     int
	}
	found := map[string]*finding{}
	var order []string
	note := func(rule, msg string) {
		f, ok := found[rule]
		if !ok {
			f = &finding{first: msg}
			found[rule] = f
			order = append(order, rule)
		}
		f.n++
	}
	fbytes := t.TileBytes()
	bank := a.PSUMBankBytes()
	align := a.Align(t.Buffer)
	capacity := a.Capacity(t.Buffer)
	for lin := int64(0); lin < t.Tiles(); lin++ {
		l, _ := t.Location(lin)
		name := t.TileName(lin)
		if !StartPartitionAllowed(t.Partitions, l.Partition) {
			// The allowed starts keep every tile within the partitions,
			// so this rule also covers tiles running past the last one.
			note(RuleStartPartition, fmt.Sprintf("%s starts at partition %d; a tile of %d partitions may start at %s", name, l.Partition, t.Partitions, joinInts(AllowedStartPartitions(t.Partitions))))
		}
		off := l.Offset(bank)
		if t.Buffer == PSUM {
			if l.Bank >= int64(a.PSUMBanks) {
				note(RulePSUMBank, fmt.Sprintf("%s is in bank %d; PSUM has banks 0..%d", name, l.Bank, a.PSUMBanks-1))
			} else if a.PSUMTileBanks <= 1 && off%bank+fbytes > bank {
				note(RulePSUMBank, fmt.Sprintf("%s spans bytes %d..%d of bank %d: %d bytes per partition from offset %d cross the %d-byte bank boundary", name, off%bank, off%bank+fbytes-1, off/bank, fbytes, off%bank, bank))
			}
		}
		if off+fbytes > capacity {
			note(RuleByteRange, fmt.Sprintf("%s occupies bytes %d..%d of each partition; only %d are usable", name, off, off+fbytes-1, capacity))
		}
		if align > 1 && l.Addr%align != 0 {
			note(RuleAlignment, fmt.Sprintf("%s starts at byte %d, not a multiple of %d", name, l.Addr, align))
		}
	}
	for _, rule := range order {
		f := found[rule]
		more := ""
		if f.n > 1 {
			more = fmt.Sprintf(" (%s of %s logical tiles)", humanize.Count(int64(f.n)), humanize.Count(t.Tiles()))
		}
		rep.Add(rule, t.Path, "tensor %s in %s (%s): %s%s", t.Name, t.Buffer, t.Kind, f.first, more)
	}
}

func checkReadBeforeWrite(x *Execution, rep *diag.Report) {
	n := map[int]int{}
	first := map[int]Lifetime{}
	for _, l := range x.Lifetimes {
		if l.ReadBeforeWrite {
			if _, ok := first[l.Key.Tensor]; !ok {
				first[l.Key.Tensor] = l
			}
			n[l.Key.Tensor]++
		}
	}
	for ti, l := range first {
		t := x.Plan.Tensors[ti]
		rep.Add(RuleReadBeforeWrite, t.Path, "%s is read by %s before any step writes it (%s of %s)",
			x.TileName(l.Key), x.EventName(firstRead(x, l.Key)), humanize.Plural(n[ti], "tile"), t.Name)
	}
}

func firstRead(x *Execution, k TileKey) int {
	for i := range x.Events {
		for _, r := range x.Events[i].Reads {
			if r == k {
				return i
			}
		}
	}
	return -1
}

func checkUnused(x *Execution, rep *diag.Report) {
	used := make([]bool, len(x.Plan.Tensors))
	walkSteps(x.Plan.Body, func(s *Step) {
		for _, r := range s.Reads {
			used[r.Tensor] = true
		}
		for _, r := range s.Writes {
			used[r.Tensor] = true
		}
	})
	for i, t := range x.Plan.Tensors {
		if !used[i] && t.Direct() {
			rep.Add(RuleUnusedPhysical, t.Path, "tensor %s is allocated but no step reads or writes it", t.Name)
		}
	}
}

func checkMatmuls(x *Execution, rep *diag.Report) {
	a := x.Plan.Arch
	walkSteps(x.Plan.Body, func(s *Step) {
		if s.Op != OpMatmul {
			return
		}
		st, mv := x.Plan.Tensors[s.Reads[0].Tensor], x.Plan.Tensors[s.Reads[1].Tensor]
		out := x.Plan.Tensors[s.Writes[0].Tensor]
		var bad []string
		if mv.FreeElems() > a.MMMaxMoving {
			bad = append(bad, fmt.Sprintf("moving %s has free size %s > %s", mv.Name, humanize.Count(mv.FreeElems()), humanize.Count(int64(a.MMMaxMoving))))
		}
		if st.FreeElems() > a.MMMaxStationary {
			bad = append(bad, fmt.Sprintf("stationary %s has free size %s > %s", st.Name, humanize.Count(st.FreeElems()), humanize.Count(int64(a.MMMaxStationary))))
		}
		if st.Partitions != mv.Partitions {
			bad = append(bad, fmt.Sprintf("stationary %s has %d partitions, moving %s %d", st.Name, st.Partitions, mv.Name, mv.Partitions))
		}
		if st.Buffer != SBUF || mv.Buffer != SBUF {
			bad = append(bad, "TensorE reads its operands from SBUF")
		}
		if out.Partitions != st.FreeElems() || out.FreeElems() != mv.FreeElems() {
			bad = append(bad, fmt.Sprintf("output %s is %dx%d, stationary.T @ moving is %dx%d", out.Name, out.Partitions, out.FreeElems(), st.FreeElems(), mv.FreeElems()))
		}
		if len(bad) > 0 {
			rep.Add(RuleMatmulShape, s.Path, "step %q: %s", s.Name, strings.Join(bad, "; "))
		}
	})
}

// placed is a lifetime with its physical rectangle.
type placed struct {
	lt     *Lifetime
	buf    Buffer
	p0, p1 int64 // partitions [p0, p1)
	b0, b1 int64 // bytes [b0, b1)
	loc    Location
}

func rectOf(a *Arch, t *Tensor, lin int64) (placed, bool) {
	l, ok := t.Location(lin)
	if !ok {
		return placed{}, false
	}
	off := l.Offset(a.PSUMBankBytes())
	return placed{buf: t.Buffer, p0: l.Partition, p1: l.Partition + t.Partitions, b0: off, b1: off + t.TileBytes(), loc: l}, true
}

func (a placed) overlaps(b placed) bool {
	return a.buf == b.buf && a.p0 < b.p1 && b.p0 < a.p1 && a.b0 < b.b1 && b.b0 < a.b1
}

// PhysicalTiles is the number of distinct physical locations a directly
// allocated tensor's logical tiles map to (0 for automatic allocation).
func PhysicalTiles(t *Tensor) int64 {
	if !t.Direct() {
		return 0
	}
	seen := map[Location]bool{}
	for lin := int64(0); lin < t.Tiles(); lin++ {
		l, _ := t.Location(lin)
		seen[l] = true
	}
	return int64(len(seen))
}

// checkLifetimes finds physical tiles alive at the same time that overlap
// (sweeping lifetimes in start order against the set of live ones), and
// tensors with more logical tiles alive than physical tiles.
func checkLifetimes(x *Execution, rep *diag.Report) {
	p := x.Plan
	maxAlive, at := x.MaxAlive()
	tooFew := make([]bool, len(p.Tensors))
	for ti, t := range p.Tensors {
		if !t.Direct() {
			continue
		}
		phys := PhysicalTiles(t)
		if int64(maxAlive[ti]) > phys {
			tooFew[ti] = true
			alive := aliveAt(x, ti, at[ti])
			rep.Add(RuleTooFewTiles, t.Path, "tensor %s has %s but %s logical tiles are alive at once at %s (%s); give it at least %s physical tiles or shorten the lifetimes (declare it inside the loop)",
				t.Name, humanize.Plural(int(phys), "physical tile"), humanize.Count(int64(maxAlive[ti])), x.EventName(at[ti]), alive, humanize.Count(int64(maxAlive[ti])))
		}
	}
	ps := make([]placed, 0, len(x.Lifetimes))
	for i := range x.Lifetimes {
		lt := &x.Lifetimes[i]
		t := p.Tensors[lt.Key.Tensor]
		r, ok := rectOf(p.Arch, t, lt.Key.Tile)
		if !ok {
			continue
		}
		r.lt = lt
		ps = append(ps, r)
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].lt.Start < ps[j].lt.Start })
	type pair struct{ a, b int }
	type conflict struct {
		first [2]placed
		n     int
	}
	conflicts := map[pair]*conflict{}
	var order []pair
	// Live tiles grouped by physical rectangle: a new tile is compared with
	// the live tiles of the rectangles it overlaps, not with every live
	// tile. A rectangle's group stays (emptied) once created, so groups are
	// numbered in order of first appearance; an index by buffer and byte
	// bucket finds the groups a rectangle may overlap, so a tile costs the
	// groups near it, not every group (pipelined_attention's lowered plan
	// has 18k tile lifetimes over about a hundred rectangles). Rectangles
	// wider than maxBuckets buckets are compared with everything instead.
	type rectKey struct {
		buf            Buffer
		p0, p1, b0, b1 int64
	}
	type group struct {
		key  rectKey
		live []int // indices into ps, in start order
		seen int   // last tile (index into ps + 1) that looked at it
	}
	type bucket struct {
		buf Buffer
		b   int64
	}
	const bucketBytes, maxBuckets = 4096, 64
	byRect := map[rectKey]int{} // rectangle -> group
	byBucket := map[bucket][]int{}
	var wide []int // groups spanning maxBuckets or more buckets
	var groups []group
	var near []int
	for ci := range ps {
		cur := ps[ci]
		near = near[:0]
		lo, hi := cur.b0/bucketBytes, (cur.b1-1)/bucketBytes
		if hi-lo >= maxBuckets {
			for gi := range groups { // a very wide tile looks at every group
				near = append(near, gi)
			}
		} else {
			for _, gi := range wide {
				groups[gi].seen = ci + 1
				near = append(near, gi)
			}
			for b := lo; b <= hi; b++ {
				for _, gi := range byBucket[bucket{cur.buf, b}] {
					if groups[gi].seen != ci+1 {
						groups[gi].seen = ci + 1
						near = append(near, gi)
					}
				}
			}
			sort.Ints(near)
		}
		for _, gi := range near {
			g := &groups[gi]
			k := g.key
			if !(cur.p0 < k.p1 && k.p0 < cur.p1 && cur.b0 < k.b1 && k.b0 < cur.b1) {
				continue
			}
			j := 0
			for _, ei := range g.live {
				if ps[ei].lt.End > cur.lt.Start {
					g.live[j] = ei
					j++
				}
			}
			g.live = g.live[:j]
			for _, ei := range g.live {
				e := ps[ei]
				ta, tb := e.lt.Key.Tensor, cur.lt.Key.Tensor
				if ta == tb && tooFew[ta] && e.loc == cur.loc {
					continue // reported as too few physical tiles
				}
				k := pair{min(ta, tb), max(ta, tb)}
				c, ok := conflicts[k]
				if !ok {
					c = &conflict{first: [2]placed{e, cur}}
					conflicts[k] = c
					order = append(order, k)
				}
				c.n++
			}
		}
		rk := rectKey{cur.buf, cur.p0, cur.p1, cur.b0, cur.b1}
		gi, ok := byRect[rk]
		if !ok {
			gi = len(groups)
			byRect[rk] = gi
			groups = append(groups, group{key: rk})
			if hi-lo >= maxBuckets {
				wide = append(wide, gi)
			} else {
				for b := lo; b <= hi; b++ {
					byBucket[bucket{cur.buf, b}] = append(byBucket[bucket{cur.buf, b}], gi)
				}
			}
		}
		groups[gi].live = append(groups[gi].live, ci)
	}
	for _, k := range order {
		c := conflicts[k]
		a, b := c.first[0], c.first[1]
		more := ""
		if c.n > 1 {
			more = fmt.Sprintf(" (%s overlapping pairs in all)", humanize.Count(int64(c.n)))
		}
		lastUse := a.lt.LastRead
		if lastUse < b.lt.Start {
			lastUse = a.lt.End - 1
		}
		rep.Add(RuleLifetimeOverlap, p.Tensors[b.lt.Key.Tensor].Path,
			"%s (partitions %d..%d, bytes %d..%d of %s) and %s (partitions %d..%d, bytes %d..%d) are alive at the same time: %s is written by %s while %s is still used until %s%s",
			x.TileName(a.lt.Key), a.p0, a.p1-1, a.b0, a.b1-1, a.buf, x.TileName(b.lt.Key), b.p0, b.p1-1, b.b0, b.b1-1,
			x.TileName(b.lt.Key), x.EventName(b.lt.Start), x.TileName(a.lt.Key), x.EventName(lastUse), more)
	}
}

// aliveAt lists (up to 8) tiles of tensor ti alive at event ev.
func aliveAt(x *Execution, ti, ev int) string {
	var names []string
	n := 0
	for _, l := range x.Lifetimes {
		if l.Key.Tensor == ti && l.Start <= ev && ev < l.End {
			n++
			if len(names) < 8 {
				names = append(names, x.TileName(l.Key))
			}
		}
	}
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += fmt.Sprintf(", ... %s in all", humanize.Count(int64(n)))
	}
	return s
}

// AccGroup is a matmul accumulation group: matmuls writing one PSUM tile
// from a starting (overwriting) matmul through the accumulating ones.
type AccGroup struct {
	Tile        TileKey
	Bank        int64
	First, Last int // events
}

// AccumulationGroups lists the accumulation groups of placed PSUM tiles in
// program order of their first matmul.
func (x *Execution) AccumulationGroups() (groups []AccGroup, orphans []int) {
	p := x.Plan
	matmuls := 0
	for ev := range x.Events {
		if x.Events[ev].Step.Op == OpMatmul {
			matmuls += len(x.Events[ev].Writes)
		}
	}
	groups = make([]AccGroup, 0, matmuls) // at most one per matmul write
	open := map[TileKey]int{}             // tile -> index in groups
	for ev := range x.Events {
		e := &x.Events[ev]
		for _, w := range e.Writes {
			t := p.Tensors[w.Tensor]
			if t.Buffer != PSUM {
				continue
			}
			if e.Step.Op != OpMatmul {
				delete(open, w) // overwritten by another engine
				continue
			}
			l, ok := t.Location(w.Tile)
			if !ok {
				continue
			}
			bank := l.Offset(p.Arch.PSUMBankBytes()) / p.Arch.PSUMBankBytes()
			if gi, ok := open[w]; ok && e.Step.Accumulate {
				groups[gi].Last = ev
				continue
			}
			if e.Step.Accumulate {
				orphans = append(orphans, ev)
			}
			open[w] = len(groups)
			groups = append(groups, AccGroup{Tile: w, Bank: bank, First: ev, Last: ev})
		}
	}
	return groups, orphans
}

// checkAccumulation checks interleaved accumulation groups per PSUM bank
// and, when withOrphans, accumulations no matmul started.
func checkAccumulation(x *Execution, rep *diag.Report, withOrphans bool) {
	groups, orphans := x.AccumulationGroups()
	if !withOrphans {
		orphans = nil
	}
	for _, ev := range orphans {
		e := &x.Events[ev]
		rep.Add(RuleAccumulateNoGroup, e.Step.Path, "%s accumulates into %s, which no matmul started", x.EventName(ev), x.TileName(e.Writes[0]))
	}
	// One pass over the groups, which are in order of First, with a scan
	// per bank: a group interleaves with the bank's group still open (the
	// largest Last so far) when it starts before that one's last matmul.
	type bankScan struct {
		open  int    // index in groups of the bank's open group, -1 if none
		n     int    // interleavings
		first [2]int // the first interleaving: open group, new group
	}
	scans := map[int64]*bankScan{}
	var banks []int64
	for i, g := range groups {
		sc := scans[g.Bank]
		if sc == nil {
			sc = &bankScan{open: -1}
			scans[g.Bank] = sc
			banks = append(banks, g.Bank)
		}
		if sc.open >= 0 && g.First < groups[sc.open].Last {
			if sc.n == 0 {
				sc.first = [2]int{sc.open, i}
			}
			sc.n++
		}
		if sc.open < 0 || g.Last > groups[sc.open].Last {
			sc.open = i
		}
	}
	slices.Sort(banks)
	for _, b := range banks {
		n := scans[b].n
		if n == 0 {
			continue
		}
		a, c := groups[scans[b].first[0]], groups[scans[b].first[1]]
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (%s interleavings in bank %d)", humanize.Count(int64(n)), b)
		}
		rep.Add(RuleAccInterleave, fmt.Sprintf("psum bank %d", b),
			"[SCH713] Violation of accumulation group interleaving: the group of %s (from %s to %s) is still accumulating when %s starts the group of %s in the same bank%s",
			x.TileName(a.Tile), x.EventName(a.First), x.EventName(a.Last), x.EventName(c.First), x.TileName(c.Tile), more)
	}
}

func list(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(" and %s more", humanize.Count(int64(len(names)-6)))
	}
	return strings.Join(names, ", ")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	}
	return strings.Join(s, "")
}
