package main

import (
	"bytes"

	"github.com/npukit/npukit/neff"
	"github.com/sbinet/npyio/npy"
)

// A synthetic NEFF built with neff.Builder: a 128x256 float32 input and a
// constant of 128x128 float16 bit patterns (a 1-D <u2 .npy) loaded into the state buffer (one row per
// partition, addressed with the 262144-byte partition stride) by the SP
// engine's queue, and the result stored by the Pool engine's queue.
func init() {
	Register(Generator{Name: "demo.neff", Make: demoNeff})
}

func demoNeff() ([]byte, error) {
	const rows, xRow, wRow = 128, 256 * 4, 128 * 2
	b := neff.NewBuilder("demo.neff")
	for i := range b.Header.UUID {
		b.Header.UUID[i] = byte(0xd0 + i) // fixed: the demo file must be reproducible
	}
	b.Header.BuildVersion = "npukit demo"
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", rows*xRow)
	sg.AddVar("y", "output", rows*xRow)
	w := make([]uint16, rows*128)
	for i := range w {
		w[i] = 0x3c00 // 1.0 in float16
	}
	var npyBuf bytes.Buffer
	if err := npy.Write(&npyBuf, w); err != nil {
		return nil, err
	}
	// The variable holds the array, not the .npy file: the runtime loads
	// the data after the header (a real NEFF's 65,664-byte .npy fills a
	// 65,536-byte variable). It declared the file's size and read from
	// past the header, so `neff dma --execute` wrote it back as uint8
	// [32852] where inspect says <u2 [16384] (issue 32).
	sg.AddConstant("w", "w.npy", int64(2*len(w)), npyBuf.Bytes())
	const wData = 0
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sg.AddQueue("qPoolIO0", "out", 16, "pool")
	sb := []int64{1, neff.SBPartitionStride}
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSPIO0", "load x", neff.Copy("x", 0, []int64{xRow, rows}, []int64{1, xRow}, "SB", 0, []int64{xRow, rows}, sb))
	sp.AddDMA("qSPIO0", "load w", neff.Copy("w", wData, []int64{wRow, rows}, []int64{1, wRow}, "SB", xRow, []int64{wRow, rows}, sb))
	pool := sg.Engine("pool", "Pool")
	pool.AddDMA("qPoolIO0", "store y", neff.Copy("SB", 0, []int64{xRow, rows}, sb, "y", 0, []int64{xRow, rows}, []int64{1, xRow}))
	b.Signature.Inputs["x"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{rows, 256}}
	b.Signature.Outputs["y"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{rows, 256}}
	return b.Bytes(neff.PackOptions{})
}
