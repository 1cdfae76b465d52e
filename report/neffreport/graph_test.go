package neffreport

import (
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
)

// Every NEFF of the corpora: each subgraph's graph has a node per def.json
// variable and per DMA queue its engines' programs use, and every edge
// joins two of them.
func TestGraphCoversVariablesAndQueues(t *testing.T) {
	var files []string
	for _, d := range []string{"corpus/neff", "corpus2/neff", "corpus3/neff"} {
		files = append(files, conformance.Files(t, conformance.Shared(t, d), "*.neff")...)
	}
	checked := 0
	for _, f := range files {
		m, err := neff.Open(f)
		if err != nil {
			continue
		}
		secs := graphSections(0, f, m)
		k := 0
		for _, sg := range m.Subgraphs {
			if sg.Def == nil {
				continue
			}
			queues := map[string]bool{}
			for _, e := range sg.Engines {
				if e.JSON == nil {
					continue
				}
				for _, d := range e.JSON.DMA {
					if q := d.QueueName(); q != "" {
						queues[q] = true
					}
				}
			}
			if len(secs) == 0 || k >= len(secs[0].Blocks) {
				t.Fatalf("%s: no graph for %s", f, sg.Name)
			}
			g := secs[0].Blocks[k].(*report.Graph)
			k++
			labels := map[string]bool{}
			for _, n := range g.Nodes {
				labels[n.Label] = true
			}
			for v := range sg.Def.Var {
				if !labels[v] {
					t.Errorf("%s %s: variable %s not drawn", f, sg.Name, v)
				}
			}
			for q := range queues {
				if !labels[q] {
					t.Errorf("%s %s: queue %s not drawn", f, sg.Name, q)
				}
			}
			for _, e := range g.Edges {
				if e.From < 0 || e.To < 0 || e.From >= len(g.Nodes) || e.To >= len(g.Nodes) {
					t.Errorf("%s: dangling edge", f)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Skip("no NEFF")
	}
}
