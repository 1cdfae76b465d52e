package npukit_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
)

// Audit r3 #14: two byte-identical schedules, one named with bw1, were a
// difference of +N% simulated cycles (exit 1) for the bandwidth each name
// implies. diff simulates both under A's model, says which, and notes what
// B's name implies instead of counting it.
func TestGeminiDiffIgnoresNameBandwidth(t *testing.T) {
	var buf bytes.Buffer
	if err := gemini.SynthWrite(&buf, gemini.SynthConfig{Cores: 2, Workloads: 30, DRAMEvery: 2}); err != nil {
		t.Fatal(err)
	}
	a, err := npukit.OpenBytes("sched.json", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b, err := npukit.OpenBytes("sched_bw1.json", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The names matter to sim: otherwise this test shows nothing.
	sa, err := a.Simulate(nil)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Simulate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if sa.(*npukit.GeminiSimulation).TotalCycles == sb.(*npukit.GeminiSimulation).TotalCycles {
		t.Fatal("bw1 in the name does not change the simulated cycles: the test needs a DRAM-bound schedule")
	}
	out, identical, err := npukit.Diff(a, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := out.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !identical {
		t.Errorf("identical content differs by its name:\n%s", text.String())
	}
	for _, want := range []string{"both files under A's model: DRAM 17.2 GB/s (default: no bwN in A's name", "B's name implies DRAM 1.1 GB/s (bw1)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("diff text lacks %q:\n%s", want, text.String())
		}
	}
	j, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Model *timing.Params `json:"model"`
		Notes []string       `json:"notes"`
	}
	if err := json.Unmarshal(j, &got); err != nil {
		t.Fatal(err)
	}
	if got.Model == nil || got.Model.DRAMGBps != timing.DefaultDRAMGBps || len(got.Notes) != 1 {
		t.Errorf("JSON model %+v, notes %q: want A's default bandwidth and one note", got.Model, got.Notes)
	}
	// The other way round: A's bw1 simulates both.
	out, identical, err = npukit.Diff(b, a, nil)
	if err != nil || !identical {
		t.Fatalf("B->A: identical %v, err %v", identical, err)
	}
	if m := out.(*npukit.GeminiDiff).Model; m == nil || m.DRAMGBps != 1*timing.GiBps {
		t.Errorf("B->A model %+v: want A's bw1", m)
	}
	// --dram-bw sets one bandwidth for both, with nothing to note.
	o := &npukit.Options{GeminiSim: func(p timing.Params) timing.Params { p.DRAMGBps, p.Source.DRAM = 4, "--dram-bw"; return p }}
	out, identical, err = npukit.Diff(a, b, o)
	if err != nil || !identical {
		t.Fatalf("--dram-bw: identical %v, err %v", identical, err)
	}
	if d := out.(*npukit.GeminiDiff); d.Model.DRAMGBps != 4 || len(d.Notes) != 0 {
		t.Errorf("--dram-bw: model %g GB/s, notes %q", d.Model.DRAMGBps, d.Notes)
	}
}

// Audit r3 #17: batch 1 against batch 4 read "69 -> 69 workloads (69
// added, 69 removed)" without saying why nothing paired up.
func TestGeminiDiffSaysNothingPairs(t *testing.T) {
	d := &npukit.GeminiDiff{Statement: "s", Details: &gemini.DiffDetail{Cores: []gemini.CoreDiff{{Core: "core 0", WorkloadsA: 3, WorkloadsB: 3, Added: 3, Removed: 3}}}}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(3 added, 3 removed, none matches by layer and ofmap range)") {
		t.Errorf("diff text:\n%s", b.String())
	}
}
