package ntff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// The replay places every instruction and packet where the capture
// measured it, however many overlap on one engine or queue: all
// instructions keep one offset from their measured start, all packets
// another. It ran the capture through the event engine with 4 lanes per
// engine and 64 per queue, which delayed overlapping events (779 tensor
// instructions by up to 1.9 us in the MoE capture) as if they had waited.
func TestTimelineKeepsMeasuredTimes(t *testing.T) {
	dir := conformance.Shared(t, filepath.Join("corpus3", "ntff"))
	n := 0
	for _, f := range conformance.Files(t, dir, "*.ntff") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := p.Timeline()
		if err != nil {
			t.Fatal(err)
		}
		tl := rp.Timeline
		var off [2]*int64
		for id, task := range tl.Graph.Tasks {
			it := rp.Items[task.Tag]
			c := &p.Cores[it.Core]
			k, start, end := 0, int64(0), int64(0)
			if it.Instr >= 0 {
				start, end = c.Instrs[it.Instr].Start, c.Instrs[it.Instr].End
			} else {
				k, start, end = 1, c.Packets[it.Packet].Start, c.Packets[it.Packet].End
			}
			d := tl.Start[id] - start
			if off[k] == nil {
				off[k] = &d
			}
			n++
			if d != *off[k] || tl.End[id]-tl.Start[id] != max(end-start, 0) || tl.Ready[id] != tl.Start[id] {
				t.Errorf("%s: %s at %d..%d (ready %d), measured %d..%d: moved from the offset %d", filepath.Base(f), task.Name, tl.Start[id], tl.End[id], tl.Ready[id], start, end, *off[k])
				break
			}
		}
	}
	if n == 0 {
		t.Fatal("no replayed event")
	}
}
