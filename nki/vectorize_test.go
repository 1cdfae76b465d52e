package nki

import (
	"fmt"
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

// An nc_transpose that names no engine of a tile over 32x32 runs on
// TensorE: VectorE transposes only up to 32x32 and the compiler picks the
// engine by shape (NKI API reference, nki.isa.nc_transpose), as the NEFFs
// compiled from the corpus3 attention kernels show (their [128,128]
// transposes are TensorE matmuls). A 32x32 one stays on VectorE.
func TestSimTransposeEngineByShape(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((N, N), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nisa.tensor_copy(nisa.nc_transpose(x))
    nl.store(out, y)
    return out
`
	for _, c := range []struct {
		n      int64
		engine string
	}{{128, "Tensor"}, {32, "Vector"}} {
		src := strings.ReplaceAll(kernel, "N", strconv.FormatInt(c.n, 10))
		s := simKernel(t, src, &neuroncore.V2, Arg{Name: "a", Shape: []int64{c.n, c.n}, DType: "float32"})
		steps := map[string]int{}
		for _, e := range s.Engines {
			steps[e.Engine] = e.Steps
		}
		want := map[string]int{"Tensor": 0, "Vector": 1} // the copy
		want[c.engine]++
		if steps["Tensor"] != want["Tensor"] || steps["Vector"] != want["Vector"] {
			t.Errorf("%dx%d transpose: TensorE %d, VectorE %d instructions; want %d and %d (the transpose on %sE)",
				c.n, c.n, steps["Tensor"], steps["Vector"], want["Tensor"], want["Vector"], c.engine)
		}
	}
}

// nisa.tensor_scalar streams one input: N cycles on NeuronCore-v2's
// VectorE ("if there is only one input tile, most VectorE instructions can
// execute in roughly N cycles (example: nki.isa.tensor_scalar)",
// architecture guide), even with a [P,1] operand; tensor_tensor streams
// two (2N).
func TestSimTensorScalarStreamsOneInput(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a, s):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    c = nl.load(s)
    y = nisa.tensor_scalar(data=x, op0=nl.multiply, operand0=c)
    nl.store(out, y)
    return out
`
	s := simKernel(t, kernel, &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 512}, DType: "float32"}, Arg{Name: "s", Shape: []int64{128, 1}, DType: "float32"})
	if busy, want := engineBusy(s, "Vector"), 512/1.12; busy < want*0.99 || busy > want*1.01 {
		t.Errorf("tensor_scalar over 512 elements: VectorE busy %.1f ns, want %.1f (512 cycles at 1.12 GHz)", busy, want)
	}
}

// nl.zeros of a PSUM tile that matmuls then accumulate into (+=) is no
// instruction: the compiler reads it as the start of an accumulation
// group whose first matmul overwrites the bank (architecture guide). A
// PSUM tile zeroed and then read keeps its memset.
func TestSimPSUMZerosBeforeAccumulation(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    BODY
    r = nisa.tensor_copy(acc)
    nl.store(out, r)
    return out
`
	args := []Arg{{Name: "a", Shape: []int64{128, 128}, DType: "bfloat16"}, {Name: "b", Shape: []int64{128, 512}, DType: "bfloat16"}}
	for _, c := range []struct {
		what, body string
		vector     int
	}{
		{"accumulated by matmuls", "for k in nl.affine_range(4):\n        acc += nisa.nc_matmul(x, y)", 1},
		{"read first", "pass", 2},
	} {
		s := simKernel(t, strings.Replace(kernel, "BODY", c.body, 1), &neuroncore.V2, args...)
		for _, e := range s.Engines {
			if e.Engine == "Vector" && e.Steps != c.vector {
				t.Errorf("PSUM zeros %s: %d VectorE instructions, want %d", c.what, e.Steps, c.vector)
			}
		}
	}
}

// A chain under affine_range, each iteration reading the tile the one
// before wrote (buf[j+1] = exp(buf[j])), does not merge: iteration j+1
// waits for iteration j of the same instruction (a read after write), so
// the iterations are neither independent nor ready at once. `nki check`
// warns on such a kernel; sim charges one ScalarE instruction per
// iteration, as under sequential_range.
func TestSimNoMergeOfCarriedChain(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    buf = nl.ndarray((9, nl.par_dim(128), 1), dtype=nl.float32, buffer=nl.sbuf)
    buf[0] = nl.load(a)
    for j in nl.RANGE(8):
        buf[j + 1] = nl.exp(buf[j])
    nl.store(out, buf[8])
    return out
`
	for _, rng := range []string{"affine_range", "sequential_range"} {
		s := simKernel(t, strings.ReplaceAll(kernel, "RANGE", rng), &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 1}, DType: "float32"})
		found := false
		for _, e := range s.Engines {
			if e.Engine == "Scalar" {
				found = true
				if e.Steps != 8 {
					t.Errorf("%s: %d ScalarE instructions, want 8 (each iteration reads what the one before wrote)", rng, e.Steps)
				}
			}
		}
		if !found {
			t.Errorf("%s: no ScalarE instructions", rng)
		}
	}
}

// A merge of more iterations than the compiled NEFFs show (4-8) is an
// extrapolation of the rule, which bounds elements, not iterations: the
// model notes say so for 64 merged iterations, not for 8 (review5 H2).
func TestSimNotesMergeBeyondSeenTrips(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, TRIPS), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    sums = nl.ndarray((nl.par_dim(128), TRIPS), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.affine_range(TRIPS):
        sums[:, j] = nisa.tensor_reduce(nl.add, x[:, nl.ds(j * 4, 4)], axis=[1])
    nl.store(out, sums)
    return out
`
	for _, trips := range []int64{8, 64} {
		n := strconv.FormatInt(trips, 10)
		s := simKernel(t, strings.ReplaceAll(kernel, "TRIPS", n), &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 4 * trips}, DType: "float32"})
		model := strings.Join(s.Model, "\n")
		if !strings.Contains(model, "vectorised:") {
			t.Fatalf("%d iterations: no merge note:\n%s", trips, model)
		}
		if got, want := strings.Contains(model, "extrapolation"), trips > neuroncore.VectorizeSeenTrips; got != want {
			t.Errorf("%d iterations merged: extrapolation noted %v, want %v:\n%s", trips, got, want, model)
		}
	}
}

// The header counts what the engine table sums to (audit5 F7: "19 steps"
// over a table of 12 once affine_range iterations merged): the
// instructions the device runs, and the traced steps beside them.
func TestSimHeaderCountsMergedInstructions(t *testing.T) {
	const src = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    sums = nl.ndarray((nl.par_dim(128), 8), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.affine_range(8):
        sums[:, j] = nisa.tensor_reduce(nl.add, x[:, nl.ds(j * 4, 4)], axis=[1])
    nl.store(out, sums)
    return out
`
	s := simKernel(t, src, &neuroncore.V2, Arg{Name: "a", Shape: []int64{128, 32}, DType: "float32"})
	sum := 0
	for _, e := range s.Engines {
		sum += e.Steps
	}
	if s.Merged == 0 || s.Steps == sum {
		t.Fatalf("no iteration merged (%d traced steps, %d instructions): the test needs a merging loop", s.Steps, sum)
	}
	if s.Instructions != sum {
		t.Errorf("summary counts %d instructions, the engine table sums to %d", s.Instructions, sum)
	}
	if s.Steps != sum+s.Merged+s.Elided {
		t.Errorf("%d traced steps, want %d instructions + %d merged + %d elided", s.Steps, sum, s.Merged, s.Elided)
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(b.String(), "\n")
	want := fmt.Sprintf(": %d instructions (%d traced steps; %d iterations merged)", sum, s.Steps, s.Merged)
	if !strings.Contains(header, want) {
		t.Errorf("header %q, want it to contain %q", header, want)
	}
}
