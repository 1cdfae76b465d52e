package sim

import (
	"fmt"
	"slices"
)

// Timeline is the result of Run. Slices indexed by TaskID hold each
// task's times; Resources and Counters are indexed like the graph's.
type Timeline struct {
	Graph *Graph
	// Ready is when the task's dependencies and earliest start were
	// satisfied; Start-Ready is time spent queued for its resource.
	Ready, Start, End []int64
	// Lane is the slot of its resource the task ran in (0..Capacity-1),
	// so tasks of one lane never overlap; 0 for tasks without resource.
	Lane []int32
	// Crit is the predecessor whose end (plus lag) made the task ready,
	// or None when the task was ready at its earliest start.
	Crit      []TaskID
	Makespan  int64
	Resources []ResourceStats
	Counters  []Series
}

// ResourceStats sums what ran on a resource.
type ResourceStats struct {
	Busy  int64 // sum of task durations (lane-time)
	Tasks int
	Bytes int64
	Lanes int // lanes actually used
}

// Utilisation is Busy over Capacity*Makespan (0 when the makespan is 0).
func (tl *Timeline) Utilisation(r ResourceID) float64 {
	if tl.Makespan == 0 {
		return 0
	}
	return float64(tl.Resources[r].Busy) / (float64(tl.Graph.capacity(r)) * float64(tl.Makespan))
}

// Duration of task t.
func (tl *Timeline) Duration(t TaskID) int64 { return tl.End[t] - tl.Start[t] }

// Point is a counter value from time T on.
type Point struct {
	T, V int64
}

// Series is a counter's value over time: V holds from T until the next
// point's T. The first point is at time 0 with the counter's Init value.
type Series struct {
	Points   []Point
	Max, Min int64
}

// event kinds, in processing order within one instant.
const (
	evFinish = 0
	evReady  = 1
)

type event struct {
	t   int64
	key int64 // kind<<32 | task
}

func (a event) less(b event) bool {
	return a.t < b.t || (a.t == b.t && a.key < b.key)
}

// eventHeap is a binary min-heap of events.
type eventHeap []event

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(s[l]) {
			m = r
		}
		if !s[m].less(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// readyItem orders ready tasks on a priority resource.
type readyItem struct {
	prio int64
	task int32
}

func (a readyItem) less(b readyItem) bool {
	return a.prio < b.prio || (a.prio == b.prio && a.task < b.task)
}

type readyHeap []readyItem

func (h *readyHeap) push(e readyItem) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *readyHeap) pop() readyItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(s[l]) {
			m = r
		}
		if !s[m].less(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// resState is the engine's view of one resource.
type resState struct {
	inOrder  bool
	free     int
	laneBase int32 // offset into engine.laneBusy
	lanes    int32
	head     int32 // InOrder: next index into queue
	queue    []int32
	ready    readyHeap
	dirty    bool
}

type engine struct {
	g        *Graph
	tl       *Timeline
	dur      []int64
	pending  []int32
	isReady  []bool
	outStart []int32
	outEdge  []int32
	res      []resState
	laneBusy []bool
	events   eventHeap
	dirty    []int32
	done     int
}

// Run simulates g. It fails on invalid references and when some task can
// never start (a dependency cycle).
func Run(g *Graph) (*Timeline, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	n := len(g.Tasks)
	tl := &Timeline{
		Graph:     g,
		Ready:     make([]int64, n),
		Start:     make([]int64, n),
		End:       make([]int64, n),
		Lane:      make([]int32, n),
		Crit:      make([]TaskID, n),
		Resources: make([]ResourceStats, len(g.Resources)),
	}
	e := &engine{
		g:        g,
		tl:       tl,
		dur:      make([]int64, n),
		pending:  make([]int32, n),
		isReady:  make([]bool, n),
		outStart: make([]int32, n+1),
		outEdge:  make([]int32, len(g.Edges)),
		res:      make([]resState, len(g.Resources)),
	}
	for i := range g.Tasks {
		e.dur[i] = g.TaskDuration(TaskID(i))
		tl.Ready[i] = g.Tasks[i].Earliest
		tl.Crit[i] = None
		tl.Start[i], tl.End[i] = -1, -1
	}
	// Compressed out-edge rows.
	for _, ed := range g.Edges {
		e.outStart[ed.From+1]++
		e.pending[ed.To]++
	}
	for i := 0; i < n; i++ {
		e.outStart[i+1] += e.outStart[i]
	}
	fill := slices.Clone(e.outStart[:n])
	for i, ed := range g.Edges {
		e.outEdge[fill[ed.From]] = int32(i)
		fill[ed.From]++
	}
	// Resources: lanes and in-order queues (tasks in ID order).
	nLanes := 0
	qlen := make([]int32, len(g.Resources))
	for i := range g.Tasks {
		if r := g.Tasks[i].Resource; r >= 0 && g.Resources[r].InOrder {
			qlen[r]++
		}
	}
	for r := range g.Resources {
		c := g.capacity(ResourceID(r))
		rs := &e.res[r]
		rs.inOrder = g.Resources[r].InOrder
		rs.free = c
		rs.laneBase = int32(nLanes)
		rs.lanes = int32(c)
		nLanes += c
		if rs.inOrder {
			rs.queue = make([]int32, 0, qlen[r])
		}
	}
	e.laneBusy = make([]bool, nLanes)
	for i := range g.Tasks {
		if r := g.Tasks[i].Resource; r >= 0 && e.res[r].inOrder {
			e.res[r].queue = append(e.res[r].queue, int32(i))
		}
	}
	e.events = make(eventHeap, 0, 1024)
	for i := 0; i < n; i++ {
		if e.pending[i] == 0 {
			if tl.Ready[i] == 0 {
				e.makeReady(int32(i), 0)
			} else {
				e.events.push(event{t: tl.Ready[i], key: evReady<<32 | int64(i)})
			}
		}
	}
	e.dispatchDirty(0)
	for len(e.events) > 0 {
		t := e.events[0].t
		for len(e.events) > 0 && e.events[0].t == t {
			ev := e.events.pop()
			task := int32(ev.key & 0xffffffff)
			if ev.key>>32 == evFinish {
				e.finish(task, t)
			} else {
				e.makeReady(task, t)
			}
		}
		e.dispatchDirty(t)
	}
	if e.done < n {
		for i := 0; i < n; i++ {
			if tl.End[i] < 0 {
				return nil, fmt.Errorf("sim: task %d %q never starts: its dependencies form a cycle (%d of %d tasks ran)", i, g.Tasks[i].Name, e.done, n)
			}
		}
	}
	for i := 0; i < n; i++ {
		if tl.End[i] > tl.Makespan {
			tl.Makespan = tl.End[i]
		}
		if r := g.Tasks[i].Resource; r >= 0 {
			st := &tl.Resources[r]
			st.Busy += e.dur[i]
			st.Tasks++
			st.Bytes += g.Tasks[i].Bytes
			if int(tl.Lane[i])+1 > st.Lanes {
				st.Lanes = int(tl.Lane[i]) + 1
			}
		}
	}
	tl.Counters = counterSeries(g, tl)
	return tl, nil
}

func (e *engine) makeReady(task int32, t int64) {
	r := e.g.Tasks[task].Resource
	if r < 0 {
		e.tl.Start[task] = t
		e.events.push(event{t: t + e.dur[task], key: evFinish<<32 | int64(task)})
		return
	}
	e.isReady[task] = true
	rs := &e.res[r]
	if !rs.inOrder {
		rs.ready.push(readyItem{prio: e.g.Tasks[task].Priority, task: task})
	}
	if !rs.dirty {
		rs.dirty = true
		e.dirty = append(e.dirty, int32(r))
	}
}

func (e *engine) finish(task int32, t int64) {
	tl := e.tl
	tl.End[task] = t
	e.done++
	if r := e.g.Tasks[task].Resource; r >= 0 {
		rs := &e.res[r]
		e.laneBusy[rs.laneBase+tl.Lane[task]] = false
		rs.free++
		if !rs.dirty {
			rs.dirty = true
			e.dirty = append(e.dirty, int32(r))
		}
	}
	for k := e.outStart[task]; k < e.outStart[task+1]; k++ {
		ed := &e.g.Edges[e.outEdge[k]]
		s := ed.To
		if at := t + ed.Lag; at > tl.Ready[s] {
			tl.Ready[s] = at
			tl.Crit[s] = TaskID(task)
		}
		e.pending[s]--
		if e.pending[s] == 0 {
			if tl.Ready[s] <= t {
				e.makeReady(int32(s), t)
			} else {
				e.events.push(event{t: tl.Ready[s], key: evReady<<32 | int64(s)})
			}
		}
	}
}

func (e *engine) dispatchDirty(t int64) {
	for i := 0; i < len(e.dirty); i++ {
		r := e.dirty[i]
		rs := &e.res[r]
		rs.dirty = false
		if rs.inOrder {
			for rs.free > 0 && int(rs.head) < len(rs.queue) && e.isReady[rs.queue[rs.head]] {
				e.start(rs, rs.queue[rs.head], t)
				rs.head++
			}
		} else {
			for rs.free > 0 && len(rs.ready) > 0 {
				e.start(rs, rs.ready.pop().task, t)
			}
		}
	}
	e.dirty = e.dirty[:0]
}

func (e *engine) start(rs *resState, task int32, t int64) {
	lanes := e.laneBusy[rs.laneBase : rs.laneBase+rs.lanes]
	lane := int32(0)
	for lanes[lane] {
		lane++
	}
	lanes[lane] = true
	rs.free--
	e.tl.Lane[task] = lane
	e.tl.Start[task] = t
	e.events.push(event{t: t + e.dur[task], key: evFinish<<32 | int64(task)})
}

// counterSeries applies the graph's deltas in time order (ties in the
// order the deltas were added).
func counterSeries(g *Graph, tl *Timeline) []Series {
	out := make([]Series, len(g.Counters))
	if len(g.Counters) == 0 {
		return out
	}
	type ch struct {
		c   CounterID
		t   int64
		idx int32
	}
	chs := make([]ch, len(g.Deltas))
	for i, d := range g.Deltas {
		at := tl.Start[d.Task]
		if d.AtEnd {
			at = tl.End[d.Task]
		}
		chs[i] = ch{d.Counter, at, int32(i)}
	}
	slices.SortFunc(chs, func(a, b ch) int {
		if a.c != b.c {
			return int(a.c - b.c)
		}
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return int(a.idx - b.idx)
	})
	for c := range g.Counters {
		v := g.Counters[c].Init
		out[c] = Series{Points: []Point{{0, v}}, Max: v, Min: v}
	}
	for _, x := range chs {
		s := &out[x.c]
		v := s.Points[len(s.Points)-1].V + g.Deltas[x.idx].Value
		if last := &s.Points[len(s.Points)-1]; last.T == x.t {
			last.V = v
		} else {
			s.Points = append(s.Points, Point{x.t, v})
		}
	}
	for c := range out {
		s := &out[c]
		for _, p := range s.Points {
			s.Max = max(s.Max, p.V)
			s.Min = min(s.Min, p.V)
		}
	}
	return out
}
