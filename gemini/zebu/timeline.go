package zebu

import (
	"sort"

	"github.com/npukit/npukit/sim"
)

// Lower turns a trace into a sim.Graph that replays it: one resource per
// unit class (as many lanes as the class ever runs at once, so Perfetto
// draws no overlapping events on one track), one task per instruction
// with its start as earliest start and its length as duration, and no
// dependencies. Running the graph reproduces every instruction's
// [start, end]; Task.Tag is the instruction's index in t.Insts.
func Lower(t *Trace) *sim.Graph {
	g := &sim.Graph{Unit: "cycles"}
	byClass := map[string][]int{}
	var classes []string
	for i, in := range t.Insts {
		if _, ok := byClass[in.Class]; !ok {
			classes = append(classes, in.Class)
		}
		byClass[in.Class] = append(byClass[in.Class], i)
	}
	sort.Strings(classes)
	for _, c := range classes {
		idx := byClass[c]
		r := g.AddResource(sim.Resource{Name: c, Group: "units", Capacity: maxConcurrent(t, idx)})
		for _, i := range idx {
			in := &t.Insts[i]
			cat := "compute"
			if in.Config {
				cat = "config"
			}
			g.AddTask(sim.Task{Name: in.Name, Cat: cat, Resource: r, Duration: in.End - in.Start,
				Earliest: in.Start, Priority: in.Start, Tag: int32(i)})
		}
	}
	return g
}

// maxConcurrent is the most instructions of a set running at one time
// (zero-length ones count as running at their instant), plus one lane of
// slack so that an instruction never waits for a lane the trace freed at
// the same cycle.
func maxConcurrent(t *Trace, idx []int) int {
	type ev struct {
		at    int64
		delta int
	}
	evs := make([]ev, 0, 2*len(idx))
	for _, i := range idx {
		evs = append(evs, ev{t.Insts[i].Start, 1}, ev{t.Insts[i].End, -1})
	}
	// At one instant, starts before ends: touching and zero-length
	// intervals count as overlapping (an upper bound is what lanes need).
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return evs[a].delta > evs[b].delta
	})
	cur, best := 0, 0
	for _, e := range evs {
		cur += e.delta
		best = max(best, cur)
	}
	return best + 1
}
