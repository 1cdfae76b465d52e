package gemini

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// Rule IDs. The errors are the invariants every real schedule holds
// (../shared/notes/gemini.md, "Invariants that hold in every real file");
// the warnings are documented conventions of the scheduler; the infos mark
// features that are legal but never seen in real files.
const (
	RuleBadValue          = "gemini/bad-value"
	RuleWorkloadOrder     = "gemini/workload-order"
	RuleTransferIDsDense  = "gemini/transfer-ids-dense"
	RuleDuplicateProducer = "gemini/duplicate-producer"
	RuleDRAMReadID        = "gemini/dram-read-id"
	RuleDRAMWriteProducer = "gemini/dram-write-producer"
	RuleDanglingTransfer  = "gemini/dangling-transfer"
	RuleConsumerNotListed = "gemini/consumer-not-listed"
	RuleProducerOrder     = "gemini/producer-order"
	RuleBadDestination    = "gemini/bad-destination"
	RuleDRAMDestination   = "gemini/dram-destination-unmatched"
	RuleUnconsumedRead    = "gemini/unconsumed-dram-read"
	RuleDeadOfmap         = "gemini/dead-ofmap"
	RuleRelatedUnknown    = "gemini/related-unknown"
	RuleRelatedAsymmetric = "gemini/related-asymmetric"
	RuleCycle             = "gemini/cycle"
	RuleIfmapUndersized   = "gemini/ifmap-undersized"
	RuleWeightSize        = "gemini/weight-size"
	RuleOfmapSize         = "gemini/ofmap-size"
	RuleAddressRange      = "gemini/address-range"
	RuleBufferOverlap     = "gemini/buffer-overlap"
	RuleTensorMoved       = "gemini/tensor-moved"
	RuleNewlyAdded        = "gemini/newly-added"
	RuleSourceIDs         = "gemini/source-ids"
	RuleIfmapNotBuffered  = "gemini/ifmap-not-buffered"
	RuleTensorOrder       = "gemini/tensor-order"
	RuleWeightFirstOnly   = "gemini/weight-first-consumer-only"
	RuleAddressReuse      = "gemini/address-reuse"
	RuleRingWrap          = "gemini/ring-wrap"
	RuleMultipleRegions   = "gemini/multiple-ring-regions"
	RuleMergedDestination = "gemini/merged-ifmap-destination"
	RuleUnknownType       = "gemini/unknown-type"
	RuleTypeSynonym       = "gemini/type-synonym"
	RuleUnallocated       = "gemini/unallocated"
	RulePartial           = "gemini/partial-schedule"
	RuleTensorOrderGaps   = "gemini/tensor-order-gaps"
	RuleTensorIdentity    = "gemini/tensor-identity"
	RuleIfmapsFromBuffer  = "gemini/ifmaps-from-buffer"
	RulePrefetchedWeight  = "gemini/prefetched-weight"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleBadValue, Severity: diag.Error, Description: "a size, time or ofmap_size is negative"},
		diag.Rule{ID: RuleWorkloadOrder, Severity: diag.Error, Description: "workload_id must be unique and strictly ascending on each core (it is the program order)"},
		diag.Rule{ID: RuleTransferIDsDense, Severity: diag.Error, Description: "transfer IDs (core ofmaps and DRAM reads) must be exactly 0..n-1"},
		diag.Rule{ID: RuleDuplicateProducer, Severity: diag.Error, Description: "each core-ofmap transfer_id must have exactly one producer"},
		diag.Rule{ID: RuleDRAMReadID, Severity: diag.Error, Description: `"-1".out transfer IDs must be unique and disjoint from core ofmap IDs; "-1".in IDs unique`},
		diag.Rule{ID: RuleDRAMWriteProducer, Severity: diag.Error, Description: `a "-1".in entry must name an existing workload whose ofmap has its transfer_id and a DRAM destination`},
		diag.Rule{ID: RuleDanglingTransfer, Severity: diag.Error, Description: `an ifmap transfer_id must resolve to a "-1".out fmap or a core ofmap; a weight transfer_id to a "-1".out weight`},
		diag.Rule{ID: RuleConsumerNotListed, Severity: diag.Error, Description: "a workload using a transfer must be listed in that transfer's destination"},
		diag.Rule{ID: RuleProducerOrder, Severity: diag.Error, Description: "a producer on the same core must precede its consumer"},
		diag.Rule{ID: RuleBadDestination, Severity: diag.Error, Description: "a core destination must name an existing (core, workload) that uses the transfer"},
		diag.Rule{ID: RuleDRAMDestination, Severity: diag.Error, Description: `an ofmap sent to DRAM must have a matching "-1".in entry`},
		diag.Rule{ID: RuleUnconsumedRead, Severity: diag.Error, Description: `every "-1".out transfer must be used by some workload`},
		diag.Rule{ID: RuleDeadOfmap, Severity: diag.Error, Description: "every core ofmap must be consumed by a core or written to DRAM"},
		diag.Rule{ID: RuleRelatedUnknown, Severity: diag.Error, Description: "related_ofmap/related_ifmap must name existing DRAM transfers"},
		diag.Rule{ID: RuleRelatedAsymmetric, Severity: diag.Error, Description: "related_ofmap and related_ifmap links must be symmetric (a DRAM read waits for the writes it relates to)"},
		diag.Rule{ID: RuleCycle, Severity: diag.Error, Description: "program order plus data edges (core-to-core and via DRAM) must form a DAG"},
		diag.Rule{ID: RuleIfmapUndersized, Severity: diag.Error, Description: "the transfers of an ifmap must together be at least as large as the ifmap"},
		diag.Rule{ID: RuleWeightSize, Severity: diag.Error, Description: "weight.size must equal the size of its DRAM transfers"},
		diag.Rule{ID: RuleOfmapSize, Severity: diag.Error, Description: "ofmap_size must equal the size of the workload's ofmap entry (when it has one; the raw IR allows bit rounding)"},
		diag.Rule{ID: RuleAddressRange, Severity: diag.Error, Description: "a buffer address must lie in [0, buffersize) inside a ring_buffer_info region no smaller than the tensor"},
		diag.Rule{ID: RuleBufferOverlap, Severity: diag.Error, Description: "no two tensors of one buffer snapshot may overlap (ring-aware)"},
		diag.Rule{ID: RuleTensorMoved, Severity: diag.Error, Description: "a tensor_id must keep its address on its core"},
		diag.Rule{ID: RuleNewlyAdded, Severity: diag.Error, Description: "newly_added must be true exactly when the tensor_id was absent from the previous snapshot of the core"},
		diag.Rule{ID: RuleSourceIDs, Severity: diag.Error, Description: "the union of a buffer entry's source transfer IDs must equal its transfer_id list"},
		diag.Rule{ID: RuleIfmapNotBuffered, Severity: diag.Error, Description: "every ifmap transfer of a workload must be in its buffer snapshot"},
		diag.Rule{ID: RuleTensorOrder, Severity: diag.Error, Description: "no two DRAM transfers (DRAM-sourced, ofmap-typed and WL0 DDR entries) may share a tensor_order, and none is negative"},
		diag.Rule{ID: RuleTensorOrderGaps, Severity: diag.Warning, Description: "tensor_order of a single-core schedule does not number its DRAM transfers exactly 0..|in|+|out|-1 (every real file does; a re-loaded tensor would lengthen the queue)"},
		diag.Rule{ID: RuleWeightFirstOnly, Severity: diag.Info, Description: "a transfer used by several workloads of a core lists only one of them in destination (the compiler lists the first consumer of a re-used weight or of a tensor kept in L2; one third-party writer lists the last): a convention, reported once per schedule; tools must not rely on destination lists for re-used tensors"},
		diag.Rule{ID: RuleAddressReuse, Severity: diag.Info, Description: "a DRAM load newly added at workload k overlaps a tensor live at k-1: its load waits until k-1 releases the region (address write-after-read; every compiled schedule has some, reported once per schedule; `npukit alloc --from --prefetch` removes them)"},
		diag.Rule{ID: RuleMergedDestination, Severity: diag.Info, Description: "a destination names a workload that holds the transfer only inside a merged tensor (cur_wl_ifmap) of its snapshot, not in its ifmap list (a scheduler convention, reported once per schedule)"},
		diag.Rule{ID: RuleTypeSynonym, Severity: diag.Info, Description: `a "-1".out entry's type is another writer's word for fmap ("ifmap", "ofmap"): read as fmap, reported once per word`},
		diag.Rule{ID: RuleUnallocated, Severity: diag.Warning, Description: "buffer entries of a core have no address (a placeholder such as \"address\": true, or none at all): the schedule is not allocated; `npukit alloc --from FILE --rewrite OUT` allocates it (reported once per core)"},
		diag.Rule{ID: RulePartial, Severity: diag.Info, Description: `DRAM reads serve layers that have no workload in the file: read as a slice of a larger schedule, whose links to the missing part (unconsumed reads, transfers produced outside the slice, sparse transfer IDs) are not errors`},
		diag.Rule{ID: RuleUnknownType, Severity: diag.Warning, Description: "a DRAM tensor or buffer entry has a type the spec does not list (weight/fmap; ifmap/ofmap/weight): read as data, its links still checked"},
		diag.Rule{ID: RuleTensorIdentity, Severity: diag.Info, Description: "the schedule's tensor_id is not an identity (one writer numbers each snapshot's entries: the same tensor_id holds other transfers from one snapshot to the next): every command identifies its tensors by their transfer IDs instead (tensor-moved, newly-added, re-allocation, lifetimes), said once per schedule"},
		diag.Rule{ID: RuleIfmapsFromBuffer, Severity: diag.Info, Description: "raw-IR workloads without an ifmap list carry their inputs in their buffer entries (transfer IDs, KiB blocks, source sizes in bits), as some hand-written raw schedules do: those entries are read as the workloads' ifmaps (and weight, when none is given), said once per schedule"},
		diag.Rule{ID: RulePrefetchedWeight, Severity: diag.Info, Description: "a workload's weight field names the weight of a later layer of its core (the DRAM read's layer_name, used by that layer's workloads): one converter writes the next layer's weight, prefetched into L2, there; read as that load made during the workload, its traffic counted for its own layer; said once per schedule"},
		diag.Rule{ID: RuleRingWrap, Severity: diag.Info, Description: "a tensor wraps around the end of its ring-buffer region (legal, never seen in real files)"},
		diag.Rule{ID: RuleMultipleRegions, Severity: diag.Info, Description: "a workload configures several ring-buffer regions (legal, never seen in real files)"},
	)
}

// wref locates a workload compactly: core index and index in Core.Workloads.
type wref struct{ core, wl int32 }

// oref locates an ofmap entry.
type oref struct {
	wref
	ofmap int32
}

// Index holds the lookups Check and the analyses share.
type Index struct {
	s *Schedule
	// Workload maps (core, workload_id) to the workload's index; the first
	// occurrence wins when an ID repeats.
	workload []map[int64]int32
	// producer maps a core-ofmap transfer ID to its (first) producer.
	producer map[int64]oref
	// read and write map DRAM transfer IDs to their entry index.
	read  map[int64]int32
	write map[int64]int32
	// consumers maps a transfer ID to the workloads using it (ifmap or
	// weight), in core then program order.
	consumers map[int64][]wref
	// layers are the layer names of the workloads.
	layers map[string]bool
}

// NewIndex builds the lookups of a schedule.
func NewIndex(s *Schedule) *Index {
	ix := &Index{s: s, producer: map[int64]oref{}, read: map[int64]int32{}, write: map[int64]int32{}, consumers: map[int64][]wref{}, layers: map[string]bool{}}
	ix.workload = make([]map[int64]int32, len(s.Cores))
	for ci, c := range s.Cores {
		m := make(map[int64]int32, len(c.Workloads))
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			ix.layers[w.LayerName] = true
			if _, dup := m[w.ID]; !dup {
				m[w.ID] = int32(wi)
			}
			for oi := range w.Ofmaps {
				if _, dup := ix.producer[w.Ofmaps[oi].TransferID]; !dup {
					ix.producer[w.Ofmaps[oi].TransferID] = oref{wref{int32(ci), int32(wi)}, int32(oi)}
				}
			}
			seen := map[int64]bool{}
			add := func(id int64) {
				if !seen[id] {
					seen[id] = true
					ix.consumers[id] = append(ix.consumers[id], wref{int32(ci), int32(wi)})
				}
			}
			for _, f := range w.Ifmaps {
				for _, id := range f.TransferIDs {
					add(id)
				}
			}
			if w.Weight != nil {
				for _, id := range w.Weight.TransferIDs {
					add(id)
				}
			}
		}
		ix.workload[ci] = m
	}
	for i := range s.DRAMReads {
		if _, dup := ix.read[s.DRAMReads[i].TransferID]; !dup {
			ix.read[s.DRAMReads[i].TransferID] = int32(i)
		}
	}
	for i := range s.DRAMWrites {
		if _, dup := ix.write[s.DRAMWrites[i].TransferID]; !dup {
			ix.write[s.DRAMWrites[i].TransferID] = int32(i)
		}
	}
	return ix
}

// Workload returns the workload with an ID on a compact core, or nil.
func (ix *Index) Workload(core int, id int64) *Workload {
	if core < 0 || core >= len(ix.workload) {
		return nil
	}
	wi, ok := ix.workload[core][id]
	if !ok {
		return nil
	}
	return &ix.s.Cores[core].Workloads[wi]
}

// Producer returns the workload producing a core-ofmap transfer and the
// ofmap entry, or nils.
func (ix *Index) Producer(id int64) (*Core, *Workload, *Ofmap) {
	o, ok := ix.producer[id]
	if !ok {
		return nil, nil, nil
	}
	c := ix.s.Cores[o.core]
	w := &c.Workloads[o.wl]
	return c, w, &w.Ofmaps[o.ofmap]
}

// Read returns the DRAM read ("-1".out) with a transfer ID, or nil.
func (ix *Index) Read(id int64) *DRAMRead {
	if i, ok := ix.read[id]; ok {
		return &ix.s.DRAMReads[i]
	}
	return nil
}

// Write returns the DRAM write ("-1".in) with a transfer ID, or nil.
func (ix *Index) Write(id int64) *DRAMWrite {
	if i, ok := ix.write[id]; ok {
		return &ix.s.DRAMWrites[i]
	}
	return nil
}

// TransferSize returns the size in bytes of a transfer: its DRAM read or
// its producing ofmap; ok is false when the ID resolves to neither.
func (ix *Index) TransferSize(id int64) (int64, bool) {
	if r := ix.Read(id); r != nil {
		return r.Size, true
	}
	if _, _, o := ix.Producer(id); o != nil {
		return o.Size, true
	}
	return 0, false
}

func uses(w *Workload, id int64) bool {
	for _, f := range w.Ifmaps {
		for _, t := range f.TransferIDs {
			if t == id {
				return true
			}
		}
	}
	if w.Weight != nil {
		for _, t := range w.Weight.TransferIDs {
			if t == id {
				return true
			}
		}
	}
	return false
}

// inMergedIfmap reports whether a transfer is part of a tensor of the
// workload's snapshot: a merged tensor holding several transfers (the notes:
// cur_wl_ifmap marks it, a superset of the workload's ifmaps). The flag is
// not required: the spec calls cur_wl_ifmap a hint for the assembler, so a
// writer that omits it still holds the transfer in its snapshot.
func inMergedIfmap(w *Workload, id int64) bool {
	for i := range w.Buffer {
		if slices.Contains(w.Buffer[i].TransferIDs, id) {
			return true
		}
	}
	return false
}

// fileCore names the core a reference points at (compact ID and file
// key) as Core.Name does, or by its key when it names no core.
func fileCore(s *Schedule, id int, key int64) string {
	if id >= 0 && id < len(s.Cores) {
		return s.Cores[id].Name()
	}
	return fmt.Sprintf("core key %d (no such core)", key)
}

func wlLoc(c *Core, w *Workload) string {
	return fmt.Sprintf("%s / workload %d", c.Name(), w.ID)
}

func destListed(ds []Destination, core int, id int64) bool {
	for _, d := range ds {
		if d.Core == core && d.HasWorkload && d.Workload == id {
			return true
		}
	}
	return false
}

// Check verifies every invariant of a schedule. It never panics on
// inconsistent input: broken links are reported, not repaired.
func Check(s *Schedule) diag.Report {
	var rep diag.Report
	ix := NewIndex(s)
	sl := sliceOf(s, ix)
	checkValues(s, &rep)
	checkOrder(s, &rep)
	checkIDs(s, ix, sl, &rep)
	st := findStale(s, ix)
	var mr missingReads
	checkLinks(s, ix, sl, st, &mr, &rep)
	checkRelated(s, ix, &mr, &rep)
	st.report(&rep)
	mr.report(&rep)
	checkDAG(s, ix, &rep)
	checkPrefetchedWeights(s, ix, &rep)
	checkSizes(s, ix, &rep)
	tn := IdentifyTensors(s)
	if a := tn.Assumption(); a != "" {
		rep.Add(RuleTensorIdentity, "buffer", "%s", a)
	}
	checkSnapshots(s, ix, tn, &rep)
	checkUnallocated(s, &rep)
	checkTensorOrder(s, tn, &rep)
	sl.report(&rep)
	rep.Sort()
	// Conventions every real schedule follows are said once, and so is
	// each link rule a broken writer breaks more than a few times.
	return rep.Group(append([]string{RuleWeightFirstOnly, RuleAddressReuse, RuleMergedDestination}, floods(rep)...)...)
}

// floodRules are the link rules one broken writer can break hundreds of
// times (one cause, a line per transfer); more than floodMin findings of
// one are said once, with the count and the first.
var floodRules = []string{RuleConsumerNotListed, RuleBadDestination, RuleDRAMDestination, RuleDRAMWriteProducer,
	RuleDanglingTransfer, RuleUnconsumedRead, RuleDeadOfmap, RuleRelatedUnknown, RuleRelatedAsymmetric, RuleProducerOrder,
	RuleIfmapNotBuffered, RuleIfmapUndersized, RuleSourceIDs, RuleNewlyAdded, RuleTensorMoved}

const floodMin = 3

func floods(rep diag.Report) []string {
	n := map[string]int{}
	for _, d := range rep {
		n[d.Rule]++
	}
	var out []string
	for _, r := range floodRules {
		if n[r] > floodMin {
			out = append(out, r)
		}
	}
	return out
}

// slice describes a schedule that is part of a larger one: some DRAM
// reads serve layers with no workload in the file (a converter's test
// slice keeps the whole "-1" list but a few layers' workloads). Links
// into the missing part are then expected and counted, not reported one
// by one.
type slice struct {
	partial     bool
	outside     map[int64]bool // DRAM reads of layers without workloads
	example     string
	dangling    int
	unconsumed  int
	outsideDest int // destinations naming workloads not in the file
	sparseIDs   bool
}

// heldByDestination reports whether a destination names an existing
// workload whose snapshot holds the transfer (in its ifmap list or only in
// a merged cur_wl_ifmap tensor): the transfer is consumed there.
func heldByDestination(ix *Index, ds []Destination, id int64) bool {
	for _, d := range ds {
		if d.Core < 0 || !d.HasWorkload {
			continue
		}
		if w := ix.Workload(d.Core, d.Workload); w != nil && (uses(w, id) || inMergedIfmap(w, id)) {
			return true
		}
	}
	return false
}

// sliceOf finds the DRAM reads that serve the missing part of a sliced
// schedule: read for a layer that has no workload in the file, used by no
// workload and held by none of their destinations.
func sliceOf(s *Schedule, ix *Index) *slice {
	layers := map[string]bool{}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			layers[c.Workloads[wi].LayerName] = true
		}
	}
	sl := &slice{outside: map[int64]bool{}}
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		if r.LayerName != "" && !layers[r.LayerName] && len(ix.consumers[r.TransferID]) == 0 && !heldByDestination(ix, r.Destinations, r.TransferID) {
			sl.outside[r.TransferID] = true
			if sl.example == "" {
				sl.example = r.LayerName
			}
		}
	}
	sl.partial = len(sl.outside) > 0 && len(layers) > 0
	return sl
}

func (sl *slice) report(rep *diag.Report) {
	if !sl.partial {
		return
	}
	rep.Add(RulePartial, "dram out", "%d DRAM reads serve layers with no workload in this file (e.g. %q): read as a slice of a larger schedule; not reported: %d reads no workload here uses, %d transfers produced outside the slice, %d destinations there%s",
		len(sl.outside), sl.example, sl.unconsumed, sl.dangling, sl.outsideDest, map[bool]string{true: ", transfer IDs that are not 0..n-1", false: ""}[sl.sparseIDs])
}

// checkUnallocated reports, once per core, buffer entries without an
// address in a schedule that places tensors (a placeholder address, or a
// compiler-IR entry with none). The raw IR never has addresses.
func checkUnallocated(s *Schedule, rep *diag.Report) {
	for _, c := range s.Cores {
		missing, total, placeholder := 0, 0, false
		for wi := range c.Workloads {
			for _, e := range c.Workloads[wi].Buffer {
				total++
				if e.Unallocated || !e.HasAddress && s.Variant == Compiler {
					missing++
					placeholder = placeholder || e.Unallocated
				}
			}
		}
		if missing == 0 {
			continue
		}
		how := "have no address"
		if placeholder {
			how = "have a placeholder instead of an address"
		}
		rep.Add(RuleUnallocated, c.Name(), "%d of %d buffer entries %s: the schedule is not allocated (npukit alloc --from FILE --rewrite OUT.json allocates it)", missing, total, how)
	}
}

func checkValues(s *Schedule, rep *diag.Report) {
	if s.BufferSize < 0 {
		rep.Add(RuleBadValue, "buffersize", "buffersize %d is negative", s.BufferSize)
	}
	synonyms, synonymAt := map[string]int{}, map[string]string{}
	for i := range s.DRAMReads {
		d := &s.DRAMReads[i]
		loc := func() string { return fmt.Sprintf("dram out[%d] (transfer %d)", i, d.TransferID) }
		if d.Size < 0 {
			rep.Add(RuleBadValue, loc(), "size %d is negative", d.Size)
		}
		// The spec's prose says "-1".out holds "weights, ifmap, constants,
		// etc." while its type field lists weight/fmap: another type is a
		// warning, not an error.
		switch d.Type {
		case "weight", "fmap":
		case "ifmap", "ofmap":
			synonyms[d.Type]++
			if synonyms[d.Type] == 1 {
				synonymAt[d.Type] = loc()
			}
		default:
			rep.Add(RuleUnknownType, loc(), "type %q is neither weight nor fmap", d.Type)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(synonyms)) {
		rep.Add(RuleTypeSynonym, synonymAt[t], "%d \"-1\".out entries have type %q: read as fmap", synonyms[t], t)
	}
	fromBuffer, fromBufferAt := 0, ""
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			loc := func() string { return wlLoc(c, w) }
			if w.IfmapsFromBuffer || w.WeightFromBuffer {
				if fromBuffer == 0 {
					fromBufferAt = loc()
				}
				fromBuffer++
			}
			if w.Time < 0 {
				rep.Add(RuleBadValue, loc(), "time %d is negative", w.Time)
			}
			if w.OfmapSize < 0 {
				rep.Add(RuleBadValue, loc(), "ofmap_size %d is negative", w.OfmapSize)
			}
			for oi, o := range w.Ofmaps {
				if o.Size < 0 {
					rep.Add(RuleBadValue, fmt.Sprintf("%s / ofmap[%d]", loc(), oi), "size %d is negative", o.Size)
				}
			}
			for ei, e := range w.Buffer {
				if e.Size < 0 {
					rep.Add(RuleBadValue, fmt.Sprintf("%s / buffer[%d]", loc(), ei), "size %d is negative", e.Size)
				}
				if e.Type != "ifmap" && e.Type != "ofmap" && e.Type != "weight" {
					rep.Add(RuleUnknownType, fmt.Sprintf("%s / buffer[%d]", loc(), ei), "type %q is not ifmap, ofmap or weight", e.Type)
				}
			}
		}
	}
	if fromBuffer > 0 {
		rep.Add(RuleIfmapsFromBuffer, fromBufferAt, "%d workloads have no ifmap list: the transfers of their buffer entries are read as their inputs (this raw dialect's simulator loads every source of the buffer)", fromBuffer)
	}
}

func checkOrder(s *Schedule, rep *diag.Report) {
	for _, c := range s.Cores {
		for wi := 1; wi < len(c.Workloads); wi++ {
			prev, w := &c.Workloads[wi-1], &c.Workloads[wi]
			if w.ID <= prev.ID {
				rep.Add(RuleWorkloadOrder, wlLoc(c, w), "workload_id %d follows %d: IDs must strictly ascend", w.ID, prev.ID)
			}
		}
	}
}

func checkIDs(s *Schedule, ix *Index, sl *slice, rep *diag.Report) {
	// Producers: one per core-ofmap ID.
	ids := map[int64]bool{}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for oi, o := range w.Ofmaps {
				if ids[o.TransferID] {
					pc, pw, _ := ix.Producer(o.TransferID)
					rep.Add(RuleDuplicateProducer, fmt.Sprintf("%s / ofmap[%d]", wlLoc(c, w), oi),
						"transfer %d is also produced by %s", o.TransferID, wlLoc(pc, pw))
				}
				ids[o.TransferID] = true
			}
		}
	}
	reads := map[int64]bool{}
	for i, d := range s.DRAMReads {
		loc := func() string { return fmt.Sprintf("dram out[%d] (transfer %d)", i, d.TransferID) }
		switch {
		case reads[d.TransferID]:
			rep.Add(RuleDRAMReadID, loc(), "transfer %d appears twice in \"-1\".out", d.TransferID)
		case ids[d.TransferID]:
			pc, pw, _ := ix.Producer(d.TransferID)
			rep.Add(RuleDRAMReadID, loc(), "transfer %d is also a core ofmap of %s", d.TransferID, wlLoc(pc, pw))
		}
		reads[d.TransferID] = true
	}
	writes := map[int64]bool{}
	for i, d := range s.DRAMWrites {
		if writes[d.TransferID] {
			rep.Add(RuleDRAMReadID, fmt.Sprintf("dram in[%d] (transfer %d)", i, d.TransferID), "transfer %d appears twice in \"-1\".in", d.TransferID)
		}
		writes[d.TransferID] = true
	}
	// Density of the defined IDs.
	n := int64(len(ids)) + int64(len(reads))
	for id := range ids {
		reads[id] = true
	}
	var missing []int64
	var outside []int64
	for id := int64(0); id < n && len(missing) < 5; id++ {
		if !reads[id] {
			missing = append(missing, id)
		}
	}
	for id := range reads {
		if id < 0 || id >= int64(len(reads)) {
			outside = append(outside, id)
		}
	}
	sort.Slice(outside, func(i, j int) bool { return outside[i] < outside[j] })
	if len(outside) > 0 && sl.partial {
		sl.sparseIDs = true
	} else if len(outside) > 0 {
		if len(outside) > 5 {
			outside = outside[:5]
		}
		rep.Add(RuleTransferIDsDense, "transfers", "%d transfer IDs are defined but IDs %v lie outside 0..%d (missing e.g. %v)", len(reads), outside, len(reads)-1, missing)
	}
}

func checkLinks(s *Schedule, ix *Index, sl *slice, st *staleRefs, mr *missingReads, rep *diag.Report) {
	// Consumers: every ifmap/weight transfer resolves and lists the consumer.
	for ci, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for fi, f := range w.Ifmaps {
				loc := func() string { return fmt.Sprintf("%s / ifmap[%d]", wlLoc(c, w), fi) }
				for _, id := range f.TransferIDs {
					if r := ix.Read(id); r != nil {
						if r.Type == "weight" {
							rep.Add(RuleDanglingTransfer, loc(), "transfer %d is a DRAM %s, not an fmap", id, r.Type)
						}
						if !destListed(r.Destinations, ci, w.ID) {
							if reusedHere(r.Destinations, w, ci, id) {
								rep.Add(RuleWeightFirstOnly, loc(), "transfer %d (DRAM read) is re-used here from L2 but lists only an earlier consumer on this core", id)
							} else if other := otherConsumerListed(r.Destinations, ix, ci, w.ID, id); other >= 0 {
								rep.Add(RuleWeightFirstOnly, loc(), "transfer %d (DRAM read) lists workload %d of this core, which also uses it, not this one: one consumer per core is listed (a writer's convention)", id, other)
							} else if !coreListed(r.Destinations, ci) && !brokenDest(ix, sl, r.Destinations, id) {
								// (A destination naming this core names a workload
								// that does not use the transfer: that link is
								// reported, not each consumer it fails to list.)
								rep.Add(RuleConsumerNotListed, loc(), "transfer %d (DRAM read) does not list this workload in its destination", id)
							}
						}
						continue
					}
					pc, pw, o := ix.Producer(id)
					if o == nil && loadedFromDRAM(w, id) {
						mr.add(id, loc)
						continue
					}
					if o == nil && sl.partial {
						sl.dangling++
						continue
					}
					if o == nil {
						rep.Add(RuleDanglingTransfer, loc(), "transfer %d is neither a \"-1\".out entry nor a core ofmap", id)
						continue
					}
					if !destListed(o.Destinations, ci, w.ID) {
						if reusedHere(o.Destinations, w, ci, id) {
							rep.Add(RuleWeightFirstOnly, loc(), "transfer %d (ofmap of %s) is re-used here from L2 but lists only an earlier consumer on this core", id, wlLoc(pc, pw))
						} else if other := otherConsumerListed(o.Destinations, ix, ci, w.ID, id); other >= 0 {
							rep.Add(RuleWeightFirstOnly, loc(), "transfer %d (ofmap of %s) lists workload %d of this core, which also uses it, not this one: one consumer per core is listed (a writer's convention)", id, wlLoc(pc, pw), other)
						} else if !coreListed(o.Destinations, ci) && !brokenDest(ix, sl, o.Destinations, id) {
							rep.Add(RuleConsumerNotListed, loc(), "transfer %d (ofmap of %s) does not list this workload in its destination", id, wlLoc(pc, pw))
						}
					}
					if pc == c && pw.ID >= w.ID {
						rep.Add(RuleProducerOrder, loc(), "transfer %d is produced by workload %d of the same core, which does not precede this one", id, pw.ID)
					}
				}
			}
			if w.Weight != nil {
				loc := func() string { return wlLoc(c, w) + " / weight" }
				for _, id := range w.Weight.TransferIDs {
					r := ix.Read(id)
					if r == nil || r.Type == "fmap" {
						rep.Add(RuleDanglingTransfer, loc(), "weight transfer %d is not a \"-1\".out weight", id)
						continue
					}
					if destListed(r.Destinations, ci, w.ID) {
						continue
					}
					if first := firstListedBefore(r.Destinations, ix, ci, w.ID); first {
						rep.Add(RuleWeightFirstOnly, loc(), "weight transfer %d is re-used here but lists only an earlier consumer", id)
					} else if other := otherConsumerListed(r.Destinations, ix, ci, w.ID, id); other >= 0 {
						rep.Add(RuleWeightFirstOnly, loc(), "weight transfer %d lists workload %d of this core, which also uses it, not this one: one consumer per core is listed (a writer's convention)", id, other)
					} else if !coreListed(r.Destinations, ci) && !brokenDest(ix, sl, r.Destinations, id) {
						rep.Add(RuleConsumerNotListed, loc(), "weight transfer %d does not list this workload in its destination", id)
					}
				}
			}
			// Ofmap destinations.
			for oi, o := range w.Ofmaps {
				loc := func() string { return fmt.Sprintf("%s / ofmap[%d]", wlLoc(c, w), oi) }
				consumed := false
				for di, d := range o.Destinations {
					dloc := func() string { return fmt.Sprintf("%s / destination[%d]", loc(), di) }
					if d.IsDRAM() {
						consumed = true
						wr := ix.Write(o.TransferID)
						if wr == nil {
							rep.Add(RuleDRAMDestination, dloc(), "transfer %d goes to DRAM but \"-1\".in has no entry for it", o.TransferID)
						}
						continue
					}
					consumed = true
					checkCoreDest(ix, sl, st, rep, dloc, d, o.TransferID)
				}
				if !consumed {
					rep.Add(RuleDeadOfmap, loc(), "transfer %d has no destination", o.TransferID)
				}
			}
		}
	}
	// DRAM reads: destinations exist and use the ID; every read consumed.
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		loc := func() string { return fmt.Sprintf("dram out[%d] (transfer %d)", i, r.TransferID) }
		if sl.outside[r.TransferID] {
			// It serves a layer outside the slice: where it goes is not
			// in this file.
			if len(ix.consumers[r.TransferID]) == 0 {
				sl.unconsumed++
			}
			continue
		}
		for di, d := range r.Destinations {
			dloc := func() string { return fmt.Sprintf("%s / destination[%d]", loc(), di) }
			if d.IsDRAM() {
				rep.Add(RuleBadDestination, dloc(), "a DRAM read cannot have DRAM as its destination")
				continue
			}
			checkCoreDest(ix, sl, st, rep, dloc, d, r.TransferID)
		}
		if len(ix.consumers[r.TransferID]) == 0 && !heldByDestination(ix, r.Destinations, r.TransferID) {
			rep.Add(RuleUnconsumedRead, loc(), "no workload uses transfer %d", r.TransferID)
		}
	}
	// DRAM writes: producer exists and sends the ID to DRAM.
	for i := range s.DRAMWrites {
		wr := &s.DRAMWrites[i]
		loc := func() string { return fmt.Sprintf("dram in[%d] (transfer %d)", i, wr.TransferID) }
		if stale, _, _ := staleWrite(ix, wr); stale && st.renumbered {
			continue // counted in the renumbered-references finding
		}
		w := ix.Workload(wr.Core, wr.Workload)
		if w == nil {
			rep.Add(RuleDRAMWriteProducer, loc(), "names %s workload %d, which does not exist", fileCore(s, wr.Core, wr.CoreKey), wr.Workload)
			continue
		}
		ok := false
		for _, o := range w.Ofmaps {
			if o.TransferID == wr.TransferID {
				for _, d := range o.Destinations {
					if d.IsDRAM() {
						ok = true
					}
				}
			}
		}
		if !ok {
			rep.Add(RuleDRAMWriteProducer, loc(), "%s has no ofmap %d sent to DRAM", wlLoc(s.Cores[wr.Core], w), wr.TransferID)
		}
	}
}

// firstListedBefore reports whether the destination list names some
// earlier consumer of the transfer (the re-used weight convention).
func firstListedBefore(ds []Destination, ix *Index, core int, id int64) bool {
	for _, d := range ds {
		if d.Core >= 0 && d.HasWorkload && (d.Core != core || d.Workload < id) && ix.Workload(d.Core, d.Workload) != nil {
			return true
		}
	}
	return false
}

// otherConsumerListed returns the workload ID of another consumer of
// transfer id on the same core that the destination list names (a writer
// that lists one consumer per core), or -1.
func otherConsumerListed(ds []Destination, ix *Index, core int, self, id int64) int64 {
	for _, d := range ds {
		if d.Core != core || !d.HasWorkload || d.Workload == self {
			continue
		}
		for _, ref := range ix.consumers[id] {
			if int(ref.core) == core && ix.s.Cores[ref.core].Workloads[ref.wl].ID == d.Workload {
				return d.Workload
			}
		}
	}
	return -1
}

// reusedHere reports whether an unlisted consumer re-uses a tensor kept in
// its core's L2: an earlier workload of the same core is listed and the
// consumer's snapshot holds the transfer without loading it anew. This is
// the scheduler's convention for re-used weights (the notes: "a re-used
// weight lists only its first consumer"); a tensor re-used from L2 needs no
// new transfer, so the same holds for fmaps and ofmaps kept in L2.
func reusedHere(ds []Destination, w *Workload, core int, id int64) bool {
	listed := false
	for _, d := range ds {
		if d.Core == core && d.HasWorkload && d.Workload < w.ID {
			listed = true
		}
	}
	if !listed {
		return false
	}
	for i := range w.Buffer {
		e := &w.Buffer[i]
		if slices.Contains(e.TransferIDs, id) && !(e.HasNewlyAdded && e.NewlyAdded) {
			return true
		}
	}
	return false
}

// coreListed reports whether a destination list names some workload of a
// compact core.
func coreListed(ds []Destination, core int) bool {
	for _, d := range ds {
		if d.Core == core && d.HasWorkload {
			return true
		}
	}
	return false
}

// brokenDest reports whether a destination list has a core destination
// that is an error of its own (checkCoreDest reports it): it names no
// core, no workload, or a workload that does not use the transfer. A
// consumer that such a list does not name is then not reported again:
// the wrong destination is the one finding for it.
func brokenDest(ix *Index, sl *slice, ds []Destination, id int64) bool {
	for _, d := range ds {
		if d.IsDRAM() {
			continue
		}
		if d.Core < 0 || !d.HasWorkload {
			return true
		}
		w := ix.Workload(d.Core, d.Workload)
		if (w == nil && !sl.partial) || (w != nil && !uses(w, id) && !inMergedIfmap(w, id)) {
			return true
		}
	}
	return false
}

func checkCoreDest(ix *Index, sl *slice, st *staleRefs, rep *diag.Report, loc func() string, d Destination, id int64) {
	if stale, _, _ := staleDest(ix, d, id); stale && st.renumbered {
		return // counted in the renumbered-references finding
	}
	if d.Core < 0 {
		rep.Add(RuleBadDestination, loc(), "core key %d names no core of this schedule", d.CoreKey)
		return
	}
	if !d.HasWorkload {
		rep.Add(RuleBadDestination, loc(), "core destination without workload_id")
		return
	}
	w := ix.Workload(d.Core, d.Workload)
	if w == nil && sl.partial {
		sl.outsideDest++
		return
	}
	if w == nil {
		rep.Add(RuleBadDestination, loc(), "%s has no workload %d", fileCore(ix.s, d.Core, d.CoreKey), d.Workload)
		return
	}
	if !uses(w, id) {
		if inMergedIfmap(w, id) {
			rep.Add(RuleMergedDestination, loc(), "%s workload %d holds transfer %d only in a merged cur_wl_ifmap tensor", fileCore(ix.s, d.Core, d.CoreKey), d.Workload, id)
			return
		}
		rep.Add(RuleBadDestination, loc(), "%s workload %d does not use transfer %d", fileCore(ix.s, d.Core, d.CoreKey), d.Workload, id)
	}
}

func checkRelated(s *Schedule, ix *Index, mr *missingReads, rep *diag.Report) {
	for i := range s.DRAMWrites {
		wr := &s.DRAMWrites[i]
		loc := func() string { return fmt.Sprintf("dram in[%d] (transfer %d)", i, wr.TransferID) }
		for _, id := range wr.RelatedOfmap {
			r := ix.Read(id)
			if r == nil && mr.is[id] {
				mr.related++ // a DRAM read "-1".out lacks: said once
				continue
			}
			if r == nil {
				rep.Add(RuleRelatedUnknown, loc(), "related_ofmap names transfer %d, which is not in \"-1\".out", id)
				continue
			}
			if !slices.Contains(r.RelatedIfmap, wr.TransferID) {
				rep.Add(RuleRelatedAsymmetric, loc(), "related_ofmap names %d, whose related_ifmap does not name %d", id, wr.TransferID)
			}
		}
	}
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		loc := func() string { return fmt.Sprintf("dram out[%d] (transfer %d)", i, r.TransferID) }
		for _, id := range r.RelatedIfmap {
			wr := ix.Write(id)
			if wr == nil {
				rep.Add(RuleRelatedUnknown, loc(), "related_ifmap names transfer %d, which is not in \"-1\".in", id)
				continue
			}
			if !slices.Contains(wr.RelatedOfmap, r.TransferID) {
				rep.Add(RuleRelatedAsymmetric, loc(), "related_ifmap names %d, whose related_ofmap does not name %d", id, r.TransferID)
			}
		}
	}
}

// WorkloadRef locates a workload: Core is the compact core ID, Index its
// position in Core.Workloads (program order).
type WorkloadRef struct{ Core, Index int }

// Edges calls fn for each data edge of the schedule, beyond program order:
// a core-to-core transfer links its producer to each consumer; a DRAM read
// links the producer of every DRAM write in its related_ifmap to each
// consumer of the read (a DRAM read may start only after those writes
// completed). transfer is the ID the consumer reads. Broken links are
// skipped (Check reports them).
func (ix *Index) Edges(fn func(from, to WorkloadRef, transfer int64)) {
	s := ix.s
	for ci, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			to := WorkloadRef{ci, wi}
			for _, f := range w.Ifmaps {
				for _, id := range f.TransferIDs {
					if r := ix.Read(id); r != nil {
						for _, wid := range r.RelatedIfmap {
							wr := ix.Write(wid)
							if wr == nil || wr.Core < 0 {
								continue
							}
							if pi, ok := ix.workload[wr.Core][wr.Workload]; ok {
								fn(WorkloadRef{wr.Core, int(pi)}, to, id)
							}
						}
						continue
					}
					if o, ok := ix.producer[id]; ok {
						fn(WorkloadRef{int(o.core), int(o.wl)}, to, id)
					}
				}
			}
		}
	}
}

func checkDAG(s *Schedule, ix *Index, rep *diag.Report) {
	base := make([]int, len(s.Cores)+1)
	for ci, c := range s.Cores {
		base[ci+1] = base[ci] + len(c.Workloads)
	}
	n := base[len(s.Cores)]
	if n == 0 {
		return
	}
	indeg := make([]int32, n)
	adj := make([][]int32, n)
	for ci, c := range s.Cores {
		for wi := 1; wi < len(c.Workloads); wi++ {
			adj[base[ci]+wi-1] = append(adj[base[ci]+wi-1], int32(base[ci]+wi))
			indeg[base[ci]+wi]++
		}
	}
	ix.Edges(func(from, to WorkloadRef, _ int64) {
		if from.Core == to.Core && from.Index >= to.Index {
			return // a backward edge on one core: reported by producer-order
		}
		a, b := base[from.Core]+from.Index, base[to.Core]+to.Index
		adj[a] = append(adj[a], int32(b))
		indeg[b]++
	})
	queue := make([]int32, 0, 64)
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	done := 0
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		done++
		for _, u := range adj[v] {
			indeg[u]--
			if indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if done == n {
		return
	}
	for ci, c := range s.Cores {
		for wi := range c.Workloads {
			if indeg[base[ci]+wi] > 0 {
				rep.Add(RuleCycle, wlLoc(c, &c.Workloads[wi]), "%d workloads lie on or behind a dependency cycle of program order and data edges; this one cannot start", n-done)
				return
			}
		}
	}
}

func checkSizes(s *Schedule, ix *Index, rep *diag.Report) {
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for fi, f := range w.Ifmaps {
				if f.Size <= 0 {
					continue
				}
				var sum int64
				ok := true
				for _, id := range f.TransferIDs {
					n, found := ix.TransferSize(id)
					ok = ok && found
					sum += n
				}
				if ok && sum < f.Size {
					rep.Add(RuleIfmapUndersized, fmt.Sprintf("%s / ifmap[%d]", wlLoc(c, w), fi), "transfers %v hold %d bytes, less than the ifmap's %d", f.TransferIDs, sum, f.Size)
				}
			}
			if w.Weight != nil && w.Weight.Size > 0 {
				var sum int64
				ok := true
				for _, id := range w.Weight.TransferIDs {
					r := ix.Read(id)
					if r == nil {
						ok = false
						break
					}
					sum += r.Size
				}
				if ok && sum != w.Weight.Size {
					rep.Add(RuleWeightSize, wlLoc(c, w)+" / weight", "weight.size %d differs from its DRAM transfers' %d", w.Weight.Size, sum)
				}
			}
			// Every real file gives a workload one ofmap entry, whose size
			// is ofmap_size. Several entries (pieces of the ofmap, which
			// a multi-core split could send with overlapping halos or leave
			// partly unsent) have never been seen: their sum is not held to
			// ofmap_size.
			if len(w.Ofmaps) == 1 {
				var sum int64
				for _, o := range w.Ofmaps {
					sum += o.Size
				}
				// The raw IR counts bits; each size was rounded up to
				// bytes on its own, so the sum may exceed the rounded
				// total by up to one byte per entry.
				slack := int64(0)
				if s.Variant == Raw {
					slack = int64(len(w.Ofmaps))
				}
				if d := sum - w.OfmapSize; d < 0 || d > slack {
					rep.Add(RuleOfmapSize, wlLoc(c, w), "ofmap_size %d differs from the sum of its ofmap entries %d", w.OfmapSize, sum)
				}
			}
		}
	}
}

// PrefetchedWeight reports whether weight transfer id, in the weight field
// of workload wi of core c, is the weight of a later layer (see
// RulePrefetchedWeight): its DRAM read names another layer, whose
// workloads on that core come later and use it, or which has no workload
// in the file (a slice ending before it). It returns that layer.
func (ix *Index) PrefetchedWeight(c *Core, wi int, id int64) (string, bool) {
	r := ix.Read(id)
	w := &c.Workloads[wi]
	if r == nil || r.Type != "weight" || r.LayerName == "" || r.LayerName == w.LayerName {
		return "", false
	}
	if !ix.layers[r.LayerName] {
		return r.LayerName, true
	}
	for _, ref := range ix.consumers[id] {
		if int(ref.core) != c.ID || int(ref.wl) <= wi {
			continue
		}
		if lw := &c.Workloads[ref.wl]; lw.LayerName == r.LayerName && lw.Weight != nil && slices.Contains(lw.Weight.TransferIDs, id) {
			return r.LayerName, true
		}
	}
	return "", false
}

// checkPrefetchedWeights says once that weight fields carry later layers'
// weights, with the layers and the first example.
func checkPrefetchedWeights(s *Schedule, ix *Index, rep *diag.Report) {
	n := 0
	layers := map[string]bool{}
	var first, example string
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			if w.Weight == nil {
				continue
			}
			for _, id := range w.Weight.TransferIDs {
				later, ok := ix.PrefetchedWeight(c, wi, id)
				if !ok {
					continue
				}
				if n == 0 {
					first = wlLoc(c, w) + " / weight"
					example = fmt.Sprintf("%s (layer %q) carries weight transfer %d of layer %q", wlLoc(c, w), w.LayerName, id, later)
				}
				n++
				layers[w.LayerName] = true
				break
			}
		}
	}
	if n > 0 {
		verb := "carry a later layer's weight in their"
		if n == 1 {
			verb = "carries a later layer's weight in its"
		}
		rep.Add(RulePrefetchedWeight, first, "%s of %s %s weight field (e.g. %s): read as that weight prefetched during the workload; inspect counts its traffic for its own layer where the file has it",
			humanize.Plural(n, "workload"), humanize.Plural(len(layers), "layer"), verb, example)
	}
}
