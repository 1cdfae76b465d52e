package nki

import (
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// A load whose HBM side runs one element at a time (a weight sliced at
// fixed innermost indices, W[:, :, h, w]) costs the DMA engines one run
// per element, not one per partition row: the engines move a contiguous
// run per descriptor element (the NKI DMA bandwidth guide; the NEFF
// simulation charges the more fragmented side of a descriptor the same
// way). The model charged it as the contiguous load of the same tile.
func TestSimStridedHBMLoadCostsItsRuns(t *testing.T) {
	const strided = `
@nki.jit
def kernel(w):
    out = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=w[:, :, 1, 2])
    nisa.dma_copy(dst=out, src=x)
    return out
`
	const contiguous = `
@nki.jit
def kernel(w):
    out = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=w[:, 0:128])
    nisa.dma_copy(dst=out, src=x)
    return out
`
	a := neuroncore.V3
	s := simKernel(t, strided, &a, Arg{Name: "w", Shape: []int64{128, 128, 3, 3}, DType: "float16"})
	c := simKernel(t, contiguous, &a, Arg{Name: "w", Shape: []int64{128, 256}, DType: "float16"})
	sb, cb := engineBusy(s, "DMA"), engineBusy(c, "DMA")
	// contiguous: 2 x 128 rows of 256 B; strided: the load's 128 x 128
	// runs of 2 B, each charged as a 256 B run, plus the store's rows
	want := float64(a.DMAChargedBytes(128*128, 2)+a.DMAChargedBytes(128, 256)) / a.DMABytesPerNs
	if sb < 50*cb || sb < 0.99*want || sb > 1.01*want {
		t.Fatalf("DMA busy: %.0f ns for the strided load and store, %.0f ns for the contiguous ones; want %.0f ns for the strided", sb, cb, want)
	}
}
