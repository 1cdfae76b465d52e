package npukit

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/neff"
)

// neff dma prints a rule repeated on many descriptors as check does: one
// line with how many descriptors show it (it printed the first 20 one by
// one, then "... N more", where check printed one folded line); --all
// lists each.
func TestNeffDMAFoldsAsCheck(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 1<<17)
	sg.AddVar("out", "output", 4096)
	sg.AddQueue("qIn", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	const n = 12
	for i := range n {
		// 128 runs of 32 bytes, 64 bytes apart: small runs on the in side.
		sp.AddDMA("qIn", "load", neff.Copy("in", int64(i)*8192, []int64{32, 128}, []int64{1, 64}, "SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}))
	}
	pool := sg.Engine("pool", "Pool")
	sg.AddQueue("qOut", "out", 16, "pool")
	pool.AddDMA("qOut", "store", neff.Copy("SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}, "out", 0, []int64{32, 128}, []int64{1, 32}))
	b.Signature.Inputs["in"] = neff.SigTensor{DType: "float32", Shape: []int64{1 << 15}}
	b.Signature.Outputs["out"] = neff.SigTensor{DType: "float32", Shape: []int64{1024}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes("t.neff", raw)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := a.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	var checkLine string
	for _, d := range rep {
		if d.Rule == "neff/dma-small-runs" {
			checkLine = d.String()
		}
	}
	if !strings.Contains(checkLine, "13 descriptors like this one") {
		t.Fatalf("check does not fold the %d small-run descriptors (and the store): %q\n%v", n, checkLine, rep)
	}
	l, err := a.NeffDMA(nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := l.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(buf.String(), "[neff/dma-small-runs]"); c != 1 || !strings.Contains(buf.String(), checkLine) {
		t.Errorf("neff dma prints %d small-run lines, want check's one line %q:\n%s", c, checkLine, buf.String())
	}
	l.ShowAll = true
	buf.Reset()
	if err := l.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	// each load and the store (its SB side has 32-byte runs too)
	if c := strings.Count(buf.String(), "[neff/dma-small-runs]"); c < n+1 {
		t.Errorf("neff dma --all prints %d small-run lines, want at least %d:\n%s", c, n+1, buf.String())
	}
}

// Audit r3 #1: a descriptor whose two sides (or two sources) show a rule
// was one finding in check's fold line and two in neff dma's table and
// --all listing ("11" beside "10 descriptors like this one"). One finding
// per descriptor and rule everywhere, its message naming each side.
func TestNeffDMACountsDescriptorsOnce(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 1<<17)
	sg.AddQueue("qIn", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	const n = 5
	for i := range n {
		// 32-byte runs on both sides: in (64 bytes apart) and SB (one per partition)
		sp.AddDMA("qIn", "load", neff.Copy("in", int64(i)*8192, []int64{32, 128}, []int64{1, 64}, "SB", 0, []int64{32, 128}, []int64{1, neff.SBPartitionStride}))
	}
	b.Signature.Inputs["in"] = neff.SigTensor{DType: "float32", Shape: []int64{1 << 15}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes("t.neff", raw)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := a.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCount := map[string]int{}
	for _, d := range rep {
		if strings.HasPrefix(d.Rule, "neff/dma-") {
			checkCount[d.Rule] += max(d.Count, 1)
		}
	}
	if checkCount["neff/dma-small-runs"] != n {
		t.Fatalf("check counts %d small-run descriptors, want %d: %v", checkCount["neff/dma-small-runs"], n, rep)
	}
	l, err := a.NeffDMA(nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, d := range l.Subgraphs[0].Analysis.Diagnostics {
		listed[d.Rule]++
		if d.Rule == "neff/dma-small-runs" && (!strings.Contains(d.Message, "in side") || !strings.Contains(d.Message, "SB side")) {
			t.Errorf("the finding does not name both sides: %s", d.Message)
		}
	}
	for r, c := range checkCount {
		if listed[r] != c {
			t.Errorf("%s: neff dma lists %d, check counts %d", r, listed[r], c)
		}
	}
	var buf bytes.Buffer
	if err := l.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`neff/dma-small-runs +5 `).MatchString(buf.String()) {
		t.Errorf("table count is not %d:\n%s", n, buf.String())
	}
}

// Audit r3 #2: the run histogram counted the source side, the small-runs
// warning the SB side, so a queue showed no run under 512 B beside a
// warning about 128 runs of 256 B. The table counts each descriptor's
// more fragmented side, and says so.
func TestNeffDMAHistogramSideAgreesWithWarning(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("w", "input", 32768)
	sg.AddQueue("qIn", "w", 16, "sp")
	// one contiguous 32 KiB source, 128 SB rows of 256 bytes
	sg.Engine("sp", "SP").AddDMA("qIn", "load w", neff.Copy("w", 0, []int64{32768}, []int64{1}, "SB", 0, []int64{256, 128}, []int64{1, neff.SBPartitionStride}))
	b.Signature.Inputs["w"] = neff.SigTensor{DType: "float32", Shape: []int64{8192}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes("t.neff", raw)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.NeffDMA(nil)
	if err != nil {
		t.Fatal(err)
	}
	an := l.Subgraphs[0].Analysis
	warned := false
	for _, d := range an.Diagnostics {
		warned = warned || d.Rule == "neff/dma-small-runs" && strings.Contains(d.Message, "128 runs, the smallest 256 bytes")
	}
	if !warned || an.Histogram.Under512 != 128 || an.Queues[0].Runs != 128 {
		t.Errorf("warning %v; histogram %+v, runs %d: want the 128 runs of 256 B the warning names", warned, an.Histogram, an.Queues[0].Runs)
	}
	var buf bytes.Buffer
	if err := l.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "more fragmented side") {
		t.Errorf("the table does not say which side it counts:\n%s", buf.String())
	}
}
