package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// convertedSchedule is a one-core schedule as one third-party converter
// writes it: no addresses yet, tensor_id the entry's position in its
// snapshot, and one true error ("-1".in names a workload 7 that does not
// exist).
const convertedSchedule = `{"xlen": 1, "ylen": 1, "buffersize": 4096,
 "0": [
  {"workload_id": 0, "layer_name": "a", "layer_type": "pe", "ofmap_size": 8, "time": 1, "ring_buffer_info": [[0, 4096]],
   "ifmap": [{"size": 8, "transfer_id": [1]}], "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"size": 8, "transfer_id": 2, "destination": [{"type": "core", "core_id": 0, "workload_id": 1}]}],
   "buffer": [
    {"address": true, "size": 8, "type": "ifmap", "tensor_id": 0, "newly_added": true, "transfer_id": [1], "source": [{"type": "DRAM", "transfer_id": 1, "size": 8}]},
    {"address": true, "size": 16, "type": "weight", "tensor_id": 1, "newly_added": true, "transfer_id": [0], "source": [{"type": "DRAM", "transfer_id": 0, "size": 16}]}]},
  {"workload_id": 1, "layer_name": "b", "layer_type": "pe", "ofmap_size": 8, "time": 1, "ring_buffer_info": [[0, 4096]],
   "ifmap": [{"size": 8, "transfer_id": [2]}], "weight": {"size": 16, "transfer_id": [0]},
   "ofmap": [{"size": 8, "transfer_id": 3, "destination": [{"type": "DRAM", "core_id": -1}]}],
   "buffer": [
    {"address": false, "size": 16, "type": "weight", "tensor_id": 0, "newly_added": false, "transfer_id": [0], "source": [{"type": "DRAM", "transfer_id": 0, "size": 16}]},
    {"address": true, "size": 8, "type": "ifmap", "tensor_id": 1, "newly_added": true, "transfer_id": [2], "source": [{"type": "core", "core_id": 0, "transfer_id": 2, "size": 8}]}]}],
 "-1": {"out": [
   {"transfer_id": 0, "type": "weight", "size": 16, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]},
   {"transfer_id": 1, "type": "fmap", "size": 8, "destination": [{"type": "core", "core_id": 0, "workload_id": 0}]}],
  "in": [{"transfer_id": 3, "core_id": 0, "workload_id": 7}]}}`

// alloc --from on a schedule that has errors of its own says the rewrite
// adds none and how many the input has ("checked clean" was false), and
// the rewrite keeps the weight (entry 1, then entry 0) at one address.
func TestAllocFromConvertedSchedule(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(in, []byte(convertedSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "alloc", "--from", in, "--rewrite", out)
	if r.code != 0 || !strings.Contains(r.stdout, "no new check errors (the input has 1 error)") || strings.Contains(r.stdout, "checked clean") {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	if !strings.Contains(r.stdout, "identified by their transfer IDs") {
		t.Errorf("alloc does not say how it identified the tensors:\n%s", r.stdout)
	}
	r = run(t, "", "check", out)
	if strings.Contains(r.stdout, "tensor-moved") || !strings.Contains(r.stdout, "1 error") {
		t.Errorf("check of the rewrite:\n%s", r)
	}
	// inspect and sim say which identity they assumed, as check does.
	for _, cmd := range []string{"inspect", "sim"} {
		if r := run(t, "", cmd, in); r.code != 0 || !strings.Contains(r.stdout, "L2 tensors: tensor_id is the entry's position") {
			t.Errorf("%s: exit %d\n%s", cmd, r.code, r)
		}
	}
	// diff counts the tensors the allocation placed by the same identity.
	if r := run(t, "", "diff", in, out); !strings.Contains(r.stdout, "tensors at another L2 address: 0 -> ") {
		t.Errorf("diff:\n%s", r)
	}
}
