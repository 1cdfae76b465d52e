package gemini

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

// The mutation tests start from a valid synthetic schedule (2 cores, 10
// layers; layers 0, 4 and 8 read their input from DRAM, the others core to
// core; layer 3 and 7 write to DRAM) and break exactly one rule each.
//
// Layout of a workload's L2 snapshot in Synth output:
//   - k via DRAM: [weight, fmap ifmap (from DRAM), own ofmap entry]
//   - otherwise:  [weight, kept own previous ofmap, neighbour's ofmap, own ofmap entry]
//
// The own ofmap entry is ifmap-typed when the ofmap goes core to core and
// ofmap-typed (start_send, no transfer id) when it goes to DRAM.
var mutationCfg = SynthConfig{Cores: 2, Workloads: 10}

func wl(s *Schedule, core, k int) *Workload { return &s.Cores[core].Workloads[k] }

func readIndex(t *testing.T, s *Schedule, id int64) int {
	t.Helper()
	for i := range s.DRAMReads {
		if s.DRAMReads[i].TransferID == id {
			return i
		}
	}
	t.Fatalf("no DRAM read %d", id)
	return -1
}

// renameTransfer replaces a transfer ID everywhere it appears.
func renameTransfer(s *Schedule, from, to int64) {
	ren := func(xs []int64) {
		for i := range xs {
			if xs[i] == from {
				xs[i] = to
			}
		}
	}
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		if r.TransferID == from {
			r.TransferID = to
		}
		ren(r.RelatedIfmap)
	}
	for i := range s.DRAMWrites {
		w := &s.DRAMWrites[i]
		if w.TransferID == from {
			w.TransferID = to
		}
		ren(w.RelatedOfmap)
	}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for fi := range w.Ifmaps {
				ren(w.Ifmaps[fi].TransferIDs)
			}
			if w.Weight != nil {
				ren(w.Weight.TransferIDs)
			}
			for oi := range w.Ofmaps {
				if w.Ofmaps[oi].TransferID == from {
					w.Ofmaps[oi].TransferID = to
				}
			}
			for _, buf := range [][]BufferEntry{w.Buffer, w.WeightBuffer} {
				for ei := range buf {
					ren(buf[ei].TransferIDs)
					for si := range buf[ei].Sources {
						if buf[ei].Sources[si].TransferID == from {
							buf[ei].Sources[si].TransferID = to
						}
					}
				}
			}
		}
	}
}

// addTensorOrder gives a new DRAM transfer its tensor_order through a WL0
// DDR entry, so that adding a "-1" entry leaves tensor_order total.
func addTensorOrder(s *Schedule, id int64) {
	n := int64(len(s.DRAMReads)+len(s.DRAMWrites)) - 1
	w := wl(s, 0, len(s.Cores[0].Workloads)-1)
	w.WeightBuffer = append(w.WeightBuffer, BufferEntry{Type: "weight", SourceKind: "DRAM", TensorOrder: n, HasTensorOrder: true, TransferIDs: []int64{id}})
}

// addPiece adds a transfer to a snapshot entry, with a source piece.
func addPiece(e *BufferEntry, id int64, core int) {
	e.TransferIDs = append(e.TransferIDs, id)
	e.Sources = append(e.Sources, Source{Type: "core", Core: core, CoreKey: int64(core), TransferID: id, Size: synthFmap})
}

type mutation struct {
	rule string
	// also lists rules the mutation necessarily reports besides rule.
	also   []string
	mutate func(t *testing.T, s *Schedule)
}

var mutations = []mutation{
	{RuleBadValue, nil, func(t *testing.T, s *Schedule) { wl(s, 0, 1).Time = -1 }},
	// Another writer's word for fmap: one info, the links still checked.
	{RuleTypeSynonym, nil, func(t *testing.T, s *Schedule) {
		for i := range s.DRAMReads {
			if s.DRAMReads[i].Type == "fmap" {
				s.DRAMReads[i].Type = "ifmap"
			}
		}
	}},
	// Placeholder addresses (a converter's "address": true) on two
	// entries of core 1: one finding for the core, not one per entry.
	{RuleUnallocated, nil, func(t *testing.T, s *Schedule) {
		for _, k := range []int{2, 5} {
			e := &wl(s, 1, k).Buffer[0]
			e.Address, e.HasAddress, e.Unallocated = 0, false, true
		}
	}},
	// A DRAM read for a layer with no workload here, destined to a
	// workload the file does not have: a slice of a larger schedule.
	{RulePartial, nil, func(t *testing.T, s *Schedule) {
		id := int64(len(s.DRAMReads) + 1000)
		s.DRAMReads = append(s.DRAMReads, DRAMRead{TransferID: id, Type: "weight", LayerName: "a_later_layer", Size: 64,
			Destinations: []Destination{{Type: "core", Core: 0, CoreKey: 0, Workload: 99, HasWorkload: true}}})
		addTensorOrder(s, id)
	}},
	{RuleUnknownType, nil, func(t *testing.T, s *Schedule) {
		s.DRAMReads[readIndex(t, s, wl(s, 0, 2).Weight.TransferIDs[0])].Type = "const"
	}},
	{RuleWorkloadOrder, nil, func(t *testing.T, s *Schedule) {
		// An empty workload appended with a repeated ID.
		c := s.Cores[0]
		c.Workloads = append(c.Workloads, Workload{ID: 5, LayerName: "extra", LayerType: "pe"})
	}},
	{RuleTransferIDsDense, nil, func(t *testing.T, s *Schedule) {
		last := s.Cores[1].Workloads[9].Ofmaps[0].TransferID
		renameTransfer(s, last, last+10)
	}},
	{RuleDuplicateProducer, nil, func(t *testing.T, s *Schedule) {
		o := wl(s, 0, 1).Ofmaps[0]
		w := wl(s, 1, 2)
		w.Ofmaps = append(w.Ofmaps, o)
		w.OfmapSize += o.Size
	}},
	{RuleDRAMReadID, nil, func(t *testing.T, s *Schedule) {
		r := s.DRAMReads[3]
		s.DRAMReads = append(s.DRAMReads, r)
		addTensorOrder(s, r.TransferID)
	}},
	{RuleDRAMWriteProducer, nil, func(t *testing.T, s *Schedule) { s.DRAMWrites[0].Workload = 99 }},
	{RuleDanglingTransfer, nil, func(t *testing.T, s *Schedule) {
		// The workload's own weight read used as an ifmap.
		w := wl(s, 0, 2)
		w.Ifmaps[0].TransferIDs = append(w.Ifmaps[0].TransferIDs, w.Weight.TransferIDs[0])
	}},
	{RuleConsumerNotListed, nil, func(t *testing.T, s *Schedule) {
		o := &wl(s, 0, 1).Ofmaps[0]
		o.Destinations = o.Destinations[:1] // drop core 1 workload 2
	}},
	{RuleProducerOrder, nil, func(t *testing.T, s *Schedule) {
		// Core 0 workload 1 reads the ofmap of its own workload 5.
		o := &wl(s, 0, 5).Ofmaps[0]
		o.Destinations = append(o.Destinations, Destination{Type: "core", Core: 0, CoreKey: 0, Workload: 1, HasWorkload: true})
		w := wl(s, 0, 1)
		w.Ifmaps[0].TransferIDs = append(w.Ifmaps[0].TransferIDs, o.TransferID)
		addPiece(&w.Buffer[2], o.TransferID, 0)
	}},
	{RuleBadDestination, nil, func(t *testing.T, s *Schedule) {
		o := &wl(s, 0, 1).Ofmaps[0]
		o.Destinations = append(o.Destinations, Destination{Type: "core", Core: 1, CoreKey: 1, Workload: 99, HasWorkload: true})
	}},
	{RuleDRAMDestination, nil, func(t *testing.T, s *Schedule) {
		o := &wl(s, 0, 1).Ofmaps[0]
		o.Destinations = append(o.Destinations, Destination{Type: "DRAM", Core: DRAM, CoreKey: -1})
	}},
	{RuleUnconsumedRead, nil, func(t *testing.T, s *Schedule) {
		// Core 0 workload 0 no longer reads its input fmap.
		w := wl(s, 0, 0)
		id := w.Ifmaps[0].TransferIDs[0]
		w.Ifmaps = nil
		s.DRAMReads[readIndex(t, s, id)].Destinations = nil
	}},
	{RuleDeadOfmap, nil, func(t *testing.T, s *Schedule) {
		n := int64(len(s.DRAMReads))
		for _, c := range s.Cores {
			for _, w := range c.Workloads {
				n += int64(len(w.Ofmaps))
			}
		}
		w := wl(s, 1, 4)
		w.Ofmaps = append(w.Ofmaps, Ofmap{Box: box4(0, synthK-1), Size: 16, TransferID: n})
		w.OfmapSize += 16
	}},
	{RuleRelatedUnknown, nil, func(t *testing.T, s *Schedule) {
		for i := range s.DRAMReads {
			if len(s.DRAMReads[i].RelatedIfmap) > 0 {
				s.DRAMReads[i].RelatedIfmap = append(s.DRAMReads[i].RelatedIfmap, 12345)
				return
			}
		}
		t.Fatal("no DRAM read with related_ifmap")
	}},
	{RuleRelatedAsymmetric, nil, func(t *testing.T, s *Schedule) {
		for i := range s.DRAMWrites {
			if len(s.DRAMWrites[i].RelatedOfmap) > 0 {
				s.DRAMWrites[i].RelatedOfmap = s.DRAMWrites[i].RelatedOfmap[1:]
				return
			}
		}
		t.Fatal("no DRAM write with related_ofmap")
	}},
	{RuleCycle, nil, func(t *testing.T, s *Schedule) {
		// Core 0 workload 1 reads the ofmap of core 1 workload 5, which
		// depends on core 0 workload 2 (core 0 feeds core 1).
		o := &wl(s, 1, 5).Ofmaps[0]
		o.Destinations = append(o.Destinations, Destination{Type: "core", Core: 0, CoreKey: 0, Workload: 1, HasWorkload: true})
		w := wl(s, 0, 1)
		w.Ifmaps[0].TransferIDs = append(w.Ifmaps[0].TransferIDs, o.TransferID)
		addPiece(&w.Buffer[2], o.TransferID, 1)
	}},
	{RuleIfmapUndersized, nil, func(t *testing.T, s *Schedule) { wl(s, 1, 2).Ifmaps[0].Size++ }},
	{RuleWeightSize, nil, func(t *testing.T, s *Schedule) { wl(s, 1, 2).Weight.Size++ }},
	{RuleOfmapSize, nil, func(t *testing.T, s *Schedule) { wl(s, 1, 2).OfmapSize++ }},
	{RuleAddressRange, nil, func(t *testing.T, s *Schedule) { wl(s, 0, 3).Buffer[0].Address = s.BufferSize + 10 }},
	{RuleBufferOverlap, nil, func(t *testing.T, s *Schedule) {
		// The workload's ofmap placed on its own weight.
		w := wl(s, 0, 3)
		w.Buffer[len(w.Buffer)-1].Address = w.Buffer[0].Address
	}},
	{RuleTensorMoved, nil, func(t *testing.T, s *Schedule) {
		// The kept own ofmap of workload 1 moves to the free top of L2.
		e := &wl(s, 0, 2).Buffer[1]
		e.Address = s.BufferSize - e.Size - 1024
	}},
	{RuleNewlyAdded, nil, func(t *testing.T, s *Schedule) { wl(s, 0, 3).Buffer[0].NewlyAdded = false }},
	{RuleSourceIDs, nil, func(t *testing.T, s *Schedule) {
		e := &wl(s, 0, 3).Buffer[2]
		e.Sources[0].TransferID = wl(s, 0, 3).Weight.TransferIDs[0]
	}},
	{RuleIfmapNotBuffered, nil, func(t *testing.T, s *Schedule) {
		w := wl(s, 0, 1)
		w.Buffer = append(w.Buffer[:2], w.Buffer[3:]...) // drop the neighbour's ofmap
	}},
	{RuleTensorOrder, nil, func(t *testing.T, s *Schedule) {
		wl(s, 0, 3).Buffer[0].TensorOrder = wl(s, 0, 2).Buffer[0].TensorOrder
	}},
	{RuleWeightFirstOnly, nil, func(t *testing.T, s *Schedule) {
		// Workload 3 re-uses the weight of workload 2 (same shape).
		prev, w := wl(s, 0, 2), wl(s, 0, 3)
		id := prev.Weight.TransferIDs[0]
		w.Weight.TransferIDs = append(w.Weight.TransferIDs, id)
		w.Weight.Size += s.DRAMReads[readIndex(t, s, id)].Size
	}},
	{RuleAddressReuse, nil, func(t *testing.T, s *Schedule) {
		// Workload 3 loads its weight where workload 2's weight still is.
		wl(s, 0, 3).Buffer[0].Address = wl(s, 0, 2).Buffer[0].Address
	}},
	{RuleMergedDestination, nil, func(t *testing.T, s *Schedule) {
		// Core 0 workload 3 holds core 0 workload 1's ofmap in a merged
		// tensor and is named as a destination, but does not read it.
		o := &wl(s, 0, 1).Ofmaps[0]
		o.Destinations = append(o.Destinations, Destination{Type: "core", Core: 0, CoreKey: 0, Workload: 3, HasWorkload: true})
		addPiece(&wl(s, 0, 3).Buffer[2], o.TransferID, 0)
	}},
	{RuleRingWrap, nil, func(t *testing.T, s *Schedule) {
		wl(s, 0, 3).Buffer[0].Address = s.BufferSize - 10
	}},
	{RuleMultipleRegions, nil, func(t *testing.T, s *Schedule) {
		wl(s, 0, 3).RingRegions = [][2]int64{{0, s.BufferSize - 1024}, {s.BufferSize - 1024, s.BufferSize}}
	}},
}

// positionalMutation renumbers every snapshot's entries 0..n-1 in
// tensor_id, as one third-party converter writes them: tensors are then
// identified by their transfers and the schedule stays valid.
var positionalMutation = mutation{RuleTensorIdentity, nil, func(t *testing.T, s *Schedule) {
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			for ei := range c.Workloads[wi].Buffer {
				c.Workloads[wi].Buffer[ei].TensorID = int64(ei)
			}
		}
	}
}}

// renumberMutation renumbers core 1's workloads without their references,
// as a slicing tool does: one finding for the cause, not one per link (the
// stale numbers, all below the new ones, read as earlier consumers: the
// re-use convention's info).
var renumberMutation = mutation{RuleRenumbered, []string{RuleWeightFirstOnly}, func(t *testing.T, s *Schedule) {
	for wi := range s.Cores[1].Workloads {
		s.Cores[1].Workloads[wi].ID += 100
	}
}}

// missingReadMutation drops the "-1".out entry of the fmap read layer 4
// loads: its snapshot still says DRAM (the IDs are no longer dense).
var missingReadMutation = mutation{RuleMissingRead, []string{RuleTransferIDsDense}, func(t *testing.T, s *Schedule) {
	id := wl(s, 0, 4).Ifmaps[0].TransferIDs[0]
	i := readIndex(t, s, id)
	s.DRAMReads = append(s.DRAMReads[:i], s.DRAMReads[i+1:]...)
	for k := range s.DRAMWrites {
		w := &s.DRAMWrites[k]
		w.RelatedOfmap = slices.DeleteFunc(w.RelatedOfmap, func(x int64) bool { return x == id })
	}
}}

// bufferDepsMutation marks a workload's ifmaps as read from its buffer
// (the raw dialect without ifmap lists): one info.
var bufferDepsMutation = mutation{RuleIfmapsFromBuffer, nil, func(t *testing.T, s *Schedule) {
	wl(s, 0, 3).IfmapsFromBuffer = true
}}

// prefetchMutation gives workload 2 of core 0 (layer 2) the weight of
// layer 3, which its workload 3 uses: a prefetch, one info (its own
// weight, still in its snapshot, is no longer in its weight field).
var prefetchMutation = mutation{RulePrefetchedWeight, []string{RuleWeightFirstOnly, RuleMergedDestination}, func(t *testing.T, s *Schedule) {
	w2, w3 := wl(s, 0, 2), wl(s, 0, 3)
	s.DRAMReads[readIndex(t, s, w3.Weight.TransferIDs[0])].LayerName = w3.LayerName
	w2.Weight = &Weight{Size: w3.Weight.Size, TransferIDs: slices.Clone(w3.Weight.TransferIDs)}
}}

func init() {
	mutations = append(mutations, positionalMutation, renumberMutation, missingReadMutation, bufferDepsMutation, prefetchMutation)
}

// singleCoreMutations apply to a single-core schedule (rules that only
// single-core files are held to).
var singleCoreMutations = []mutation{
	{RuleTensorOrderGaps, nil, func(t *testing.T, s *Schedule) {
		// One DRAM load moves to a place beyond the queue's length.
		e := &wl(s, 0, 4).Buffer[0]
		id := e.TensorID
		for wi := range s.Cores[0].Workloads {
			for ei := range s.Cores[0].Workloads[wi].Buffer {
				if b := &s.Cores[0].Workloads[wi].Buffer[ei]; b.HasTensorID && b.TensorID == id {
					b.TensorOrder = 1 << 20
				}
			}
		}
	}},
}

func TestSingleCoreMutations(t *testing.T) {
	cfg := SynthConfig{Cores: 1, Workloads: 10}
	if base := Check(synthOK(t, cfg)); len(base) > 0 {
		t.Fatalf("baseline is not clean: %v", base)
	}
	for _, m := range singleCoreMutations {
		s := synthOK(t, cfg)
		m.mutate(t, s)
		got := ruleSet(Check(s))
		if got[m.rule] == 0 || len(got) != 1 {
			t.Errorf("%s: got %v", m.rule, got)
		}
	}
}

func ruleSet(rep diag.Report) map[string]int {
	m := map[string]int{}
	for _, d := range rep {
		m[d.Rule]++
	}
	return m
}

// TestMutations: each mutation of a valid schedule is reported under its
// rule and under no other rule.
func TestMutations(t *testing.T) {
	if base := Check(synthOK(t, mutationCfg)); len(base) > 0 {
		t.Fatalf("baseline is not clean: %v", base)
	}
	for _, m := range mutations {
		t.Run(strings.TrimPrefix(m.rule, "gemini/"), func(t *testing.T) {
			s, err := Synth(mutationCfg)
			if err != nil {
				t.Fatal(err)
			}
			m.mutate(t, s)
			rep := Check(s)
			got := ruleSet(rep)
			if got[m.rule] == 0 {
				t.Errorf("%s not reported; got %v", m.rule, rep)
			}
			for r := range got {
				if r != m.rule && !contains2(m.also, r) {
					t.Errorf("also reported %s: %v", r, rep)
				}
			}
			for _, r := range m.also {
				if got[r] == 0 {
					t.Errorf("expected companion rule %s not reported", r)
				}
			}
		})
	}
}

func contains2(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestEveryRuleMutated: every registered gemini rule has a mutation.
func TestEveryRuleMutated(t *testing.T) {
	have := map[string]bool{}
	for _, m := range append(mutations, singleCoreMutations...) {
		have[m.rule] = true
	}
	var missing []string
	for _, r := range diag.Rules() {
		if strings.HasPrefix(r.ID, "gemini/") && !have[r.ID] {
			missing = append(missing, r.ID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("rules without a mutation test: %v", missing)
	}
}
