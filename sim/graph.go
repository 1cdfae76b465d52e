// Package sim is a deterministic discrete-event engine for schedules:
// resources with a capacity (a core, a DMA engine with a bandwidth, a NoC
// link), tasks that occupy one resource for a duration (or for a byte count
// charged at the resource's bandwidth plus a per-transfer overhead),
// dependencies with optional latencies, earliest-start times and in-order
// resource queues. Run turns a Graph into a Timeline: per task ready, start
// and end times and the lane it ran on, per resource busy time, and counters
// over time (e.g. buffer occupancy).
//
// The package is neutral: format packages lower their models onto a Graph
// (gemini, neff, neuroncore plans) and renderers read the Timeline (trace,
// report). Time is an abstract integer unit chosen by the caller (cycles,
// nanoseconds); Graph.Unit names it.
//
// Scheduling rules, all deterministic:
//   - A task is ready when every predecessor has ended (plus the edge's
//     lag) and the task's Earliest time has come.
//   - A task without a resource starts as soon as it is ready.
//   - An InOrder resource starts its tasks in the order they were added
//     (head-of-line blocking: a ready task waits behind an unready one).
//   - Any other resource starts, whenever a lane is free, the ready task
//     with the lowest (Priority, TaskID).
//   - All events at one instant are applied before any dispatch decision
//     at that instant, so the outcome does not depend on event order.
//
// Storage is flat (slices indexed by TaskID, edges in compressed rows): no
// per-task maps, so a million tasks simulate in a fraction of a second.
package sim

import (
	"fmt"
	"math"
)

// TaskID indexes Graph.Tasks.
type TaskID int32

// ResourceID indexes Graph.Resources.
type ResourceID int32

// CounterID indexes Graph.Counters.
type CounterID int32

// None is the ResourceID of a task that needs no resource (a pure delay)
// and the TaskID meaning "no task".
const None = -1

// Resource is something tasks occupy.
type Resource struct {
	Name  string // track name, e.g. "core 0", "DRAM", "link (0,0)->(1,0)"
	Group string // group of tracks (trace process), e.g. "cores", "DRAM", "NoC"
	// Capacity is the number of tasks it runs at once (lanes); 0 means 1.
	Capacity int
	// Bandwidth in bytes per time unit, used for tasks given as Bytes.
	Bandwidth float64
	// Overhead is added to the duration of every task given as Bytes
	// (a per-transfer setup cost).
	Overhead int64
	// InOrder makes the resource start its tasks in the order they were
	// added to the graph.
	InOrder bool
}

// Task is one unit of work.
type Task struct {
	Name string
	Cat  string // category (trace "cat", e.g. "compute", "load")
	// Resource it occupies, or None.
	Resource ResourceID
	// Duration in time units. When Bytes > 0 and the resource has a
	// bandwidth, the duration is Overhead + ceil(Bytes/Bandwidth) instead.
	Duration int64
	Bytes    int64
	// Earliest start time.
	Earliest int64
	// Priority orders ready tasks on a resource that is not InOrder:
	// lower first, ties by TaskID.
	Priority int64
	// Tag is free for the caller (e.g. a layer or descriptor index) so
	// renderers can find their own data without maps.
	Tag int32
}

// Edge makes To wait until From has ended plus Lag time units.
type Edge struct {
	From, To TaskID
	Lag      int64
	// Flow marks a producer->consumer data edge that renderers draw as
	// an arrow (trace flow events).
	Flow bool
}

// Counter is a quantity that tasks change when they start or end (e.g.
// buffer occupancy in bytes).
type Counter struct {
	Name  string
	Group string // trace process the counter track belongs to
	Init  int64
}

// Delta changes a counter when a task starts (AtEnd false) or ends.
type Delta struct {
	Task    TaskID
	Counter CounterID
	AtEnd   bool
	Value   int64
}

// Graph is a simulation problem. Build it with the Add methods (or fill
// the slices directly) and call Run.
type Graph struct {
	Unit      string // name of the time unit, e.g. "cycles", "ns"
	Resources []Resource
	Tasks     []Task
	Edges     []Edge
	Counters  []Counter
	Deltas    []Delta
}

// AddResource adds a resource and returns its ID.
func (g *Graph) AddResource(r Resource) ResourceID {
	g.Resources = append(g.Resources, r)
	return ResourceID(len(g.Resources) - 1)
}

// AddTask adds a task and returns its ID.
func (g *Graph) AddTask(t Task) TaskID {
	g.Tasks = append(g.Tasks, t)
	return TaskID(len(g.Tasks) - 1)
}

// AddDep makes to wait for from to end.
func (g *Graph) AddDep(from, to TaskID) {
	g.Edges = append(g.Edges, Edge{From: from, To: to})
}

// AddEdge adds a dependency with a lag and/or a flow mark.
func (g *Graph) AddEdge(e Edge) { g.Edges = append(g.Edges, e) }

// AddCounter adds a counter and returns its ID.
func (g *Graph) AddCounter(c Counter) CounterID {
	g.Counters = append(g.Counters, c)
	return CounterID(len(g.Counters) - 1)
}

// AddDelta changes counter c by v when task t starts (atEnd false) or ends.
func (g *Graph) AddDelta(t TaskID, c CounterID, atEnd bool, v int64) {
	g.Deltas = append(g.Deltas, Delta{Task: t, Counter: c, AtEnd: atEnd, Value: v})
}

// TaskDuration is the time task t occupies its resource.
func (g *Graph) TaskDuration(t TaskID) int64 {
	tk := &g.Tasks[t]
	if tk.Bytes > 0 && tk.Resource >= 0 {
		r := &g.Resources[tk.Resource]
		if r.Bandwidth > 0 {
			return r.Overhead + int64(math.Ceil(float64(tk.Bytes)/r.Bandwidth))
		}
	}
	return tk.Duration
}

// Validate checks references and values; Run calls it.
func (g *Graph) Validate() error {
	if len(g.Tasks) > math.MaxInt32-1 {
		return fmt.Errorf("sim: %d tasks exceed the limit", len(g.Tasks))
	}
	for i := range g.Resources {
		r := &g.Resources[i]
		if r.Capacity < 0 {
			return fmt.Errorf("sim: resource %d %q: negative capacity %d", i, r.Name, r.Capacity)
		}
		if r.Bandwidth < 0 || math.IsNaN(r.Bandwidth) || math.IsInf(r.Bandwidth, 0) {
			return fmt.Errorf("sim: resource %d %q: bandwidth %v is not a finite non-negative number", i, r.Name, r.Bandwidth)
		}
		if r.Overhead < 0 {
			return fmt.Errorf("sim: resource %d %q: negative overhead %d", i, r.Name, r.Overhead)
		}
	}
	nr := ResourceID(len(g.Resources))
	for i := range g.Tasks {
		t := &g.Tasks[i]
		if t.Resource < None || t.Resource >= nr {
			return fmt.Errorf("sim: task %d %q: resource %d out of range [0,%d)", i, t.Name, t.Resource, nr)
		}
		if t.Duration < 0 || t.Bytes < 0 || t.Earliest < 0 {
			return fmt.Errorf("sim: task %d %q: negative duration, bytes or earliest start", i, t.Name)
		}
		if d := g.TaskDuration(TaskID(i)); d < 0 {
			return fmt.Errorf("sim: task %d %q: duration overflows", i, t.Name)
		}
	}
	nt := TaskID(len(g.Tasks))
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= nt || e.To < 0 || e.To >= nt {
			return fmt.Errorf("sim: edge %d: task out of range (%d -> %d, %d tasks)", i, e.From, e.To, nt)
		}
		if e.From == e.To {
			return fmt.Errorf("sim: edge %d: task %d %q depends on itself", i, e.From, g.Tasks[e.From].Name)
		}
		if e.Lag < 0 {
			return fmt.Errorf("sim: edge %d: negative lag %d", i, e.Lag)
		}
	}
	nc := CounterID(len(g.Counters))
	for i, d := range g.Deltas {
		if d.Task < 0 || d.Task >= nt {
			return fmt.Errorf("sim: counter delta %d: task %d out of range", i, d.Task)
		}
		if d.Counter < 0 || d.Counter >= nc {
			return fmt.Errorf("sim: counter delta %d: counter %d out of range", i, d.Counter)
		}
	}
	return nil
}

// capacity of resource r (at least 1).
func (g *Graph) capacity(r ResourceID) int {
	if c := g.Resources[r].Capacity; c > 0 {
		return c
	}
	return 1
}
