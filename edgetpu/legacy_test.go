package edgetpu

import (
	"slices"
	"strings"
	"testing"
)

// legacyModel builds a model in the Edge TPU compiler 1.x serialisation:
// custom options key "4" holds a bare Executable (no DWN1 Package around
// it), next to the deprecated chip name "2". key4 replaces the executable
// when non-nil; chips adds key "6".
func legacyModel(t *testing.T, key4 []byte, chips bool) []byte {
	t.Helper()
	m := Synthetic(DemoSpec())
	exe, err := WriteExecutable(m.Ops[0].Packages[0].Executables[0])
	if err != nil {
		t.Fatal(err)
	}
	if key4 != nil {
		exe = key4
	}
	o := CustomOptions{Version: 0, ChipName: "beagle", ExecutionPreference: -1}
	if chips {
		o.Chips, o.HasChips = []int64{17}, true
	}
	m.TFLite.Subgraphs[0].Operators[0].CustomOptions = EncodeOptions(o, [][]byte{exe})
	m.Ops = nil // keep the operator's own custom options
	data, err := Write(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A compiler 1.x model is read at its TFLite level, its op noted as holding
// a legacy executable, and Check says the runtime refuses it (one error, not
// an unreadable file, and not "no package").
func TestLegacyExecutableRead(t *testing.T) {
	m, err := Read(legacyModel(t, nil, false))
	if err != nil {
		t.Fatalf("legacy model unreadable: %v", err)
	}
	if len(m.Ops) != 1 || len(m.Ops[0].Packages) != 0 || m.Ops[0].Options.LegacyExecutable == 0 {
		t.Fatalf("want one op with a legacy executable and no package, got %+v", m.Ops)
	}
	rep := Check(m)
	var rules []string
	for _, d := range rep {
		rules = append(rules, d.Rule)
	}
	if !slices.Contains(rules, RuleLegacyExecutable) || slices.Contains(rules, RuleNoExecutables) {
		t.Errorf("want %s and not %s, got %v", RuleLegacyExecutable, RuleNoExecutables, rules)
	}
	if s := Summarize(m); len(s.EdgeTPUOps) != 1 || s.EdgeTPUOps[0].LegacyExecutableBytes != m.Ops[0].Options.LegacyExecutable {
		t.Errorf("summary does not carry the legacy executable: %+v", s.EdgeTPUOps)
	}
}

// Only a bare executable in the old serialisation is read so: key "4"
// holding neither a package nor an executable, or a bare executable in the
// current serialisation (key "6" present), stays an unreadable file.
func TestLegacyExecutableOnlyOldSerialisation(t *testing.T) {
	if _, err := Read(legacyModel(t, []byte("not a flatbuffer at all, just text"), false)); err == nil {
		t.Error("garbage under key \"4\" was read")
	}
	if _, err := Read(legacyModel(t, nil, true)); err == nil {
		t.Error("a bare executable with key \"6\" was read")
	}
}

// sim of a compiler 1.x model does not charge an Edge TPU run for an
// operator the runtime refuses to load: no invocation, and a note that
// says its time is not estimated and why.
func TestLegacyExecutableLatency(t *testing.T) {
	m, err := Read(legacyModel(t, nil, false))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := HostByName("desktop-usb3")
	l, err := EstimateModel(m, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Parts {
		if p.Kind == PartInvoke {
			t.Errorf("an Edge TPU invocation is charged for a model whose executable no runtime loads: %+v", p)
		}
	}
	var said bool
	for _, n := range l.Notes {
		if strings.Contains(n, "compiler 1.x") && strings.Contains(n, "not estimated") {
			said = true
		}
		if strings.Contains(n, "no Edge TPU work") {
			t.Errorf("note claims every operator runs on the CPU: %s", n)
		}
	}
	if !said {
		t.Errorf("no note says the legacy operator is not timed: %q", l.Notes)
	}
}
