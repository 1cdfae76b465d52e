package nki

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// tensorShapes maps each traced tensor's declaring line to its shape.
func tensorShapes(res *Result) map[int]string {
	out := map[int]string{}
	for _, r := range res.Tensors {
		if r.Site != nil {
			out[r.Site.Line] = fmt.Sprint(r.Shape)
		}
	}
	return out
}

// Each nl.mgrid output is its own iterator's index (an open grid), so
// indexing with a subset of the outputs of a three-way mgrid selects only
// those axes, as the LayerNorm/RMSNorm tutorials do at nki-samples 5553435.
// A (P, F, 1) tile then combines with a (P, F) tile by partition alignment.
func TestMgridOpenGridsAndPartitionAlignment(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a, g):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f, i_one = nl.mgrid[0:128, 0:512, 0:1]
    g_sb = nl.load(g.reshape((1, 512))[i_one, i_f])
    x = nl.load(a[i_p, i_f])
    gb = g_sb.broadcast_to((128, 512))
    y = nl.multiply(x, gb)
    nl.store(out[i_p, i_f], value=y)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 512}, DType: "float32"}, Arg{Name: "g", Shape: []int64{512}, DType: "float32"})
	got := tensorShapes(res)
	want := map[int]string{10: "[1 512 1]", 11: "[128 512 1]", 13: "[128 512 1]"}
	for line, s := range want {
		if got[line] != s {
			t.Errorf("line %d: shape %s, want %s (all: %v)", line, got[line], s, got)
		}
	}
}

// numpy.arange makes an integer host table that kernels do arithmetic on and
// index with static loop counters (reference/vision.py's adaptive average
// pooling); nl.finfo gives fill values; a four-way mgrid has .z.
func TestHostIndexTablesFinfoAndMgridZ(t *testing.T) {
	res := traceSource(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.shared_hbm)
    starts = (np.arange(4, dtype=np.int32) * 3) // 2
    ends = (np.arange(1, 5) * 5) // 2
    spans = ends - starts
    assert spans.tolist() == [2, 4, 4, 6] and len(spans) == 4 and spans.max() == 6 and spans.min() == 2
    g = nl.mgrid[0:128, 0:1, 0:1, 0:2]
    pad = nl.full((128, int(spans.max()), 2), dtype=nl.float32, buffer=nl.sbuf, fill_value=nl.finfo(nl.float32).min)
    for i in nl.static_range(4):
        w = nl.load(a[0:128, starts[i]:ends[i]])
        nl.store(out[0:128, i:i + 1], value=w[0:128, 0:1])
    z = nl.load(b[g.p, g.x, g.y, g.z])
    nl.store(b[g.p, g.x, g.y, g.z], value=z)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 10}, DType: "float32"}, Arg{Name: "b", Shape: []int64{128, 1, 1, 2}, DType: "float32"})
	got := tensorShapes(res)
	if got[19] != "[128 1 1 2]" {
		t.Errorf("load through g.z at line 19: %s, want [128 1 1 2]", got[19])
	}
	if got[15] != "[128 6 2]" {
		t.Errorf("nl.full at line 15: %s, want [128 6 2] (all %v)", got[15], got)
	}
	var widths []string
	for _, r := range res.Tensors {
		if r.Site != nil && r.Site.Line == 17 {
			widths = append(widths, fmt.Sprint(r.Shape))
		}
	}
	sort.Strings(widths)
	if fmt.Sprint(widths) != "[[128 2] [128 4] [128 6]]" {
		t.Errorf("loads at line 17: %v, want widths 2, 4 and 6 from the table", widths)
	}
}

// A tile used as an index (indirect DMA) is an implicit tile that the
// load reads, as in reference/vision.py's resize_nearest: both results of
// `h * 20 + w` are tiles, the sum is read by the gather.
func TestIndexTileIsReadByTheAccess(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(data):
    out = nl.ndarray((128, 64), dtype=data.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    x = nisa.iota(i_p, dtype=nl.int32)
    h = nl.floor(x / 3, dtype=nl.int32)
    w = nl.mod(x, 3, dtype=nl.int32)
    idx = h * 20 + w
    rows = nl.load(data[idx, i_f])
    nl.store(out[i_p, i_f], value=rows)
    return out
`, "gen2", Arg{Name: "data", Shape: []int64{1024, 64}, DType: "float32"})
	byID := map[string]*TensorRec{}
	n := 0
	for _, r := range res.Tensors {
		byID[r.ID] = r
		if r.Site != nil && r.Site.Line == 14 {
			n++
		}
	}
	if n != 2 {
		t.Errorf("line 14 records %d implicit tiles, want 2 (the product and the sum)", n)
	}
	loads := callsOf(res, "nl.load")
	if len(loads) != 1 {
		t.Fatalf("%d nl.load sites", len(loads))
	}
	found := false
	for _, id := range loads[0].Reads {
		if r := byID[id]; r != nil && r.Site != nil && r.Site.Line == 14 && r.API == "result of operator.add" {
			found = true
		}
	}
	if !found {
		t.Errorf("nl.load reads %v, want the index tile (the sum at line 14) among them", loads[0].Reads)
	}
}

// An access pattern over a named load result (the SDK's index-case-3 max
// pool) views the implicit tile the load produced.
func TestAccessPatternOfNamedResult(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    out = nl.ndarray((2, 3, 3), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    v = t.ap([[36, 2], [12, 3], [2, 3], [6, 2], [1, 2]])
    m = nl.max(v, axis=[3, 4])
    nl.store(out, value=m)
    return out
`, Arg{Name: "a", Shape: []int64{2, 6, 6}, DType: "bfloat16"})
	got := tensorShapes(res)
	if got[8] != "[2 6 6]" || got[10] != "[2 3 3]" {
		t.Errorf("load tile %q and max result %q, want [2 6 6] and [2 3 3] (all %v)", got[8], got[10], got)
	}
}

// The clauses of a one-line nested comprehension are one loop site, at the
// outer clause's iterable (where the corpus tracer puts a comprehension's
// loop), as nki-autotune's generated kernels allocate buffer grids.
func TestNestedComprehensionLoopSite(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    bufs = [[nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf) for _ in range(4)] for _ in range(3)]
    nisa.dma_copy(dst=bufs[2][3], src=a)
    nisa.dma_copy(dst=out, src=bufs[2][3])
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	// one record per clause (place keys comprehension buffers by clause),
	// both reported at the outer clause's range(3)
	entries, trips := int64(0), map[int64]int64{}
	for _, l := range res.Loops {
		if l.At.Line != 8 || l.At.Col != 94 {
			t.Errorf("loop %s (clause %d:%d) reported at %d:%d, want 8:94 (the outer range(3))", l.ID, l.Site.Line, l.Site.Col, l.At.Line, l.At.Col)
		}
		entries += l.Entries
		for k, n := range l.TripCounts {
			trips[k] += n
		}
	}
	if len(res.Loops) != 2 || entries != 4 || trips[4] != 3 || trips[3] != 1 {
		t.Errorf("%d loop records, %d entries, trips %v; want 2 clauses, 4 entries, {4:3, 3:1}", len(res.Loops), entries, trips)
	}
	b, _ := json.Marshal(res.Loops[0])
	if !strings.Contains(string(b), `"site":{"file":"k.py","line":8,"col":94`) {
		t.Errorf("JSON of a clause loop: %s, want its reported site", b)
	}
}

// Beta 1's signatures of instructions the current API gives a dst operand
// return their result (max8, nc_find_index8, dropout, dma_transpose) or
// write a keyword dst (select_reduce), as the SDK's nki/test kernels call
// them; writing into a result tile before its value is used is refused.
func TestBeta1ResultInstructions(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    m = nisa.max8(src=x)
    i = nisa.nc_find_index8(data=x, vals=m)
    d = nisa.dropout(x, prob=0.5)
    tr = nisa.dma_transpose(b)
    r = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.select_reduce(dst=r, predicate=d, on_true=x, on_false=0.0)
    nl.store(out, value=nl.add(m, i))
    nl.store(a, value=nl.add(r, tr))
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"}, Arg{Name: "b", Shape: []int64{64, 128}, DType: "float32"})
	got := tensorShapes(res)
	for line, want := range map[int]string{10: "[128 8]", 11: "[128 8]", 12: "[128 64]", 13: "[128 64]"} {
		if got[line] != want {
			t.Errorf("line %d: %q, want %s (all %v)", line, got[line], want, got)
		}
	}
	sr := callsOf(res, "nisa.select_reduce")
	if len(sr) != 1 || len(sr[0].Writes) != 1 || len(sr[0].Reads) != 2 {
		t.Fatalf("select_reduce records %+v, want one site writing r and reading d and x", sr)
	}

	src := authorHeader + `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    o = nisa.memset(shape=(128, 64), value=0, dtype=nl.float32)
    x = nl.load(a)
    o[...] = nl.exp(x)
    nl.store(out, value=o)
    return out
`
	_, err := traceSourceErr(t, src, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "k.py:11:") || !strings.Contains(err.Error(), "result of nisa.memset") {
		t.Errorf("writing into a fresh memset result: err %v, want a refusal at k.py:11 naming the memset result", err)
	}
}

// A result nobody reads is still a tile (the instruction writes it): the
// SDK's nl.ds example loads into `tile`, rebinds it to a second load and
// stores only that; an expression statement's result is one too.
func TestDeadResultsAreTiles(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    nl.exp(x)
    x = nl.load(a)
    nl.store(out, value=x)
    o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    o[...] = nl.exp(x)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	lines := map[int]int{}
	for _, r := range res.Tensors {
		if r.Site != nil && r.Alloc != nil && r.Alloc.Kind == "implicit" {
			lines[r.Site.Line]++
		}
	}
	if fmt.Sprint(lines) != "map[9:1 10:1 11:1]" {
		t.Errorf("implicit tiles by line %v, want the two loads and the unused exp (9, 10, 11), not the exp written into o", lines)
	}
}

// t.view(dtype) reads the same bytes as another dtype (the last dimension
// scales by the itemsize ratio); nc_matmul's result is stationary's free
// size by moving's free dimensions, and in double_row mode the packed pair
// dimension is contracted (the SDK's nc_matmul double_row_gen3 test).
func TestViewDtypeAndMatmulShapes(t *testing.T) {
	res := traceSource(t, authorHeader+`
@nki.jit
def kernel(a, b, w):
    out = nl.ndarray((1, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a.view(nl.float8_e5m2))
    y = nl.load(b.view(nl.float8_e5m2))
    r = nisa.nc_matmul(x, y, perf_mode="double_row_gen3")
    nl.store(out, value=r)
    m = nl.load(w)
    z = nisa.nc_matmul(m, y)
    nl.store(out, value=z)
    return out
`, "gen3", Arg{Name: "a", Shape: []int64{128, 2, 1}, DType: "int8"}, Arg{Name: "b", Shape: []int64{128, 2, 512}, DType: "int8"}, Arg{Name: "w", Shape: []int64{128, 64}, DType: "bfloat16"})
	got := tensorShapes(res)
	for line, want := range map[int]string{9: "[128 2 1]", 11: "[1 512]", 14: "[64 2 512]"} {
		if got[line] != want {
			t.Errorf("line %d: %q, want %s (all %v)", line, got[line], want, got)
		}
	}
	for _, r := range res.Tensors {
		if r.Site != nil && r.Site.Line == 9 && r.DType != "float8_e5m2" {
			t.Errorf("view dtype %s, want float8_e5m2", r.DType)
		}
	}
}

// itertools.chain and combinations run as in Python (nki-samples'
// neuron-team-kernels common.py imports both).
func TestItertoolsChainCombinations(t *testing.T) {
	res := traceSource(t, authorHeader+`from itertools import chain, combinations

@nki.jit
def kernel(a):
    assert list(chain([1, 2], (3,), range(4, 6))) == [1, 2, 3, 4, 5]
    assert list(combinations(range(4), 2)) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    n = len(list(chain([1], [2])))
    out = nl.ndarray((128, n), dtype=a.dtype, buffer=nl.shared_hbm)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if got := tensorShapes(res)[12]; got != "[128 2]" {
		t.Errorf("out shape %q, want [128 2]", got)
	}
}

// Manifest arguments may pass a dtype ({"dtype_value": ...}) or an Enum
// member of a kernel module ({"enum": [module, class, member]}), as the
// corpus tracer's manifests do.
func TestManifestDtypeAndEnumArgs(t *testing.T) {
	dir := t.TempDir()
	src := currentHeader + `from enum import Enum

class Mode(Enum):
    FAST = 1
    SLOW = 2

@nki.jit
def kernel(a, dt, mode):
    cols = 64 if mode == Mode.SLOW else 32
    out = nl.ndarray((128, cols), dtype=dt, buffer=nl.shared_hbm)
    return out
`
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", API: "current", NCVersion: "gen3",
		Modules: map[string]string{"k": "k.py"},
		Args:    []Arg{{Name: "a", Shape: []int64{128, 64}, DType: "float32"}, {Name: "dt", DTypeValue: "bfloat16"}, {Name: "mode", Enum: []string{"k", "Mode", "SLOW"}}}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Tensors {
		if r.Site != nil && r.Site.Line == 13 {
			found = true
			if fmt.Sprint(r.Shape) != "[128 64]" || r.DType != "bfloat16" {
				t.Errorf("out %v %s, want [128 64] bfloat16", r.Shape, r.DType)
			}
		}
	}
	if !found {
		t.Errorf("no tensor declared at line 13: %+v", res.Tensors)
	}
}

// numpy names kernels use at trace time stay usable (dtypes, operator
// identifiers, constants); a name numpy does not have is refused at its
// line, as Python's AttributeError stops the kernel (an autotune kernel at
// 66f0f4f passes op0=np.mul).
func TestNumpyNames(t *testing.T) {
	res := traceSource(t, authorHeader+`import numpy as np

@nki.jit
def kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nisa.tensor_scalar(x, op0=np.multiply, operand0=np.pi / 2)
    nl.store(out, value=y)
    return out
`, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if len(res.Tensors) == 0 {
		t.Fatal("no tensors traced")
	}
	src := authorHeader + `import numpy as np

@nki.jit
def kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nisa.tensor_scalar(x, op0=np.mul, operand0=2.0)
    nl.store(out, value=y)
    return out
`
	_, err := traceSourceErr(t, src, "gen2", Arg{Name: "a", Shape: []int64{128, 64}, DType: "float32"})
	if err == nil || !strings.Contains(err.Error(), "k.py:11:") || !strings.Contains(err.Error(), "numpy.mul") {
		t.Fatalf("np.mul not refused at its line: %v", err)
	}
}
