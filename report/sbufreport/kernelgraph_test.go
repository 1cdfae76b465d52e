package sbufreport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// The kernel's file is named once, in the graph's caption: a node's
// details and its second line say where it is by line only (they
// repeated the whole path on every node); a call run once reads "once
// with loops unrolled", not "once once loops are unrolled".
func TestKernelGraphNamesFileOnce(t *testing.T) {
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
		g := sec.Blocks[0].(*report.Graph)
		if res.File == "" || !strings.HasPrefix(g.Caption, res.File+": ") {
			t.Errorf("%s: caption %q does not name the kernel file %q", e.ID, g.Caption, res.File)
		}
		base := filepath.Base(res.File)
		lines := 0
		for _, n := range g.Nodes {
			if strings.Contains(n.Sub, base) {
				t.Errorf("%s: node %s: %q repeats the file", e.ID, n.Label, n.Sub)
			}
			for _, kv := range n.Detail {
				if strings.Contains(kv.Value, base) {
					t.Errorf("%s: node %s: %s %q repeats the file", e.ID, n.Label, kv.Key, kv.Value)
				}
				if strings.Contains(kv.Value, "once once") {
					t.Errorf("%s: node %s: %s %q", e.ID, n.Label, kv.Key, kv.Value)
				}
				if (kv.Key == "where" || kv.Key == "declared") && strings.HasPrefix(kv.Value, "line ") {
					lines++
				}
			}
		}
		if lines == 0 {
			t.Errorf("%s: no node says its line", e.ID)
		}
	}
}
