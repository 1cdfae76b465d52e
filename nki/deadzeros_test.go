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

// A buffer zeroed in each iteration of an affine_range loop and then
// partly filled by a load (a padded input) is a fresh location per
// iteration: its memset depends on nothing, and the compiler zeroes the
// next iteration's buffer while this one computes, so the load overlaps
// the compute as it does without the padding. In program order the
// memset waited on VectorE behind the previous iteration's compute and
// every iteration paid its load and the DMA latency in series (conv1d
// candidates of the autocomp sweep: 5.35 us per batch iteration).
func TestSimZeroedBufferPrefetches(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((8, 128, 2048), dtype=nl.float32, buffer=nl.shared_hbm)
    for n in nl.affine_range(8):
        BODY
        y = nisa.tensor_scalar(x[:, 1:2049], nl.multiply, 2.0)
        y2 = nisa.tensor_scalar(y, nl.multiply, 2.0)
        y3 = nisa.tensor_scalar(y2, nl.multiply, 2.0)
        nl.store(out[n], y3)
    return out
`
	args := []Arg{{Name: "a", Shape: []int64{8, 128, 2048}, DType: "float32"}}
	padded := simKernel(t, strings.Replace(kernel, "BODY", "x = nl.zeros((nl.par_dim(128), 2050), dtype=nl.float32, buffer=nl.sbuf)\n        x[:, 1:2049] = nl.load(a[n])", 1), &neuroncore.V2, args...)
	plain := simKernel(t, strings.Replace(kernel, "BODY", "x = nl.ndarray((nl.par_dim(128), 2050), dtype=nl.float32, buffer=nl.sbuf)\n        x[:, 1:2049] = nl.load(a[n])", 1), &neuroncore.V2, args...)
	// the padded kernel adds its 8 memsets of VectorE time, no more
	memsets := engineBusy(padded, "Vector") - engineBusy(plain, "Vector")
	if extra := padded.KernelNs - plain.KernelNs; extra > memsets+100 {
		t.Errorf("zeroed buffers: kernel %.0f ns, %.0f more than without the memsets (%.0f ns of them): the loads wait for the previous iteration", padded.KernelNs, extra, memsets)
	}
}
