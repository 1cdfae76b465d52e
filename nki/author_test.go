package nki

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

const authorHeader = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc
`

// traceSource writes src as k.py in a temporary directory and traces its
// function kernel for NeuronCore nc ("gen2", "gen3", ...).
func traceSource(t *testing.T, src, nc string, args ...Arg) *Result {
	t.Helper()
	res, err := traceSourceErr(t, src, nc, args...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// traceSourceErr is traceSource for kernels the tracer may refuse.
func traceSourceErr(t *testing.T, src, nc string, args ...Arg) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: args, NCVersion: nc})
}

// checkSource traces and checks a kernel written in the test.
func checkSource(t *testing.T, body string, args ...Arg) diag.Report {
	t.Helper()
	ck, err := CheckKernel(traceSource(t, authorHeader+body, "gen2", args...), &neuroncore.V2)
	if err != nil {
		t.Fatal(err)
	}
	return ck.Report
}

func findRule(rep diag.Report, rule string) *diag.Diagnostic {
	for i := range rep {
		if rep[i].Rule == rule {
			return &rep[i]
		}
	}
	return nil
}

var a128 = Arg{Name: "a", Shape: []int64{128, 512}, DType: "bfloat16"}

func TestAuthorChecks(t *testing.T) {
	cases := []struct {
		name, src, rule string
		line            string // the finding's location names this line
	}{
		{"psum tile across a bank", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    p = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=ncc.psum.alloc(lambda idx, pdim_size, fdim_size: (0, 0, 1024)))
    y = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=4096))
    x[...] = nl.load(a)
    p[...] = nl.copy(x)
    y[...] = nl.copy(p)
    nl.store(out, value=y)
    return out
`, neuroncore.RulePSUMBank, "k.py:10"},
		{"automatic psum tile too large", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.psum)
    p[...] = nl.zeros((128, 8192), dtype=nl.float32)
    nl.store(out, value=p)
    return out
`, neuroncore.RuleTileTooLarge, "k.py:9"},
		{"automatic sbuf tile over 128 partitions", `
@nki.jit
def kernel(a):
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.sbuf)
    x[...] = nl.load(a)
    nl.store(out, value=x)
    return out
`, neuroncore.RuleTileTooLarge, "k.py:9"},
		{"softmax under direct allocation", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    y = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=1024))
    x[...] = nl.load(a)
    y[...] = nl.softmax(x, axis=1)
    nl.store(out, value=y)
    return out
`, neuroncore.RuleImplicitTensor, "k.py:12"},
		{"transpose on TensorE under direct allocation", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    p = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype, buffer=ncc.psum.mod_alloc(base_bank=0))
    y = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=1024))
    x[...] = nl.load(a[:, 0:128])
    p[...] = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    y[...] = nl.copy(p)
    nl.store(out, value=y)
    return out
`, neuroncore.RuleImplicitTensor, "k.py:13"},
		{"non-IO HBM tensor in an allocated kernel", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    scratch = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.hbm)
    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    x[...] = nl.load(a)
    nl.store(scratch, value=x)
    nl.store(out, value=x)
    return out
`, neuroncore.RuleNonIOHBM, ""},
		{"matmul += into SBUF", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    acc = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    x[...] = nl.load(a)
    for k in nl.affine_range(2):
        acc[...] += nisa.nc_matmul(x[:, 0:128], x)
    nl.store(out, value=acc)
    return out
`, RuleMatmulAccumulateSB, "k.py:13"},
		{"+= on VectorE", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(2):
        x = nl.load(a)
        acc += nl.exp(x)
    nl.store(out, value=acc)
    return out
`, RuleVectorAccumulate, "k.py:12"},
		{"interleaved accumulation groups in one bank", `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    p = nl.ndarray((2, nl.par_dim(128), 128), dtype=nl.float32, buffer=ncc.psum.alloc(lambda idx, pdim_size, fdim_size: (0, 0, idx[0] * 512)))
    y = nl.ndarray((nl.par_dim(128), 256), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=2048))
    x[...] = nl.load(a)
    for k in nl.affine_range(4):
        p[0] += nisa.nc_matmul(x[:, 0:128], x[:, 0:128])
        p[1] += nisa.nc_matmul(x[:, 0:128], x[:, 128:256])
    y[:, 0:128] = nl.copy(p[0])
    y[:, 128:256] = nl.copy(p[1])
    nl.store(out[:, 0:256], value=y)
    return out
`, neuroncore.RuleAccInterleave, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := checkSource(t, c.src, a128)
			d := findRule(rep, c.rule)
			if d == nil {
				t.Fatalf("no %s in:\n%v", c.rule, rep)
			}
			if c.line != "" && !strings.Contains(d.Location, c.line) {
				t.Errorf("location %q, want %s: %v", d.Location, c.line, d)
			}
		})
	}
}

// The instruction estimate counts every unrolled step per engine.
func TestInstructionCount(t *testing.T) {
	rep := checkSource(t, `
@nki.jit
def kernel(a):
    out = nl.ndarray((512, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        y = nl.exp(x)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
`, Arg{Name: "a", Shape: []int64{512, 512}, DType: "bfloat16"})
	d := findRule(rep, RuleInstructionCount)
	if d == nil || !strings.Contains(d.Message, "12 instructions") || !strings.Contains(d.Message, "scalar 4") || !strings.Contains(d.Message, "dma 8") {
		t.Fatalf("instruction count: %v", rep)
	}
}

// The current NKI API gives HBM tensors names (and addresses), and its
// compiler allocates a TensorE transpose's identity: nki-library's
// address= kernels declare scratch HBM tensors that are not outputs
// (alloc_hbm) and transpose on TensorE. Only Beta 1 rejects either, so a
// current-API kernel with both checks clean (the Beta-1 errors:
// TestAuthorChecks, "non-IO HBM tensor in an allocated kernel" and
// "transpose on TensorE under direct allocation").
func TestBeta1OnlyRules(t *testing.T) {
	src := `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    scratch = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm, name="scratch")
    x = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf, address=(0, 0))
    p = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.psum, address=(0, 0))
    nisa.dma_copy(dst=x, src=a)
    nisa.nc_transpose(dst=p, data=x[:, 0:128], engine=nisa.tensor_engine)
    nisa.tensor_copy(dst=x[:, 0:128], src=p)
    nisa.dma_copy(dst=scratch, src=x)
    nisa.dma_copy(dst=out, src=x)
    return out
`
	arch, _ := neuroncore.ArchByName("gen3")
	ck, err := CheckKernel(traceCurrent(t, src, a128), arch)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{neuroncore.RuleNonIOHBM, neuroncore.RuleImplicitTensor} {
		if d := findRule(ck.Report, r); d != nil {
			t.Errorf("current API: %v", d)
		}
	}
	if n := ck.Report.Count(diag.Error); n != 0 {
		t.Errorf("current API: %d errors: %v", n, ck.Report)
	}
	if len(ck.Plan.HBM) != 2 || ck.Plan.API != "current" {
		t.Errorf("plan HBM %v, API %q", ck.Plan.HBM, ck.Plan.API)
	}
}

// A call's scope is reused once the call returns, unless a function made
// during the call keeps it as its closure: factories, lambdas in
// comprehensions and nested functions still see their variables after the
// calls that made them have returned and other calls have run.
func TestClosuresOutliveCalls(t *testing.T) {
	checkSource(t, `
def make_adder(n):
    return lambda x: x + n

def make_scalers(k):
    return [lambda x, i=i: x * i + k for i in range(3)]

def make_counter(start):
    def step(d):
        return start + d
    return step

def plain(a, b):
    c = a + b
    return c

@nki.jit
def kernel(a):
    add2 = make_adder(2)
    scalers = make_scalers(10)
    count = make_counter(100)
    t = plain(1, 2)
    u = plain(5, 6)
    assert add2(3) == 5, "adder"
    assert scalers[2](4) == 18 and scalers[0](4) == 10, "scalers"
    assert count(5) == 105, "counter"
    assert t == 3 and u == 11, "plain"
    assert make_adder(7)(1) + plain(2, 2) == 12, "nested calls"
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    nl.store(out, value=x)
    return out
`, a128)
}

// A manifest's "constants" override nl.tile_size values, the defaults'
// map for every entry and an entry's own map instead (as the corpus
// tracer merges them); psum_bank_fmax and psum_num_banks have values.
func TestManifestConstants(t *testing.T) {
	dir := t.TempDir()
	kernel := authorHeader + `
@nki.jit
def kernel(a, want):
    assert nl.tile_size.total_available_sbuf_size == want, nl.tile_size.total_available_sbuf_size
    assert nl.tile_size.psum_bank_fmax * 4 == nl.tile_size.psum_bank_fmax_bytes and nl.tile_size.psum_num_banks == 8
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out
`
	manifest := `{"defaults": {"constants": {"nl.tile_size.total_available_sbuf_size": 212992}},
 "entries": [
  {"id": "defaults", "file": "k.py", "function": "kernel", "args": [{"name": "a", "shape": [128, 512], "dtype": "float32"}, {"name": "want", "value": 212992}]},
  {"id": "own", "file": "k.py", "function": "kernel", "constants": {"nl.tile_size.total_available_sbuf_size": 1000},
   "args": [{"name": "a", "shape": [128, 512], "dtype": "float32"}, {"name": "want", "value": 1000}]}]}`
	for name, body := range map[string]string{"k.py": kernel, "manifest.json": manifest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Entries {
		if _, err := Trace(OptionsFor(m, &m.Entries[i])); err != nil {
			t.Errorf("%s: %v", m.Entries[i].ID, err)
		}
	}
}

// slice() is a builtin: nki-samples' create_indices indexes nl.arange with
// a tuple of slice(None, None, None) and None (it was "NameError: name
// slice is not defined"); the slice a[slice(0, 64)] takes is a[0:64].
func TestSliceBuiltin(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a):
    colon = slice(None, None, None)
    access = [None] * 2
    access[0] = colon
    i_p = nl.arange(128)[tuple(access)]
    i_f = nl.arange(512)[None, :]
    assert isinstance(colon, slice) and not isinstance(3, slice)
    t = nl.load(a[i_p, i_f])
    half = t[slice(0, 64), slice(None)]
    u = nl.ndarray(half.shape, dtype=a.dtype, buffer=nl.sbuf)
    assert u.shape == (64, 512), u.shape
    nl.store(a[i_p, i_f], value=t)
`, "gen2", a128)
	if res.Steps == 0 {
		t.Error("nothing traced")
	}
}

// nl.zeros over a PSUM tensor of 32 x 16 blocks (autocomp's llama MLP
// decode kernel keeps one [128, 1] accumulator per batch row and output
// chunk: 2 KiB a partition, one bank) lowers to one step over 512 tiles; it
// was refused ("touches more than 256 tiles") though the hardware holds it.
func TestZerosOverManyBlocksLowers(t *testing.T) {
	rep := checkSource(t, `
@nki.jit
def kernel(a):
    acc = nl.zeros((32, 16, nl.par_dim(128), 1), dtype=nl.float32, buffer=nl.psum)
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    out[...] = nl.copy(acc[3, 5])
    nl.store(a[0:128, 0:1], value=out)
`, a128)
	if n := rep.Count(diag.Error); n != 0 {
		t.Errorf("%d errors: %v", n, rep)
	}
}

// nisa.iota of a scalar expression (vLLM's paged attention passes its head
// id, an int, and reshapes the result to (1, 1)) is one value in one
// partition; it was refused ("operand of type int is not a tensor").
func TestIotaOfScalar(t *testing.T) {
	src := authorHeader + `
@nki.jit
def kernel(a, head_id):
    h = nisa.iota(head_id, dtype=nl.int32).reshape((1, 1))
    assert h.shape == (1, 1), h.shape
    for j in nl.affine_range(4):
        p = nisa.iota(j, dtype=nl.int32)
        assert p.shape == (1, 1), p.shape
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    q = nisa.iota(i_p + i_f, dtype=nl.int32)
    assert q.shape == (128, 512), q.shape
    t = nl.load(a)
    nl.store(a, value=t)
`
	res := traceSource(t, src, "gen2", a128, Arg{Name: "head_id", Value: float64(3)})
	if res.Steps == 0 {
		t.Error("nothing traced")
	}
}

// A kernel may be a static method of a top-level class (biquando's
// trainium-quantum-sim: QuantumCircuit.kernel, @staticmethod over @nki.jit):
// the file lists it as Class.method and --kernel Class.method traces it;
// it was "has no @nki.jit function" and "no such function in the file".
func TestStaticMethodKernel(t *testing.T) {
	src := authorHeader + `
class Circuit:
    SIZE = 128

    @staticmethod
    @nki.jit
    def kernel(a):
        t = nl.load(a[0:Circuit.SIZE, 0:512])
        nl.store(a[0:Circuit.SIZE, 0:512], value=t)

    def not_a_kernel(self):
        pass
`
	dir := t.TempDir()
	path := filepath.Join(dir, "k.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ks, err := KernelFunctions(path)
	if err != nil || len(ks) != 1 || ks[0] != "Circuit.kernel" {
		t.Fatalf("KernelFunctions = %v, %v; want [Circuit.kernel]", ks, err)
	}
	res, err := Trace(Options{Dir: dir, File: "k.py", Function: "Circuit.kernel", Args: []Arg{a128}, NCVersion: "gen2"})
	if err != nil || res.Steps == 0 {
		t.Fatalf("trace: %v", err)
	}
	if _, err := Trace(Options{Dir: dir, File: "k.py", Function: "Circuit.not_a_kernel", Args: []Arg{a128}, NCVersion: "gen2"}); err == nil {
		t.Error("an instance method traced as a kernel")
	}
}

// Tensor arithmetic under an API taken from the imports says how to trace
// a Beta 1 kernel that imports nki (NKL's interop examples import a stand-in
// nki package around nki-samples' Beta 1 kernels): --api beta1. An API given
// explicitly gets the plain refusal.
func TestTensorArithmeticNamesAPIFlag(t *testing.T) {
	src := `import nki
import nki.language as nl

def kernel(a):
    t = nl.load(a)
    u = t * t
    nl.store(a, value=u)
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: []Arg{a128}, NCVersion: "gen2"})
	if err == nil || !strings.Contains(err.Error(), "--api beta1") || !strings.Contains(err.Error(), "nl.multiply") {
		t.Errorf("detected API: %v", err)
	}
	_, err = Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: []Arg{a128}, NCVersion: "gen2", API: "current"})
	if err == nil || strings.Contains(err.Error(), "--api") {
		t.Errorf("given API: %v", err)
	}
	if _, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: []Arg{a128}, NCVersion: "gen2", API: "beta1"}); err != nil {
		t.Errorf("--api beta1: %v", err)
	}
}

// nl.zeros(..., lazy_initialization=True), the compiler's NKI dumps'
// declaration of PSUM accumulators (AccelOpt's NKIBench matmul: 15,360
// tiles), is zero where first used: it records no write of every tile at
// the declaration, which was refused ("nl.zeros touches more than 4096
// tiles"); without the flag nl.zeros still writes its tiles. Either way
// the call is listed, as the reference tracer lists it (the corpus
// golden of nki-samples' flash_fwd).
func TestZerosLazyInitialization(t *testing.T) {
	body := `
@nki.jit
def kernel(a):
    acc = nl.zeros((8, 8, 80, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.psum%s)
    x = nl.load(a[0:128, 0:128])
    acc[1, 2, 3] += nisa.nc_matmul(x, x)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    out[...] = nl.copy(acc[1, 2, 3])
    nl.store(a[0:128, 0:128], value=out)
`
	zerosWrites := func(res *Result) int {
		n := 0
		eachNode(res.Program, func(p *PNode) {
			if p.Step != nil && strings.HasSuffix(p.Step.Fn, "zeros") {
				n++
			}
		})
		return n
	}
	zerosListed := func(res *Result) int {
		n := 0
		for _, c := range res.Calls {
			if strings.HasSuffix(c.Fn, "zeros") {
				n++
			}
		}
		return n
	}
	lazy := traceSource(t, authorHeader+fmt.Sprintf(body, ", lazy_initialization=True"), "gen2", a128)
	if n := zerosWrites(lazy); n != 0 {
		t.Errorf("lazy nl.zeros recorded %d writes", n)
	}
	if n := zerosListed(lazy); n != 1 {
		t.Errorf("lazy nl.zeros listed %d times in the calls, want 1", n)
	}
	if _, err := CheckKernel(lazy, &neuroncore.V2); err != nil {
		t.Errorf("check: %v", err)
	}
	eager := traceSource(t, authorHeader+fmt.Sprintf(body, ""), "gen2", a128)
	if n := zerosWrites(eager); n != 1 {
		t.Errorf("nl.zeros recorded %d writes, want 1", n)
	}
}
