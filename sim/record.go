package sim

import "sort"

// Recorder builds a Timeline from intervals another model computed (an
// event loop of its own, a capture), so that the renderers of a Timeline
// (package trace, report charts) draw it too. Tasks are added with their
// start and end; overlapping tasks on one resource are given separate
// lanes (the fewest that keep every lane free of overlaps).
type Recorder struct {
	g     Graph
	start []int64
	end   []int64
	byKey map[[2]string]ResourceID
}

// NewRecorder starts an empty timeline in the given time unit ("ns").
func NewRecorder(unit string) *Recorder {
	return &Recorder{g: Graph{Unit: unit}, byKey: map[[2]string]ResourceID{}}
}

// Resource returns the resource (track) named name in group (a trace
// process), adding it on first use; tracks keep the order of first use.
func (r *Recorder) Resource(group, name string) ResourceID {
	k := [2]string{group, name}
	if id, ok := r.byKey[k]; ok {
		return id
	}
	id := r.g.AddResource(Resource{Name: name, Group: group})
	r.byKey[k] = id
	return id
}

// Add records task t on resource res from start to end (end >= start).
// Its Bytes are kept for renderers; its duration is end - start.
func (r *Recorder) Add(res ResourceID, t Task, start, end int64) TaskID {
	t.Resource = res
	t.Duration = max(end-start, 0)
	id := r.g.AddTask(t)
	r.start = append(r.start, start)
	r.end = append(r.end, max(end, start))
	return id
}

// Len is the number of tasks recorded.
func (r *Recorder) Len() int { return len(r.g.Tasks) }

// Timeline returns the recorded timeline: every task ready when it
// started, lanes assigned per resource by start time, Makespan the latest
// end.
func (r *Recorder) Timeline() *Timeline {
	n := len(r.g.Tasks)
	g := r.g
	tl := &Timeline{
		Graph: &g,
		Ready: append([]int64(nil), r.start...),
		Start: append([]int64(nil), r.start...),
		End:   append([]int64(nil), r.end...),
		Lane:  make([]int32, n),
		Crit:  make([]TaskID, n),
	}
	byRes := make([][]int, len(g.Resources))
	for i := range g.Tasks {
		tl.Crit[i] = None
		tl.Makespan = max(tl.Makespan, r.end[i])
		if res := g.Tasks[i].Resource; res >= 0 {
			byRes[res] = append(byRes[res], i)
		}
	}
	tl.Resources = make([]ResourceStats, len(g.Resources))
	g.Resources = append([]Resource(nil), g.Resources...)
	for res, ids := range byRes {
		sort.SliceStable(ids, func(a, b int) bool { return r.start[ids[a]] < r.start[ids[b]] })
		starts, ends := make([]int64, len(ids)), make([]int64, len(ids))
		st := &tl.Resources[res]
		for k, i := range ids {
			starts[k], ends[k] = r.start[i], r.end[i]
			st.Busy += r.end[i] - r.start[i]
			st.Tasks++
		}
		lanes, n := Lanes(starts, ends)
		for k, i := range ids {
			tl.Lane[i] = lanes[k]
		}
		st.Lanes = max(n, 1)
		g.Resources[res].Capacity = st.Lanes
	}
	return tl
}

// Lanes packs intervals, taken in the order given (by start), into the
// fewest lanes that keep each lane free of overlaps: each goes to the
// first lane whose last interval ended by its start, else to a new one.
// It returns each interval's lane and the number of lanes.
func Lanes(start, end []int64) (lane []int32, n int) {
	lane = make([]int32, len(start))
	var laneEnd []int64
	for i := range start {
		l := -1
		for k, e := range laneEnd {
			if e <= start[i] {
				l = k
				break
			}
		}
		if l < 0 {
			l = len(laneEnd)
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[l] = end[i]
		lane[i] = int32(l)
	}
	return lane, len(laneEnd)
}
