package main

import (
	"encoding/binary"
	"math"

	"github.com/npukit/npukit/neff"
)

// A small NEFF whose DMA program `npukit demo` executes and simulates: a
// float32 constant w (128 x 128) and an input x of the same shape are
// loaded into the state buffer (one 512-byte row per partition), their sum
// is stored to the output y, and w is stored once more cast to float16
// (output y16) through a strided pattern that the efficiency analysis
// flags.
func init() {
	Register(Generator{Name: "demo_neff_dma.neff", Make: demoNeffDMA})
}

func demoNeffDMA() ([]byte, error) {
	const rows, cols = 128, 128
	const rowBytes = cols * 4
	const stride = neff.SBPartitionStride
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }

	w := make([]byte, rows*rowBytes)
	for i := 0; i < rows*cols; i++ {
		binary.LittleEndian.PutUint32(w[4*i:], math.Float32bits(float32(i%1000)/8))
	}
	b := neff.NewBuilder("demo_neff_dma.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", rows*rowBytes)
	sg.AddConstant("w", "w.bin", rows*rowBytes, w)
	sg.AddVar("y", "output", rows*rowBytes)
	sg.AddVar("y16", "output", rows*cols*2)
	sg.AddQueue("qSPIO0", "in", 4, "sp")
	sg.AddQueue("qPoolIO0", "in", 2, "pool")
	b.Signature.Inputs["x"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{rows, cols}}
	b.Signature.Outputs["y"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{rows, cols}}
	b.Signature.Outputs["y16"] = neff.SigTensor{ID: 1, DType: "float16", Shape: []int64{rows, cols}}

	sp := sg.Engine("sp", "SP")
	// Loads: four descriptors of 32 partitions each per tensor.
	for q := int64(0); q < 4; q++ {
		lx := neff.Copy("x", q*32*rowBytes, []int64{rowBytes, 32}, []int64{1, rowBytes}, "SB", q*32*stride, []int64{rowBytes, 32}, []int64{1, stride})
		lw := neff.Copy("w", q*32*rowBytes, []int64{rowBytes, 32}, []int64{1, rowBytes}, "SB", q*32*stride+4096, []int64{rowBytes, 32}, []int64{1, stride})
		for _, d := range []*neff.Desc{lx, lw} {
			d.FromDType, d.ToDType = str("float32"), str("float32")
		}
		sp.AddDMA("qSPIO0", "load-x", lx)
		sp.AddDMA("qSPIO0", "load-w", lw)
	}
	pool := sg.Engine("pool", "Pool")
	sbSide := func(off int64) *neff.Source {
		return &neff.Source{From: str("SB"), FromOff: i64(off), FromSizes: []int64{rowBytes, rows}, FromSteps: []int64{1, stride}, FromDType: str("float32")}
	}
	add := &neff.Desc{Op: str("add"), FromArr: []*neff.Source{sbSide(0), sbSide(4096)},
		To: str("y"), ToOff: i64(0), ToSizes: []int64{rowBytes, rows}, ToSteps: []int64{1, rowBytes}, ToDType: str("float32"), NumTilingDimensions: i64(1)}
	pool.AddDMA("qPoolIO0", "store-sum", add)
	// Cast, written column by column: 2-byte runs with a 256-byte stride.
	cast := &neff.Desc{Op: str("cast"), From: str("SB"), FromOff: i64(4096), FromSizes: []int64{4, rows, cols}, FromSteps: []int64{1, stride, 4}, FromDType: str("float32"),
		To: str("y16"), ToOff: i64(0), ToSizes: []int64{2, rows, cols}, ToSteps: []int64{1, cols * 2, 2}, ToDType: str("float16"), NumTilingDimensions: i64(1)}
	pool.AddDMA("qPoolIO0", "store-w16", cast)
	return b.Bytes(neff.PackOptions{})
}
