package neff_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/hostile/craft"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff"
)

// The default cap fits the machine: an eighth of its memory (it was 4 GiB
// whatever the machine), so that about 3x the cap stays below it.
func TestDefaultLimitFitsMemory(t *testing.T) {
	lim := neff.DefaultLimits()
	if m := inputfile.TotalMemory(); m > 0 && lim.MaxDecompressed > max(m/8, 256<<20) {
		t.Errorf("MaxDecompressed %d on a machine of %d bytes", lim.MaxDecompressed, m)
	}
}

// A JSON member of 32 MiB holding 16 million values: parsing took about 40
// bytes per input byte (a 256 MB member used 10 GB). Past the value limit
// the member is a neff/too-large finding naming the limit, and memory
// stays in proportion to the limit.
func TestJSONValueLimit(t *testing.T) {
	b := craft.NEFFBigMember(32<<20, craft.JSONMember)
	lim := neff.Limits{MaxDecompressed: 64 << 20, MaxMembers: 100}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := neff.OpenBytes(b, lim)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range m.Problems {
		if d.Rule == neff.RuleTooLarge && strings.Contains(d.Message, "NPUKIT_NEFF_MAX_BYTES") && strings.Contains(d.Message, "1048576") {
			found = true
		}
	}
	if !found {
		t.Errorf("no neff/too-large finding: %v", m.Problems)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*uint64(lim.MaxDecompressed) {
		t.Errorf("allocated %d bytes for a %d-byte limit", got, lim.MaxDecompressed)
	}
}

// Duplicate JSON keys were accepted silently (the last wins).
func TestJSONDuplicateKeyReported(t *testing.T) {
	b := neff.NewBuilder("dup.neff")
	b.Subgraph("sg00").AddVar("x", "input", 16)
	b.Files["sg00/tensor_map.json"] = []byte(`{"x": {}, "y": {}, "x": {}}`)
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range m.Problems {
		if d.Rule == neff.RuleJSONDuplicateKey && strings.Contains(d.Message, `"x"`) && strings.Contains(d.Location, "sg00/tensor_map.json") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d duplicate-key findings: %v", n, m.Problems)
	}
}

// Duplicate and ".." subgraph names gave no finding.
func TestSubgraphNames(t *testing.T) {
	b := neff.NewBuilder("names.neff")
	b.Subgraph("sg00").AddVar("x", "input", 16)
	b.Files["kelf-0.json"] = []byte(`{"version": "0.5", "target": "sunda", "graphs": [
		{"name": "a", "definition": "sg00/def.json"},
		{"name": "a", "definition": "sg00/def.json"},
		{"name": "..", "definition": "sg00/def.json"}]}`)
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, d := range neff.Check(m, neff.DefaultRuntime) {
		if d.Rule == neff.RuleSubgraphName {
			msgs = append(msgs, d.Message)
		}
	}
	if len(msgs) != 2 {
		t.Errorf("findings: %q", msgs)
	}
}
