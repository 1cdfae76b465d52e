package nki

import (
	"fmt"
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
