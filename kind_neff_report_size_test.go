package npukit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
)

// syntheticDMANeff is a NEFF whose SP engine issues n loads of 4 KiB
// (128 runs of 32 bytes) on 16 queues: n DMA spans to draw.
func syntheticDMANeff(t *testing.T, name string, n int) *Artifact {
	t.Helper()
	b := neff.NewBuilder(name)
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", int64(n)*4096)
	sg.AddVar("out", "output", 4096)
	sp := sg.Engine("sp", "SP")
	for q := range 16 {
		sg.AddQueue(fmt.Sprint("q", q), "in", 16, "sp")
	}
	for i := range n {
		sp.AddDMA(fmt.Sprint("q", i%16), "load", neff.Copy("in", int64(i)*4096, []int64{32, 128}, []int64{1, 32}, "SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}))
	}
	b.Signature.Inputs["in"] = neff.SigTensor{DType: "float32", Shape: []int64{int64(n) * 1024}}
	b.Signature.Outputs["out"] = neff.SigTensor{DType: "float32", Shape: []int64{1024}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes(name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func renderReport(t *testing.T, as ...*Artifact) string {
	t.Helper()
	p, err := Report(as, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// A NEFF of 15,000 DMA descriptors (240,000 transfers) reports on a page
// of a bounded number of marks (its DMA timeline drew up to twice 15,000
// marks, some 250 bytes each), and a page of several such NEFFs shares one
// budget (a 30-NEFF report was 45 MB).
func TestNeffReportSizeBounded(t *testing.T) {
	const n = 15000
	one := renderReport(t, syntheticDMANeff(t, "a.neff", n))
	// 16 spans a descriptor (its element transfers).
	if !strings.Contains(one, "240,000 spans drawn as") {
		t.Fatalf("the DMA timeline does not say it merged its spans (%d bytes, %d marks)", len(one), strings.Count(one, `<rect class="mark"`))
	}
	if marks := strings.Count(one, `<rect class="mark"`); marks > report.DefaultMaxMarks+200 {
		t.Errorf("%d marks for %d descriptors", marks, n)
	}
	if len(one) > 2<<20 {
		t.Errorf("page of %d bytes for one NEFF of %d descriptors", len(one), n)
	}
	const files = 4
	var as []*Artifact
	for i := range files {
		as = append(as, syntheticDMANeff(t, fmt.Sprintf("f%d.neff", i), n/2))
	}
	many := renderReport(t, as...)
	if marks := strings.Count(many, `<rect class="mark"`); marks > files*(report.FileMarks(files)+200) {
		t.Errorf("%d marks for %d NEFFs", marks, files)
	}
	if len(many) > 5<<20 {
		t.Errorf("page of %d bytes for %d NEFFs of %d descriptors", len(many), files, n/2)
	}
}
