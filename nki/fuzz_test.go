package nki

import (
	"errors"
	"github.com/npukit/npukit/internal/conformance"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// FuzzTraceCheck runs arbitrary source as a kernel: tracing, lowering and
// checking must never panic (an InternalError is a bug) and must end
// within a bounded time (evaluation steps lowered for the fuzzer).
func FuzzTraceCheck(f *testing.F) {
	f.Add(authorHeader + `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((2, nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    for i in nl.affine_range(2):
        x[i] = nl.load(a)
        if i == 1:
            x[i] = nl.exp(x[i])
        nl.store(out, value=x[i])
    return out
`)
	f.Add(authorHeader + `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    ts = []
    for k in range(3):
        t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf, address=(0, k * 1024))
        nisa.dma_copy(dst=t, src=a)
        ts.append(t)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 0))
    for t in ts:
        nisa.nc_matmul(dst=acc, stationary=t[:, 0:128], moving=t, accumulate=True)
    return out
`)
	files, _ := filepath.Glob(filepath.Join(conformance.SharedDir(), "corpus2", "nki", "kernels", "*tensor_addition*.py"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// MaxSteps bounds the work (issue 32: a test does not assert time).
		res, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", NCVersion: "gen2", MaxSteps: 200_000,
			Args: []Arg{{Name: "a", Shape: []int64{128, 512}, DType: "bfloat16"}}})
		var ie *InternalError
		if errors.As(err, &ie) {
			t.Fatalf("internal error: %v\n%s", ie, ie.Stack)
		}
		if err == nil {
			if _, err := CheckKernel(res, &neuroncore.V2); err != nil && errors.As(err, &ie) {
				t.Fatal(err)
			}
		}
	})
}
