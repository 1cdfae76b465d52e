package gemini

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

// Small schedules in the conventions of third-party writers, written here
// so that each point fails on a reader that does not know the convention.

func readTest(t *testing.T, doc string) *Schedule {
	t.Helper()
	s, err := ReadBytes([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func linesOf(rep diag.Report, sev diag.Severity) []string {
	var out []string
	for _, d := range rep {
		if d.Severity == sev {
			out = append(out, d.String())
		}
	}
	return out
}

// lastConsumerPerCore: ofmap 2 and weight 0 are used by workloads 0..2 of
// core 0 (the ofmap by 1 and 2) and list only the last one, as one
// converter writes destinations (one consumer per core, the last).
const lastConsumerPerCore = `{"xlen": 1, "ylen": 1, "buffersize": 4096, "0": [
 {"workload_id": 0, "layer_name": "a", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 0, "workload_id": 2}]}]},
 {"workload_id": 1, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "DRAM", "core_id": -1}]}]},
 {"workload_id": 2, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 4, "destination": [{"type": "DRAM", "core_id": -1}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 2}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 3, "core_id": 0, "workload_id": 1}, {"transfer_id": 4, "core_id": 0, "workload_id": 2}]}}`

// One consumer per core in destination lists is a convention for core
// ofmaps and weights as for DRAM reads: no error, one info naming it.
func TestOneConsumerPerCoreConvention(t *testing.T) {
	rep := Check(readTest(t, lastConsumerPerCore))
	if errs := linesOf(rep, diag.Error); len(errs) > 0 {
		t.Errorf("false errors: %v", errs)
	}
	infos := 0
	for _, d := range rep {
		if d.Rule == RuleWeightFirstOnly {
			infos++
			if d.Count != 3 || !strings.Contains(d.Message, "one consumer per core is listed") {
				t.Errorf("the info stands for %d findings (want 3: ofmap at workload 1, weight at 0 and 1) or does not name the convention: %s", d.Count, d)
			}
		}
	}
	if infos != 1 {
		t.Errorf("%d convention infos, want 1: %v", infos, rep)
	}
}

// renumberedSlice: core 1's workloads were renumbered 10, 11 -> 0, 1
// without the references to them (two destinations, one "-1".in entry).
const renumberedSlice = `{"xlen": 2, "ylen": 1, "buffersize": 4096,
 "0": [{"workload_id": 0, "layer_name": "a", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 1, "workload_id": 10}]}]}],
 "1": [{"workload_id": 0, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}],
  "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "core", "core_id": 1, "workload_id": 11}]}]},
  {"workload_id": 1, "layer_name": "c", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [3]}],
  "ofmap": [{"size": 8, "transfer_id": 4, "destination": [{"type": "DRAM", "core_id": -1}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 4, "core_id": 1, "workload_id": 11}]}}`

// References in another numbering are one cause, said once with the
// counts and examples; the links they break are not each an error.
func TestRenumberedReferencesOneFinding(t *testing.T) {
	rep := Check(readTest(t, renumberedSlice))
	errs := linesOf(rep, diag.Error)
	if len(errs) != 1 || !strings.Contains(errs[0], RuleRenumbered) {
		t.Fatalf("want one renumbered-references error, got %v", errs)
	}
	for _, want := range []string{"3 references", "2 ofmap destinations", `1 "-1".in entries`, "does not exist (3)", "core 1 workload 10, used there by workload 0"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("the finding lacks %q: %s", want, errs[0])
		}
	}
}

// One wrong destination is a bad destination, not a renumbering.
func TestOneWrongDestinationIsNotRenumbering(t *testing.T) {
	s := readTest(t, renumberedSlice)
	s.Cores[1].Workloads[0].Ofmaps[0].Destinations[0].Workload = 1
	s.Cores[0].Workloads[0].Ofmaps[0].Destinations[0].Workload = 0
	s.DRAMWrites[0].Workload = 1
	s.Cores[0].Workloads[0].Ofmaps[0].Destinations[0].Workload = 1 // exists, does not use transfer 2
	rep := Check(s)
	if hasRule(rep, RuleRenumbered) || !hasRule(rep, RuleBadDestination) {
		t.Errorf("one wrong destination: %v", rep)
	}
}

// A transfer the snapshots load from DRAM that "-1".out lacks is one
// finding with the references naming it, also in a slice, and the
// related_ofmap links naming it are counted there, not each an error.
func TestMissingDRAMReadGrouped(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 2, Workloads: 10})
	id := wl(s, 0, 4).Ifmaps[0].TransferIDs[0]
	i := readIndex(t, s, id)
	s.DRAMReads = append(s.DRAMReads[:i], s.DRAMReads[i+1:]...)
	rep := Check(s)
	var lines []string
	for _, d := range linesOf(rep, diag.Error) {
		if !strings.Contains(d, RuleTransferIDsDense) {
			lines = append(lines, d)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], RuleMissingRead) || !strings.Contains(lines[0], "related_ofmap") {
		t.Errorf("want one missing-dram-read error counting the related links, got %v", lines)
	}
}

// Many findings of one link rule (a writer that drops every "-1".in entry)
// are one line with the count.
func TestLinkFloodGrouped(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 2, Workloads: 20})
	n := len(s.DRAMWrites)
	s.DRAMWrites = nil
	rep := Check(s)
	var got []diag.Diagnostic
	for _, d := range rep {
		if d.Rule == RuleDRAMDestination {
			got = append(got, d)
		}
	}
	if n <= floodMin || len(got) != 1 || got[0].Count < n {
		t.Errorf("%d DRAM writes dropped: %d lines %v", n, len(got), got)
	}
}

// rawBufferDeps is the raw dialect of some hand-written schedules: no
// buffersize, no ifmap list; the buffer lists each workload's inputs (ids,
// KiB blocks, source sizes in bits). Workload 1 reads workload 0's output
// back from DRAM (transfer 4 of 128 Kib = 16 KiB).
const rawBufferDeps = `{"xlen": 1, "ylen": 1, "top_batch_cut": 1, "0": [
 {"workload_id": 0, "layer_name": "l1", "layer_type": "conv2d", "ofmap_size": 131072, "time": 500,
  "weight": {"lower": 0, "upper": 31, "size": 32768, "transfer_id": [0]},
  "buffer": [
   {"type": "weight", "layer": "l1", "workload_id": 0, "block": 4, "source": [{"type": "DRAM", "id": 0, "size": 32768, "transfer_id": 0}], "transfer_id": [0]},
   {"type": "ifmap", "layer": "input", "workload_id": 0, "block": 1, "source": [{"type": "DRAM", "id": 0, "size": 8192, "transfer_id": 1}], "transfer_id": [1]}],
  "ofmap": [{"transfer_id": 2, "size": 131072, "destination": [{"type": "DRAM", "id": 0, "workload_id": 0}]}]},
 {"workload_id": 1, "layer_name": "l2", "layer_type": "conv2d", "ofmap_size": 32768, "time": 300,
  "buffer": [
   {"type": "weight", "layer": "l2", "workload_id": 1, "block": 8, "source": [{"type": "DRAM", "id": 0, "size": 65536, "transfer_id": 3}], "transfer_id": [3]},
   {"type": "ifmap", "layer": "l1", "workload_id": 1, "block": 16, "source": [{"type": "DRAM", "id": 0, "size": 131072, "transfer_id": 4}], "transfer_id": [4]}],
  "ofmap": [{"transfer_id": 5, "size": 32768, "destination": [{"type": "DRAM", "id": 0, "workload_id": 1}]}]}],
 "-1": {"out": [
   {"type": "weight", "layer_name": "l1", "size": 32768, "transfer_id": 0, "destination": [{"type": "core", "id": 0, "workload_id": 0}]},
   {"type": "ifmap", "layer_name": "input", "size": 8192, "transfer_id": 1, "destination": [{"type": "core", "id": 0, "workload_id": 0}]},
   {"type": "weight", "layer_name": "l2", "size": 65536, "transfer_id": 3, "destination": [{"type": "core", "id": 0, "workload_id": 1}]},
   {"type": "ifmap", "layer_name": "l1", "size": 131072, "transfer_id": 4, "destination": [{"type": "core", "id": 0, "workload_id": 1}]}],
  "in": [{"type": "ofmap", "transfer_id": 2, "core_id": 0, "workload_id": 0}, {"type": "ofmap", "transfer_id": 5, "core_id": 0, "workload_id": 1}]}}`

// The buffer-listed dependencies of the raw dialect are the workloads'
// ifmaps (and workload 1's weight): check says so once and calls nothing
// merged, inspect delivers both feature-map reads, and a write (compiler
// IR) keeps them as lists.
func TestRawBufferDependencies(t *testing.T) {
	s := readTest(t, rawBufferDeps)
	w0, w1 := &s.Cores[0].Workloads[0], &s.Cores[0].Workloads[1]
	if len(w0.Ifmaps) != 1 || w0.Ifmaps[0].TransferIDs[0] != 1 || len(w1.Ifmaps) != 1 || w1.Ifmaps[0].TransferIDs[0] != 4 {
		t.Fatalf("ifmaps not read from the buffer: %+v / %+v", w0.Ifmaps, w1.Ifmaps)
	}
	if w1.Weight == nil || w1.Weight.TransferIDs[0] != 3 || w1.Weight.Size != 8192 || w0.WeightFromBuffer {
		t.Errorf("weights: %+v, %+v", w0.Weight, w1.Weight)
	}
	rep := Check(s)
	if errs := linesOf(rep, diag.Error); len(errs) > 0 || hasRule(rep, RuleMergedDestination) || !hasRule(rep, RuleIfmapsFromBuffer) {
		t.Errorf("check: %v", rep)
	}
	sum := Summarize(s, false)
	if sum.DRAM.FmapDeliveries != 2 || sum.DRAM.FmapDeliveredBytes != 17*1024 || sum.DRAM.WeightDeliveries != 2 {
		t.Errorf("inspect: %+v", sum.DRAM)
	}
	var b strings.Builder
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	back := readTest(t, b.String())
	if len(back.Cores[0].Workloads[1].Ifmaps) != 1 || back.Cores[0].Workloads[1].Weight == nil {
		t.Errorf("written (as compiler IR) and read back: the dependencies are lost")
	}
}

// prefetchedWeight: workload 0 (a pool, layer "p") carries in its weight
// field the weight of layer "c", whose workloads 1 and 2 use it, as one
// converter writes the next layer's weight prefetched into L2.
const prefetchedWeight = `{"xlen": 1, "ylen": 1, "buffersize": 4096, "0": [
 {"workload_id": 0, "layer_name": "p", "layer_type": "vp", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 0, "workload_id": 2}]}]},
 {"workload_id": 1, "layer_name": "c", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "DRAM", "core_id": -1}]}]},
 {"workload_id": 2, "layer_name": "c", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 4, "destination": [{"type": "DRAM", "core_id": -1}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "layer_name": "c", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 2}]},
   {"transfer_id": 1, "type": "fmap", "layer_name": "p", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 3, "core_id": 0, "workload_id": 1}, {"transfer_id": 4, "core_id": 0, "workload_id": 2}]}}`

// A later layer's weight in a workload's weight field is a prefetch: one
// info naming it, and inspect counts the weight's traffic for its layer.
func TestPrefetchedWeightInWeightField(t *testing.T) {
	s := readTest(t, prefetchedWeight)
	rep := Check(s)
	if errs := linesOf(rep, diag.Error); len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
	found := false
	for _, d := range rep {
		if d.Rule == RulePrefetchedWeight {
			found = true
			if !strings.Contains(d.Message, `layer "c"`) || !strings.Contains(d.Message, "1 workload of 1 layer") {
				t.Errorf("the info does not name the prefetch: %s", d)
			}
		}
	}
	if !found {
		t.Errorf("the prefetched weight is not said: %v", rep)
	}
	for _, l := range Summarize(s, true).LayerTraffic {
		want := map[string]int64{"p": 0, "c": 16}[l.Name]
		if l.WeightReadBytes != want {
			t.Errorf("layer %s: %d weight bytes read, want %d", l.Name, l.WeightReadBytes, want)
		}
	}
}

// weightDefaultZero: core 1 numbers its workloads 10 and 11 (a global
// numbering) and the references agree, but the DRAM reads of its two
// weights name workload 0, a converter's default: the broken links are one
// finding, which does not blame a renumbering no order-preserving map
// explains.
const weightDefaultZero = `{"xlen": 2, "ylen": 1, "buffersize": 4096,
 "0": [{"workload_id": 0, "layer_name": "a", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
  "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 1, "workload_id": 10}]}]}],
 "1": [{"workload_id": 10, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [5]},
  "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "core", "core_id": 1, "workload_id": 11}]}]},
  {"workload_id": 11, "layer_name": "c", "layer_type": "pe", "ofmap_size": 8, "time": 1,
  "ifmap": [{"size": 8, "transfer_id": [3]}], "weight": {"size": 16, "transfer_id": [6]},
  "ofmap": [{"size": 8, "transfer_id": 4, "destination": [{"type": "DRAM", "core_id": -1}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 5, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 1, "workload_id": 0}]},
   {"transfer_id": 6, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 1, "workload_id": 0}]}],
  "in": [{"transfer_id": 4, "core_id": 1, "workload_id": 11}]}}`

func TestStaleReferencesWithoutRenumbering(t *testing.T) {
	errs := linesOf(Check(readTest(t, weightDefaultZero)), diag.Error)
	if len(errs) != 1 || !strings.Contains(errs[0], RuleRenumbered) || strings.Contains(errs[0], "the file was renumbered") || !strings.Contains(errs[0], "explains 0 of 2") {
		t.Errorf("want one finding that does not blame a renumbering, got %v", errs)
	}
}
