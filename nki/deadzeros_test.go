package nki

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// nl.zeros of an SBUF tile that later writes fill before anything reads
// it is a dead store: the compiler emits no memset for it (neuroncore
// sbufZerosElided; the conv2d NEFFs of the shared captures zero an SBUF
// tile per row tile, fill it with DMA slices and run no memset). A tile
// the writes fill only partly, or that is read first, keeps its memset.
func TestSimSBUFZerosFullyOverwritten(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    buf = nl.zeros((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    BODY
    nl.store(out, buf)
    return out
`
	args := []Arg{{Name: "a", Shape: []int64{128, 128}, DType: "float32"}}
	for _, c := range []struct {
		what, body string
		vector     int
	}{
		// four copies of 128 columns fill the 512: no memset
		{"filled by four slices", "for j in nl.sequential_range(4):\n        buf[:, nl.ds(j * 128, 128)] = nisa.tensor_copy(x)", 4},
		// three of four: the last 128 columns stay zero
		{"three quarters filled", "for j in nl.sequential_range(3):\n        buf[:, nl.ds(j * 128, 128)] = nisa.tensor_copy(x)", 4},
		// read before it is filled
		{"read first", "y = nisa.tensor_copy(buf[:, 0:128])\n    for j in nl.sequential_range(4):\n        buf[:, nl.ds(j * 128, 128)] = nisa.tensor_copy(y)", 6},
	} {
		s := simKernel(t, strings.Replace(kernel, "BODY", c.body, 1), &neuroncore.V2, args...)
		for _, e := range s.Engines {
			if e.Engine == "Vector" && e.Steps != c.vector {
				t.Errorf("SBUF zeros %s: %d VectorE instructions, want %d", c.what, e.Steps, c.vector)
			}
		}
	}
}
