package npukit

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/neff"
)

// A NEFF simulation longer than 1 ms states its times in ms, through the
// one time formatter (humanize.Micros): "Predicted time: 22536.867 us"
// stood beside check's "13.85 ms" (audit item 11). Its queue table, whose
// BUSY sums the engines a queue spreads over, says so where BUSY exceeds
// the queue's span.
func TestNeffSimLongTimesInMs(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	const size = 256 << 20
	sg.AddVar("in", "input", 4*size)
	sg.AddVar("out", "output", 4*size)
	sg.AddQueue("qIn", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	for i := range int64(4) {
		sp.AddDMA("qIn", "copy", neff.Copy("in", i*size, []int64{65536, 4096}, []int64{1, 65536}, "out", i*size, []int64{65536, 4096}, []int64{1, 65536}))
	}
	b.Signature.Inputs["in"] = neff.SigTensor{DType: "float32", Shape: []int64{size}}
	b.Signature.Outputs["out"] = neff.SigTensor{DType: "float32", Shape: []int64{size}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenBytes("t.neff", raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Simulate(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*NeffSimulation)
	if o.TotalNs < 1e6 {
		t.Fatalf("the test needs a simulation over 1 ms: %d ns", o.TotalNs)
	}
	var buf bytes.Buffer
	if err := o.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !regexp.MustCompile(`Predicted time: \d{1,3}\.\d{3} ms \(launch \d+\.\d{3} us`).MatchString(text) {
		t.Errorf("the prediction is not in ms:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "Subgraph ") || strings.HasPrefix(line, "DMA program alone") {
			if m := regexp.MustCompile(`\d{4,}\.\d+ us`).FindString(line); m != "" {
				t.Errorf("%q in %q", m, line)
			}
		}
	}
	if !strings.Contains(text, "BUSY is queue-time") {
		t.Errorf("the queue table does not say BUSY sums its engines:\n%s", text)
	}
}
