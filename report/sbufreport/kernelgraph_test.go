package sbufreport

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/report"
)

var callNode = regexp.MustCompile(`data-call-index="(\d+)"`)

// Every example kernel: one graph node per engine call `nki inspect`
// lists (data-call-index 0..N-1), and an edge into every call from each
// tensor it reads.
func TestKernelGraphMatchesInspect(t *testing.T) {
	m, err := nki.ReadManifest("../../examples/nki/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		res, err := nki.Trace(nki.OptionsFor(m, e))
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		arch, _ := neuroncore.ArchByName(e.NCVersion)
		ck, err := nki.CheckKernel(res, arch)
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		sec, ok := KernelGraphSection(ck)
		if !ok {
			t.Fatalf("%s: no graph", e.ID)
		}
		var buf bytes.Buffer
		if err := report.Render(&buf, &report.Page{Title: "t", Sections: []report.Section{sec}}); err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, mm := range callNode.FindAllStringSubmatch(buf.String(), -1) {
			k, _ := strconv.Atoi(mm[1])
			seen[k] = true
		}
		if len(seen) != len(res.Calls) {
			t.Errorf("%s: %d call nodes, inspect lists %d calls", e.ID, len(seen), len(res.Calls))
		}
		g := sec.Blocks[0].(*report.Graph)
		reads := 0
		for _, c := range res.Calls {
			reads += len(c.Reads)
		}
		into := 0
		for _, ed := range g.Edges {
			if ed.To < len(res.Calls) {
				into++
			}
		}
		if into < reads {
			t.Errorf("%s: %d edges into calls for %d reads", e.ID, into, reads)
		}
	}
}
