package npukit

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// geminiSimParams are the timing parameters a schedule named name is
// simulated with: timing.Default with the DRAM bandwidth of the file name
// (bwN) when it has one, adjusted by o.GeminiSim.
func geminiSimParams(name string, o *Options) timing.Params {
	p := timing.ForName(name)
	if o != nil && o.ClockGHz > 0 {
		p.CoreGHz, p.Source.Clock = o.ClockGHz, "given"
	}
	if o != nil && o.GeminiSim != nil {
		p = o.GeminiSim(p)
	}
	return p
}

func simulateGemini(a *Artifact, o *Options) (Output, error) {
	s, err := a.GeminiSchedule()
	if err != nil {
		return nil, err
	}
	res, err := timing.Simulate(s, geminiSimParams(a.Name, o))
	if err != nil {
		return nil, err
	}
	out := &GeminiSimulation{File: a.Name, Variant: string(s.Variant), Result: res, allLayers: o.Layers, TensorIdentity: gemini.IdentifyTensors(s).Assumption()}
	for _, c := range s.Cores {
		out.Workloads += len(c.Workloads)
	}
	if o.ZebuTrace != nil {
		tr, err := zebu.Parse(bytes.NewReader(o.ZebuTrace))
		if err != nil {
			return nil, fmt.Errorf("the ZeBu trace: %w", err)
		}
		if out.Zebu, err = timing.Compare(res, tr); err != nil {
			return nil, err
		}
	}
	if o.TracePath != "" {
		if err := trace.WriteFile(o.TracePath, res.Timeline, geminiTraceOptions(a.Name, res)); err != nil {
			return nil, fmt.Errorf("the trace: %w", err)
		}
		out.Trace = o.TracePath
	}
	return out, nil
}

// geminiTraceOptions names the run in the trace and gives each event the
// workload, transfer and byte arguments a user looks for in Perfetto.
func geminiTraceOptions(path string, res *timing.Result) trace.Options {
	p := res.Params
	return trace.Options{
		NanosPerUnit: 1 / p.CoreGHz,
		Metadata: [][2]string{
			{"schedule", filepath.Base(path)},
			{"model", "npukit gemini/timing"},
			{"dram_gb_per_s", fmt.Sprint(p.DRAMGBps)},
			{"total_cycles", fmt.Sprint(res.TotalCycles)},
		},
		Args: func(t sim.TaskID, a *trace.Args) {
			tk := &res.Timeline.Graph.Tasks[t]
			in := &res.Tasks[tk.Tag]
			a.Int("core", int64(in.Core))
			a.Int("workload_index", int64(in.Workload))
			switch in.Cat {
			case timing.CatCompute:
				a.Int("tile", int64(in.Tile))
			default:
				a.Int("bytes", in.Bytes)
				for i, id := range res.TaskTransfers(in) {
					if i == 8 {
						break
					}
					a.Int(fmt.Sprintf("transfer_%d", i), id)
				}
			}
			if in.Order >= 0 {
				a.Int("tensor_order", in.Order)
			}
			a.Int("wait_cycles", res.Timeline.Start[t]-res.Timeline.Ready[t])
		},
	}
}

// GeminiSimulation is the simulated timing of a Gemini schedule
// (Simulate's Output for schedules).
type GeminiSimulation struct {
	File      string `json:"file"`
	Variant   string `json:"variant"`
	Workloads int    `json:"workloads"`
	*timing.Result
	Zebu  *timing.Comparison `json:"zebu,omitempty"`
	Trace string             `json:"trace,omitempty"`
	// allLayers prints the per-layer tables in full (Options.Layers).
	allLayers bool
	// TensorIdentity says how the L2 tensors were identified (for the
	// address hazards and the DRAM queue) when not by tensor_id.
	TensorIdentity string `json:"tensor_identity,omitempty"`
}

// geminiSimLayerRows is the most layers a simulation's text prints
// without --layers (issue 32: a 2,000-workload schedule printed a
// 2,067-line table by default); past it the text names the longest
// layers and says how to get them all.
const geminiSimLayerRows = 40

// shownLayers returns the indices of the layers the text prints: all of
// them, or the geminiSimLayerRows longest in program order.
func shownLayers(n int, all bool, dur func(i int) int64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if all || n <= geminiSimLayerRows {
		return idx
	}
	sort.SliceStable(idx, func(a, b int) bool { return dur(idx[a]) > dur(idx[b]) })
	idx = idx[:geminiSimLayerRows]
	sort.Ints(idx)
	return idx
}

func pctOf(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// WriteText prints the totals, then per core, DRAM, NoC link and layer
// tables (the longest layers only of a long schedule unless
// Options.Layers) and the comparison with a ZeBu trace.
func (o *GeminiSimulation) WriteText(w io.Writer) error {
	r := o.Result
	p := r.Params
	fmt.Fprintf(w, "%s: Gemini schedule (%s IR), %s, %s\n", o.File, o.Variant, humanize.Plural(len(r.Cores), "core"), humanize.Plural(o.Workloads, "workload"))
	fmt.Fprintf(w, "Total: %s cycles (%s at %g GHz)\n", humanize.Count(r.TotalCycles), humanize.Micros(r.Micros), p.CoreGHz)
	fmt.Fprintf(w, "Model: %s\n\n", p.ModelLine())
	if o.TensorIdentity != "" {
		fmt.Fprintf(w, "L2 tensors: %s\n\n", o.TensorIdentity)
	}
	if r.QueueOrderRelaxed {
		fmt.Fprintf(w, "Note: the file's DRAM access order (tensor_order) contradicts its data dependencies (served in that order, a transfer would wait for work waiting on it); transfers were served as they became ready.\n\n")
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CORE\tKEY\tX,Y\tWORKLOADS\tBUSY (cycles)\tWAIT DRAM\tWAIT CORES\tOVERHEAD\tIDLE\tBUSY %")
	for _, c := range r.Cores {
		fmt.Fprintf(tw, "%d\t%d\t%d,%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n", c.Core, c.Key, c.X, c.Y, humanize.Count(int64(c.Workloads)),
			humanize.Count(c.Busy), humanize.Count(c.WaitDRAM), humanize.Count(c.WaitCores),
			humanize.Count(c.Overhead), humanize.Count(c.Idle), pctOf(c.Busy, r.TotalCycles))
	}
	tw.Flush()
	if len(r.Cores) > 1 {
		fmt.Fprintln(w, "WAIT CORES: waiting for another core's work (its ofmap, sent directly or written to DRAM and read here).")
	}

	d := r.DRAM
	fmt.Fprintf(w, "\nDRAM: %s %s (weights %s; one load per consuming core), %s %s; busy %s cycles (%.1f%%); achieved %.2f GB/s of %.1f GB/s\n",
		humanize.Plural(d.Loads, "load"), humanize.Bytes(d.ReadBytes), humanize.Bytes(d.WeightBytes), humanize.Plural(d.Stores, "store"), humanize.Bytes(d.WriteBytes),
		humanize.Count(d.Busy), 100*d.Utilisation, d.Achieved, d.GBps)
	if d.FromOtherCoreLoads+d.ToOtherCoreStores > 0 {
		fmt.Fprintf(w, "  inter-core through DRAM: %s %s read back by another core, %s %s of another core's ofmap (as inspect's DRAM routes)\n",
			humanize.Plural(d.ToOtherCoreStores, "store"), humanize.Bytes(d.ToOtherCoreBytes), humanize.Plural(d.FromOtherCoreLoads, "load"), humanize.Bytes(d.FromOtherCoreBytes))
		fmt.Fprintf(w, "  other loads: %s of the same core's own stores %s, %s %s; other stores: %s read back by the same core only %s, %s not read back %s\n",
			humanize.Count(int64(d.FromSameCoreLoads)), humanize.Bytes(d.FromSameCoreBytes), humanize.Plural(d.InputLoads, "input"), humanize.Bytes(d.InputBytes),
			humanize.Count(int64(d.ToSameCoreStores)), humanize.Bytes(d.ToSameCoreBytes), humanize.Count(int64(d.NotReadBackStores)), humanize.Bytes(d.NotReadBackBytes))
	}

	if len(r.Links) > 0 {
		fmt.Fprintln(w, "\nNoC links:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LINK\tTRANSFERS\tBYTES\tBUSY (cycles)\tBUSY %")
		for _, l := range r.Links {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\n", l.Name, humanize.Count(int64(l.Transfers)), humanize.Bytes(l.Bytes), humanize.Count(l.Busy), pctOf(l.Busy, r.TotalCycles))
		}
		tw.Flush()
		fmt.Fprintln(w, "(positions are (x,y) on the mesh; x = -1 and the column right of the last core are the DRAM ports at each row's ends: links to and from them carry each core's DRAM loads and stores, one load per consuming core)")
	}

	c := humanize.Count
	show := shownLayers(len(r.Layers), o.allLayers, func(i int) int64 { return r.Layers[i].End - r.Layers[i].Start })
	if len(show) < len(r.Layers) {
		fmt.Fprintf(w, "\nLayers (cycles): the %s longest of %s, in program order (--layers prints all; --json has all):\n", c(int64(len(show))), c(int64(len(r.Layers))))
	} else {
		fmt.Fprintln(w, "\nLayers (cycles):")
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LAYER\tWORKLOADS\tSTART\tEND\tCOMPUTE\tWAIT DRAM\tWAIT CORES")
	for _, i := range show {
		l := r.Layers[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Name, c(int64(l.Workloads)), c(l.Start), c(l.End), c(l.Compute), c(l.WaitDRAM), c(l.WaitCores))
	}
	tw.Flush()

	if z := o.Zebu; z != nil {
		fmt.Fprintf(w, "\nZeBu emulator: %s cycles; simulated %s cycles; error %+.2f%%; mean |layer duration error| %.2f%% over %s\n",
			humanize.Count(z.ZebuCycles), humanize.Count(z.SimCycles), z.ErrorPct, z.MeanAbsLayerErrorPct, humanize.Plural(len(z.Layers), "layer"))
		fmt.Fprintf(w, "(%s; a layer spans its compute instructions (pe, vp, dt), and TRACE is its number in the trace, as `inspect` of the trace prints it)\n", z.Calibration)
		zshow := shownLayers(len(z.Layers), o.allLayers, func(i int) int64 { return z.Layers[i].ZebuEnd - z.Layers[i].ZebuStart })
		if len(zshow) < len(z.Layers) {
			fmt.Fprintf(w, "the %s longest layers of %s on the emulator (--layers prints all; --json has all):\n", c(int64(len(zshow))), c(int64(len(z.Layers))))
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LAYER\tTRACE\tSIM START\tSIM END\tZEBU START\tZEBU END\tDURATION ERROR %")
		for _, i := range zshow {
			l := z.Layers[i]
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%+.2f\n", l.Name, l.TraceLayer, c(l.SimStart), c(l.SimEnd), c(l.ZebuStart), c(l.ZebuEnd), l.ErrorPct)
		}
		tw.Flush()
	}
	if o.Trace != "" {
		fmt.Fprintf(w, "\nTrace written to %s (open in ui.perfetto.dev)\n", o.Trace)
	}
	return nil
}
