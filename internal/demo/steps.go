package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/l2alloc"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neuroncore"
)

func edgetpuModel(path string) (*edgetpu.Model, error) {
	a, err := npukit.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func edgetpuMemory(w io.Writer, path, _ string, _ *npukit.Options) error {
	m, err := edgetpuModel(path)
	if err != nil {
		return err
	}
	return edgetpu.BuildMemoryReport([]edgetpu.NamedModel{{Path: filepath.Base(path), Model: m}}).WriteText(w)
}

// relayoutMax bounds the buffers the relayout round trip makes: a
// layer's sizes are declarations, not bytes of the file.
const relayoutMax = 256 << 20

// edgetpuLinkRelayout links the main executable at made-up addresses and
// proves the link, then sends every output through the device layout and
// back.
func edgetpuLinkRelayout(w io.Writer, path, _ string, _ *npukit.Options) error {
	m, err := edgetpuModel(path)
	if err != nil {
		return err
	}
	e := m.Packages()[0].Main()
	if e == nil {
		return fmt.Errorf("no main executable")
	}
	a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}}
	next := uint64(0x1_0000_0000)
	for _, l := range e.InputLayers {
		a.Inputs[l.Name] = []uint64{next}
		next += 0x10000
	}
	for _, l := range e.OutputLayers {
		a.Outputs[l.Name] = []uint64{next}
		next += 0x10000
	}
	params, scratch := next, next+0x100000
	a.Parameters, a.Scratch = &params, &scratch
	in := e.LinkInput()
	linked, patches, err := link.Link(in, a)
	if err != nil {
		return err
	}
	if err := link.Verify(in.Chunks, linked, patches); err != nil {
		return err
	}
	fmt.Fprintf(w, "linked %s in %s at 64-bit addresses from 0x%x; verified: only those bits changed\n", humanize.Plural(len(patches), "relocation field"), humanize.Plural(len(linked), "chunk"), uint64(0x1_0000_0000))
	for _, l := range e.OutputLayers {
		o := l.RelayoutOutput()
		pb, err := o.PlainBytes(1)
		if err != nil {
			return err
		}
		if db, err := o.DeviceBytes(1); err != nil || pb > relayoutMax || db > relayoutMax {
			fmt.Fprintf(w, "relayout of %s skipped: %s plain bytes, more than the demo's %s\n", termsafe.Name(l.Name), humanize.Count(int64(pb)), humanize.Count(int64(relayoutMax)))
			continue
		}
		plain := make([]byte, pb)
		for i := range plain {
			plain[i] = byte(i * 7)
		}
		dev, err := o.ToDevice(plain, 1)
		if err != nil {
			return err
		}
		back, err := o.ToPlain(dev, 1)
		if err != nil {
			return err
		}
		if string(back) != string(plain) {
			return fmt.Errorf("output %q: relayout round trip differs", l.Name)
		}
		fmt.Fprintf(w, "output %q %dx%dx%d %s: plain %d B -> device %d B -> plain: identical\n", l.Name, l.Y, l.X, l.Z, l.DataType, len(plain), len(dev))
	}
	return nil
}

// geminiRealloc re-allocates the example schedule's L2 and writes the
// rewrite beside the demo's other outputs.
func geminiRealloc(w io.Writer, path, outDir string, _ *npukit.Options) error {
	out := base(path, outDir) + ".realloc.json"
	s, err := gemini.ReadFile(path)
	if err != nil {
		return err
	}
	rep, err := l2alloc.Reallocate(context.Background(), s, l2alloc.Options{}, l2alloc.SolveOptions{Work: reallocWork})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	res := &l2alloc.FileReport{File: path, Report: rep}
	var oe *l2alloc.OversizeError
	if err := res.WriteRewrite(s, out); errors.As(err, &oe) {
		res.WriteText(w)
		return err
	} else if err != nil {
		return err
	}
	return res.WriteText(w)
}

// geminiSim simulates the example schedule and writes its trace.
func geminiSim(w io.Writer, path, outDir string, _ *npukit.Options) error {
	tp := base(path, outDir) + ".sim-trace.json"
	a, err := npukit.Open(path)
	if err != nil {
		return err
	}
	out, err := a.Simulate(&npukit.Options{TracePath: tp})
	if err != nil {
		return err
	}
	r := out.(*npukit.GeminiSimulation).Result
	var dram, cores int64
	for _, c := range r.Cores {
		dram += c.WaitDRAM
		cores += c.WaitCores
	}
	fmt.Fprintf(w, "%d cores: %s cycles; waiting on DRAM %s, on other cores %s core-cycles; DRAM %.2f GB/s achieved; trace: %s\n",
		len(r.Cores), humanize.Count(r.TotalCycles), humanize.Count(dram), humanize.Count(cores), r.DRAM.Achieved, tp)
	return nil
}

// neffRoundTrip unpacks the example NEFF, packs it again and shows that
// the members survive and the repacked file still checks clean.
func neffRoundTrip(w io.Writer, path, outDir string, _ *npukit.Options) error {
	f, err := neff.ReadFile(path)
	if err != nil {
		return err
	}
	// One directory per example, so two NEFF examples do not overwrite
	// each other's members.
	dir := base(path, outDir) + ".unpacked"
	files, err := neff.Unpack(f, dir, true)
	if err != nil {
		return err
	}
	raw, _, err := neff.PackDir(dir, neff.DefaultLimits(), func(o *neff.PackOptions) { *o = neff.PackOptions{} })
	if err != nil {
		return err
	}
	rep, m := neff.CheckBytes(raw, neff.DefaultLimits(), neff.DefaultRuntime)
	if m == nil {
		return fmt.Errorf("repacked NEFF unreadable: %v", rep)
	}
	d := neff.Diff(&neff.Model{File: f}, m, neff.DiffOptions{})
	fmt.Fprintf(w, "unpacked %s into %s, packed them again: %s; check of the repacked file: %s\n",
		humanize.Plural(len(files), "file"), dir, d.Statement, humanize.Plural(rep.Count(diag.Error), "error"))
	return nil
}

// neffExecute runs the DMA program of a NEFF with zero inputs (file
// variables hold their constants) and writes the touched variables.
func neffExecute(w io.Writer, path, outDir string, o *npukit.Options) error {
	a, err := npukit.Open(path)
	if err != nil {
		return err
	}
	l, err := a.NeffDMA(o)
	if err != nil {
		return err
	}
	if err := l.Execute(nil, base(path, outDir)+".dma", true, 0); err != nil {
		return err
	}
	fmt.Fprintln(w, "Engine instructions are not executed; only the DMA program ran (inputs zero, constants loaded).")
	for _, sg := range l.Subgraphs {
		fmt.Fprintf(w, "%s: %s executed, %s written\n", sg.Subgraph, humanize.Plural(int(sg.Executed.Descriptors), "descriptor"), humanize.Bytes(sg.Executed.Bytes))
		for _, f := range sg.Written {
			fmt.Fprintf(w, "  %-12s %-8s %v -> %s\n", f.Var, f.DType, f.Shape, f.Path)
		}
	}
	return nil
}

// neffSim simulates the NEFF and writes the predicted run as a Perfetto trace.
func neffSim(w io.Writer, path, outDir string, _ *npukit.Options) error {
	a, err := npukit.Open(path)
	if err != nil {
		return err
	}
	out, err := a.Simulate(&npukit.Options{TracePath: base(path, outDir) + ".sim-trace.json"})
	if err != nil {
		return err
	}
	o := out.(*npukit.NeffSimulation)
	fmt.Fprintln(w, o.Headline())
	for _, sg := range o.Subgraphs {
		r := sg.Result
		fmt.Fprintf(w, "%s: %s; its DMA program alone (no instruction order): %s, %s in %s on %d DMA engines (%.2f GB/s)\n",
			sg.Subgraph, humanize.Nanos(sg.KernelNs), humanize.Plural(int(r.Descriptors), "descriptor"), humanize.Bytes(r.Bytes), humanize.Nanos(r.TotalNs), o.Params.Engines, r.AchievedGBps)
	}
	fmt.Fprintf(w, "trace: %s (the predicted run: launch, engines, DMA queues and engines)\n", o.Trace)
	return nil
}

// sbufSim simulates a plan next to the same plan with one physical tile
// per tensor, showing what multi-buffering gains, and writes the trace
// beside the plan.
func sbufSim(w io.Writer, path, _ string, _ *npukit.Options) error {
	p, err := neuroncore.ReadPlanFile(path)
	if err != nil {
		return err
	}
	tr := path + ".trace.json"
	r, err := npukit.SbufSimulate(p, tr)
	if err != nil {
		return err
	}
	one, err := neuroncore.Simulate(neuroncore.OneTile(p))
	if err != nil {
		return err
	}
	rep, _, err := neuroncore.Check(neuroncore.OneTile(p))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "as written:")
	if err := r.Summary().WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "with one physical tile per tensor:")
	if err := one.Summary().WriteText(w); err != nil {
		return err
	}
	a, b := float64(r.Timeline.Makespan), float64(one.Timeline.Makespan)
	verdict := "no gain from multi-buffering"
	if a < b {
		verdict = fmt.Sprintf("%.2fx faster: DMA transfers overlap the compute of earlier tiles", b/a)
	}
	fmt.Fprintf(w, "%s as written vs %s with one tile (kernel bodies; %s); one-tile plan checks with %s\n", humanize.Micros(a/1e6), humanize.Micros(b/1e6), verdict, rep.Summary())
	fmt.Fprintf(w, "Perfetto trace: %s\n", tr)
	return nil
}

// reallocWork bounds the demo's re-allocation in work per core (it once
// had 2 s a probe and 5 s a core: about 10^8 work units at the rate
// alloc.Options.Budget states), so the demo's output is the same on every
// machine.
const reallocWork = 1e8
