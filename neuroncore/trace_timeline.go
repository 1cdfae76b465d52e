package neuroncore

import (
	"fmt"
	"sort"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/sim"
)

// TraceTimeline is the timeline a trace of the simulation draws: the
// simulated one plus a track of each DMA's fixed completion latency (the
// ~1300 ns after its last transfer, which the simulation charges as a lag
// on an edge, drawn by nothing) and, when SBUF spills, a slice of the spill
// time after the body. It ends where the printed kernel body does (audit
// r3 #20: the trace ended 1.3 us early); the launch overhead the printed
// time adds is not drawn (TraceNote says so).
func (r *SimResult) TraceTimeline() *sim.Timeline {
	tl, g := r.Timeline, r.Timeline.Graph
	lag := int64(r.Plan.Arch.DMAFixedNs * 1000)
	var joins []int
	for i := range g.Tasks {
		if t := &g.Tasks[i]; t.Resource == sim.None && t.Cat == "dma-done" {
			joins = append(joins, i)
		}
	}
	if len(joins) == 0 && r.SpillPs == 0 {
		return tl
	}
	g2 := *g
	g2.Tasks = append([]sim.Task(nil), g.Tasks...)
	g2.Resources = append([]sim.Resource(nil), g.Resources...)
	t2 := *tl
	t2.Graph = &g2
	t2.Ready = append([]int64(nil), tl.Ready...)
	t2.Start = append([]int64(nil), tl.Start...)
	t2.End = append([]int64(nil), tl.End...)
	t2.Lane = append([]int32(nil), tl.Lane...)
	t2.Crit = append([]sim.TaskID(nil), tl.Crit...)
	t2.Resources = append([]sim.ResourceStats(nil), tl.Resources...)
	group := "NeuronCore " + r.Plan.Arch.Name
	if len(joins) > 0 {
		id := sim.ResourceID(len(g2.Resources))
		g2.Resources = append(g2.Resources, sim.Resource{Name: "DMA completion (fixed latency)", Group: group, Capacity: len(joins)})
		sort.SliceStable(joins, func(a, b int) bool { return tl.Start[joins[a]] < tl.Start[joins[b]] })
		starts, ends := make([]int64, len(joins)), make([]int64, len(joins))
		st := sim.ResourceStats{}
		for k, i := range joins {
			starts[k], ends[k] = max(tl.Start[i]-lag, 0), tl.Start[i]
			st.Busy += ends[k] - starts[k]
			st.Tasks++
		}
		lanes, n := sim.Lanes(starts, ends)
		for k, i := range joins {
			g2.Tasks[i].Resource, g2.Tasks[i].Cat = id, "dma-completion"
			t2.Ready[i], t2.Start[i], t2.End[i], t2.Lane[i] = starts[k], starts[k], ends[k], lanes[k]
		}
		st.Lanes = n
		g2.Resources[id].Capacity = max(st.Lanes, 1)
		t2.Resources = append(t2.Resources, st)
	}
	if r.SpillPs > 0 {
		id := sim.ResourceID(len(g2.Resources))
		g2.Resources = append(g2.Resources, sim.Resource{Name: "SBUF spill (DMA)", Group: group})
		g2.Tasks = append(g2.Tasks, sim.Task{Name: fmt.Sprintf("SBUF spill: %s bytes stored and reloaded", humanize.Count(r.SpillBytes)), Cat: "spill", Resource: id, Tag: -1})
		s, e := tl.Makespan, tl.Makespan+r.SpillPs
		t2.Ready, t2.Start, t2.End = append(t2.Ready, s), append(t2.Start, s), append(t2.End, e)
		t2.Lane, t2.Crit = append(t2.Lane, 0), append(t2.Crit, sim.None)
		t2.Resources = append(t2.Resources, sim.ResourceStats{Busy: r.SpillPs, Tasks: 1, Lanes: 1})
		t2.Makespan = e
	}
	return &t2
}

// TraceNote says what a trace of the simulation covers, for the line
// naming the file.
func (r *SimResult) TraceNote() string {
	return fmt.Sprintf("the kernel body, 0 to %s, with each DMA's fixed completion latency on its own track; the launch overhead of %s the time adds is not drawn", humanize.Micros(r.KernelNs()/1000), humanize.Micros(r.Plan.Arch.LaunchNs/1000))
}
