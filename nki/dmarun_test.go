package nki

import (
	"strings"
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

// A DMA from HBM to HBM (a weight slice copied into an HBM scratch tensor
// before a dma_transpose reads it) occupies the DMA engines for its runs:
// it was dropped from the lowered plan, so such a kernel's 36 weight
// copies cost nothing. It lowers to a copy-hbm step, which a written plan
// keeps.
func TestSimHBMToHBMCopyCostsItsRuns(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(w):
    out = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.shared_hbm)
    scratch = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.hbm)
    nisa.dma_copy(src=w[:, :, 1, 2], dst=scratch)
    x = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=scratch)
    nisa.dma_copy(dst=out, src=x)
    return out
`
	a := neuroncore.V3
	ck, err := CheckKernel(traceSource(t, authorHeader+kernel, "gen3", Arg{Name: "w", Shape: []int64{128, 128, 3, 3}, DType: "float16"}), &a)
	if err != nil {
		t.Fatal(err)
	}
	r, err := neuroncore.SimulateExecution(ck.Exec)
	if err != nil {
		t.Fatal(err)
	}
	busy := engineBusy(r.Summary(), "DMA")
	// the copy's 128 x 128 runs of 2 B, then the load's and store's rows
	want := float64(a.DMAChargedBytes(128*128, 2)+2*a.DMAChargedBytes(128, 256)) / a.DMABytesPerNs
	if busy < 0.99*want || busy > 1.01*want {
		t.Fatalf("DMA busy %.0f ns, want %.0f ns (the HBM-to-HBM copy's runs and the load's and store's rows)", busy, want)
	}
	q, err := neuroncore.ParsePlan(neuroncore.EncodePlan(ck.Plan))
	if err != nil {
		t.Fatalf("the written plan does not read back: %v\n%s", err, neuroncore.EncodePlan(ck.Plan))
	}
	r2, err := neuroncore.Simulate(q)
	if err != nil {
		t.Fatal(err)
	}
	if b2 := engineBusy(r2.Summary(), "DMA"); b2 != busy {
		t.Fatalf("DMA busy %.0f ns from the written plan, %.0f ns from the kernel", b2, busy)
	}
}

// A dma_transpose from HBM writes its SBUF destination in runs of 16
// elements (Arch.DMATransposeBlock, the Trainium2 architecture guide's
// [128, 16] tiles): it is charged per run, as the NEFF simulation charges
// a transpose descriptor, not per partition row like a copy.
func TestSimDMATransposeCostsItsBlocks(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(w):
    out = nl.ndarray((128, 128), dtype=nl.float16, buffer=nl.shared_hbm)
    x = nisa.dma_transpose(w, axes=(1, 0))
    nisa.dma_copy(dst=out, src=x)
    return out
`
	a := neuroncore.V3
	s := simKernel(t, kernel, &a, Arg{Name: "w", Shape: []int64{128, 128}, DType: "float16"})
	busy := engineBusy(s, "DMA")
	// the transpose's 128 rows of 8 runs of 16 float16 elements, then the
	// store's 128 rows of 256 B
	want := float64(a.DMAChargedBytes(128*8, 32)+a.DMAChargedBytes(128, 256)) / a.DMABytesPerNs
	if busy < 0.99*want || busy > 1.01*want {
		t.Fatalf("DMA busy %.0f ns, want %.0f ns", busy, want)
	}
}

// A contiguous HBM-to-HBM copy spreads over the DMA engines as a load of
// the same bytes does, in rows of the partition count (each at least
// DMAMinChargedBytes): it was one row on one engine, so a 4 MiB dma_copy
// took the whole copy's time on one engine (182 us on v3, review5 H3)
// where 16 engines move it in about 13 us.
func TestSimContiguousHBMCopySpreadsOverEngines(t *testing.T) {
	const kernel = `
@nki.jit
def kernel(a):
    out = nl.ndarray((1024, 2048), dtype=nl.float16, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out
`
	a := neuroncore.V3
	s := simKernel(t, kernel, &a, Arg{Name: "a", Shape: []int64{1024, 2048}, DType: "float16"})
	const bytes = 1024 * 2048 * 2
	if busy, want := engineBusy(s, "DMA"), float64(bytes)/a.DMABytesPerNs; busy < 0.99*want || busy > 1.01*want {
		t.Errorf("DMA busy %.0f ns, want %.0f (the copy's bytes once)", busy, want)
	}
	// spread over every engine: the bytes at 16 engines' bandwidth plus
	// the fixed latency, not one engine's
	spread := float64(bytes)/(float64(a.DMAEngines)*a.DMABytesPerNs) + a.DMAFixedNs
	if s.KernelNs > 1.1*spread {
		t.Errorf("kernel body %.0f ns, want about %.0f (the copy spread over %d engines)", s.KernelNs, spread, a.DMAEngines)
	}
	// a small copy is not cut into runs under the minimum charged size
	small := simKernel(t, strings.ReplaceAll(kernel, "(1024, 2048)", "(1, 256)"), &a, Arg{Name: "a", Shape: []int64{1, 256}, DType: "float16"})
	if busy, want := engineBusy(small, "DMA"), float64(512)/a.DMABytesPerNs; busy < 0.99*want || busy > 1.01*want {
		t.Errorf("512 B copy: DMA busy %.1f ns, want %.1f (its bytes, not runs under %d B each charged in full)", busy, want, a.DMAMinChargedBytes)
	}
}
