package nki

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
