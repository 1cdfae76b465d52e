package neff_test

import (
	"fmt"
	"log"

	"github.com/npukit/npukit/diag"

	"github.com/npukit/npukit/neff"
)

// Build a NEFF: one subgraph whose SP engine copies input x to output y
// with one DMA descriptor; then read it back.
func ExampleBuilder() {
	b := neff.NewBuilder("copy.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 1024)
	sg.AddVar("y", "output", 1024)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sg.Engine("sp", "SP").AddDMA("qSPIO0", "copy x to y",
		neff.Copy("x", 0, []int64{1024}, []int64{1}, "y", 0, []int64{1024}, []int64{1}))
	b.Signature.Inputs["x"] = neff.SigTensor{DType: "float32", Shape: []int64{256}}
	b.Signature.Outputs["y"] = neff.SigTensor{DType: "float32", Shape: []int64{256}}
	data, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	m, err := neff.OpenBytes(data, neff.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hash ok:", m.File.Hash.OK)
	fmt.Println("errors:", neff.Check(m, neff.DefaultRuntime).Count(diag.Error))
	// Output:
	// hash ok: true
	// errors: 0
}
