package dmaprog

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neuroncore"
)

// trn2Pair builds a NEFF for target with two subgraphs (as neuronx-cc
// writes for LNC=2), each loading 1 MiB into the state buffer with 16
// descriptors, plus in sg00 one 32 KiB transpose or copy.
func trn2Pair(t *testing.T, target string, lnc uint32, transpose bool) *neff.Model {
	t.Helper()
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	b := neff.NewBuilder("pair.neff")
	b.Target = target
	b.Header.LNCSize = lnc
	for _, name := range []string{"sg00", "sg01"} {
		sg := b.Subgraph(name)
		sg.AddVar("in", "input", 1<<20)
		sg.AddVar("out", "output", 32<<10)
		sg.AddQueue("q", "data", 16, "sp")
		sp := sg.Engine("sp", "SP")
		for k := int64(0); k < 16; k++ {
			sp.AddDMA("q", "load", neff.Copy("in", k*65536, []int64{512, 128}, []int64{1, 512}, "SB", k*512, []int64{512, 128}, []int64{1, neff.SBPartitionStride}))
		}
		if name == "sg00" {
			d := &neff.Desc{From: str("in"), FromOff: i64(0), FromSizes: []int64{32 << 10}, FromSteps: []int64{1}, FromDType: str("bfloat16"),
				To: str("out"), ToOff: i64(0), ToSizes: []int64{32 << 10}, ToSteps: []int64{1}, ToDType: str("bfloat16")}
			if transpose {
				d.TransposeOp, d.TransposeShape, d.TransposeElementSize = str("WZXY"), []int64{1, 1, 128, 128}, i64(2)
			}
			sp.AddDMA("q", "t", d)
		}
	}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The simulation uses the NEFF's own generation (a trn2 NEFF was priced
// with NeuronCore-v2's figures without saying so) and runs LNC=2 halves on
// two physical cores at once (they were added up as if one core ran both).
func TestSimulateSetup(t *testing.T) {
	m := trn2Pair(t, "mariana", 2, false)
	s := SetupFor(m)
	if s.Version != 4 || s.LNC != 2 || s.Params.BytesPerNs != neuroncore.V4.DMABytesPerNs || len(s.Notes) == 0 {
		t.Fatalf("trn3 setup %+v", s)
	}
	run, err := Simulate(FromModel(m), s)
	if err != nil {
		t.Fatal(err)
	}
	a, b := run.Subgraphs[0], run.Subgraphs[1]
	if a.Core != 0 || b.Core != 1 || b.StartNs != 0 || run.LaunchNs <= 0 || run.TotalNs != run.LaunchNs+max(a.KernelNs, b.KernelNs) {
		t.Fatalf("LNC 2: %+v %+v total %d", a, b, run.TotalNs)
	}
	serial := trn2Pair(t, "cayman", 1, false)
	s1 := SetupFor(serial)
	run1, err := Simulate(FromModel(serial), s1)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Version != 3 || run1.Subgraphs[1].StartNs != run1.Subgraphs[0].KernelNs ||
		run1.TotalNs != run1.LaunchNs+run1.Subgraphs[0].KernelNs+run1.Subgraphs[1].KernelNs {
		t.Fatalf("LNC 1: %+v", run1)
	}
	// trn3's engines are faster than trn2's for the same program.
	if run.Subgraphs[1].Result.TotalNs >= run1.Subgraphs[1].Result.TotalNs {
		t.Errorf("v4 %d ns not faster than v3 %d ns", run.Subgraphs[1].Result.TotalNs, run1.Subgraphs[1].Result.TotalNs)
	}
	if u := SetupFor(trn2Pair(t, "newchip", 1, false)); u.Version != 2 || len(u.Notes) == 0 {
		t.Errorf("unknown target: %+v", u)
	}
}

// A transpose costs more than a copy of the same bytes, and the run says
// it assumed a transpose charge.
func TestSimulateTransposeCost(t *testing.T) {
	cost := func(transpose bool) (int64, []string) {
		m := trn2Pair(t, "cayman", 2, transpose)
		run, err := Simulate(FromModel(m), SetupFor(m))
		if err != nil {
			t.Fatal(err)
		}
		var busy int64
		for _, e := range run.Subgraphs[0].Result.Engines {
			busy += e.BusyNs
		}
		return busy, run.Setup.Notes
	}
	copyNs, _ := cost(false)
	trNs, notes := cost(true)
	p := dma.ParamsFor(&neuroncore.V3)
	// 32 KiB of 2-byte elements in runs of 16 elements (32 B, charged as
	// the shortest charged run): 1024 runs charged instead of 32 KiB.
	extra := int64(float64(1024*p.MinChargedRun-32<<10) / p.BytesPerNs)
	if d := trNs - copyNs; d < extra*9/10 || d > extra*11/10 {
		t.Errorf("transpose adds %d ns of engine time, want about %d", d, extra)
	}
	found := false
	for _, n := range notes {
		found = found || strings.HasPrefix(n, "1 DMA transpose charged")
	}
	if !found {
		t.Errorf("no transpose note in %q", notes)
	}
}
