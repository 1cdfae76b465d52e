package dmaprog

import (
	"testing"

	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
)

// FuzzProgram feeds NEFF bytes through the reader, the conversion, the
// analysis, the simulation and the executor (with a small memory budget):
// nothing may panic or run without bound.
func FuzzProgram(f *testing.F) {
	f.Add(seedNEFF(f, 8, 2, 1))
	f.Add(seedNEFF(f, 512, 128, 1))
	f.Add(seedNEFF(f, 4, 3, 0)) // innermost step 0: a broadcast read
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := neff.OpenBytes(b, neff.Limits{MaxDecompressed: 1 << 20, MaxMembers: 64})
		if err != nil {
			return
		}
		for _, p := range FromModel(m) {
			dma.Analyze(p.Descriptors, p.Layout)
			if len(p.Descriptors) < 1000 {
				if _, _, err := dma.Simulate(p.Descriptors, p.Queues, dma.DefaultSimParams()); err != nil {
					t.Fatal(err)
				}
			}
			p.Execute(p.NewMemory(64 << 20))
		}
		if _, err := Simulate(FromModel(m), SetupFor(m)); err != nil {
			t.Fatal(err)
		}
	})
}

func seedNEFF(f *testing.F, row, parts, step int64) []byte {
	b := neff.NewBuilder("f.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", row*parts)
	sg.AddVar("out", "output", row*parts)
	sg.AddQueue("q", "in", 2, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("q", "load", neff.Copy("in", 0, []int64{row, parts}, []int64{step, row}, "SB", 0, []int64{row, parts}, []int64{1, neff.SBPartitionStride}))
	sp.AddDMA("q", "store", neff.Copy("SB", 0, []int64{row, parts}, []int64{1, neff.SBPartitionStride}, "out", 0, []int64{row, parts}, []int64{1, row}))
	// Instructions: trigger the load, wait for it, trigger the store.
	sp.Instr = append(append(trigger("q", 0, -1, 0), word(0xA0, 0, 16, -1)...), trigger("q", 1, -1, 0)...)
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		f.Fatal(err)
	}
	return raw
}
