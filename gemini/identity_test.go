package gemini

import (
	"strings"
	"testing"
)

// positionalSchedule is a one-core compiler-IR schedule written the way
// one third-party converter writes snapshots: tensor_id (and tensor_order)
// is the entry's position in its snapshot. Weight transfer 0 stays at
// address 100 from workload 0 to workload 1 but is entry 1 there and entry
// 0 here; fmap transfer 1 leaves, ofmap transfer 2 arrives at %s.
const positionalSchedule = `{"xlen": 1, "ylen": 1, "top_batch_cut": 1, "buffersize": 1024,
 "0": [
  {"workload_id": 0, "layer_name": "a", "layer_type": "pe", "workload": [[0,0,0,0],[0,7,0,0]], "ofmap_size": 8, "time": 10,
   "ifmap": [{"lower": [0,0,0,0], "upper": [0,7,0,0], "size": 8, "transfer_id": [1], "align": 8, "bitwidth": 8}],
   "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"lower": [0,0,0,0], "upper": [0,7,0,0], "size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 0, "workload_id": 1}]}],
   "buffer": [
    {"address": 0, "size": 8, "type": "ifmap", "tensor_id": 0, "tensor_order": 0, "newly_added": true, "transfer_id": [1],
     "source": [{"type": "DRAM", "core_id": -1, "transfer_id": 1, "size": 8}]},
    {"address": 100, "size": 16, "type": "weight", "tensor_id": 1, "tensor_order": 1, "newly_added": true, "transfer_id": [0],
     "source": [{"type": "DRAM", "core_id": -1, "transfer_id": 0, "size": 16}]}],
   "ring_buffer_info": [[0, 1024]]},
  {"workload_id": 1, "layer_name": "b", "layer_type": "pe", "workload": [[0,0,0,0],[0,7,0,0]], "ofmap_size": 8, "time": 10,
   "ifmap": [{"lower": [0,0,0,0], "upper": [0,7,0,0], "size": 8, "transfer_id": [2], "align": 8, "bitwidth": 8}],
   "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"lower": [0,0,0,0], "upper": [0,7,0,0], "size": 8, "transfer_id": 3, "destination": [{"type": "DRAM", "core_id": -1}]}],
   "buffer": [
    {"address": 100, "size": 16, "type": "weight", "tensor_id": 0, "tensor_order": 0, "newly_added": false, "transfer_id": [0],
     "source": [{"type": "DRAM", "core_id": -1, "transfer_id": 0, "size": 16}]},
    {"address": %s, "size": 8, "type": "ifmap", "tensor_id": 1, "tensor_order": 1, "newly_added": true, "transfer_id": [2],
     "source": [{"type": "core", "core_id": 0, "transfer_id": 2, "size": 8}]}],
   "ring_buffer_info": [[0, 1024]]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 3, "core_id": 0, "workload_id": 1}]}}`

func positional(t *testing.T, addr string) *Schedule {
	t.Helper()
	s, err := ReadBytes([]byte(strings.ReplaceAll(positionalSchedule, "%s", addr)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A positional tensor_id is detected and said once; newly_added and
// tensor-moved then key on transfers, so the file is clean: keyed on
// tensor_id it had false newly-added and tensor-moved errors.
func TestPositionalTensorIDsIdentifiedByTransfers(t *testing.T) {
	s := positional(t, "200")
	tn := IdentifyTensors(s)
	if !tn.ByTransfers || !tn.Positional || !tn.OrderCopiesID || tn.Count(0) != 3 {
		t.Fatalf("identity: %+v, %d tensors", tn, tn.Count(0))
	}
	if tn.Key(0, 0, 1) != tn.Key(0, 1, 0) || tn.Key(0, 0, 0) == tn.Key(0, 1, 1) {
		t.Errorf("weight transfer 0 is not one tensor across the snapshots")
	}
	rep := Check(s)
	if errs := errorsOf(rep); len(errs) > 0 {
		t.Errorf("false errors: %v", errs)
	}
	n := 0
	for _, d := range rep {
		if d.Rule == RuleTensorIdentity {
			n++
			if !strings.Contains(d.Message, "position") || !strings.Contains(d.Message, "transfer IDs") {
				t.Errorf("the info does not say what was assumed: %s", d.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d tensor-identity infos, want 1", n)
	}
}

// The tensor-moved rule keys on the same identity: the weight held at 100
// and then at 300 under the same positional tensor_id moved.
func TestTensorMovedKeysOnTransfers(t *testing.T) {
	s := positional(t, "200")
	s.Cores[0].Workloads[1].Buffer[0].Address = 300
	rep := Check(s)
	if !hasRule(rep, RuleTensorMoved) {
		t.Errorf("a tensor (transfer 0) moving from 100 to 300 is not reported: %v", rep)
	}
}

// A schedule whose tensor_id is an identity keeps it (no info), even when
// some tensor_ids equal their positions.
func TestTensorIDIdentityKept(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 2, Workloads: 6})
	tn := IdentifyTensors(s)
	if tn.ByTransfers || tn.Assumption() != "" || hasRule(Check(s), RuleTensorIdentity) {
		t.Errorf("synthetic schedule: identity %+v", tn)
	}
}

// Diff counts moved tensors by the same identity: in the positional
// schedule the weight (entry 1, then entry 0) moving from 100 to 300 is
// one tensor in two entries.
func TestTensorAddressChangesPositional(t *testing.T) {
	a, b := positional(t, "200"), positional(t, "200")
	b.Cores[0].Workloads[0].Buffer[1].Address = 300
	b.Cores[0].Workloads[1].Buffer[0].Address = 300
	if n, m := AddressChanges(a, b), TensorAddressChanges(a, b); n != 2 || m != 1 {
		t.Errorf("%d entries, %d tensors moved; want 2 entries, 1 tensor", n, m)
	}
}

// Inspect says which identity it assumed, as check does.
func TestSummaryTensorIdentity(t *testing.T) {
	sum := Summarize(positional(t, "200"), false)
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if sum.TensorIdentity == "" || !strings.Contains(b.String(), "L2 tensors: tensor_id is the entry's position") {
		t.Errorf("inspect does not say how tensors are identified:\n%s", b.String())
	}
	if Summarize(synthFor(t, SynthConfig{Cores: 1, Workloads: 4}), false).TensorIdentity != "" {
		t.Errorf("a schedule whose tensor_id is an identity gets an identity note")
	}
}
