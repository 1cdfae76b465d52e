package neff

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

func ruleIn(rep diag.Report, id string) *diag.Diagnostic {
	for i := range rep {
		if rep[i].Rule == id {
			return &rep[i]
		}
	}
	return nil
}

// A dge-table variable as neuronx-cc 2.23 writes it for hardware
// descriptor generation (a list of var_ids, no size) checks clean, and
// inspect says which variables it holds.
func TestDGETable(t *testing.T) {
	b := baseBuilder(t)
	b.Header.NeffVersionMajor, b.Header.FeatureBits = 2, 0x209c00
	sg0(b).AddDGETable("DGETable0", "in", "out")
	if rep := checkBuilder(t, b); rep.HasErrors() {
		t.Fatalf("a dge-table with a list: %v", rep)
	}
	raw, err := b.Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := OpenBytes(raw, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(m)
	if len(s.Subgraphs) != 1 || len(s.Subgraphs[0].DGETables) != 1 {
		t.Fatalf("summary dge tables: %+v", s.Subgraphs)
	}
	tb := s.Subgraphs[0].DGETables[0]
	if tb.Name != "DGETable0" || strings.Join(tb.Vars, ",") != "in,out" {
		t.Errorf("table %+v, want DGETable0 of in, out", tb)
	}
	var text strings.Builder
	if err := s.WriteText(&text); err != nil || !strings.Contains(text.String(), "DGE table DGETable0: descriptor-generation table of in (var_id 1), out (var_id 2)") {
		t.Errorf("inspect text: %v\n%s", err, text.String())
	}
	if n := m.Subgraphs[0].DGENote(0); !strings.Contains(n, "does not model descriptor-generation tables") || !strings.Contains(n, "DGETable0 (in, out)") {
		t.Errorf("note %q", n)
	}

	// neither list nor size: the table says nothing; a listed var_id no
	// variable has
	b = baseBuilder(t)
	sg0(b).AddDGETable("DGETable0", "in").List = nil
	if d := ruleIn(checkBuilder(t, b), RuleVarRequired); d == nil || !strings.Contains(d.Message, "missing list") {
		t.Errorf("a dge-table without list or size: %v", d)
	}
	b = baseBuilder(t)
	sg0(b).AddDGETable("DGETable0", "in", "nowhere")
	if d := ruleIn(checkBuilder(t, b), RuleVarRef); d == nil {
		t.Errorf("a dge-table listing a var_id no variable has: no %s", RuleVarRef)
	}
}
