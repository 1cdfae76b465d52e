package edgetpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/tflite"
)

// demoTwin builds an uncompiled model with the demo compile's interface
// (DemoSpec: input 16x16x3 -> features 8x8x6 and logits 1x1x10, their
// types and quantization): two convolutions, a third when extra is set
// (another network with the same interface). inShape overrides the
// input's shape.
func demoTwin(t *testing.T, extra bool, inShape ...int32) []byte {
	t.Helper()
	s := DemoSpec()
	g := newGraph()
	tensor := func(l LayerSpec, shape ...int32) int32 {
		if len(shape) == 0 {
			shape = []int32{1, l.Y, l.X, l.Z}
		}
		i := g.act(l.Name, TensorTypeOf(l.DataType), shape...)
		g.sg.Tensors[i].Scale, g.sg.Tensors[i].ZeroPoint = []float32{l.Scale}, []int64{int64(l.ZeroPoint)}
		return i
	}
	in := tensor(s.Inputs[0], inShape...)
	x := in
	if extra {
		x = g.conv(in, 16, 16, 3, 3)
	}
	f := g.constant("w1", tflite.TensorInt8, make([]byte, 6*3*3*3), 6, 3, 3, 3)
	feat := tensor(s.Outputs[0])
	g.op(opConv2D, []int32{x, f, g.constant("b1", tflite.TensorInt32, make([]byte, 24), 6)}, feat)
	w := g.constant("w2", tflite.TensorInt8, make([]byte, 10*8*8*6), 10, 8, 8, 6)
	logits := tensor(s.Outputs[1])
	g.op(opConv2D, []int32{feat, w, g.constant("b2", tflite.TensorInt32, make([]byte, 40), 10)}, logits)
	m := g.build(t, []int32{in}, []int32{feat, logits})
	b, err := Write(&Model{TFLite: m})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFiles writes name -> bytes into a new directory.
func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The uncompiled twin is found beside a compiled model by the compiler's
// naming (X_edgetpu.tflite from X.tflite; with "_edgetpu" removed from a
// renamed copy; or the one renamed copy of X.tflite that checks out), is
// checked (a file that is not the twin is refused and said so), and an
// ambiguous choice is not made.
func TestFindTwin(t *testing.T) {
	compiled, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(compiled)
	if err != nil {
		t.Fatal(err)
	}
	twin, other, wrong := demoTwin(t, false), demoTwin(t, true), demoTwin(t, false, 1, 16, 16, 4)
	many := map[string][]byte{}
	for i := range maxTwinCandidates + 1 {
		many[fmt.Sprintf("net__%d.tflite", i)] = wrong
	}
	many["net__x.tflite"] = twin
	cases := []struct {
		name     string
		files    map[string][]byte
		compiled string
		want     string // base name of the twin used ("" none)
		also     int
		note     string // in the note when none is used
	}{
		{"compiler's name", map[string][]byte{"net.tflite": twin, "net__v2.tflite": other}, "net_edgetpu.tflite", "net.tflite", 0, ""},
		{"renamed compile", map[string][]byte{"net__v2.tflite": twin}, "net_edgetpu__v2.tflite", "net__v2.tflite", 0, ""},
		{"renamed source", map[string][]byte{"net__1234.tflite": twin, "net__5678.tflite": wrong}, "net_edgetpu.tflite", "net__1234.tflite", 0, ""},
		{"versions of one network", map[string][]byte{"net__a.tflite": twin, "net__b.tflite": twin}, "net_edgetpu.tflite", "net__a.tflite", 1, ""},
		{"ambiguous", map[string][]byte{"net__a.tflite": twin, "net__b.tflite": other}, "net_edgetpu.tflite", "", 0, "2 files beside it could be"},
		{"not the twin", map[string][]byte{"net.tflite": wrong}, "net_edgetpu.tflite", "", 0, "net.tflite beside it is not the model it was compiled from (input 0 is UINT8 [1 16 16 4]"},
		{"compiled beside", map[string][]byte{"net.tflite": compiled}, "net_edgetpu.tflite", "", 0, "it is compiled too"},
		{"no twin", map[string][]byte{"other.tflite": twin}, "net_edgetpu.tflite", "", 0, ""},
		{"too many copies", many, "net_edgetpu.tflite", "", 0, "too many to check"},
		{"not a compiler name", map[string][]byte{"net.tflite": twin}, "net_tpu.tflite", "", 0, ""},
	}
	for _, c := range cases {
		c.files[c.compiled] = compiled
		dir := writeFiles(t, c.files)
		tw, note := FindTwin(filepath.Join(dir, c.compiled), m)
		got := ""
		if tw != nil {
			got = filepath.Base(tw.Path)
			if tw.How != TwinBeside || len(tw.Also) != c.also {
				t.Errorf("%s: how %q, also %v", c.name, tw.How, tw.Also)
			}
		}
		if got != c.want || c.note == "" && note != "" || !strings.Contains(note, c.note) {
			t.Errorf("%s: twin %q (want %q), note %q (want %q)", c.name, got, c.want, note, c.note)
		}
	}
}

// A compiled model with its twin found beside prices the Edge TPU compute
// layer by layer and names the file (text and JSON); the note says why
// none was used when a file beside it is not the twin.
func TestLatencyNamesTwin(t *testing.T) {
	compiled, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(compiled)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string][]byte{"net.tflite": demoTwin(t, false)})
	tw, _ := FindTwin(filepath.Join(dir, "net_edgetpu.tflite"), m)
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(m, h, LatencyOptions{Twin: tw})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := l.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	layers := 0
	for _, p := range l.Parts {
		if p.Kind == PartTPU && strings.Contains(p.Name, "layer") {
			layers++
		}
	}
	if l.Uncompiled == nil || filepath.Base(l.Uncompiled.Path) != "net.tflite" || layers != 2 || !strings.Contains(text.String(), "from the uncompiled model net.tflite (found beside the compiled file)") {
		t.Errorf("twin %+v, %d layers:\n%s", l.Uncompiled, layers, text.String())
	}
	l, err = EstimateModel(m, h, LatencyOptions{TwinNote: "net.tflite: input 0 differs"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Uncompiled != nil || !strings.Contains(strings.Join(l.Notes, "\n"), "no uncompiled model used: net.tflite: input 0 differs") {
		t.Errorf("no twin: %+v %q", l.Uncompiled, l.Notes)
	}
}

// Estimates on every host class with one twin plan it once (a report
// prices them all): the twin's plan is made by the first estimate and
// reused, unchanged, by the others, and prices what a fresh plan prices.
func TestTwinPlannedOnce(t *testing.T) {
	compiled, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(compiled)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string][]byte{"net.tflite": demoTwin(t, false)})
	tw, _ := FindTwin(filepath.Join(dir, "net_edgetpu.tflite"), m)
	if tw == nil || tw.plan != nil {
		t.Fatalf("twin %+v: want one found, not yet planned", tw)
	}
	var first *Plan
	for _, h := range Hosts() {
		l, err := EstimateModel(m, h, LatencyOptions{Twin: tw})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = tw.plan
		}
		if first == nil || tw.plan != first {
			t.Fatalf("%s: the twin's plan %p, want the first estimate's %p (planned once)", h.Name, tw.plan, first)
		}
		fresh, err := EstimateModel(m, h, LatencyOptions{Uncompiled: tw.Model})
		if err != nil {
			t.Fatal(err)
		}
		if l.SteadyStateUs != fresh.SteadyStateUs {
			t.Errorf("%s: %.1f us with the twin's plan, %.1f us planned afresh", h.Name, l.SteadyStateUs, fresh.SteadyStateUs)
		}
	}
}

// Every compiled model of the shared twin corpus finds, beside it, the
// uncompiled model truth.json names as its source (or one of the same
// network), and no other.
func TestFindTwinCorpus(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	n := 0
	for _, pr := range twinFiles(t, dir) {
		if filepath.Dir(pr[0]) != filepath.Dir(pr[1]) {
			continue // the compiled file is kept elsewhere: nothing beside it
		}
		m, err := ReadFile(pr[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Ops) == 0 {
			continue
		}
		n++
		tw, note := FindTwin(pr[1], m)
		if tw == nil {
			t.Errorf("%s: no twin found (%s)", filepath.Base(pr[1]), note)
			continue
		}
		if tw.Path != pr[0] {
			u, err := tflite.ReadFile(pr[0])
			if err != nil || !sameNetwork(u, tw.Model) {
				t.Errorf("%s: found %s, its source is %s", filepath.Base(pr[1]), filepath.Base(tw.Path), filepath.Base(pr[0]))
			}
		}
	}
	if n == 0 {
		t.Skip("no pairs side by side")
	}
}
