package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
	"github.com/spf13/pflag"
)

// geminiSimFlags are the Gemini simulator's own flags of `npukit sim`.
var geminiSimFlags struct {
	dramGBps   float64
	linkGBps   float64
	hopLatency int64
	prefetch   string
	zebu       string
}

func init() {
	d := timing.Default()
	geminiSimFlags.linkGBps, geminiSimFlags.hopLatency, geminiSimFlags.prefetch = d.LinkGBps, d.HopLatency, string(d.Prefetch)
	registerSimulator(Simulator{
		Kind: detect.GeminiIR,
		Flags: func(fs *pflag.FlagSet) {
			d := timing.Default()
			f := &geminiSimFlags
			fs.Float64Var(&f.dramGBps, "dram-bw", 0, "Gemini: DRAM bandwidth in GB/s (default: bwN of the file name, else 16)")
			fs.Float64Var(&f.linkGBps, "link-bw", d.LinkGBps, "Gemini: bandwidth of one NoC link in GB/s")
			fs.Int64Var(&f.hopLatency, "hop-latency", d.HopLatency, "Gemini: cycles per NoC hop")
			fs.StringVar(&f.prefetch, "prefetch", string(d.Prefetch), "Gemini: DRAM load prefetch rule: snapshot (a load starts once the previous workload ended) or hazard (only address write-after-read hazards hold it)")
			fs.StringVar(&f.zebu, "zebu", "", "Gemini: compare with a ZeBu emulator trace of the same run")
		},
		Run: runGeminiSim,
	})
	registerDemoStep(demoStep{order: 50, kind: detect.GeminiIR, name: "sim --trace (cores, DRAM, NoC)", run: geminiDemoSim})
}

// geminiDemoSim simulates the example schedule and writes its trace.
func geminiDemoSim(env *Env, path, outDir string) error {
	tp := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".sim-trace.json")
	out, err := runGeminiSim(env, detect.Result{Path: path, Kind: detect.GeminiIR}, SimOptions{Trace: tp})
	if err != nil {
		return err
	}
	r := out.(*geminiSimOutput).Result
	var dram, cores int64
	for _, c := range r.Cores {
		dram += c.WaitDRAM
		cores += c.WaitCores
	}
	fmt.Fprintf(env.Stdout, "%d cores: %s cycles; waiting on DRAM %s, on other cores %s core-cycles; DRAM %.2f GB/s achieved; trace: %s\n",
		len(r.Cores), humanize.Count(r.TotalCycles), humanize.Count(dram), humanize.Count(cores), r.DRAM.Achieved, tp)
	return nil
}

// geminiSimParams resolves the parameters for a file from the flags.
func geminiSimParams(path string) timing.Params {
	f := &geminiSimFlags
	p := timing.Default()
	p.LinkGBps, p.HopLatency, p.Prefetch = f.linkGBps, f.hopLatency, timing.Prefetch(f.prefetch)
	switch bw, ok := timing.BandwidthFromName(path); {
	case f.dramGBps != 0:
		p.DRAMGBps = f.dramGBps
	case ok:
		p.DRAMGBps = bw
	default:
		p.DRAMGBps = timing.DefaultDRAMGBps
	}
	return p
}

func runGeminiSim(env *Env, r detect.Result, opts SimOptions) (Output, error) {
	s, err := gemini.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	p := geminiSimParams(r.Path)
	res, err := timing.Simulate(s, p)
	if err != nil {
		return nil, err
	}
	out := &geminiSimOutput{File: r.Path, Variant: string(s.Variant), Result: res}
	for _, c := range s.Cores {
		out.Workloads += len(c.Workloads)
	}
	if geminiSimFlags.zebu != "" {
		tr, err := zebu.ReadFile(geminiSimFlags.zebu)
		if err != nil {
			return nil, fmt.Errorf("--zebu: %w", err)
		}
		out.Zebu = timing.Compare(res, tr)
	}
	if opts.Trace != "" {
		if err := trace.WriteFile(opts.Trace, res.Timeline, geminiTraceOptions(r.Path, res)); err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		out.Trace = opts.Trace
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
			{"dram_gbps", fmt.Sprint(p.DRAMGBps)},
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

type geminiSimOutput struct {
	File      string `json:"file"`
	Variant   string `json:"variant"`
	Workloads int    `json:"workloads"`
	*timing.Result
	Zebu  *timing.Comparison `json:"zebu,omitempty"`
	Trace string             `json:"trace,omitempty"`
}

func pctOf(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func (o *geminiSimOutput) WriteText(w io.Writer) error {
	r := o.Result
	p := r.Params
	cores := "cores"
	if len(r.Cores) == 1 {
		cores = "core"
	}
	fmt.Fprintf(w, "%s: Gemini schedule (%s IR), %d %s, %d workloads\n", o.File, o.Variant, len(r.Cores), cores, o.Workloads)
	fmt.Fprintf(w, "Total: %s cycles (%.1f us at %g GHz)\n", humanize.Count(r.TotalCycles), r.Micros, p.CoreGHz)
	fmt.Fprintf(w, "Model: DRAM %g GB/s (%.2f B/cycle, +%d cycles per transfer), prefetch %s, NoC links %g GB/s, %d cycles per hop\n\n",
		p.DRAMGBps, r.DRAM.BytesPerCycle, p.DRAMOverhead, p.Prefetch, p.LinkGBps, p.HopLatency)
	if r.QueueOrderRelaxed {
		fmt.Fprintf(w, "Note: the file's DRAM access order (tensor_order) contradicts its data dependencies (served in that order, a transfer would wait for work waiting on it); transfers were served as they became ready.\n\n")
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CORE\tKEY\tX,Y\tWORKLOADS\tBUSY (cycles)\tWAIT DRAM\tWAIT CORES\tOVERHEAD\tIDLE\tBUSY %")
	for _, c := range r.Cores {
		fmt.Fprintf(tw, "%d\t%d\t%d,%d\t%d\t%s\t%s\t%s\t%s\t%s\t%.1f\n", c.Core, c.Key, c.X, c.Y, c.Workloads,
			humanize.Count(c.Busy), humanize.Count(c.WaitDRAM), humanize.Count(c.WaitCores),
			humanize.Count(c.Overhead), humanize.Count(c.Idle), pctOf(c.Busy, r.TotalCycles))
	}
	tw.Flush()

	d := r.DRAM
	fmt.Fprintf(w, "\nDRAM: %d loads %s (weights %s), %d stores %s; busy %s cycles (%.1f%%); achieved %.2f GB/s of %g GB/s\n",
		d.Loads, humanize.Bytes(d.ReadBytes), humanize.Bytes(d.WeightBytes), d.Stores, humanize.Bytes(d.WriteBytes),
		humanize.Count(d.Busy), 100*d.Utilisation, d.Achieved, d.GBps)

	if len(r.Links) > 0 {
		fmt.Fprintln(w, "\nNoC links:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LINK\tTRANSFERS\tBYTES\tBUSY (cycles)\tBUSY %")
		for _, l := range r.Links {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\n", l.Name, l.Transfers, humanize.Bytes(l.Bytes), humanize.Count(l.Busy), pctOf(l.Busy, r.TotalCycles))
		}
		tw.Flush()
	}

	fmt.Fprintln(w, "\nLayers (cycles):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LAYER\tWORKLOADS\tSTART\tEND\tCOMPUTE\tWAIT DRAM\tWAIT CORES")
	for _, l := range r.Layers {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", l.Name, l.Workloads, l.Start, l.End, l.Compute, l.WaitDRAM, l.WaitCores)
	}
	tw.Flush()

	if z := o.Zebu; z != nil {
		fmt.Fprintf(w, "\nZeBu emulator: %s cycles; simulated %s cycles; error %+.2f%%; mean |layer duration error| %.2f%% over %d layers\n",
			humanize.Count(z.ZebuCycles), humanize.Count(z.SimCycles), z.ErrorPct, z.MeanAbsLayerErrorPct, len(z.Layers))
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LAYER\tSIM START\tSIM END\tZEBU START\tZEBU END\tDURATION ERROR %")
		for _, l := range z.Layers {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%+.2f\n", l.Name, l.SimStart, l.SimEnd, l.ZebuStart, l.ZebuEnd, l.ErrorPct)
		}
		tw.Flush()
	}
	if o.Trace != "" {
		fmt.Fprintf(w, "\nTrace written to %s (open in ui.perfetto.dev)\n", o.Trace)
	}
	return nil
}
