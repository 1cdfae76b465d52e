package timing

import (
	"testing"

	"github.com/npukit/npukit/gemini"
)

// A raw schedule in the dialect without ifmap lists: each workload's buffer
// lists its inputs (a weight and an fmap from DRAM, sizes in bits). The
// dialect's own simulator makes the four DRAM reads; so does Simulate.
const rawBufferDeps = `{"xlen": 1, "ylen": 1, "top_batch_cut": 1, "0": [
 {"workload_id": 0, "layer_name": "l1", "layer_type": "conv2d", "ofmap_size": 131072, "time": 500,
  "weight": {"size": 32768, "transfer_id": [0]},
  "buffer": [
   {"type": "weight", "workload_id": 0, "block": 4, "source": [{"type": "DRAM", "id": 0, "size": 32768, "transfer_id": 0}], "transfer_id": [0]},
   {"type": "ifmap", "workload_id": 0, "block": 1, "source": [{"type": "DRAM", "id": 0, "size": 8192, "transfer_id": 1}], "transfer_id": [1]}],
  "ofmap": [{"transfer_id": 2, "size": 131072, "destination": [{"type": "DRAM", "id": 0, "workload_id": 0}]}]},
 {"workload_id": 1, "layer_name": "l2", "layer_type": "conv2d", "ofmap_size": 32768, "time": 300,
  "weight": {"size": 65536, "transfer_id": [3]},
  "buffer": [
   {"type": "weight", "workload_id": 1, "block": 8, "source": [{"type": "DRAM", "id": 0, "size": 65536, "transfer_id": 3}], "transfer_id": [3]},
   {"type": "ifmap", "workload_id": 1, "block": 16, "source": [{"type": "DRAM", "id": 0, "size": 131072, "transfer_id": 4}], "transfer_id": [4]}],
  "ofmap": [{"transfer_id": 5, "size": 32768, "destination": [{"type": "DRAM", "id": 0, "workload_id": 1}]}]}],
 "-1": {"out": [
   {"type": "weight", "size": 32768, "transfer_id": 0, "destination": [{"type": "core", "id": 0, "workload_id": 0}]},
   {"type": "ifmap", "size": 8192, "transfer_id": 1, "destination": [{"type": "core", "id": 0, "workload_id": 0}]},
   {"type": "weight", "size": 65536, "transfer_id": 3, "destination": [{"type": "core", "id": 0, "workload_id": 1}]},
   {"type": "ifmap", "size": 131072, "transfer_id": 4, "destination": [{"type": "core", "id": 0, "workload_id": 1}]}],
  "in": [{"transfer_id": 2, "core_id": 0, "workload_id": 0}, {"transfer_id": 5, "core_id": 0, "workload_id": 1}]}}`

func TestRawBufferDependenciesLoaded(t *testing.T) {
	s, err := gemini.ReadBytes([]byte(rawBufferDeps))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(s, Default())
	if err != nil {
		t.Fatal(err)
	}
	if r.DRAM.Loads != 4 || r.DRAM.ReadBytes != 29*1024 {
		t.Errorf("%d loads of %d bytes, want 4 of %d (two weights, two fmaps)", r.DRAM.Loads, r.DRAM.ReadBytes, 29*1024)
	}
}
