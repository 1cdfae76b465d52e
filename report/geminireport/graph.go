package geminireport

import (
	"fmt"
	"strconv"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// graphMaxWorkloads is the largest schedule drawn workload by workload;
// past it the graph shows one node per layer and core (with the count),
// which stays readable and light for a 2,000-workload schedule.
const graphMaxWorkloads = 300

// graphSection draws the schedule: workloads as nodes in one lane per
// core, coloured by layer, transfers as edges (core to core directly, and
// through DRAM as edges to and from a DRAM node). Every workload node
// carries data-workload-index, its position in core order then file order
// (the order of `inspect`'s per-core workload counts).
func graphSection(s *gemini.Schedule, name, prefix string) (report.Section, bool) {
	total := 0
	for _, c := range s.Cores {
		total += len(c.Workloads)
	}
	if total == 0 {
		return report.Section{}, false
	}
	sec := report.Section{ID: prefix + "graph", Title: "Graph: " + name}
	layerIdx := map[string]int{}
	var series []report.Series
	layerOf := func(l string) int {
		if i, ok := layerIdx[l]; ok {
			return i
		}
		layerIdx[l] = len(series)
		series = append(series, report.Series{Name: l})
		return layerIdx[l]
	}
	g := &report.Graph{Caption: fmt.Sprintf("%s in %s", humanize.Plural(total, "workload"), humanize.Plural(len(s.Cores), "core"))}
	collapsed := total > graphMaxWorkloads
	// Collapsed, a node stands for a layer on one core; when that is still
	// too many nodes (every layer on every core), for a layer on all cores.
	byCore := true
	if collapsed {
		pairs := map[string]bool{}
		for _, c := range s.Cores {
			for wi := range c.Workloads {
				pairs[strconv.Itoa(c.ID)+"/"+c.Workloads[wi].LayerName] = true
			}
		}
		byCore = len(pairs) <= graphMaxWorkloads
	}
	type wkey struct {
		core int
		id   int64
	}
	node := map[wkey]int{}    // workload -> node
	group := map[string]int{} // collapsed: "core/layer" -> node
	index := 0
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			li := layerOf(w.LayerName)
			if collapsed {
				k, lane, where := w.LayerName, 0, "all cores"
				if byCore {
					k, lane, where = strconv.Itoa(c.ID)+"/"+w.LayerName, c.ID+1, fmt.Sprintf("core %d", c.ID)
				}
				ni, ok := group[k]
				if !ok {
					ni = len(g.Nodes)
					group[k] = ni
					g.Nodes = append(g.Nodes, report.GraphNode{Label: w.LayerName, Series: li, Lane: lane, Key: "workload-count", Index: 0,
						Detail: []report.KV{{Key: "layer", Value: w.LayerName}, {Key: "where", Value: where}}})
				}
				n := &g.Nodes[ni]
				n.Index++
				n.Sub = fmt.Sprintf("%s: %s", where, humanize.Plural(n.Index, "workload"))
				node[wkey{c.ID, w.ID}] = ni
				index++
				continue
			}
			node[wkey{c.ID, w.ID}] = len(g.Nodes)
			det := []report.KV{
				{Key: "workload", Value: fmt.Sprintf("%d (core %d, key %d)", w.ID, c.ID, c.Key)},
				{Key: "layer", Value: w.LayerName + " (" + w.LayerType + ")"},
				{Key: "compute", Value: humanize.Count(w.Time) + " cycles"},
				{Key: "ofmap", Value: humanize.Bytes(w.OfmapSize)},
			}
			if w.Weight != nil && w.Weight.Size > 0 {
				det = append(det, report.KV{Key: "weight", Value: humanize.Bytes(w.Weight.Size)})
			}
			det = append(det, report.KV{Key: "inputs", Value: strconv.Itoa(len(w.Ifmaps))})
			g.Nodes = append(g.Nodes, report.GraphNode{Label: w.LayerName, Sub: fmt.Sprintf("core %d · wl %d", c.ID, w.ID), Series: li, Lane: c.ID + 1,
				Key: "workload-index", Index: index, Detail: det})
			index++
		}
	}
	seen := map[[2]int]bool{}
	addEdge := func(from, to int, label string) {
		if from == to || seen[[2]int{from, to}] {
			return
		}
		seen[[2]int{from, to}] = true
		g.Edges = append(g.Edges, report.GraphEdge{From: from, To: to, Label: label})
	}
	// Through DRAM: a workload that writes a tensor to DRAM feeds the
	// workloads that read a DRAM tensor depending on it.
	writer := map[int64]int{} // DRAM write transfer -> node
	for _, w := range s.DRAMWrites {
		if n, ok := node[wkey{w.Core, w.Workload}]; ok {
			writer[w.TransferID] = n
		}
	}
	readFrom := map[int64][]int{} // DRAM read transfer -> producing nodes
	for _, r := range s.DRAMReads {
		for _, id := range r.RelatedIfmap {
			if n, ok := writer[id]; ok {
				readFrom[r.TransferID] = append(readFrom[r.TransferID], n)
			}
		}
	}
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			to := node[wkey{c.ID, w.ID}]
			for _, o := range w.Ofmaps {
				for _, d := range o.Destinations {
					if !d.IsDRAM() && d.HasWorkload {
						if n, ok := node[wkey{d.Core, d.Workload}]; ok {
							addEdge(to, n, humanize.Bytes(o.Size))
						}
					}
				}
			}
			for _, in := range w.Ifmaps {
				for _, id := range in.TransferIDs {
					for _, from := range readFrom[id] {
						addEdge(from, to, "via DRAM")
					}
				}
			}
		}
	}
	// A core runs its workloads in order: the lane's dashed edges.
	for _, c := range s.Cores {
		for wi := 1; wi < len(c.Workloads); wi++ {
			a, b := node[wkey{c.ID, c.Workloads[wi-1].ID}], node[wkey{c.ID, c.Workloads[wi].ID}]
			if a != b && !seen[[2]int{a, b}] {
				seen[[2]int{a, b}] = true
				g.Edges = append(g.Edges, report.GraphEdge{From: a, To: b, Order: true})
			}
		}
	}
	g.Series = series
	if collapsed {
		per := "layer and core"
		if !byCore {
			per = "layer (all its cores)"
		}
		g.Note = fmt.Sprintf("%s are shown as %d nodes, one per %s, with the count in each; report a slice of the schedule to see its workloads one by one.",
			humanize.Plural(total, "workload"), len(g.Nodes), per)
	}
	sec.Intro = "Workloads in one lane per core (left to right by core), coloured by layer; solid edges are transfers between workloads (direct, or through DRAM), dashed ones a core's execution order. Click a workload for its size and compute time."
	sec.Blocks = []report.Block{g}
	return sec, true
}
