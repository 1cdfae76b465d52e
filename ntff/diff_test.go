package ntff

import (
	"strings"
	"testing"
)

// The text of a diff prints times as inspect does (26.417, not 26.4166)
// and bytes and counts whole (1,573,760, not 1.57376e+06).
func TestDiffTextValues(t *testing.T) {
	core := func(us float64, bytes int64) CoreStat {
		return CoreStat{Name: "sg00", TotalTimeUs: us,
			Engines: []EngineStat{{Engine: "Tensor", Instructions: 1499, BusyNs: 691.667}},
			Queues:  []QueueStat{{Name: "qPoolDynamic", Packets: 12, Bytes: bytes}}}
	}
	a := &Summary{File: "a.ntff", Cores: []CoreStat{core(26.416626, 1573760)}}
	b := &Summary{File: "b.ntff", Cores: []CoreStat{core(28.904993, 0)}}
	a.Cores[0].Engines[0].Instructions = 455
	var sb strings.Builder
	if err := Diff(a, b).WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"26.417", "28.905", "1,573,760", "455", "1,499"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e+") || strings.Contains(out, "26.4166") {
		t.Errorf("diff text in %%g:\n%s", out)
	}
}
