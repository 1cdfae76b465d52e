package nki

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// Constructs of current-API (nki.*) library kernels that the tracer must
// evaluate as the real frontend does. Each kernel is written here for the
// test; none is copied from a published file.

const currentHeader = `import nki
import nki.isa as nisa
import nki.language as nl
`

// traceCurrent traces a current-API kernel written in the test.
func traceCurrent(t *testing.T, body string, args ...Arg) *Result {
	t.Helper()
	return traceSource(t, currentHeader+body, "gen3", args...)
}

func callsOf(res *Result, fn string) []*CallRec {
	var out []*CallRec
	for _, c := range res.Calls {
		if c.Fn == fn {
			out = append(out, c)
		}
	}
	return out
}

// t.buffer compares equal to the buffer it was declared in (nki-library
// asserts x.buffer == nl.sbuf before an SBUF-only helper), is usable as a
// dict key and in a membership test, and differs from other buffers.
func TestBufferAttributeEquality(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    assert x.buffer == nl.sbuf
    assert x.buffer != nl.psum
    assert a.buffer != nl.sbuf
    assert x.buffer in (nl.psum, nl.sbuf)
    names = {nl.sbuf: "sb", nl.psum: "ps"}
    assert names[x.buffer] == "sb"
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    if x.buffer == nl.sbuf:
        nisa.dma_copy(dst=x, src=a)
    nisa.dma_copy(dst=out, src=x)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"})
	if n := len(callsOf(res, "nisa.dma_copy")); n != 2 {
		t.Fatalf("dma_copy sites = %d, want 2 (the guarded copy runs)", n)
	}
}

// Current-API instructions write every output operand (dst, dst_idx,
// val_dst/idx_dst, dst_scale, reduce_res), positional or keyword, and read
// the rest; nisa's option enumerations are attributes.
func TestCurrentOutputOperands(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    x = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a, dge_mode=nisa.dge_mode.hwdge, oob_mode=nisa.oob_mode.error)
    mx = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=mx, src=x)
    idx = nl.ndarray((128, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(idx, x, mx)
    rep = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    ridx = nl.ndarray((128, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.nc_match_replace8(rep, x, mx, 0.0, ridx)
    vals = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
    inds = nl.ndarray((128, 8), dtype=nl.uint32, buffer=nl.sbuf)
    nisa.topk(vals, inds, x, 8)
    red = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=y, op=nl.exp, data=x, reduce_op=nl.add, reduce_res=red)
    assert nisa.matmul_perf_mode.double_row != nisa.matmul_perf_mode.none
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=y, engine=nisa.dma_engine.dma)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	name := map[string]string{}
	for _, r := range res.Tensors {
		name[r.ID] = r.Name
	}
	names := func(ids []string) string {
		var out []string
		for _, id := range ids {
			out = append(out, name[id])
		}
		return strings.Join(out, ",")
	}
	want := map[string][2]string{ // fn -> reads, writes
		"nisa.max8":              {"x", "mx"},
		"nisa.nc_find_index8":    {"x,mx", "idx"},
		"nisa.nc_match_replace8": {"x,mx", "rep,ridx"},
		"nisa.topk":              {"x", "vals,inds"},
		"nisa.activation":        {"x", "y,red"},
	}
	for fn, rw := range want {
		cs := callsOf(res, fn)
		if len(cs) != 1 {
			t.Fatalf("%s: %d call sites", fn, len(cs))
		}
		if r, w := names(cs[0].Reads), names(cs[0].Writes); r != rw[0] || w != rw[1] {
			t.Errorf("%s reads %q writes %q, want %q and %q", fn, r, w, rw[0], rw[1])
		}
	}
}

// A loop left by break (or return) records the iterations that ran as its
// trip count, not the length of its range.
func TestLoopBreakTripCount(t *testing.T) {
	res := traceCurrent(t, `
def first_negative(xs):
    for i in range(len(xs)):
        if xs[i] < 0:
            return i
    return -1

@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    sizes = [32, 32, 0, 0]
    for s in range(4):
        if sizes[s] <= 0:
            break
        x = nl.ndarray((128, sizes[s]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=a[:, 0:sizes[s]])
    assert first_negative([3, -1, 2, 5, 7]) == 1
    nisa.dma_copy(dst=out, src=a)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"})
	want := map[int]int64{15: 3, 6: 2} // line -> trip count (after the 3-line header)
	for _, l := range res.Loops {
		w, ok := want[l.Site.Line]
		if !ok {
			continue
		}
		if len(l.TripCounts) != 1 || l.TripCounts[w] != 1 || l.Iterations != w {
			t.Errorf("loop at line %d: trips %v, iterations %d; want one entry of %d", l.Site.Line, l.TripCounts, l.Iterations, w)
		}
		delete(want, l.Site.Line)
	}
	if len(want) != 0 {
		t.Errorf("loops not recorded: %v (have %d loops)", want, len(res.Loops))
	}
}

// The current API's OCP float8 and packed MX dtypes are nl attributes with
// their storage sizes (the _x4 types pack four values per element), and a
// kernel declaring them is checked without an internal error.
func TestCurrentMXDTypes(t *testing.T) {
	src := `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    q = nl.ndarray((128, 16), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
    p = nl.ndarray((128, 16), dtype=nl.float4_e2m1fn_x4, buffer=nl.sbuf)
    s = nl.ndarray((128, 4), dtype=nl.float8_e8m0fnu, buffer=nl.sbuf)
    f = nl.ndarray((128, 64), dtype=nl.float8_e4m3fn, buffer=nl.sbuf)
    nisa.quantize_mx(dst=q, src=a, dst_scale=s)
    nisa.tensor_copy(dst=f, src=a)
    nisa.tensor_copy(dst=p, src=q)
    nisa.dma_copy(dst=out, src=f)
    return out
`
	res := traceCurrent(t, src, Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	want := map[string]int64{"q": 64, "p": 32, "s": 4, "f": 64}
	for _, r := range res.Tensors {
		if w, ok := want[r.Name]; ok {
			if r.FreeBytes != w {
				t.Errorf("%s (%s): %d bytes per partition, want %d", r.Name, r.DType, r.FreeBytes, w)
			}
			delete(want, r.Name)
		}
	}
	if len(want) != 0 {
		t.Errorf("tensors not recorded: %v", want)
	}
	if _, err := CheckKernel(res, &neuroncore.V3); err != nil {
		t.Fatal(err)
	}
}

// Python evaluates a def's annotations when the def runs: one naming an
// attribute the NKI module does not have (nki.dtype, nt.mutable_tensor: not
// in the documented API) is refused there, unless the module imported
// annotations from __future__; typing constructs, forward references and
// unions are accepted.
func TestDefAnnotationsEvaluated(t *testing.T) {
	body := `
from typing import Optional, List
import nki.typing as nt

class Cfg:
    size: int = 64
    name: "Later" = None

def helper(x: nl.ndarray, n: Optional[int] = None, ys: List[nl.ndarray] = None, z: "Later" = None, w: nl.ndarray | None = None, t: tuple[int, ...] = (), s: nt.tensor = None) -> list[nl.ndarray]:
    return [x]

@nki.jit
def kernel(a: nl.ndarray, dt: DTYPE = nl.bfloat16) -> nl.ndarray:
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=helper(a)[0])
    return out
`
	arg := Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"}
	trace := func(src string) error {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: []Arg{arg}, NCVersion: "gen3"})
		return err
	}
	if err := trace(currentHeader + "DTYPE = type(nl.bfloat16)\n" + body); err != nil {
		t.Fatalf("ordinary annotations: %v", err)
	}
	for _, ann := range []string{"nki.dtype", "nt.mutable_tensor"} {
		src := currentHeader + "import nki.typing as nt\n" + strings.Replace(body, "dt: DTYPE", "dt: "+ann, 1)
		err := trace(src)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Construct, ann) || e.Pos.Line != 17 {
			t.Errorf("annotation %s: got %v, want a refusal naming it at line 17", ann, err)
		}
		if err := trace("from __future__ import annotations\n" + src); err != nil {
			t.Errorf("annotation %s under from __future__ import annotations: %v", ann, err)
		}
	}
}

// enum.auto() numbers members from 1, or from the previous explicit value.
func TestEnumAuto(t *testing.T) {
	traceCurrent(t, `
from enum import Enum, auto

class Dim(Enum):
    NONE = auto()
    SEQ = auto()
    FIXED = 10
    AFTER = auto()

@nki.jit
def kernel(a):
    assert Dim.NONE.value == 1 and Dim.SEQ.value == 2 and Dim.AFTER.value == 11
    assert Dim.SEQ != Dim.NONE and Dim(2) == Dim.SEQ
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"})
}

// typing's runtime callables behave as in Python (cast returns its value,
// TypeVar and NewType make values, final and overload return what they
// decorate); host-only modules (ast, textwrap) import.
func TestTypingRuntime(t *testing.T) {
	traceCurrent(t, `
import ast
import textwrap
from typing import TypeVar, NewType, cast, final, Generic

T = TypeVar("T")
Size = NewType("Size", int)

@final
class Box:
    def __init__(self, n):
        self.n = n

@nki.jit
def kernel(a):
    n = cast(int, Size(64))
    assert Box(n).n == 64
    out = nl.ndarray((128, n), dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"})
}

// nl.program_id(axis) is the entry's program along an axis of its launch
// grid (the first program when the entry gives a grid but no program_id);
// without such an axis it is refused, not guessed.
func TestProgramIDNeedsGrid(t *testing.T) {
	src := currentHeader + `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    n = nl.num_programs(0)
    x = nl.ndarray((128, 64 // n), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a[:, pid * (64 // n):(pid + 1) * (64 // n)])
    nisa.dma_copy(dst=out[:, pid * (64 // n):(pid + 1) * (64 // n)], src=x)
    return out
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	arg := Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"}
	for _, tc := range []struct {
		grid, pid []int64
		ok        bool
	}{{[]int64{2}, []int64{1}, true}, {[]int64{2}, nil, true}, {nil, nil, false}} {
		_, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: []Arg{arg}, NCVersion: "gen3", Grid: tc.grid, ProgramID: tc.pid})
		var e *Error
		switch {
		case tc.ok && err != nil:
			t.Errorf("grid %v program %v: %v", tc.grid, tc.pid, err)
		case !tc.ok && (!errors.As(err, &e) || e.Construct != "nl.program_id"):
			t.Errorf("grid %v: got %v, want a refusal of nl.program_id", tc.grid, err)
		}
	}
}

// In the current API nl.* compute functions return their result (their
// signatures have no dst); only nisa.* instructions write a dst operand.
func TestCurrentLanguageOpsReturn(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    y = nl.exp(x)
    z = nl.add(y, x)
    assert z.shape == (128, 64)
    nisa.dma_copy(dst=out, src=z)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	exp := callsOf(res, "nl.exp")
	if len(exp) != 1 || len(exp[0].Reads) != 1 {
		t.Fatalf("nl.exp reads %v; want it to read x", exp[0].Reads)
	}
	// it writes its result (y), no tensor the kernel declared
	for _, id := range exp[0].Writes {
		for _, r := range res.Tensors {
			if r.ID == id && !strings.HasPrefix(r.API, "result of nl.exp") {
				t.Errorf("nl.exp writes %s (%s), want only its result", id, r.API)
			}
		}
	}
	add := callsOf(res, "nl.add")
	if len(add) != 1 || len(add[0].Reads) != 2 {
		t.Fatalf("nl.add reads %v, want the exp result and x", add[0].Reads)
	}
}

// The rest of the documented nki.language functions (trigonometric and
// bitwise elementwise ops, var, rms_norm, is_* buffer predicates,
// no_reorder) trace; documented instructions that depend on other cores
// (core_barrier) import and are refused only when called.
func TestDocumentedNamesComplete(t *testing.T) {
	body := `
from nki.isa import core_barrier

@nki.jit
def kernel(a, w):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    assert nl.is_sbuf(x.buffer) and nl.is_on_chip(x.buffer) and nl.is_hbm(out.buffer) and not nl.is_psum(x.buffer)
    with nl.no_reorder():
        m = nl.abs_max(nl.sin(x), nl.cos(x))
        v = nl.var(m, axis=1, keepdims=True)
        r = nl.rms_norm(m, nl.load(w), axis=1, n=64)
    f = nl.floor(nl.fmod(r, v))
    assert f.shape == (128, 64) and v.shape == (128, 1)
    BARRIER
    nisa.dma_copy(dst=out, src=f)
    return out
`
	args := []Arg{{Name: "a", Shape: []int64{128, 64}, DType: "float32"}, {Name: "w", Shape: []int64{1, 64}, DType: "float32"}}
	res := traceCurrent(t, strings.Replace(body, "BARRIER", "pass", 1), args...)
	if len(callsOf(res, "nl.rms_norm")) != 1 || len(callsOf(res, "nl.fmod")) != 1 {
		t.Fatalf("calls: %d", len(res.Calls))
	}
	dir := t.TempDir()
	src := currentHeader + strings.Replace(body, "BARRIER", "core_barrier(x, [0, 1])", 1)
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: args, NCVersion: "gen3"})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Error(), "core_barrier") {
		t.Fatalf("core_barrier call: got %v, want a refusal naming it", err)
	}
}
