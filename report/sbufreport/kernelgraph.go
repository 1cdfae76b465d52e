package sbufreport

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/report"
)

// Engine colours of a kernel graph; tensors are coloured by memory.
var kernelSeries = []report.Series{
	{Name: "TensorE", Color: "#6cc070"},
	{Name: "VectorE", Color: "#6aa8e0"},
	{Name: "ScalarE", Color: "#e6c84b"},
	{Name: "GpSimdE", Color: "#c58be0"},
	{Name: "DMA", Color: "#f0a04b"},
	{Name: "other call", Color: "#b8bcc4"},
	{Name: "SBUF tensor", Color: "#eef2f7"},
	{Name: "PSUM tensor", Color: "#fde9d6"},
	{Name: "HBM tensor", Color: "#e4e6ea"},
}

// engineSeries is an engine's colour: the first five series follow
// neuroncore's one table of engine names (Tensor, Vector, Scalar, GpSimd,
// then Sync, which triggers the DMA), read by AWS's name or the NEFF's
// short key.
func engineSeries(engine string) int {
	e := strings.ToLower(engine)
	if e == "dma" {
		return 4
	}
	for i, n := range neuroncore.EngineNames() {
		if e == strings.ToLower(n.Name) || e == n.NEFFKey {
			return i
		}
	}
	return 5
}

func bufferSeries(buffer string) int {
	b := strings.ToLower(buffer)
	switch {
	case strings.Contains(b, "psum"):
		return 7
	case strings.Contains(b, "sbuf"):
		return 6
	}
	return 8
}

// KernelGraphSection draws a traced kernel: its engine calls (one node
// each, in the order `nki inspect` lists them: data-call-index) and the
// tensors they read and write, each with its buffer and allocation.
func KernelGraphSection(ck *nki.Checked) (report.Section, bool) {
	if ck == nil || ck.Trace == nil || len(ck.Trace.Calls) == 0 {
		return report.Section{}, false
	}
	res := ck.Trace
	// The lowering knows what the trace's call records leave out: the
	// engine each instruction runs on, and the tensor an instruction's
	// result is assigned to (t = nl.load(x) writes t).
	type siteKey struct {
		fn, file string
		line     int
	}
	engine := map[siteKey]string{}
	writes := map[siteKey]map[string]bool{}
	for st, ps := range ck.Steps {
		k := siteKey{ps.Fn, ps.Site.File, ps.Site.Line}
		engine[k] = st.Engine.String()
		for _, w := range ps.Writes {
			if w.Rec != nil {
				if writes[k] == nil {
					writes[k] = map[string]bool{}
				}
				writes[k][w.Rec.ID] = true
			}
		}
	}
	// The kernel's file is named once, in the caption; a node says where
	// it is by line (by file and line when a call or tensor lies in a
	// module the kernel imports).
	g := &report.Graph{Caption: fmt.Sprintf("%s, %s", humanize.Plural(len(res.Calls), "engine call"), humanize.Plural(len(res.Tensors), "tensor")), Series: kernelSeries}
	if res.File != "" {
		g.Caption = res.File + ": " + g.Caption
	}
	where := func(s nki.Site) string {
		if s.File == res.File || s.File == "" {
			return fmt.Sprintf("line %d", s.Line)
		}
		return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
	}
	loops := map[string]*nki.LoopRec{}
	for _, l := range res.Loops {
		loops[l.ID] = l
	}
	nameOf := map[string]string{}
	for _, t := range res.Tensors {
		if t.Name != "" {
			nameOf[t.ID] = t.Name
		}
	}
	names := func(ids []string) string {
		out := make([]string, len(ids))
		for k, id := range ids {
			out[k] = id
			if n, ok := nameOf[id]; ok {
				out[k] = n
			}
		}
		return strings.Join(out, ", ")
	}
	callWrites := make([][]string, len(res.Calls))
	for i, c := range res.Calls {
		k := siteKey{c.Fn, c.Site.File, c.Site.Line}
		if c.Engine == "" {
			c2 := *c
			c2.Engine = engine[k]
			c = &c2
		}
		callWrites[i] = append(callWrites[i], c.Writes...)
		for id := range writes[k] {
			if !slices.Contains(callWrites[i], id) {
				callWrites[i] = append(callWrites[i], id)
			}
		}
		slices.Sort(callWrites[i])
		sub := where(c.Site)
		if c.Executed > 1 {
			sub += fmt.Sprintf(" · ×%s", humanize.Count(c.Executed))
		}
		det := []report.KV{
			{Key: "call", Value: c.Fn},
			{Key: "engine", Value: c.Engine},
			{Key: "where", Value: where(c.Site)},
			{Key: "executed", Value: fmt.Sprintf("%s with loops unrolled (traced %s)", times(c.Executed), times(c.Traced))},
		}
		if l := loops[c.Loop]; l != nil {
			det = append(det, report.KV{Key: "loop", Value: fmt.Sprintf("%s (%s, %s)", l.Iter, l.Kind, where(l.At))})
		}
		if len(c.Reads) > 0 {
			det = append(det, report.KV{Key: "reads", Value: names(c.Reads)})
		}
		if len(callWrites[i]) > 0 {
			det = append(det, report.KV{Key: "writes", Value: names(callWrites[i])})
		}
		g.Nodes = append(g.Nodes, report.GraphNode{Label: c.Fn, Sub: sub, Series: engineSeries(c.Engine), Key: "call-index", Index: i, Detail: det})
	}
	tensor := map[string]int{}
	for _, t := range res.Tensors {
		name := t.Name
		if name == "" {
			name = t.ID
		}
		shape := make([]string, len(t.Shape))
		for k, d := range t.Shape {
			shape[k] = fmt.Sprint(d)
		}
		det := []report.KV{{Key: "tensor", Value: name}, {Key: "shape", Value: "(" + strings.Join(shape, ", ") + ") " + string(t.DType)}, {Key: "buffer", Value: t.Buffer}}
		if t.Alloc != nil {
			det = append(det, report.KV{Key: "allocation", Value: allocText(t)})
		}
		if t.Site != nil {
			det = append(det, report.KV{Key: "declared", Value: where(*t.Site)})
		}
		tensor[t.ID] = len(g.Nodes)
		g.Nodes = append(g.Nodes, report.GraphNode{Label: name, Sub: t.Buffer + " [" + strings.Join(shape, "x") + "]", Series: bufferSeries(t.Buffer), Detail: det})
	}
	for i, c := range res.Calls {
		for _, r := range c.Reads {
			if t, ok := tensor[r]; ok {
				g.Edges = append(g.Edges, report.GraphEdge{From: t, To: i})
			}
		}
		for _, w := range callWrites[i] {
			if t, ok := tensor[w]; ok {
				g.Edges = append(g.Edges, report.GraphEdge{From: i, To: t})
			}
		}
	}
	return report.Section{ID: "kernel-graph", Title: "Kernel graph",
		Intro:  "The traced kernel's engine calls, coloured by engine, and the tensors they read and write, coloured by memory; click a node for its line, loop, executions and allocation.",
		Blocks: []report.Block{g}}, true
}

// allocText says how a tensor is allocated: its kind (auto, address,
// sbuf.mod_alloc, ...), an address's partition and byte offset, and how
// many logical and physical tiles back it.
func allocText(t *nki.TensorRec) string {
	a := t.Alloc
	s := a.Kind
	if a.Partition != nil && a.Offset != nil {
		s += fmt.Sprintf(" at partition %d, byte %d", *a.Partition, *a.Offset)
	}
	if len(a.Tiles) > 0 {
		s += fmt.Sprintf(", %s", humanize.Plural(len(a.Tiles), "logical tile"))
	}
	if a.PhysicalTiles > 0 {
		s += fmt.Sprintf(" on %s", humanize.Plural(a.PhysicalTiles, "physical tile"))
	}
	return s
}

func times(n int64) string {
	if n == 1 {
		return "once"
	}
	return humanize.Count(n) + " times"
}
