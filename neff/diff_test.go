package neff

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
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
	if !strings.Contains(r.Statement, fmt.Sprintf("(%s)", humanize.Plural(maxJSONDiffs+50, "differing field"))) {
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
		if c.What == "Sync (sp) DMA descriptors" {
			found = c.B.(int64)-c.A.(int64) == int64(maxJSONDiffs+50)
		}
	}
	if !found {
		t.Errorf("verdict lacks the Sync (sp) DMA descriptors change: %+v", r.Verdict)
	}
}

// dmaBuilder is the base NEFF with n loads on sp's queue, each of 128
// bytes at its own offset; insertAt >= 0 adds one more load there (at
// offset 4000), the later entries renumbered as a compiler numbers them;
// edit, when set, changes the list before it is written.
func dmaBuilder(t *testing.T, n, insertAt int, comments bool, edit func([]*DMAEntry)) *Model {
	t.Helper()
	b := baseBuilder(t)
	sp := sg0(b).Engines[0]
	sp.JSON.DMA = nil
	load := func(off int64) *DMAEntry {
		c := ""
		if comments {
			c = fmt.Sprintf("load-%d", off)
		}
		return &DMAEntry{Comment: c, Queue: ptr("qIn"), HasDesc: true,
			Desc: []*Desc{Copy("in", off, []int64{128}, []int64{1}, "SB", off, []int64{128}, []int64{1})}}
	}
	for i := 0; i < n; i++ {
		if i == insertAt {
			sp.JSON.DMA = append(sp.JSON.DMA, load(4000))
		}
		sp.JSON.DMA = append(sp.JSON.DMA, load(int64(i)*128))
	}
	for i, e := range sp.JSON.DMA {
		e.ID = ptr(int64(i))
	}
	if edit != nil {
		edit(sp.JSON.DMA)
	}
	return builtModel(t, b, PackOptions{})
}

// An inserted DMA entry is one difference naming that entry, not a shift
// of every entry after it.
func TestDiffDMAInsertedEntry(t *testing.T) {
	for _, comments := range []bool{true, false} {
		a := dmaBuilder(t, 6, -1, comments, nil)
		b := dmaBuilder(t, 6, 2, comments, nil)
		r := Diff(a, b, DiffOptions{})
		want := "sg00/SP.json: dma[qIn load-4000]"
		if !comments {
			want = "sg00/SP.json: dma[qIn in+4000 -> SB+4000]"
		}
		if len(r.Differences) != 1 || r.Differences[0].Path != want || r.Differences[0].A != "absent" || r.Total() != 1 {
			t.Fatalf("comments %v: want exactly %q added, got %+v", comments, want, r.Differences)
		}
		if r.Renumbered["sg00/SP.json"] != 4 {
			t.Errorf("renumbered %v, want the 4 entries after the insertion", r.Renumbered)
		}
		var text strings.Builder
		r.WriteText(&text)
		if !strings.Contains(text.String(), "4 DMA entries renumbered") {
			t.Errorf("text:\n%s", text.String())
		}
		// The other way round the same entry is removed.
		r = Diff(b, a, DiffOptions{})
		if len(r.Differences) != 1 || r.Differences[0].Path != want || r.Differences[0].B != "absent" {
			t.Fatalf("comments %v: want exactly %q removed, got %+v", comments, want, r.Differences)
		}
	}

	// A changed transfer keeps its name (queue and comment) and lists only
	// the field that changed, even beside an insertion.
	a := dmaBuilder(t, 4, -1, true, nil)
	b := dmaBuilder(t, 4, 0, true, func(l []*DMAEntry) { l[2].Desc[0].ToOff = ptr(int64(9000)) })
	r := Diff(a, b, DiffOptions{})
	got := map[string]Difference{}
	for _, d := range r.Differences {
		got[d.Path] = d
	}
	if d := got["sg00/SP.json: dma[qIn load-128].desc[0].to_off"]; len(got) != 2 || d.A != int64(128) || d.B != int64(9000) {
		t.Fatalf("want the inserted entry and load-128's to_off, got %+v", r.Differences)
	}
}

// A descriptor inserted into an entry is one difference too; a descriptor
// whose offset changed is that descriptor changed.
func TestDiffDMAInsertedDescriptor(t *testing.T) {
	desc := func(off int64) *Desc {
		return Copy("in", off, []int64{128}, []int64{1}, "SB", off, []int64{128}, []int64{1})
	}
	three := func(l []*DMAEntry) { l[0].Desc = []*Desc{desc(0), desc(1024), desc(2048)} }
	a := dmaBuilder(t, 3, -1, true, three)
	b := dmaBuilder(t, 3, -1, true, func(l []*DMAEntry) {
		three(l)
		l[0].Desc = []*Desc{desc(0), desc(5000), desc(1024), desc(2048)}
	})
	r := Diff(a, b, DiffOptions{})
	if len(r.Differences) != 1 || r.Differences[0].Path != "sg00/SP.json: dma[qIn load-0].desc[1]" ||
		r.Differences[0].A != "absent" || r.Differences[0].B != "copy in+5000 -> SB+5000" {
		t.Fatalf("want exactly the inserted descriptor, got %+v", r.Differences)
	}
	c := dmaBuilder(t, 3, -1, true, func(l []*DMAEntry) {
		three(l)
		l[0].Desc[2].ToOff = ptr(int64(7000))
	})
	r = Diff(a, c, DiffOptions{})
	if len(r.Differences) != 1 || r.Differences[0].Path != "sg00/SP.json: dma[qIn load-0].desc[2].to_off" {
		t.Fatalf("want desc[2].to_off, got %+v", r.Differences)
	}
}
