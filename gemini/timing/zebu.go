package timing

import (
	"github.com/npukit/npukit/gemini/zebu"
)

// Comparison sets a simulation beside an emulator trace of the same run.
type Comparison struct {
	SimCycles  int64   `json:"sim_cycles"`
	ZebuCycles int64   `json:"zebu_cycles"`
	ErrorPct   float64 `json:"error_pct"`
	// Layers in the order of the simulation's layers; only layers the
	// trace has compute instructions for.
	Layers []LayerComparison `json:"layers"`
	// MeanAbsLayerErrorPct is the mean of |error| over the layers' durations.
	MeanAbsLayerErrorPct float64 `json:"mean_abs_layer_error_pct"`
}

// LayerComparison is one layer's compute extent in both.
type LayerComparison struct {
	Name      string  `json:"name"`
	SimStart  int64   `json:"sim_start_cycle"`
	SimEnd    int64   `json:"sim_end_cycle"`
	ZebuStart int64   `json:"zebu_start_cycle"`
	ZebuEnd   int64   `json:"zebu_end_cycle"`
	ErrorPct  float64 `json:"duration_error_pct"`
}

// computeClass reports whether an emulator instruction class is a compute
// unit (its span is what the simulation's compute tasks model).
func computeClass(c string) bool { return c == "pe" || c == "vp" || c == "dt" }

// Compare compares a simulation with an emulator trace. The emulator runs
// one core: its workload ids (wkl) are matched with the workloads of the
// simulation's first core, grouped by layer name.
func Compare(res *Result, tr *zebu.Trace) *Comparison {
	cmp := &Comparison{SimCycles: res.TotalCycles, ZebuCycles: tr.Total()}
	cmp.ErrorPct = pct(cmp.SimCycles, cmp.ZebuCycles)
	type span struct{ start, end int64 }
	byWkl := map[int64]span{}
	for _, in := range tr.Insts {
		if in.Config || !computeClass(in.Class) {
			continue
		}
		s, ok := byWkl[in.Workload]
		if !ok {
			s = span{in.Start, in.End}
		}
		s.start = min(s.start, in.Start)
		s.end = max(s.end, in.End)
		byWkl[in.Workload] = s
	}
	ix := map[string]int{}
	for _, w := range res.Workloads {
		if w.Core != 0 {
			continue
		}
		z, ok := byWkl[w.ID]
		if !ok {
			continue
		}
		i, seen := ix[w.Layer]
		if !seen {
			i = len(cmp.Layers)
			ix[w.Layer] = i
			cmp.Layers = append(cmp.Layers, LayerComparison{
				Name: w.Layer, SimStart: w.Start, SimEnd: w.End, ZebuStart: z.start, ZebuEnd: z.end,
			})
		}
		l := &cmp.Layers[i]
		l.SimStart, l.SimEnd = min(l.SimStart, w.Start), max(l.SimEnd, w.End)
		l.ZebuStart, l.ZebuEnd = min(l.ZebuStart, z.start), max(l.ZebuEnd, z.end)
	}
	var sum float64
	for i := range cmp.Layers {
		l := &cmp.Layers[i]
		l.ErrorPct = pct(l.SimEnd-l.SimStart, l.ZebuEnd-l.ZebuStart)
		sum += abs(l.ErrorPct)
	}
	if len(cmp.Layers) > 0 {
		cmp.MeanAbsLayerErrorPct = sum / float64(len(cmp.Layers))
	}
	return cmp
}

func pct(got, want int64) float64 {
	if want == 0 {
		return 0
	}
	return 100 * float64(got-want) / float64(want)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
