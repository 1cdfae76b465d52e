package neff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// TestCorpusCheck: every real NEFF checks without errors and decodes its
// subgraphs, engines and descriptors.
func TestCorpusCheck(t *testing.T) {
	for _, p := range conformance.CorpusFiles(t, "neff", "*.neff") {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rep, m := CheckBytes(b, DefaultLimits(), DefaultRuntime)
			for _, d := range rep {
				if d.Severity == diag.Error {
					t.Errorf("%v", d)
				} else {
					t.Logf("%v", d)
				}
			}
			if m == nil || len(m.Subgraphs) == 0 || m.Subgraphs[0].Def == nil || len(m.Subgraphs[0].Engines) == 0 {
				t.Fatal("no subgraph decoded")
			}
			descs := 0
			for _, e := range m.Subgraphs[0].Engines {
				if e.JSON == nil {
					t.Fatalf("engine %s not decoded", e.Member)
				}
				for _, ent := range e.JSON.DMA {
					descs += len(ent.Desc)
				}
			}
			if descs == 0 {
				t.Fatal("no DMA descriptors decoded")
			}
		})
	}
}

// TestCorpusJSONRoundTrip: def.json and engine JSONs survive decode/encode
// with every field, known or not.
func TestCorpusJSONRoundTrip(t *testing.T) {
	for _, p := range conformance.CorpusFiles(t, "neff", "*.neff") {
		m, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, sg := range m.Subgraphs {
			check := func(name string, v any) {
				mem, _ := m.File.Member(name)
				out, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if !jsonEqual(t, mem.Data, out) {
					t.Errorf("%s: %s does not round-trip", filepath.Base(p), name)
				}
			}
			check(sg.DefMember, sg.Def)
			for _, e := range sg.Engines {
				check(e.Member, e.JSON)
			}
		}
		for _, k := range m.Kelfs {
			mem, _ := m.File.Member(k.Member)
			out, _ := json.Marshal(k.Kelf)
			if !jsonEqual(t, mem.Data, out) {
				t.Errorf("%s does not round-trip", k.Member)
			}
		}
	}
}
