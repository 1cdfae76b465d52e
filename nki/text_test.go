package nki

import (
	"strings"
	"testing"
)

// nki inspect's engine calls name the tensor a call's assigned result
// became (audit r3 #4: WRITES was empty for every load and compute call
// whose result is assigned, while the kernel graph drew the edge), and the
// text explains its count columns.
func TestInspectCallWritesAndResultInstances(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((512, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        y = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.affine_range(8):
            y[:, j * 64:(j + 1) * 64] = nl.exp(x[:, j * 64:(j + 1) * 64])
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out
`
	res := traceSource(t, authorHeader+kernel, "gen2", Arg{Name: "a", Shape: []int64{512, 512}, DType: "float32"})
	var x *TensorRec
	for _, r := range res.Tensors {
		if r.Name == "x" {
			x = r
		}
	}
	if x == nil {
		t.Fatal("no tensor x")
	}
	for _, c := range res.Calls {
		if c.Fn == "nl.load" && (len(c.Writes) != 1 || c.Writes[0] != x.ID) {
			t.Errorf("nl.load writes %v, want [%s] (x)", c.Writes, x.ID)
		}
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TRIPS: NxE", "AT RUNTIME: instructions the device runs", "declared where it is first used"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("inspect does not explain its columns (%q):\n%s", want, b.String())
		}
	}
}
