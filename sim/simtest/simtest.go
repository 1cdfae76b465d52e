// Package simtest builds synthetic sim graphs of a chosen size for
// benchmarks and tests of the engine and its renderers.
package simtest

import (
	"fmt"

	"github.com/npukit/npukit/sim"
)

// Pipeline returns a graph of about n tasks shaped like an accelerator
// schedule: cores run workloads in order; each workload loads its input
// over one of the DMA engines (bandwidth-charged, in order), computes, and
// every fourth workload stores its result and feeds a workload on the
// next core (a flow edge with a latency). A counter tracks buffered bytes.
// The shape is fixed by the arguments: the same call gives the same graph.
func Pipeline(n, cores, engines int) *sim.Graph {
	if cores < 1 {
		cores = 1
	}
	if engines < 1 {
		engines = 1
	}
	g := &sim.Graph{Unit: "cycles"}
	g.Tasks = make([]sim.Task, 0, n+n/8)
	g.Edges = make([]sim.Edge, 0, 2*n)
	core := make([]sim.ResourceID, cores)
	for c := range core {
		core[c] = g.AddResource(sim.Resource{Name: fmt.Sprintf("core %d", c), Group: "cores", InOrder: true})
	}
	dma := make([]sim.ResourceID, engines)
	for d := range dma {
		dma[d] = g.AddResource(sim.Resource{Name: fmt.Sprintf("dma %d", d), Group: "dma", InOrder: true, Bandwidth: 16, Overhead: 64})
	}
	buf := g.AddCounter(sim.Counter{Name: "buffered bytes", Group: "memory"})
	// feed[c] is a producer waiting to feed core c's next workload, so
	// that every edge goes forward in task order (no deadlock with the
	// in-order cores).
	feed := make([]sim.TaskID, cores)
	for c := range feed {
		feed[c] = sim.None
	}
	for w := 0; len(g.Tasks) < n; w++ {
		c := w % cores
		bytes := int64(256 + (w*7919)%4096)
		ld := g.AddTask(sim.Task{Name: "load", Cat: "load", Resource: dma[w%engines], Bytes: bytes, Tag: int32(w)})
		cp := g.AddTask(sim.Task{Name: "compute", Cat: "compute", Resource: core[c], Duration: int64(100 + (w*104729)%900), Tag: int32(w)})
		g.AddEdge(sim.Edge{From: ld, To: cp, Flow: true})
		if p := feed[c]; p != sim.None {
			g.AddEdge(sim.Edge{From: p, To: cp, Lag: 10, Flow: true})
			feed[c] = sim.None
		}
		g.AddDelta(ld, buf, false, bytes)
		g.AddDelta(cp, buf, true, -bytes)
		if w%4 == 3 {
			st := g.AddTask(sim.Task{Name: "store", Cat: "store", Resource: dma[(w+1)%engines], Bytes: bytes / 2, Tag: int32(w)})
			g.AddDep(cp, st)
			if cores > 1 {
				feed[(c+1)%cores] = cp
			}
		}
	}
	return g
}
