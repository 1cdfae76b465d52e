package nki

import (
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// A Beta-1 affine_range loop whose iterations each reduce a few elements
// per partition is one instruction on the device (neuroncore
// Vectorization: the compiler merges the iterations of an affine_range
// loop into one wider instruction, as the NEFFs compiled from kernels at
// hand show). Before, npukit charged every iteration its own instruction
// and 64-cycle floor: 64 VectorE instructions here instead of one. The
// same loop as sequential_range, under skip_middle_end_transformations,
// or wider than one instruction holds (64 x 16 elements) stays one
// instruction per iteration.
func TestSimMergesAffineRangeIterations(t *testing.T) {
	const kernel = `
DECORATOR
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    sums = nl.ndarray((nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.RANGE(64):
        sums[:, j] = nisa.tensor_reduce(nl.add, x[:, nl.ds(j * WIDTH, WIDTH)], axis=[1])
    nl.store(out, sums)
    return out
`
	run := func(rng, decorator string, width int64) *neuroncore.SimSummary {
		src := strings.NewReplacer("RANGE", rng, "DECORATOR", decorator, "WIDTH", strconv.FormatInt(width, 10)).Replace(kernel)
		return simKernel(t, src, &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 64 * width}, DType: "float32"})
	}
	steps := func(s *neuroncore.SimSummary) int {
		for _, e := range s.Engines {
			if e.Engine == "Vector" {
				return e.Steps
			}
		}
		return -1
	}
	merged := run("affine_range", "", 4)
	if got := steps(merged); got != 1 {
		t.Errorf("affine_range over 64 x 4 elements: %d VectorE instructions, want 1 (the iterations merged)", got)
	}
	// one instruction over 256 elements: 256 cycles at 1.12 GHz
	if busy, want := engineBusy(merged, "Vector"), 256/1.12; busy < want*0.99 || busy > want*1.01 {
		t.Errorf("merged reduction busy %.1f ns, want %.1f (256 elements in one instruction)", busy, want)
	}
	for _, c := range []struct {
		what, rng, decorator string
		width                int64
	}{
		{"sequential_range", "sequential_range", "", 4},
		{"skip_middle_end_transformations", "affine_range", "@nki.compiler.skip_middle_end_transformations", 4},
		{"static_range", "static_range", "", 4},
		{"64 x 16 elements (over 512 per instruction)", "affine_range", "", 16},
	} {
		s := run(c.rng, c.decorator, c.width)
		if got := steps(s); got != 64 {
			t.Errorf("%s: %d VectorE instructions, want 64 (one per iteration)", c.what, got)
		}
		if s.KernelNs <= merged.KernelNs {
			t.Errorf("%s: kernel body %.0f ns, not above the merged loop's %.0f ns", c.what, s.KernelNs, merged.KernelNs)
		}
	}
}

// An affine_range iteration that waits for something its own iteration
// computes after the loop started (a load per iteration) does not merge:
// npukit does not split loops (the compiler may).
func TestSimNoMergeAcrossPerIterationLoads(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    sums = nl.ndarray((nl.par_dim(128), 8), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.affine_range(8):
        x = nl.load(a[:, nl.ds(j * 4, 4)])
        sums[:, j] = nisa.tensor_reduce(nl.add, x, axis=[1])
    nl.store(out, sums)
    return out
`
	s := simKernel(t, kernel, &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 32}, DType: "float32"})
	for _, e := range s.Engines {
		if e.Engine == "Vector" && e.Steps != 8 {
			t.Errorf("%d VectorE instructions, want 8 (each iteration waits for its own load)", e.Steps)
		}
	}
}
