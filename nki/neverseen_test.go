package nki

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// Kernels as students and contributors write them (the "files never seen"
// classes): each kernel is written here for the test, none is copied from
// a published file.

func tensorRecs(res *Result, api string) []*TensorRec {
	var out []*TensorRec
	for _, r := range res.Tensors {
		if r.API == api {
			out = append(out, r)
		}
	}
	return out
}

// nl.shared_constant(constant, dtype=None) takes its dtype from the host
// array when none is given.
func TestSharedConstantDTypeFromArray(t *testing.T) {
	res := traceSource(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    ident = nl.shared_constant(np.identity(128, dtype=np.float16))
    full = nl.shared_constant(np.ones((128, 4)))
    t = nl.load(ident)
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, t)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float16"})
	c := tensorRecs(res, "nl.shared_constant")
	if len(c) != 2 {
		t.Fatalf("shared constants = %d, want 2", len(c))
	}
	if c[0].DType != "float16" || c[1].DType != "float64" || c[1].Shape[1] != 4 {
		t.Errorf("dtypes %s %s shape %v: want float16 (the array's) and float64 (numpy's default)", c[0].DType, c[1].DType, c[1].Shape)
	}
}

// Host numpy at trace time: ufuncs on numbers, the scalar types,
// np.dtype(...).type, host arrays built with np.zeros and item assignment.
func TestHostNumpyConstants(t *testing.T) {
	res := traceSource(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    D = 128
    scale = np.float32(1.0 / np.sqrt(D))
    assert abs(scale - 0.08838835) < 1e-7
    assert np.float32(0.1) != 0.1
    neg = np.dtype(np.float16).type(-30000.5)
    assert neg == -30000.0
    assert np.int32(7.9) == 7
    assert np.sqrt(16).astype(np.int32) == 4 and np.float32(2.5).item() == 2.5
    assert np.maximum(3, 4.5) == 4.5
    mask = np.zeros((128, 128), dtype=np.float32)
    for i in range(128):
        mask[i, i] = 1.0
    mask[0, 1:3] = 2
    assert mask[5, 5] == 1.0 and mask[5, 6] == 0.0 and mask[0, 2] == 2.0
    assert mask.shape == (128, 128) and mask.dtype == np.float32
    causal = np.triu(np.ones((128, 128), dtype=np.float32), k=1) * -30000.0
    assert causal[0, 1] == -30000.0 and causal[1, 1] == 0 and causal.dtype == np.float32
    assert np.prod(a.shape) == 128 * 128 and np.max((3, 9, 4)) == 9
    assert np.finfo(np.float16).max == 65504 and np.iinfo(np.int8).min == -128
    idx = np.arange(8, dtype=np.int32) * 2
    assert (idx / 4)[3] == 1.5
    const = nl.shared_constant(mask)
    mconst = nl.shared_constant(causal)
    iconst = nl.shared_constant(idx)
    t = nl.load(a)
    s = nl.multiply(t, scale)
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, s)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"})
	c := tensorRecs(res, "nl.shared_constant")
	if len(c) != 3 || c[0].DType != "float32" || c[1].DType != "float32" || c[2].DType != "int32" || c[2].Shape[0] != 8 {
		t.Fatalf("shared constants %v: want the float32 mask and causal mask and the (8,) int32 table", c)
	}
	// a large host array keeps its shape; reading an element is refused
	_, err := traceSourceErr(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    big = np.zeros((4096, 4096))
    return big[0, 0]
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "host arrays up to") {
		t.Errorf("reading a large host array: %v", err)
	}
	// the values of all host arrays of a trace are bounded too: past the
	// budget arrays keep their shape only
	_, err = traceSourceErr(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    arrs = [np.ones((1024, 1024)) for i in range(6)]
    assert arrs[0][3, 3] == 1.0 and arrs[5].shape == (1024, 1024)
    return arrs[5][3, 3]
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "host arrays up to") || !strings.Contains(err.Error(), "k.py:11:") {
		t.Errorf("reading a host array past the trace's budget: %v", err)
	}
}

const copyKernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, t)
    return out
`

var a128x128 = Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"}

// Host statements a kernel file runs when imported (a course's starter code
// silences logging, a tutorial sets up a tokenizer) do not change what the
// kernel traces: they are skipped, and a kernel that reads a name they bind
// is refused there, naming the statement.
func TestModuleLevelHostCode(t *testing.T) {
	host := authorHeader + `import logging, os
logging.disable(logging.OFF)
logger = logging.getLogger(__name__)
logger.setLevel(logging.WARNING)
if logging.root.isEnabledFor(logging.DEBUG):
    VERBOSE = True
CACHE = os.environ["NEURON_COMPILE_CACHE_URL"]
`
	res := traceSource(t, host+copyKernel, "gen2", a128x128)
	if len(res.Calls) != 2 {
		t.Errorf("calls = %d, want the load and the store", len(res.Calls))
	}
	_, err := traceSourceErr(t, host+`
@nki.jit
def kernel(a):
    logger.info("tracing")
    return a
`, "gen2", a128x128)
	if err == nil || !strings.Contains(err.Error(), "logger") || !strings.Contains(err.Error(), "k.py:7") {
		t.Errorf("a kernel using a skipped host value: %v, want a refusal naming logger and k.py:7", err)
	}
	// a statement that raises still fails the import, as in Python
	_, err = traceSourceErr(t, authorHeader+"assert 1 == 2, 'configure me'\n"+copyKernel, "gen2", a128x128)
	if err == nil || !strings.Contains(err.Error(), "configure me") {
		t.Errorf("a failing module-level assert: %v", err)
	}
}

// Host-only imports (json, loguru, transformers, torch_neuronx) and
// nki.tensor annotations of a tutorial file: the kernel does not use them.
func TestHostImportsAndAnnotations(t *testing.T) {
	res := traceSource(t, `import json
from loguru import logger
from transformers import AutoTokenizer
import torch_neuronx
import torch.nn.functional as F
from neuronxcc import nki
import neuronxcc.nki.language as nl

@nki.jit
def kernel(a: nki.tensor, n: int = 2) -> nki.tensor:
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, t)
    return out
`, "gen2", a128x128)
	if len(res.Calls) != 2 {
		t.Errorf("calls = %d, want 2", len(res.Calls))
	}
	_, err := traceSourceErr(t, authorHeader+`import json

@nki.jit
def kernel(a):
    cfg = json.loads("{}")
    return a
`, "gen2", a128x128)
	if err == nil || !strings.Contains(err.Error(), "json.loads") {
		t.Errorf("a kernel calling a host module: %v, want a refusal naming json.loads", err)
	}
}

// Manifest keyword arguments take the argument forms of positional ones:
// {"tuple": [2, 2]} is a tuple, {"shape", "dtype"} a tensor, {"value"} a
// scalar.
func TestManifestKwargForms(t *testing.T) {
	dir := t.TempDir()
	src := authorHeader + `
@nki.jit
def kernel(a, padding=(0, 0), bias=None, scale=1.0, cfg=None):
    pad_left, pad_right = padding
    assert pad_left == 2 and pad_right == 3
    assert bias.shape == (128, 1)
    assert scale == 0.5
    assert cfg["mode"] == "fast"
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    b = nl.load(bias)
    nl.store(out, nl.add(t, b))
    return out
`
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	man := `{"version": 1, "entries": [{"id": "k", "file": "k.py", "function": "kernel", "api": "beta1",
  "args": [{"name": "a", "shape": [128, 128], "dtype": "float32"}],
  "kwargs": {"padding": {"tuple": [2, 3]}, "bias": {"shape": [128, 1], "dtype": "float32"}, "scale": {"value": 0.5}, "cfg": {"mode": "fast"}}}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := m.Entry("k")
	res, err := Trace(OptionsFor(m, e))
	if err != nil {
		t.Fatal(err)
	}
	if len(tensorRecs(res, "kernel argument")) != 2 {
		t.Errorf("kernel arguments = %d, want a and bias", len(tensorRecs(res, "kernel argument")))
	}
}

// .reshape of an instruction result used at once (nl.max(t, axis=2)
// .reshape(...)): the result gets a tile of its own, which the reshaped
// view reads.
func TestReshapeOfInstructionResult(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 1, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(128), 8, 4), dtype=a.dtype, buffer=nl.sbuf)
    t[...] = nl.load(a)
    m = nl.max(t, axis=2).reshape((128, 1, 8))
    nl.store(out, value=m)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 8, 4}, DType: "float32"})
	r := tensorRecs(res, "result of nl.max")
	if len(r) != 1 || len(r[0].Shape) != 2 || r[0].Shape[1] != 8 {
		t.Fatalf("result of nl.max: %v, want one implicit (128, 8) tile", r)
	}
	st := callsOf(res, "nl.store")
	if len(st) != 1 || len(st[0].Reads) != 1 || st[0].Reads[0] != r[0].ID {
		t.Errorf("the store reads %v, want the max's tile %s", st, r[0].ID)
	}
}

// u = nisa.nc_transpose(t); big[:, i, :] = u: the TensorE result lands in a
// PSUM tile of its own, and the assignment is a copy out of it; written
// straight into the destination (big[...] = nisa.nc_transpose(t)) it has
// no tile of its own.
func TestAssignedResultIsACopy(t *testing.T) {
	kernel := func(direct bool) *Result {
		assign := "u = nisa.nc_transpose(w)\n        big[:, i, :] = u"
		if direct {
			assign = "big[:, i, :] = nisa.nc_transpose(w)"
		}
		return traceSource(t, authorHeader+`
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 2, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    src = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype, buffer=nl.sbuf)
    big = nl.ndarray((nl.par_dim(128), 2, 128), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=src, src=a)
    for i in nl.affine_range(2):
        w = nisa.tensor_copy(src=src)
        `+assign+`
    nisa.dma_copy(dst=out, src=big)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"})
	}
	res := kernel(false)
	tr := tensorRecs(res, "result of nisa.nc_transpose")
	if len(tr) != 1 || tr[0].Buffer != "psum" || tr[0].Instances != 2 {
		t.Fatalf("transpose result tiles %v, want one PSUM tile of 2 instances", tr)
	}
	cp := callsOf(res, "assign(copy)")
	if len(cp) != 1 || cp[0].Executed != 2 || len(cp[0].Reads) != 1 || cp[0].Reads[0] != tr[0].ID {
		t.Fatalf("copies %+v, want one copy out of %s executed twice", cp, tr[0].ID)
	}
	direct := kernel(true)
	if n := len(tensorRecs(direct, "result of nisa.nc_transpose")) + len(callsOf(direct, "assign(copy)")); n != 0 {
		t.Errorf("written straight into big: %d transpose tiles and copies, want none", n)
	}
}

// A conditional expression on a sequential_range index (the scan carried
// from the previous tile, zero in the first): both branches trace, the
// instruction reads the tensor branch; integer branches become the
// per-iteration choice.
func TestConditionalExpressionOnLoopIndex(t *testing.T) {
	res := traceSource(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    state = nl.zeros((nl.par_dim(128), 1), dtype=a.dtype)
    for i in nl.sequential_range(4):
        x = nl.load(a[:, nl.ds(i * 128, 128)])
        init = state[:, 0] if i > 0 else 0
        r = nisa.tensor_tensor_scan(x, x, initial=init, op0=np.multiply, op1=np.add)
        state[:, 0:1] = nl.copy(r[:, 127:128])
        off = 0 if i == 0 else (i - 1) * 128
        nl.store(out[:, nl.ds(off, 128)], value=r)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 512}, DType: "float32"})
	scan := callsOf(res, "nisa.tensor_tensor_scan")
	var state *TensorRec
	for _, r := range res.Tensors {
		if r.API == "nl.zeros" {
			state = r
		}
	}
	if len(scan) != 1 || scan[0].Executed != 4 || state == nil || !contains(scan[0].Reads, state.ID) {
		t.Fatalf("scan calls %+v, want one executed 4 times reading the carried state", scan)
	}
	_, err := traceSourceErr(t, authorHeader+`
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(2):
        src = a if i > 0 else b
        nl.store(out, value=nl.load(src))
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 128}, DType: "float32"}, Arg{Name: "b", Shape: []int64{128, 128}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "differ per iteration") {
		t.Errorf("choosing between two tensors per iteration: %v, want a refusal", err)
	}
}

// u = nl.matmul(...); acc_sbuf[...] += u: the product lands in PSUM and
// the add into SBUF is a vector instruction, not TensorE accumulating
// outside PSUM (no error); written at once into PSUM it stays the
// matmul's accumulation.
func TestNamedMatmulAddedOutsidePSUM(t *testing.T) {
	body := `
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((nl.par_dim(128), 512), dtype=nl.float32, buffer=BUF)
    for k in nl.affine_range(4):
        x = nl.load(a[k * 128:(k + 1) * 128, :])
        y = nl.load(b[k * 128:(k + 1) * 128, :])
        u = nl.matmul(x, y, transpose_x=True)
        acc[...] += u
    nl.store(out, value=acc)
    return out
`
	args := []Arg{{Name: "a", Shape: []int64{512, 128}, DType: "float32"}, {Name: "b", Shape: []int64{512, 512}, DType: "float32"}}
	rep := checkSource(t, strings.Replace(body, "BUF", "nl.sbuf", 1), args...)
	if d := findRule(rep, RuleMatmulAccumulateSB); d != nil {
		t.Errorf("named matmul added into SBUF: %v", d)
	}
	if findRule(rep, RuleVectorAccumulate) == nil {
		t.Errorf("named matmul added into SBUF: want the vector-add info, got %v", rep)
	}
	res := traceSource(t, authorHeader+strings.Replace(body, "BUF", "nl.psum", 1), "gen2", args...)
	if len(tensorRecs(res, "result of nl.matmul"))+len(callsOf(res, "operator.iadd")) != 0 {
		t.Errorf("named matmul accumulated into PSUM: want the matmul's own accumulation, got %v", res.Calls)
	}
}

// A Beta-1 kernel may keep an automatically allocated (128, 4096) float32
// tile in PSUM, each matmul writing one bank, and read it whole (a
// softmax's max and exp straight from PSUM; such a kernel ran on trn2):
// no sbuf/tile-too-large.
func TestAutomaticPSUMTensorAcrossBanks(t *testing.T) {
	rep := checkSource(t, `
@nki.jit
def kernel(q, k):
    out = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.shared_hbm)
    qt = nl.load(q)
    score = nl.ndarray((nl.par_dim(128), 4096), dtype=nl.float32, buffer=nl.psum)
    for c in nl.affine_range(8):
        kt = nl.load(k[:, c * 512:(c + 1) * 512])
        score[:, c * 512:(c + 1) * 512] = nisa.nc_matmul(qt, kt)
    m = nisa.tensor_reduce(nl.max, data=score, axis=[1], negate=True)
    e = nisa.activation(op=nl.exp, data=score, bias=m)
    nl.store(out, value=e)
    return out
`, Arg{Name: "q", Shape: []int64{128, 128}, DType: "float32"}, Arg{Name: "k", Shape: []int64{128, 4096}, DType: "float32"})
	if d := findRule(rep, neuroncore.RuleTileTooLarge); d != nil {
		t.Errorf("an automatic PSUM tensor over 8 banks: %v", d)
	}
	if rep.HasErrors() {
		t.Errorf("errors: %v", rep)
	}
}

// `if start + h >= height: break` in an affine_range loop, a bounds guard
// the tiling never meets: the branch never runs, so its break changes
// nothing; a guard that does hold in some iteration is still refused.
func TestNeverTakenBreakUnderSymbolicIf(t *testing.T) {
	src := func(rows int) string {
		return authorHeader + `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 8, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(2):
        start = t * 4
        for h in nl.affine_range(4):
            if start + h >= ` + fmt.Sprint(rows) + `:
                break
            x = nl.load(a[:, start + h, :])
            nl.store(out[:, start + h, :], value=x)
    return out
`
	}
	res := traceSource(t, src(8), "gen2", Arg{Name: "a", Shape: []int64{128, 8, 64}, DType: "float32"})
	if st := callsOf(res, "nl.store"); len(st) != 1 || st[0].Executed != 8 {
		t.Errorf("stores %+v, want one site executed 8 times", st)
	}
	if _, err := traceSourceErr(t, src(6), "gen2", Arg{Name: "a", Shape: []int64{128, 8, 64}, DType: "float32"}); err == nil {
		t.Errorf("a break taken in some iterations traced")
	}
}

// A dimension computed with true division (in_channels * out_channels /
// 128) is a float; NKI compiles the kernel when its value is integral, so
// the tracer takes it as that int. A fractional one is still refused.
func TestIntegralFloatDimension(t *testing.T) {
	src := authorHeader + `
@nki.jit
def kernel(w):
    c_in, c_out = w.shape
    w_t = nl.ndarray((128, c_in * c_out / 128), dtype=w.dtype, buffer=nl.sbuf)
    out = nl.ndarray((128, DIM), dtype=w.dtype, buffer=nl.shared_hbm)
    return out
`
	arg := Arg{Name: "w", Shape: []int64{256, 256}, DType: "float16"}
	res := traceSource(t, strings.Replace(src, "DIM", "c_in * c_out / 128", 1), "gen2", arg)
	var shapes [][]int64
	for _, r := range res.Tensors {
		if r.API == "nl.ndarray" {
			shapes = append(shapes, r.Shape)
		}
	}
	if len(shapes) != 2 || shapes[0][1] != 512 || shapes[1][1] != 512 {
		t.Errorf("nl.ndarray shapes %v, want [128 512] twice", shapes)
	}
	_, err := traceSourceErr(t, strings.Replace(src, "DIM", "c_in / 3", 1), "gen2", arg)
	if err == nil || !strings.Contains(err.Error(), "not a non-negative integer") {
		t.Errorf("fractional dimension: err %v, want a refusal", err)
	}
}

// nki.device_print (the top-level name, not only nl.device_print) prints
// nothing and adds no instruction: a student kernel calling it traces.
func TestTopLevelDevicePrint(t *testing.T) {
	src := authorHeader + `
@nki.jit
def kernel(a):
    t = nl.load(a)
    nki.device_print("t", t)
    nl.device_print("t", t)
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, t)
    return out
`
	res := traceSource(t, src, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if len(res.Tensors) == 0 {
		t.Fatalf("no tensors traced")
	}
}
