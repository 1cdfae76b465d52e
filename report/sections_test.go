package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/relayout"
	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neff/dma"
)

func sectionsPage(t *testing.T) *Page {
	var descs []dma.Descriptor
	for i := 0; i < 40; i++ {
		p := accesspattern.Pattern{Offset: int64(i) * 4096, Sizes: []int64{4096, 128}, Steps: []int64{1, 262144}}
		q := "qSPIO0"
		if i%3 == 0 {
			q = "qPoolIO0"
		}
		descs = append(descs, dma.Descriptor{Engine: "sg00/SP.json", Queue: q, Index: i, Comment: "I-" + string(rune('a'+i%26)),
			Transfer: dma.Transfer{Op: dma.OpCopy, From: []dma.Side{{Var: "in", Pattern: accesspattern.Pattern{Sizes: []int64{4096 * 128}, Steps: []int64{1}}}}, To: dma.Side{Var: "SB", Pattern: p}}})
	}
	a := dma.Analyze(descs, dma.Layout{StateBuffers: map[string]bool{"SB": true}})
	res, tl, err := dma.Simulate(descs, []dma.QueueSet{{Name: "qSPIO0", NumQueues: 8}, {Name: "qPoolIO0", NumQueues: 8}}, dma.DefaultSimParams())
	if err != nil {
		t.Fatal(err)
	}
	tiling, err := OutputTiling("out", relayout.Output{Y: 4, X: 5, Z: 32, ElemSize: 1, SizeBytes: 640, Layout: &relayout.Layout{
		YTile: []int32{0, 0, 2, 2}, XTile: []int32{0, 0, 0, 1, 1}, TileOffset: []int32{0, 192, 320, 512},
		XLocal: []int32{0, 32, 64, 0, 32}, YLocal: []int32{0, 1, 0, 1}, RowSize: []int32{96, 96, 96, 64, 64}}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := dmaplan.Build([]dmaplan.Executable{{Name: "model", Type: "EXECUTION_ONLY", FullyDeterministic: true, ChunkSizes: []int64{5000},
		Hints: []dmaplan.Hint{{Kind: dmaplan.Instruction}, {Kind: dmaplan.Descriptor, Target: "INPUT", Name: "in", Size: 50000},
			{Kind: dmaplan.Interrupt}, {Kind: dmaplan.Descriptor, Direction: dmaplan.Outfeed, Target: "OUTPUT", Name: "out", Size: 1000}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	secs := NeffDMASections(a, res, tl)
	secs = append(secs, Section{ID: "tiling", Title: "Output tiling", Blocks: []Block{tiling}},
		Section{ID: "plan", Title: "DMA plan", Blocks: []Block{DMAPlanTimeline(plan, dmaplan.DefaultLinks()[0])}})
	return &Page{Title: "sections", Sections: secs}
}

func TestSectionsRender(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, sectionsPage(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`id="dma-traffic"`, `id="dma-timeline"`, "DMA engine 0", "tile 2", "host-&gt;device", "qPoolIO0"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if p := os.Getenv("NPUKIT_SAMPLE_REPORT_DIR"); p != "" {
		os.WriteFile(p+"/sections.html", b.Bytes(), 0o644)
	}
}
