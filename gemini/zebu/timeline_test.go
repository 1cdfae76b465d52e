package zebu

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/sim"
)

// The lowered graph replays every instruction at its traced time.
func TestLowerReplays(t *testing.T) {
	var traces []*Trace
	tr, err := Parse(strings.NewReader(checkTrace + "[pe_conv, {'slyr': 0, 'wkl': 0, 'tile': 1}, {'inst_idx': 4, 'time': [40, 40]}, {}]\n[pe_conv, {'slyr': 0, 'wkl': 0, 'tile': 1}, {'inst_idx': 5, 'time': [35, 95]}, {}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, tr)
	if dir := conformance.SharedDir(); dir != "" {
		for _, p := range conformance.Files(t, conformance.Corpus(t, "gemini/zebu"), "*.txt") {
			tr, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			traces = append(traces, tr)
		}
	}
	for _, tr := range traces {
		tl, err := sim.Run(Lower(tr))
		if err != nil {
			t.Fatal(err)
		}
		if tl.Makespan != tr.Total() {
			t.Errorf("makespan %d, trace total %d", tl.Makespan, tr.Total())
		}
		for id, task := range tl.Graph.Tasks {
			in := tr.Insts[task.Tag]
			if tl.Start[id] != in.Start || tl.End[id] != in.End {
				t.Fatalf("line %d %s: replayed [%d, %d], traced [%d, %d]", in.Line, in.Name, tl.Start[id], tl.End[id], in.Start, in.End)
			}
		}
	}
}
