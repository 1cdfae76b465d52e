package nki

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/neuroncore"
	"testing"
)

// A manifest argument may be a dataclass instance of a kernel module,
// {"name": ..., "dataclass": {module, class, fields}}, as the corpus
// tracer's manifests pass nki-library's RmsNormQuantKernelArgs; before, the
// argument arrived as None and the kernel stopped at its first field access.
func TestManifestDataclassArg(t *testing.T) {
	dir := t.TempDir()
	src := currentHeader + `from dataclasses import dataclass

@dataclass()
class Args(nl.NKIObject):
    cols: int = 16
    eps: float = 1e-6

@nki.jit
def kernel(a, kargs: Args):
    out = nl.ndarray((128, kargs.cols), dtype=a.dtype, buffer=nl.shared_hbm)
    return out
`
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var args []Arg
	if err := json.Unmarshal([]byte(`[{"name": "a", "shape": [128, 64], "dtype": "float32"},
		{"name": "kargs", "dataclass": {"module": "k", "class": "Args", "fields": {"cols": 48}}}]`), &args); err != nil {
		t.Fatal(err)
	}
	res, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", API: "current", NCVersion: "gen3",
		Modules: map[string]string{"k": "k.py"}, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Tensors {
		if r.Site != nil && r.Site.Line == 13 {
			found = true
			if fmt.Sprint(r.Shape) != "[128 48]" {
				t.Errorf("out %v, want [128 48]", r.Shape)
			}
		}
	}
	if !found {
		for _, r := range res.Tensors {
			t.Errorf("no tensor declared at line 13: %+v %v", r.Site, r.Shape)
		}
	}
}

// list.clear / list.remove / dict.clear mutate in place as in Python;
// nki-library's tree_logger (1edc7bb) clears its allocation log after
// printing it, which stopped rmsnorm_tkg and layernorm_tkg at that commit.
func TestListDictClearRemove(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    logs = [1, 2, 3, 2]
    logs.remove(2)
    n = len(logs) * 16
    logs.clear()
    d = {"x": 1}
    d.clear()
    n += len(logs) + len(d)
    out = nl.ndarray((128, n), dtype=a.dtype, buffer=nl.shared_hbm)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if got := fmt.Sprint(res.Tensors[len(res.Tensors)-1].Shape); got != "[128 48]" {
		t.Errorf("out shape %s, want [128 48]", got)
	}
	_, err := traceSourceErr(t, currentHeader+`
@nki.jit
def kernel(a):
    logs = [1]
    logs.remove(5)
    return a
`, "gen3", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "ValueError") {
		t.Errorf("remove of a missing item: err %v, want ValueError", err)
	}
}

// In the current API a PSUM tensor may span several banks (NKI 0.4.0:
// psum_fmax "does not represent the free-dim size per partition"):
// nki-library's rmsnorm_quant at 62cb67d declares (128, 4096) float32 in
// PSUM and has each matmul write one bank of it. Checking it reported
// sbuf/tile-too-large, a false error on a published kernel; Beta 1 keeps
// the guide's one-bank tile (TestAuthorChecks).
func TestCurrentAPIMultiBankPSUMTensor(t *testing.T) {
	res := traceSource(t, currentHeader+`
@nki.jit
def kernel(a, g):
    out = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.shared_hbm)
    ones = nl.ndarray((1, 128), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=ones, value=1.0)
    g_sb = nl.ndarray((1, 4096), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g_sb, src=g)
    psum_batch = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.psum)
    res = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.sbuf)
    for i in range(8):
        nisa.nc_matmul(dst=psum_batch[0:128, i * 512:(i + 1) * 512], stationary=ones[0:1, 0:128], moving=g_sb[0:1, i * 512:(i + 1) * 512])
        nisa.tensor_copy(dst=res[0:128, i * 512:(i + 1) * 512], src=psum_batch[0:128, i * 512:(i + 1) * 512])
    nisa.dma_copy(dst=out, src=res)
    return out
`, "gen3", Arg{Name: "a", Shape: []int64{128, 512}, DType: "bfloat16"}, Arg{Name: "g", Shape: []int64{1, 4096}, DType: "bfloat16"})
	ck, err := CheckKernel(res, &neuroncore.V3)
	if err != nil {
		t.Fatal(err)
	}
	if d := findRule(ck.Report, neuroncore.RuleTileTooLarge); d != nil {
		t.Errorf("multi-bank PSUM tensor of the current API reported: %s", d.Message)
	}
	if ck.Report.HasErrors() {
		t.Errorf("errors on a valid kernel: %v", ck.Report)
	}
}

// nisa.sendrecv fills dst with another core's data: a cross-core transfer
// the corpus tracer refuses, like core_barrier. Tracing it as a DMA made
// rmsnorm_tkg/layernorm_tkg with shard_on_h=True traced where the golden
// is untraceable; now it is refused at its line.
func TestSendrecvRefused(t *testing.T) {
	_, err := traceSourceErr(t, currentHeader+`
@nki.jit
def kernel(a):
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    y = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.sendrecv(src=x, dst=y, send_to_rank=1, recv_from_rank=1, pipe_id=0)
    return a
`, "gen3", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "k.py:9:") || !strings.Contains(err.Error(), "sendrecv") {
		t.Errorf("sendrecv: err %v, want a refusal at k.py:9 naming it", err)
	}
}
