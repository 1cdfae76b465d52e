package l2alloc

import (
	"context"
	"testing"

	"github.com/npukit/npukit/gemini"
)

// unallocatedPositional is a one-core schedule as one third-party
// converter writes it: no addresses yet ("address": true/false) and
// tensor_id = the entry's position in its snapshot. Four tensors (transfer
// sets [0] to [3]) live over three snapshots; weight transfer 0 is entry 1,
// then 0, then 1.
const unallocatedPositional = `{"xlen": 1, "ylen": 1, "buffersize": 4096,
 "0": [
  {"workload_id": 0, "layer_name": "a", "layer_type": "pe", "ofmap_size": 8, "time": 1, "ring_buffer_info": [[0, 4096]],
   "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 0, "workload_id": 1}]}],
   "buffer": [
    {"address": true, "size": 8, "type": "ifmap", "tensor_id": 0, "newly_added": true, "transfer_id": [1], "source": [{"type": "DRAM", "transfer_id": 1, "size": 8}]},
    {"address": true, "size": 16, "type": "weight", "tensor_id": 1, "newly_added": true, "transfer_id": [0], "source": [{"type": "DRAM", "transfer_id": 0, "size": 16}]}]},
  {"workload_id": 1, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1, "ring_buffer_info": [[0, 4096]],
   "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "core", "core_id": 0, "workload_id": 2}]}],
   "buffer": [
    {"address": false, "size": 16, "type": "weight", "tensor_id": 0, "newly_added": false, "transfer_id": [0], "source": [{"type": "DRAM", "transfer_id": 0, "size": 16}]},
    {"address": true, "size": 8, "type": "ifmap", "tensor_id": 1, "newly_added": true, "transfer_id": [2], "source": [{"type": "core", "core_id": 0, "transfer_id": 2, "size": 8}]}]},
  {"workload_id": 2, "layer_name": "c", "layer_type": "pe", "ofmap_size": 8, "time": 1, "ring_buffer_info": [[0, 4096]],
   "ifmap": [{"size": 8, "transfer_id": [3]}], "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"size": 8, "transfer_id": 4, "destination": [{"type": "DRAM", "core_id": -1}]}],
   "buffer": [
    {"address": true, "size": 8, "type": "ifmap", "tensor_id": 0, "newly_added": true, "transfer_id": [3], "source": [{"type": "core", "core_id": 0, "transfer_id": 3, "size": 8}]},
    {"address": false, "size": 16, "type": "weight", "tensor_id": 1, "newly_added": false, "transfer_id": [0], "source": [{"type": "DRAM", "transfer_id": 0, "size": 16}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 4, "core_id": 0, "workload_id": 2}]}}`

// Keyed on the positional tensor_id the re-allocation saw two tensors and
// moved transfers between snapshots; keyed on transfers it sees four, and
// the rewrite keeps every transfer at one address while it stays.
func TestReallocatePositionalTensorIDs(t *testing.T) {
	s, err := gemini.ReadBytes([]byte(unallocatedPositional))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Build(s, s.Cores[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Tensors) != 4 {
		t.Fatalf("%d tensors, want 4 (one per transfer set)", len(cp.Tensors))
	}
	rep, err := Reallocate(context.Background(), s, Options{}, SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Identity == "" {
		t.Errorf("the report does not say tensors were identified by transfers")
	}
	if n, err := rep.Rewrite(s); err != nil || n != 1 {
		t.Fatalf("rewrite: %d cores, %v", n, err)
	}
	back := checkClean(t, s)
	c := back.Cores[0]
	for wi := 1; wi < len(c.Workloads); wi++ {
		prev := map[int64]int64{}
		for _, e := range c.Workloads[wi-1].Buffer {
			for _, id := range e.TransferIDs {
				prev[id] = e.Address
			}
		}
		for _, e := range c.Workloads[wi].Buffer {
			for _, id := range e.TransferIDs {
				if a, ok := prev[id]; ok && a != e.Address {
					t.Errorf("workload %d: transfer %d moved from %d to %d", c.Workloads[wi].ID, id, a, e.Address)
				}
			}
		}
	}
}
