package npukit

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// NeffSimSubgraph is one subgraph of a NeffSimulation.
type NeffSimSubgraph struct {
	Subgraph string         `json:"subgraph"`
	Core     int            `json:"physical_core"`
	StartNs  int64          `json:"start_ns"`
	Result   *dma.SimResult `json:"result"`
	Trace    string         `json:"trace,omitempty"`
}

// NeffSimulation is the simulated DMA of a NEFF (Simulate's Output for
// NEFFs).
type NeffSimulation struct {
	File      string            `json:"file"`
	Setup     dmaprog.Setup     `json:"setup"`
	TotalNs   int64             `json:"total_ns"` // the longest physical core
	Params    dma.SimParams     `json:"params"`
	Subgraphs []NeffSimSubgraph `json:"subgraphs"`
}

func us(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e3) }

func (o NeffSimulation) WriteText(w io.Writer) error {
	p := o.Params
	fmt.Fprintf(w, "NEFF DMA simulation: %s\n", o.File)
	fmt.Fprintf(w, "Model: %s, %d DMA engines per core, %.1f GiB/s each, %d ns per descriptor, runs under %d B charged as %d B\n",
		o.Setup.NeuronCore, p.Engines, p.BytesPerNs*1e9/float64(1<<30), p.OverheadNs, p.MinChargedRun, p.MinChargedRun)
	if o.Setup.LNC > 1 {
		fmt.Fprintf(w, "LNC %d: the subgraphs run at the same time on %d physical cores (subgraph i on core i mod %d), each with its own DMA engines; the total is the longest core's\n",
			o.Setup.LNC, o.Setup.LNC, o.Setup.LNC)
	} else if len(o.Subgraphs) > 1 {
		fmt.Fprintf(w, "LNC 1: the %d subgraphs run one after another on one core\n", len(o.Subgraphs))
	}
	for _, n := range o.Setup.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	fmt.Fprintf(w, "Total DMA time: %s us\n", us(o.TotalNs))
	for _, sg := range o.Subgraphs {
		r := sg.Result
		fmt.Fprintf(w, "\nSubgraph %s (physical core %d, from %s us): %s descriptors, %s, DMA time %s us, achieved %.2f GB/s\n",
			sg.Subgraph, sg.Core, us(sg.StartNs), humanize.Count(int64(r.Descriptors)), humanize.Bytes(r.Bytes), us(r.TotalNs), r.AchievedGBps)
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

func simulateNeff(a *Artifact, o *Options) (Output, error) {
	m, progs, err := NeffPrograms(a, o)
	if err != nil {
		return nil, err
	}
	setup := dmaprog.SetupFor(m)
	if o.NeffDMA != nil {
		if setup.Params, err = o.NeffDMA(setup.Params); err != nil {
			return nil, err
		}
	}
	run, err := dmaprog.Simulate(progs, setup)
	if err != nil {
		return nil, err
	}
	out := NeffSimulation{File: a.Name, Setup: run.Setup, TotalNs: run.TotalNs, Params: setup.Params}
	for _, sr := range run.Subgraphs {
		sg := NeffSimSubgraph{Subgraph: sr.Subgraph, Core: sr.Core, StartNs: sr.StartNs, Result: sr.Result}
		if o.TracePath != "" {
			sg.Trace = neffTracePath(o.TracePath, sr.Subgraph, len(run.Subgraphs))
			if err := writeNeffTrace(sg.Trace, sr.Subgraph, sr.Ordered, sr.Timeline); err != nil {
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
