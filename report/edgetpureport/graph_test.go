package edgetpureport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

// opNode matches a graph's operator node: its index and its colour.
var opNode = regexp.MustCompile(`<g class="gnode" tabindex="0" data-op-index="(\d+)"[^>]*><rect [^>]*fill="([^"]+)"`)

// Every model of the corpora, compiled or not: the graph has one node per
// operator `inspect` lists (by data-op-index, in each subgraph), coloured
// Edge TPU exactly where the file (compiled) or `edgetpu plan`
// (uncompiled) puts the operator.
func TestGraphMatchesInspectAndPlan(t *testing.T) {
	var files []string
	for _, d := range []string{"corpus/edgetpu", "corpus2/edgetpu", "corpus2/edgetpu-pairs/models", "hw/edgetpu/models"} {
		files = append(files, conformance.Files(t, conformance.Shared(t, d), "*.tflite")...)
	}
	if len(files) == 0 {
		t.Skip("no models")
	}
	for _, f := range files {
		m, err := edgetpu.ReadFile(f)
		if err != nil || m.TFLite == nil {
			continue
		}
		sec, ok := graphSection(0, edgetpu.NamedModel{Path: f, Model: m})
		if !ok {
			if m.TFLite.NumOperators() > 0 {
				t.Errorf("%s: no graph for %d operators", filepath.Base(f), m.TFLite.NumOperators())
			}
			continue
		}
		sum := edgetpu.Summarize(m)
		var plan *edgetpu.Plan
		if len(m.Ops) == 0 {
			plan = edgetpu.PlanModel(m.TFLite, edgetpu.PlanOptions{})
		}
		// One graph block per subgraph with operators, in subgraph order.
		k := 0
		for si := range m.TFLite.Subgraphs {
			if len(m.TFLite.Subgraphs[si].Operators) == 0 {
				continue
			}
			var buf bytes.Buffer
			if err := report.Render(&buf, &report.Page{Title: "t", Sections: []report.Section{{ID: "g", Title: "g", Blocks: sec.Blocks[k : k+1]}}}); err != nil {
				t.Fatal(err)
			}
			k++
			want := map[int]bool{} // op index -> on the Edge TPU
			for _, o := range sum.Operators {
				if o.Subgraph == si {
					want[o.Index] = o.RunsOn == "Edge TPU"
				}
			}
			if plan != nil {
				for _, o := range plan.Ops {
					if o.Subgraph == si {
						want[o.Index] = o.Placement == "TPU"
					}
				}
			}
			got := map[int]bool{}
			for _, mm := range opNode.FindAllStringSubmatch(buf.String(), -1) {
				i, _ := strconv.Atoi(mm[1])
				if _, dup := got[i]; dup {
					t.Errorf("%s: operator %d drawn twice", filepath.Base(f), i)
				}
				got[i] = mm[2] == graphSeries[seriesTPU].Color
			}
			if len(got) != len(want) {
				t.Errorf("%s subgraph %d: %d operator nodes, inspect lists %d", filepath.Base(f), si, len(got), len(want))
			}
			for i, tpu := range want {
				if g, ok := got[i]; !ok || g != tpu {
					t.Errorf("%s subgraph %d op %d: drawn on the Edge TPU %v, want %v", filepath.Base(f), si, i, g, tpu)
					break
				}
			}
		}
	}
}
