package npukit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neuroncore"
)

// inspect and sim name a NEFF's engines alike (audit item 14: inspect
// said pe/act/pool/sp, sim tensor/scalar/gpsimd/sync): sim by AWS's name,
// inspect by the same name with the def.json key beside it.
func TestNeffEngineNamesAgree(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 4096)
	sg.AddVar("out", "output", 4096)
	sg.AddQueue("qIn", "in", 16, "sp")
	sg.AddQueue("qOut", "out", 16, "pool")
	sg.Engine("sp", "SP").AddDMA("qIn", "load", neff.Copy("in", 0, []int64{32, 128}, []int64{1, 32}, "SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}))
	sg.Engine("pool", "Pool").AddDMA("qOut", "store", neff.Copy("SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}, "out", 0, []int64{32, 128}, []int64{1, 32}))
	sg.Engine("pe", "PE")
	b.Signature.Inputs["in"] = neff.SigTensor{DType: "float32", Shape: []int64{1024}}
	b.Signature.Outputs["out"] = neff.SigTensor{DType: "float32", Shape: []int64{1024}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes("t.neff", raw)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := a.Inspect(nil)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := ins.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sync (sp)", "GpSimd (pool)", "Tensor (pe)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, text.String())
		}
	}
	out, err := a.Simulate(nil)
	if err != nil {
		t.Fatal(err)
	}
	e := out.(*NeffSimulation).Subgraphs[0].Engines
	if e == nil || len(e.Engines) == 0 {
		t.Fatal("no engines simulated")
	}
	for _, en := range e.Engines {
		found := false
		for _, n := range neuroncore.EngineNames() {
			found = found || n.Name == en.Engine
		}
		if !found {
			t.Errorf("sim names an engine %q, not one of neuroncore.EngineNames", en.Engine)
		}
	}
}

// A report of several NEFFs gives each file's predicted time, as the
// report of one does (audit item 23: the multi-file summary left it out).
func TestNeffMultiReportStatesSimTimes(t *testing.T) {
	var as []*Artifact
	for i, name := range []string{"a.neff", "b.neff"} {
		b := neff.NewBuilder(name)
		sg := b.Subgraph("sg00")
		size := int64(4096 << i)
		sg.AddVar("in", "input", size)
		sg.AddVar("out", "output", size)
		sg.AddQueue("qIn", "in", 16, "sp")
		sg.Engine("sp", "SP").AddDMA("qIn", "copy", neff.Copy("in", 0, []int64{size, 1}, []int64{1, size}, "out", 0, []int64{size, 1}, []int64{1, size}))
		b.Signature.Inputs["in"] = neff.SigTensor{DType: "uint8", Shape: []int64{size}}
		b.Signature.Outputs["out"] = neff.SigTensor{DType: "uint8", Shape: []int64{size}}
		raw, err := b.Bytes(neff.PackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := OpenBytes(name, raw)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	page, err := Report(as, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		out, err := a.Simulate(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "predicted time (npukit sim) " + humanize.Nanos(out.(*NeffSimulation).TotalNs)
		found := false
		for _, kv := range page.Summary {
			found = found || kv.Key == a.Name && strings.Contains(kv.Value, want)
		}
		if !found {
			t.Errorf("%s: the summary lacks %q: %+v", a.Name, want, page.Summary)
		}
	}
}
