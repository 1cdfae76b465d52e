package edgetpureport

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"strconv"
	"strings"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/report"
)

// Colours of where an operator runs: the Edge TPU green, the CPU orange,
// model inputs and outputs grey.
var graphSeries = []report.Series{
	{Name: "Edge TPU", Color: "#6cc070"},
	{Name: "CPU", Color: "#f0a04b"},
	{Name: "model input / output", Color: "#d9dce1"},
}

const (
	seriesTPU = iota
	seriesCPU
	seriesIO
)

func shapeText(sh []int32) string {
	s := make([]string, len(sh))
	for i, d := range sh {
		s[i] = strconv.Itoa(int(d))
	}
	if len(s) == 0 {
		return "scalar"
	}
	return strings.Join(s, "x")
}

func tensorText(t *edgetpu.Tensor) string {
	return shapeText(t.Shape) + " " + strings.ToLower(t.Type.String())
}

// graphSection draws each subgraph's operators as Netron does (top to
// bottom, the tensors they exchange on the edges), coloured by where they
// run: from the file for a compiled model, from the predicted mapping
// (npukit edgetpu plan) for an uncompiled one. Edges between the Edge TPU
// and the CPU are the hand-over tensors, marked as such.
func graphSection(i int, nm edgetpu.NamedModel) (report.Section, bool) {
	t := nm.Model.TFLite
	if t == nil || t.NumOperators() == 0 {
		return report.Section{}, false
	}
	sec := report.Section{ID: fmt.Sprintf("graph-%d", i), Title: "Graph: " + nm.Path}
	var plan *edgetpu.Plan
	compiled := len(nm.Model.Ops) > 0
	if compiled {
		sec.Intro = "The model's operators as the runtime sees them: the compiled part is the Edge TPU op; click an operator for its tensors."
	} else {
		plan = edgetpu.PlanModel(t, edgetpu.PlanOptions{})
		sec.Intro = fmt.Sprintf("Not compiled: colours show where the Edge TPU compiler %d would run each operator (npukit edgetpu plan); click one for the reason and the fix.", plan.Compiler)
	}
	// What `npukit sim` estimates for each operator of the main subgraph
	// on the default host, steady state: the compiled model's own parts,
	// or, for an uncompiled model, the parts of its predicted mapping.
	timeOf := map[int]float64{}
	var est *edgetpu.Latency
	if h, ok := edgetpu.HostByName(edgetpu.DefaultHost); ok {
		if compiled {
			est, _ = edgetpu.EstimateModel(nm.Model, h, edgetpu.LatencyOptions{Twin: nm.Twin, TwinNote: nm.TwinNote})
		} else if plan.TPU > 0 {
			est = edgetpu.EstimatePlan(t, plan, h, edgetpu.LatencyOptions{})
		} else {
			est, _ = edgetpu.EstimateModel(nm.Model, h, edgetpu.LatencyOptions{})
		}
	}
	if est != nil {
		for _, p := range est.Parts {
			if p.Op >= 0 && !p.FirstOnly {
				timeOf[p.Op] += p.Us
			}
		}
	}
	planOf := map[[2]int]*edgetpu.OpPlan{}
	if plan != nil {
		for k := range plan.Ops {
			planOf[[2]int{plan.Ops[k].Subgraph, plan.Ops[k].Index}] = &plan.Ops[k]
		}
	}
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		if len(sg.Operators) == 0 {
			continue
		}
		g := &report.Graph{Caption: fmt.Sprintf("subgraph %d%s: %s", si, nameSuffix(sg.Name), humanize.Plural(len(sg.Operators), "operator")), Series: graphSeries,
			Attr: [2]string{"subgraph", strconv.Itoa(si)}}
		producer := map[int32]int{} // tensor -> node
		tensorOK := func(ti int32) bool { return ti >= 0 && int(ti) < len(sg.Tensors) }
		place := make([]int, len(sg.Operators))
		for oi := range sg.Operators {
			op := &sg.Operators[oi]
			code := "?"
			if int(op.OpcodeIndex) < len(t.OperatorCodes) {
				code = t.OperatorCodes[op.OpcodeIndex].Label()
			}
			n := report.GraphNode{Label: code, Key: "op-index", Index: oi, Series: seriesCPU}
			if len(op.Outputs) > 0 && tensorOK(op.Outputs[0]) {
				n.Sub = tensorText(&sg.Tensors[op.Outputs[0]])
			}
			n.Detail = append(n.Detail, report.KV{Key: "operator", Value: fmt.Sprintf("#%d %s (subgraph %d)", oi, code, si)})
			switch {
			case compiled && strings.Contains(code, "edgetpu-custom-op"):
				n.Series = seriesTPU
				n.Detail = append(n.Detail, report.KV{Key: "runs on", Value: "Edge TPU (the compiled part of the model)"})
			case compiled:
				n.Detail = append(n.Detail, report.KV{Key: "runs on", Value: "CPU"})
			default:
				if po := planOf[[2]int{si, oi}]; po != nil {
					if po.Placement == "TPU" {
						n.Series = seriesTPU
					}
					n.Detail = append(n.Detail, report.KV{Key: "compiler would", Value: po.Placement + ": " + po.Status})
					if po.Reason != "" && po.Placement != "TPU" {
						n.Detail = append(n.Detail, report.KV{Key: "why", Value: po.Reason})
					}
					if po.Fix != "" {
						n.Detail = append(n.Detail, report.KV{Key: "fix", Value: po.Fix})
					}
					if po.Uncertain != "" {
						n.Detail = append(n.Detail, report.KV{Key: "uncertain", Value: po.Uncertain})
					}
				}
			}
			if us, ok := timeOf[oi]; ok && si == 0 {
				n.Detail = append(n.Detail, report.KV{Key: "estimated time", Value: fmt.Sprintf("%s per inference on %s (npukit sim, steady state)", usText(us), edgetpu.DefaultHost)})
			}
			place[oi] = n.Series
			for _, ti := range op.Inputs {
				if tensorOK(ti) {
					n.Detail = append(n.Detail, report.KV{Key: "input", Value: tensorDetail(t, &sg.Tensors[ti])})
				}
			}
			for _, ti := range op.Outputs {
				if tensorOK(ti) {
					n.Detail = append(n.Detail, report.KV{Key: "output", Value: tensorDetail(t, &sg.Tensors[ti])})
					producer[ti] = oi
				}
			}
			g.Nodes = append(g.Nodes, n)
		}
		// Model inputs and outputs as their own small nodes, as Netron does.
		for _, ti := range sg.Inputs {
			if tensorOK(ti) {
				producer[ti] = len(g.Nodes)
				g.Nodes = append(g.Nodes, report.GraphNode{Label: sg.Tensors[ti].Name, Sub: tensorText(&sg.Tensors[ti]), Series: seriesIO,
					Detail: []report.KV{{Key: "model input", Value: tensorDetail(t, &sg.Tensors[ti])}}})
			}
		}
		for oi := range sg.Operators {
			for _, ti := range sg.Operators[oi].Inputs {
				p, ok := producer[ti]
				if !ok || !tensorOK(ti) {
					continue // a constant (weights) or an absent optional input
				}
				g.Edges = append(g.Edges, report.GraphEdge{From: p, To: oi, Label: edgeLabel(&sg.Tensors[ti], p < len(sg.Operators) && place[p] != place[oi])})
			}
		}
		for _, ti := range sg.Outputs {
			if !tensorOK(ti) {
				continue
			}
			k := len(g.Nodes)
			g.Nodes = append(g.Nodes, report.GraphNode{Label: sg.Tensors[ti].Name, Sub: tensorText(&sg.Tensors[ti]), Series: seriesIO,
				Detail: []report.KV{{Key: "model output", Value: tensorDetail(t, &sg.Tensors[ti])}}})
			if p, ok := producer[ti]; ok {
				g.Edges = append(g.Edges, report.GraphEdge{From: p, To: k, Label: tensorText(&sg.Tensors[ti])})
			}
		}
		sec.Blocks = append(sec.Blocks, g)
	}
	return sec, len(sec.Blocks) > 0
}

func nameSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// edgeLabel is the tensor's shape and type; a tensor handed between the
// Edge TPU and the CPU says so.
func edgeLabel(t *edgetpu.Tensor, handOver bool) string {
	s := tensorText(t)
	if handOver {
		return "hand-over: " + s
	}
	return s
}

func tensorDetail(m *edgetpu.TFLite, t *edgetpu.Tensor) string {
	s := fmt.Sprintf("%s [%s] %s", t.Name, shapeText(t.Shape), t.Type)
	if len(t.Scale) == 1 {
		zp := int64(0)
		if len(t.ZeroPoint) > 0 {
			zp = t.ZeroPoint[0]
		}
		s += fmt.Sprintf(", scale %g, zero point %s", t.Scale[0], humanize.Count(zp))
	} else if len(t.Scale) > 1 {
		s += fmt.Sprintf(", %s per-channel scales", humanize.Count(int64(len(t.Scale))))
	}
	if m.IsConstant(t) {
		s += " (constant)"
	}
	return s
}
