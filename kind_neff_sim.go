package npukit

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/neuroncore"
)

// NeffSimSubgraph is one subgraph of a NeffSimulation.
type NeffSimSubgraph struct {
	Subgraph string         `json:"subgraph"`
	Core     int            `json:"physical_core"`
	StartNs  int64          `json:"start_ns"`
	KernelNs int64          `json:"kernel_ns"`
	Result   *dma.SimResult `json:"result"`
	// Engines is the instruction-level simulation (absent when the
	// subgraph has no instruction streams npukit can read: then KernelNs
	// is the DMA program's time alone).
	Engines *dmaprog.EngineRun `json:"engines,omitempty"`
}

// NeffSimulation is the simulated run of a NEFF: its engines'
// instructions and its DMA where npukit decodes them, its DMA program
// alone where not (Simulate's Output for NEFFs).
type NeffSimulation struct {
	File  string        `json:"file"`
	Setup dmaprog.Setup `json:"setup"`
	// TotalNs is the predicted kernel time: LaunchNs plus the longest
	// physical core's time.
	TotalNs  int64 `json:"total_ns"`
	LaunchNs int64 `json:"launch_ns"`
	// Model says what the prediction includes and assumes.
	Model     []string          `json:"model"`
	Params    dma.SimParams     `json:"params"`
	Subgraphs []NeffSimSubgraph `json:"subgraphs"`
	// Trace is the file the predicted run was written to (Options.TracePath).
	Trace string `json:"trace,omitempty"`
}

func us(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e3) }

// Headline is the prediction's line as `npukit sim` prints it (the demo
// quotes it: it showed the DMA program's time as sim's).
func (o *NeffSimulation) Headline() string {
	return fmt.Sprintf("Predicted time: %s (launch %s + the longest core)", humanize.Nanos(o.TotalNs), humanize.Nanos(o.LaunchNs))
}

// WriteText prints the prediction and, per subgraph, its engines and DMA
// queues.
func (o *NeffSimulation) WriteText(w io.Writer) error {
	p := o.Params
	fmt.Fprintf(w, "NEFF simulation: %s\n", o.File)
	fmt.Fprintln(w, o.Headline())
	fmt.Fprintf(w, "Model: %s, %d DMA engines per core, %.1f GB/s each, %d ns fixed latency per DMA, runs under %d B charged as %d B\n",
		o.Setup.NeuronCore, p.Engines, p.BytesPerNs, p.OverheadNs, p.MinChargedRun, p.MinChargedRun)
	for _, m := range o.Model {
		fmt.Fprintf(w, "  model: %s\n", m)
	}
	if o.Setup.LNC > 1 {
		fmt.Fprintf(w, "LNC %d: the subgraphs run at the same time on %d physical cores (subgraph i on core i mod %d), each with its own DMA engines; the total is the longest core's\n",
			o.Setup.LNC, o.Setup.LNC, o.Setup.LNC)
	} else if len(o.Subgraphs) > 1 {
		fmt.Fprintf(w, "LNC 1: the %s run one after another on one core\n", humanize.Plural(len(o.Subgraphs), "subgraph"))
	}
	for _, n := range o.Setup.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	for _, sg := range o.Subgraphs {
		r := sg.Result
		// the kernel alone, and what --measured compares with a capture's
		// core total: the launch, the core's start and its kernel
		fmt.Fprintf(w, "\nSubgraph %s (physical core %d, from %s): kernel %s, %s with the launch\n", sg.Subgraph, sg.Core, humanize.Nanos(sg.StartNs),
			humanize.Nanos(sg.KernelNs), humanize.Nanos(o.LaunchNs+sg.StartNs+sg.KernelNs))
		if e := sg.Engines; e != nil {
			fmt.Fprintf(w, "Instructions: %s static DMA entries and %s DGE transfers started, %s moved, DMA engines busy %s (summed over the engines)\n",
				humanize.Count(int64(e.StaticDMAs)), humanize.Count(int64(e.DGEDMAs)), humanize.Bytes(e.DMABytes), humanize.Nanos(e.DMABusyNs))
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "ENGINE\tINSTRUCTIONS\tBUSY us\tLAST END us\t")
			for _, t := range e.Engines {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", t.Engine, humanize.Count(int64(t.Instructions)), us(t.BusyNs), us(t.LastEndNs))
			}
			tw.Flush()
			if len(e.Unknown) > 0 {
				fmt.Fprintf(w, "Not understood (priced as 64-cycle instructions): %s\n", e.UnknownList())
			}
			if !e.Trusted() {
				fmt.Fprintln(w, "The instruction streams do not decode cleanly (many unknown opcodes or unsatisfiable waits): the subgraph is given at least its DMA program's own time")
			}
			if e.Released > 0 {
				fmt.Fprintf(w, "%s nothing in the subgraph satisfies %s let pass (another core's semaphores, or a decoding npukit gets wrong)\n", humanize.Plural(e.Released, "semaphore wait"), humanize.Agree(e.Released, "was", "were"))
			}
			if e.Untriggered > 0 || e.BadTriggers > 0 {
				fmt.Fprintf(w, "%s no instruction triggers (the subgraph is given at least the DMA program's own time); %s no entry\n", humanize.Plural(e.Untriggered, "static DMA entry"), humanize.Agree(e.BadTriggers, humanize.Plural(e.BadTriggers, "trigger")+" names", humanize.Plural(e.BadTriggers, "trigger")+" name"))
			}
		}
		fmt.Fprintf(w, "DMA program alone (no instruction order): %s descriptors, %s, %s, achieved %.2f GB/s\n",
			humanize.Count(int64(r.Descriptors)), humanize.Bytes(r.Bytes), humanize.Nanos(r.TotalNs), r.AchievedGBps)
		if r.Descriptors == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "QUEUE\tENGINES\tDESCRIPTORS\tBYTES\tBUSY us\tFIRST us\tLAST us\tGB/s\t")
		overlap := false
		for _, q := range r.Queues {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", q.Queue, engineList(q.Engines), humanize.Count(int64(q.Descriptors)), humanize.Bytes(q.Bytes), us(q.BusyNs), us(q.FirstStartNs), us(q.LastEndNs), q.AchievedGBps)
			overlap = overlap || q.BusyNs > q.LastEndNs-q.FirstStartNs
		}
		tw.Flush()
		if overlap {
			// a queue's descriptors spread over several engines at once
			fmt.Fprintln(w, "(BUSY is queue-time: the time of every engine on the queue, summed, so it can exceed LAST - FIRST)")
		}
	}
	if o.Trace != "" {
		fmt.Fprintf(w, "\nTrace written to %s (open in ui.perfetto.dev): the predicted run, launch included, a process per physical core; it ends at %s\n", o.Trace, humanize.Nanos(o.TotalNs))
	}
	return nil
}

// neffModelNotes says what a NEFF prediction includes and assumes.
func neffModelNotes(run *dmaprog.Run) []string {
	notes := []string{fmt.Sprintf("launch overhead %s (measured: a capture's window less its kernel instructions, 14.6-15.7 us on 15 trn2 captures)", humanize.Nanos(run.LaunchNs))}
	instr := false
	for _, sg := range run.Subgraphs {
		instr = instr || sg.Engines != nil
	}
	if instr {
		notes = append(notes,
			"engines run their decoded instruction streams in order, waiting on and incrementing semaphores; DMAs start when an instruction triggers them and spread their rows over the DMA engines",
			// the numbers are dmaprog's constants, so the notes follow them
			fmt.Sprintf("compute at the architecture guide's cycle formulas plus fitted per-instruction overheads (VectorE/ScalarE %d ns, ACTIVATE %d ns, ACT_TABLE_LOAD %d ns, DMA_DIRECT2D on Sync and Scalar %d ns, attention capture; DMA_TRIGGER %d ns, the two WRITEs runtime 2.30 loads it as, MoE capture)",
				dmaprog.InstrOverheadNs, dmaprog.ActivateOverheadNs, dmaprog.TableLoadNs, dmaprog.DGEIssueNs, dmaprog.DMATriggerNs),
			fmt.Sprintf("TensorE streams at 1/%d rate for %s at the kernel's start and after an idle spell over %s (trn2 captures)",
				dmaprog.PEColdFactor, humanize.Nanos(dmaprog.PEWarmupNs), humanize.Nanos(dmaprog.PEIdleNs)),
			fmt.Sprintf("an instruction's semaphore increment reaches the engines waiting on it %d ns after it ends (32-53 ns on the trn2 captures)", dmaprog.SemaphoreLatencyNs),
			fmt.Sprintf("software descriptor generation (DMA_DIRECT2D on GpSimd, queue qPoolDynamic) holds GpSimd %d ns and its DMA starts %d ns after that (MoE and attention captures)", dmaprog.DGEIssuePoolNs, dmaprog.DGEPoolLagNs),
			fmt.Sprintf("LDWEIGHTS adds %d TensorE cycles, loading behind the MATMUL before it (trn2 captures)", dmaprog.LoadWeightsCycles),
			gpsimdOpNote(run.Setup.Arch))
		if a := run.Setup.Arch; a != nil && a.VectorPerfMode16 {
			notes = append(notes, "VectorE COPY of 16-bit floats streams 4 elements a cycle SBUF to SBUF and contiguous, 2 when only one holds (performance mode, Trainium2 architecture guide)")
		}
		if a := run.Setup.Arch; a != nil && a.Name != neuroncore.V3.Name {
			notes = append(notes, fmt.Sprintf("%s: the warm-up, semaphore latency, DMA_TRIGGER, GpSimd opcode and software-DGE figures are trn2's, assumed here (fitted on trn2 captures only)", run.Setup.NeuronCore))
		}
		notes = append(notes, "not modelled: SBUF/PSUM port sharing between engines, HBM contention between cores")
	} else {
		notes = append(notes, "no instruction streams: the DMA program alone, every descriptor as soon as an engine is free (no compute, no dependencies)")
	}
	return notes
}

// gpsimdOpNote lists the GpSimd opcodes priced at what one capture
// measured (dmaprog.GpSimdOpNs) and the price of the others.
func gpsimdOpNote(a *neuroncore.Arch) string {
	ops := make([]int, 0, len(dmaprog.GpSimdOpNs))
	for op := range dmaprog.GpSimdOpNs {
		ops = append(ops, int(op))
	}
	sort.Ints(ops)
	prices := make([]string, len(ops))
	for i, op := range ops {
		prices[i] = fmt.Sprintf("0x%02X %.0f ns", op, dmaprog.GpSimdOpNs[byte(op)])
	}
	other := ""
	if a != nil {
		other = fmt.Sprintf(", other GpSimd instructions %d cycles", a.GpSimdFixedCycles)
	}
	return fmt.Sprintf("GpSimd opcodes whose operands npukit does not read, at their medians on the MoE capture (runtime 2.30): %s%s", strings.Join(prices, ", "), other)
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

func simulateNeff(a *Artifact, o *Options) (Output, error) {
	out, _, err := runNeff(a, o)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// runNeff simulates a NEFF once: Simulate's Output, and the run it
// reports for what draws it (the report's predicted timeline).
func runNeff(a *Artifact, o *Options) (*NeffSimulation, *dmaprog.Run, error) {
	m, progs, err := neffPrograms(a, o)
	if err != nil {
		return nil, nil, err
	}
	setup := dmaprog.SetupFor(m)
	if o.NeffDMA != nil {
		if setup.Params, err = o.NeffDMA(setup.Params); err != nil {
			return nil, nil, err
		}
	}
	setup.Trace = o.TracePath != ""
	run, err := dmaprog.Simulate(progs, setup)
	if err != nil {
		return nil, nil, err
	}
	out := &NeffSimulation{File: a.Name, Setup: run.Setup, TotalNs: run.TotalNs, LaunchNs: run.LaunchNs, Model: neffModelNotes(run), Params: setup.Params}
	for i, p := range progs {
		// DMA the DGE hardware generates at run time: priced from the
		// instructions that issue it when the engines were simulated.
		n := neffDGENote(m, p.Subgraph, len(p.Descriptors))
		if n == "" {
			continue
		}
		if i < len(run.Subgraphs) && run.Subgraphs[i].Engines != nil && run.Subgraphs[i].Engines.DGEDMAs > 0 {
			n += fmt.Sprintf("; the time prices the %s DGE transfers from the DMA_DIRECT2D instructions that issue them (sizes decoded from the instruction)", humanize.Count(int64(run.Subgraphs[i].Engines.DGEDMAs)))
		}
		out.Setup.Notes = append(out.Setup.Notes, n)
	}
	for _, sr := range run.Subgraphs {
		sg := NeffSimSubgraph{Subgraph: sr.Subgraph, Core: sr.Core, StartNs: sr.StartNs, KernelNs: sr.KernelNs, Result: sr.Result, Engines: sr.Engines}
		out.Subgraphs = append(out.Subgraphs, sg)
	}
	if o.TracePath != "" {
		if err := run.WriteTrace(o.TracePath, a.Name); err != nil {
			return nil, nil, err
		}
		out.Trace = o.TracePath
	}
	return out, run, nil
}
