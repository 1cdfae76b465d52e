package neff

import (
	"fmt"
	"strings"
	"testing"
)

func builtModel(t *testing.T, b *Builder, opt PackOptions) *Model {
	t.Helper()
	raw, err := b.Bytes(opt)
	if err != nil {
		t.Fatal(err)
	}
	m, err := OpenBytes(raw, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiff(t *testing.T) {
	base := builtModel(t, baseBuilder(t), PackOptions{})
	if r := Diff(base, base, DiffOptions{}); !r.Identical() || len(r.NoiseDifferences) != 0 || r.Statement != "identical" {
		t.Fatalf("self diff: %+v", r)
	}

	// A new uuid, a timestamp in info.json and another hash form: noise only.
	b := baseBuilder(t)
	b.Header.UUID[0] = 7
	b.Files["info.json"] = []byte(`{"tool_version":"npukit","name":"t.neff","num_tpb":1,"build_timestamp":"2026-01-01"}`)
	noisy := builtModel(t, b, PackOptions{HashForm: HashNatural})
	r := Diff(base, noisy, DiffOptions{})
	if !r.Identical() {
		t.Fatalf("noise counted: %+v", r.Differences)
	}
	var paths []string
	for _, d := range r.NoiseDifferences {
		paths = append(paths, d.Path)
	}
	for _, want := range []string{"header.uuid", "header.hash", "hash form", "info.json: build_timestamp"} {
		if !strings.Contains(strings.Join(paths, "|"), want) {
			t.Errorf("noise lacks %q: %v", want, paths)
		}
	}
	if r := Diff(base, noisy, DiffOptions{Noise: true}); r.Identical() {
		t.Error("--noise: still identical")
	}

	// A real change: a variable's size, a new member, a header field.
	b = baseBuilder(t)
	*sg0(b).Def.Var["in"].Size = 8192
	b.Files["extra.bin"] = []byte{1, 2, 3}
	b.Header.FeatureBits = 1
	changed := builtModel(t, b, PackOptions{})
	r = Diff(base, changed, DiffOptions{})
	got := map[string]Difference{}
	for _, d := range r.Differences {
		got[d.Path] = d
	}
	if d, ok := got["sg00/def.json: var.in.size"]; !ok || d.A != int64(4096) || d.B != int64(8192) {
		t.Errorf("size change: %+v", r.Differences)
	}
	if d, ok := got["member extra.bin"]; !ok || d.A != "absent" {
		t.Errorf("added member: %+v", r.Differences)
	}
	if _, ok := got["header.feature_bits"]; !ok {
		t.Errorf("feature bits: %+v", r.Differences)
	}
	if len(r.Differences) != 3 {
		t.Errorf("want exactly 3 differences, got %+v", r.Differences)
	}
}

func TestDiffCapsJSON(t *testing.T) {
	a, b := baseBuilder(t), baseBuilder(t)
	sp := sg0(b).Engines[0]
	for i := 0; i < maxJSONDiffs+50; i++ {
		sp.AddDMA("qIn", "extra", Copy("in", 0, []int64{32}, []int64{1}, "SB", 0, []int64{32}, []int64{1}))
	}
	r := Diff(builtModel(t, a, PackOptions{}), builtModel(t, b, PackOptions{}), DiffOptions{})
	// The counts add up: listed + unlisted = the total the statement gives.
	if len(r.Differences) != maxJSONDiffs || r.Unlisted["sg00/SP.json"] != 50 || r.Total() != maxJSONDiffs+50 {
		t.Fatalf("%d differences, unlisted %v", len(r.Differences), r.Unlisted)
	}
	if !strings.Contains(r.Statement, fmt.Sprintf("(%d differing field(s))", maxJSONDiffs+50)) {
		t.Errorf("statement: %s", r.Statement)
	}
	var text strings.Builder
	r.WriteText(&text)
	if !strings.Contains(text.String(), fmt.Sprintf("Fields (%d differ: %d listed, 50 more in sg00/SP.json)", maxJSONDiffs+50, maxJSONDiffs)) {
		t.Errorf("text:\n%s", text.String())
	}
	// The verdict counts the engine's DMA in the user's terms.
	found := false
	for _, c := range r.Verdict {
		if c.What == "sp DMA descriptors" {
			found = c.B.(int64)-c.A.(int64) == int64(maxJSONDiffs+50)
		}
	}
	if !found {
		t.Errorf("verdict lacks the sp DMA descriptors change: %+v", r.Verdict)
	}
}
