package gemini

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
)

// Span is a byte interval [Start, End) of a buffer.
type Span struct{ Start, End int64 }

// Regions returns the ring-buffer regions of a workload: its
// ring_buffer_info, or the whole buffer [0, buffersize) when it has none.
//
// The spec shows a region as [0, 8388608] without saying whether the second
// number is the end or the size; they coincide for a region at 0, the only
// kind real files have. A pair whose second number is not above the first
// cannot be [start, end), so it is read as [start, start+size).
func (s *Schedule) Regions(w *Workload) [][2]int64 {
	if len(w.RingRegions) > 0 {
		for _, r := range w.RingRegions {
			if r[1] <= r[0] && r[1] > 0 {
				out := make([][2]int64, len(w.RingRegions))
				for i, r := range w.RingRegions {
					if r[1] <= r[0] && r[1] > 0 {
						r[1] += r[0]
					}
					out[i] = r
				}
				return out
			}
		}
		return w.RingRegions
	}
	if s.BufferSize > 0 {
		return [][2]int64{{0, s.BufferSize}}
	}
	return nil
}

// Placement is where a buffer entry lives: its region and the one or two
// spans it covers (two when it wraps around the region's end).
type Placement struct {
	Region [2]int64
	Spans  []Span
	Wraps  bool
}

// Place locates an entry with an address in a set of regions. ok is false
// when the entry has no address, the address lies in no region, or the
// entry is larger than its region.
func Place(regions [][2]int64, e *BufferEntry) (Placement, bool) {
	if !e.HasAddress || e.Size < 0 {
		return Placement{}, false
	}
	for _, r := range regions {
		if e.Address < r[0] || e.Address >= r[1] {
			continue
		}
		n := r[1] - r[0]
		if e.Size > n {
			return Placement{Region: r}, false
		}
		p := Placement{Region: r}
		end := e.Address + e.Size
		if end <= r[1] {
			p.Spans = []Span{{e.Address, end}}
		} else {
			p.Wraps = true
			p.Spans = []Span{{e.Address, r[1]}, {r[0], r[0] + end - r[1]}}
		}
		return p, true
	}
	return Placement{}, false
}

type owned struct {
	Span
	entry int
}

func checkSnapshots(s *Schedule, ix *Index, tn *Tensors, rep *diag.Report) {
	multi := 0
	var multiLoc string
	for ci, c := range s.Cores {
		addr := map[int32]int64{}
		var prevIDs map[int32]bool
		var prevSpans []owned
		var prevW *Workload
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			loc := func() string { return wlLoc(c, w) }
			regions := s.Regions(w)
			if len(w.RingRegions) > 1 {
				if multi == 0 {
					multiLoc = loc()
				}
				multi++
			}
			cur := map[int32]bool{}
			var spans []owned
			inSnap := map[int64]bool{}
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				eloc := func() string { return fmt.Sprintf("%s / buffer[%d]", loc(), ei) }
				for _, id := range e.TransferIDs {
					inSnap[id] = true
				}
				checkSourceIDs(e, eloc, rep)
				if e.HasAddress {
					if s.BufferSize > 0 && (e.Address < 0 || e.Address >= s.BufferSize) {
						rep.Add(RuleAddressRange, eloc(), "address %d lies outside the buffer [0, %d)", e.Address, s.BufferSize)
					} else if len(regions) == 0 {
						// Neither buffersize nor ring_buffer_info: no bound to
						// check against (a converter dropped them).
						if e.Address < 0 {
							rep.Add(RuleAddressRange, eloc(), "address %d is negative", e.Address)
						} else if e.Size > 0 {
							spans = append(spans, owned{Span{e.Address, e.Address + e.Size}, ei})
						}
					} else if p, ok := Place(regions, e); !ok {
						rep.Add(RuleAddressRange, eloc(), "address %d, size %d does not fit a ring-buffer region %v", e.Address, e.Size, regions)
					} else {
						if p.Wraps {
							rep.Add(RuleRingWrap, eloc(), "tensor at %d, size %d wraps around the end of region [%d, %d)", e.Address, e.Size, p.Region[0], p.Region[1])
						}
						for _, sp := range p.Spans {
							if sp.End > sp.Start {
								spans = append(spans, owned{sp, ei})
							}
						}
					}
				}
				if k := tn.Key(ci, wi, ei); k >= 0 {
					if cur[k] {
						rep.Add(RuleBufferOverlap, eloc(), "%s appears twice in one snapshot", tn.Name(e))
					}
					cur[k] = true
					if e.HasAddress {
						if a, ok := addr[k]; ok && a != e.Address {
							rep.Add(RuleTensorMoved, eloc(), "%s is at %d here but was at %d before", tn.Name(e), e.Address, a)
						} else if !ok {
							addr[k] = e.Address
						}
					}
					want := !prevIDs[k]
					if e.HasNewlyAdded && e.NewlyAdded != want {
						if want {
							rep.Add(RuleNewlyAdded, eloc(), "%s was not in the previous snapshot but newly_added is false", tn.Name(e))
						} else {
							rep.Add(RuleNewlyAdded, eloc(), "%s was already in the previous snapshot but newly_added is true", tn.Name(e))
						}
					}
				}
			}
			checkOverlap(spans, w.Buffer, loc, "buffer", rep)
			// WAR: a new DRAM load over a region a previous tensor still held.
			if prevW != nil {
				for _, sp := range spans {
					e := &w.Buffer[sp.entry]
					if !e.NewlyAdded || !e.FromDRAM() {
						continue
					}
					for _, p := range prevSpans {
						pe := &prevW.Buffer[p.entry]
						if k := tn.Key(ci, wi, sp.entry); k >= 0 && k == tn.Key(ci, wi-1, p.entry) {
							continue
						}
						if p.Start < sp.End && sp.Start < p.End {
							rep.Add(RuleAddressReuse, fmt.Sprintf("%s / buffer[%d]", loc(), sp.entry), "%s loaded from DRAM overlaps %s of workload %d at [%d, %d): the load waits for workload %d", tensorWord(tn.Name(e)), tn.Name(pe), prevW.ID, max(p.Start, sp.Start), min(p.End, sp.End), prevW.ID)
							break
						}
					}
				}
			}
			// WL0/WL1: entries must not overlap each other.
			var wspans []owned
			for ei := range w.WeightBuffer {
				e := &w.WeightBuffer[ei]
				if e.HasAddress && e.Size > 0 {
					wspans = append(wspans, owned{Span{e.Address, e.Address + e.Size}, ei})
				}
			}
			checkOverlap(wspans, w.WeightBuffer, loc, weightKey(w), rep)
			// Every ifmap transfer is in the snapshot (when the IR has one).
			if len(w.Buffer) > 0 {
				for fi, f := range w.Ifmaps {
					for _, id := range f.TransferIDs {
						if !inSnap[id] {
							rep.Add(RuleIfmapNotBuffered, fmt.Sprintf("%s / ifmap[%d]", loc(), fi), "transfer %d is in no entry of the buffer snapshot", id)
						}
					}
				}
			}
			prevIDs, prevSpans, prevW = cur, spans, w
		}
	}
	if multi > 0 {
		rep.Add(RuleMultipleRegions, multiLoc, "%d workloads configure more than one ring-buffer region", multi)
	}
}

func weightKey(w *Workload) string {
	if w.WeightBufferKey != "" {
		return w.WeightBufferKey
	}
	return "wl0_buffer"
}

func checkOverlap(spans []owned, es []BufferEntry, loc func() string, what string, rep *diag.Report) {
	if len(spans) < 2 {
		return
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].Start != spans[j].Start {
			return spans[i].Start < spans[j].Start
		}
		return spans[i].entry < spans[j].entry
	})
	reported := map[[2]int]bool{}
	maxEnd, maxIdx := spans[0].End, 0
	for i := 1; i < len(spans); i++ {
		sp := spans[i]
		if sp.Start < maxEnd {
			o := spans[maxIdx]
			a, b := min(o.entry, sp.entry), max(o.entry, sp.entry)
			if a != b && !reported[[2]int{a, b}] {
				reported[[2]int{a, b}] = true
				rep.Add(RuleBufferOverlap, fmt.Sprintf("%s / %s[%d]", loc(), what, b),
					"%s [%d, %d) overlaps %s[%d] %s at [%d, %d)", describeEntry(&es[b]), sp.Start, sp.End, what, a, describeEntry(&es[a]), max(o.Start, sp.Start), min(o.End, sp.End))
			}
		}
		if sp.End > maxEnd {
			maxEnd, maxIdx = sp.End, i
		}
	}
}

func describeEntry(e *BufferEntry) string {
	var b strings.Builder
	b.WriteString(e.Type)
	if e.HasTensorID {
		b.WriteString(" tensor ")
		b.WriteString(strconv.FormatInt(e.TensorID, 10))
	}
	if len(e.TransferIDs) > 0 {
		fmt.Fprintf(&b, " (transfers %v)", e.TransferIDs)
	}
	return b.String()
}

func checkSourceIDs(e *BufferEntry, loc func() string, rep *diag.Report) {
	if len(e.Sources) == 0 {
		return
	}
	got := map[int64]bool{}
	for _, src := range e.Sources {
		got[src.TransferID] = true
	}
	want := map[int64]bool{}
	for _, id := range e.TransferIDs {
		want[id] = true
	}
	same := len(got) == len(want)
	for id := range want {
		if !got[id] {
			same = false
		}
	}
	if !same {
		ids := make([]int64, 0, len(got))
		for id := range got {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		rep.Add(RuleSourceIDs, loc(), "sources carry transfers %v but transfer_id lists %v", ids, e.TransferIDs)
	}
}

// entryRef locates a buffer entry for a diagnostic, formatted only when
// one is reported.
type entryRef struct {
	c      *Core
	w      *Workload
	entry  int
	weight bool // in the WL0/WL1 buffer
}

func (r entryRef) String() string {
	if r.weight {
		return fmt.Sprintf("%s / %s[%d]", wlLoc(r.c, r.w), weightKey(r.w), r.entry)
	}
	return fmt.Sprintf("%s / buffer[%d]", wlLoc(r.c, r.w), r.entry)
}

// checkTensorOrder verifies that DRAM-sourced L2 entries, ofmap-typed
// entries and WL0 DRAM entries, each tensor counted once, number the DRAM
// transfers 0..|in|+|out|-1.
//
// That total order is what the single-core real files show (the notes). No
// multi-core file of the compiler IR is public: whether its queue is one
// for the chip or one per core, and whether a weight read by several cores
// takes one place or several, is unknown. There only what holds either way
// is checked: no two DRAM transfers of one core share a tensor_order.
func checkTensorOrder(s *Schedule, tn *Tensors, rep *diag.Report) {
	if tn.OrderCopiesID {
		return // a copy of a tensor_id that is no identity (Tensors.Assumption says so)
	}
	if len(s.Cores) > 1 {
		checkTensorOrderPerCore(s, tn, rep)
		return
	}
	n := int64(len(s.DRAMReads) + len(s.DRAMWrites))
	count := map[int64]int{}
	where := map[int64]entryRef{}
	seenL2 := map[[2]int64]bool{}
	type wlKey struct {
		core  int
		order int64
		ids   string
	}
	seenWL := map[wlKey]bool{}
	var idBuf []byte
	any := false
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				if !e.HasTensorOrder || !e.HasTensorID || !(e.FromDRAM() || e.Type == "ofmap") {
					continue
				}
				any = true
				k := [2]int64{int64(c.ID), int64(tn.Key(c.ID, wi, ei))}
				if seenL2[k] {
					continue
				}
				seenL2[k] = true
				count[e.TensorOrder]++
				if _, ok := where[e.TensorOrder]; !ok {
					where[e.TensorOrder] = entryRef{c, w, ei, false}
				}
			}
			for ei := range w.WeightBuffer {
				e := &w.WeightBuffer[ei]
				if !e.HasTensorOrder || e.SourceKind != "DRAM" {
					continue
				}
				any = true
				idBuf = idBuf[:0]
				for _, id := range e.TransferIDs {
					idBuf = strconv.AppendInt(append(idBuf, ','), id, 10)
				}
				k := wlKey{c.ID, e.TensorOrder, string(idBuf)}
				if seenWL[k] {
					continue
				}
				seenWL[k] = true
				count[e.TensorOrder]++
				if _, ok := where[e.TensorOrder]; !ok {
					where[e.TensorOrder] = entryRef{c, w, ei, true}
				}
			}
		}
	}
	if !any {
		return
	}
	var dups, outside, missing []int64
	for v, k := range count {
		if v < 0 || v >= n {
			outside = append(outside, v)
		} else if k > 1 {
			dups = append(dups, v)
		}
	}
	for v := int64(0); v < n; v++ {
		if count[v] == 0 {
			missing = append(missing, v)
		}
	}
	sortI := func(xs []int64) []int64 {
		sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
		return xs
	}
	for _, v := range sortI(dups) {
		rep.Add(RuleTensorOrder, where[v].String(), "tensor_order %d is used by %d DRAM transfers", v, count[v])
	}
	// A queue position held by two transfers is an error. Values beyond
	// |in|+|out|-1 and unused values are warnings: the real files number
	// exactly 0..|in|+|out|-1, but a schedule that loads one DRAM tensor
	// twice (evicted and re-loaded: a longer queue than "-1" has entries)
	// would be valid and still break that count.
	for _, v := range sortI(outside) {
		if v < 0 {
			rep.Add(RuleTensorOrder, where[v].String(), "tensor_order %d is negative", v)
		} else {
			rep.Add(RuleTensorOrderGaps, where[v].String(), "tensor_order %d lies outside 0..%d (|in|+|out|-1)", v, n-1)
		}
	}
	if len(missing) > 0 {
		ex := missing
		if len(ex) > 8 {
			ex = ex[:8]
		}
		rep.Add(RuleTensorOrderGaps, "tensor_order", "%d of 0..%d are used by no DRAM transfer, e.g. %v", len(missing), n-1, ex)
	}
}

// checkTensorOrderPerCore reports tensor_order values used by two DRAM
// transfers (distinct tensors, or WL0 streams of distinct transfers) of one
// core.
func checkTensorOrderPerCore(s *Schedule, tn *Tensors, rep *diag.Report) {
	for _, c := range s.Cores {
		owner := map[int64]string{} // tensor_order -> identity of its transfer
		reported := map[int64]bool{}
		var idBuf []byte
		use := func(order int64, id string, ref entryRef) {
			prev, ok := owner[order]
			if !ok {
				owner[order] = id
				return
			}
			if prev != id && !reported[order] {
				reported[order] = true
				rep.Add(RuleTensorOrder, ref.String(), "tensor_order %d is used by two DRAM transfers of %s", order, c.Name())
			}
		}
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				if !e.HasTensorOrder || !e.HasTensorID || !(e.FromDRAM() || e.Type == "ofmap") {
					continue
				}
				id := "id" + strconv.FormatInt(e.TensorID, 10)
				if k := tn.Key(c.ID, wi, ei); k >= 0 {
					id = "t" + strconv.Itoa(int(k))
				}
				use(e.TensorOrder, id, entryRef{c, w, ei, false})
			}
			for ei := range w.WeightBuffer {
				e := &w.WeightBuffer[ei]
				if !e.HasTensorOrder || e.SourceKind != "DRAM" {
					continue
				}
				idBuf = append(idBuf[:0], 'w')
				for _, id := range e.TransferIDs {
					idBuf = strconv.AppendInt(append(idBuf, ','), id, 10)
				}
				use(e.TensorOrder, string(idBuf), entryRef{c, w, ei, true})
			}
		}
	}
}

// tensorWord starts a finding with a tensor's name: "tensor_id 3" reads
// "tensor 3" as the subject of a sentence.
func tensorWord(name string) string {
	if rest, ok := strings.CutPrefix(name, "tensor_id "); ok {
		return "tensor " + rest
	}
	return name
}
