package l2alloc

import (
	"strings"
	"testing"
)

// A saving that makes more loads wait says so beside it and under the
// table (issue: "saved 7.5% ... optimal" beside "load waits 11 -> 14"
// read as a free saving); one that adds none says nothing more.
func TestReportSavingNamesAddedWaits(t *testing.T) {
	rep := &Report{Cores: []CoreReport{
		{Core: 0, Tensors: 4, FileExtent: 1000, LivePeak: 900, MinCapacity: 925, LowerBound: 925, Status: "optimal", FileWaits: 11, Waits: 14},
		{Core: 1, Tensors: 4, FileExtent: 1000, LivePeak: 900, MinCapacity: 950, LowerBound: 950, Status: "optimal", FileWaits: 2, Waits: 2},
	}}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"7.5% (+3 waits)", "costs 3 more DRAM load waits", "--prefetch file"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "5.0% (+") {
		t.Errorf("a saving without added waits is annotated:\n%s", out)
	}
}
