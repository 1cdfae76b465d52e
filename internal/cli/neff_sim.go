package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
	"github.com/spf13/pflag"
)

func init() {
	registerSimulator(Simulator{Kind: detect.NEFF, Flags: neffSimFlagSet, Run: runNeffSim})
}

// neffSimFlags holds the DMA timing overrides of `npukit sim x.neff`.
var neffSimFlags struct {
	engines  int
	gibps    float64
	overhead int64
	minRun   int64
}

func neffSimFlagSet(fs *pflag.FlagSet) {
	d := dma.DefaultSimParams()
	fs.IntVar(&neffSimFlags.engines, "dma-engines", d.Engines, "NEFF: DMA engines per NeuronCore")
	fs.Float64Var(&neffSimFlags.gibps, "dma-gibps", d.BytesPerNs*1e9/float64(1<<30), "NEFF: bandwidth of one DMA engine in GiB/s")
	fs.Int64Var(&neffSimFlags.overhead, "dma-overhead-ns", d.OverheadNs, "NEFF: fixed cost of one DMA descriptor in ns")
	fs.Int64Var(&neffSimFlags.minRun, "dma-min-run", d.MinChargedRun, "NEFF: contiguous runs shorter than this many bytes cost as much as this")
}

func neffSimParams() (dma.SimParams, error) {
	p := dma.DefaultSimParams()
	f := neffSimFlags
	if f.engines != 0 || f.gibps != 0 {
		// Flags were registered (the sim command); validate them.
		if f.engines < 1 || f.engines > 1024 {
			return p, usageErr("--dma-engines %d: want 1..1024", f.engines)
		}
		if !(f.gibps > 0) || f.gibps > 1e6 {
			return p, usageErr("--dma-gibps %g: want a positive bandwidth", f.gibps)
		}
		if f.overhead < 0 || f.minRun < 0 {
			return p, usageErr("--dma-overhead-ns and --dma-min-run must not be negative")
		}
		p.Engines, p.BytesPerNs, p.OverheadNs, p.MinChargedRun = f.engines, f.gibps*float64(1<<30)/1e9, f.overhead, f.minRun
	}
	return p, nil
}

type neffSimSubgraph struct {
	Subgraph string         `json:"subgraph"`
	Result   *dma.SimResult `json:"result"`
	Trace    string         `json:"trace,omitempty"`
}

type neffSimOutput struct {
	File      string            `json:"file"`
	TotalNs   int64             `json:"total_ns"` // subgraphs one after another
	Params    dma.SimParams     `json:"params"`
	Subgraphs []neffSimSubgraph `json:"subgraphs"`
}

func us(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e3) }

func (o neffSimOutput) WriteText(w io.Writer) error {
	p := o.Params
	fmt.Fprintf(w, "NEFF DMA simulation: %s\n", o.File)
	fmt.Fprintf(w, "Model: %d DMA engines, %.1f GiB/s each, %d ns per descriptor, runs under %d B charged as %d B\n",
		p.Engines, p.BytesPerNs*1e9/float64(1<<30), p.OverheadNs, p.MinChargedRun, p.MinChargedRun)
	fmt.Fprintf(w, "Total DMA time: %s us\n", us(o.TotalNs))
	for _, sg := range o.Subgraphs {
		r := sg.Result
		fmt.Fprintf(w, "\nSubgraph %s: %s descriptors, %s, DMA time %s us, achieved %.2f GB/s\n",
			sg.Subgraph, humanize.Count(int64(r.Descriptors)), humanize.Bytes(r.Bytes), us(r.TotalNs), r.AchievedGBps)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "QUEUE\tENGINES\tDESCRIPTORS\tBYTES\tBUSY us\tFIRST us\tLAST us\tGB/s\t")
		for _, q := range r.Queues {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%.2f\t\n", q.Queue, engineList(q.Engines), q.Descriptors, humanize.Bytes(q.Bytes), us(q.BusyNs), us(q.FirstStartNs), us(q.LastEndNs), q.AchievedGBps)
		}
		tw.Flush()
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ENGINE\tDESCRIPTORS\tBYTES\tBUSY us\tUTILISATION\t")
		for _, e := range r.Engines {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.1f%%\t\n", e.Engine, e.Descriptors, humanize.Bytes(e.Bytes), us(e.BusyNs), 100*e.Utilisation)
		}
		tw.Flush()
		if sg.Trace != "" {
			fmt.Fprintf(w, "Trace: %s (open in ui.perfetto.dev)\n", sg.Trace)
		}
	}
	return nil
}

func engineList(es []int) string {
	if len(es) == 0 {
		return "-"
	}
	if len(es) > 1 && es[len(es)-1]-es[0] == len(es)-1 {
		return fmt.Sprintf("%d-%d", es[0], es[len(es)-1])
	}
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = fmt.Sprint(e)
	}
	return strings.Join(s, ",")
}

// neffTracePath names the trace of one subgraph: the path itself for a
// single subgraph, PATH with ".SUBGRAPH" before the extension otherwise.
func neffTracePath(path, sg string, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + sg + ext
}

func runNeffSim(env *Env, r detect.Result, opts SimOptions) (Output, error) {
	params, err := neffSimParams()
	if err != nil {
		return nil, err
	}
	_, progs, err := openNeffPrograms(r.Path)
	if err != nil {
		return nil, err
	}
	out := neffSimOutput{File: r.Path, Params: params}
	for _, p := range progs {
		descs := p.Ordered()
		res, tl, err := dma.Simulate(descs, p.Queues, params)
		if err != nil {
			return nil, err
		}
		out.TotalNs += res.TotalNs
		sg := neffSimSubgraph{Subgraph: p.Subgraph, Result: res}
		if opts.Trace != "" {
			sg.Trace = neffTracePath(opts.Trace, p.Subgraph, len(progs))
			if err := writeNeffTrace(sg.Trace, p.Subgraph, descs, tl); err != nil {
				return nil, err
			}
		}
		out.Subgraphs = append(out.Subgraphs, sg)
	}
	return out, nil
}

// writeNeffTrace writes one event per descriptor (descs as simulated) on the track of its DMA
// engine, named by the entry's #comment (or its position when it has
// none), with the descriptor's location, queue and bytes as arguments.
func writeNeffTrace(path, subgraph string, descs []dma.Descriptor, tl *sim.Timeline) error {
	for i := range tl.Graph.Tasks {
		t := &tl.Graph.Tasks[i]
		if t.Name == "" {
			d := descs[t.Tag]
			t.Name = fmt.Sprintf("dma[%d].desc[%d]", d.Index, d.Desc)
		}
	}
	return trace.WriteFile(path, tl, trace.Options{
		NanosPerUnit: 1,
		Args: func(id sim.TaskID, a *trace.Args) {
			d := descs[tl.Graph.Tasks[id].Tag]
			a.Str("location", d.Location())
			a.Str("queue", d.Queue)
			a.Str("op", string(d.Transfer.Op))
			a.Int("bytes", d.Transfer.To.Pattern.Bytes())
		},
		Metadata: [][2]string{{"subgraph", subgraph}, {"model", "npukit NEFF DMA simulation"}},
	})
}
