// Package edgetpureport builds the report page of Edge TPU models,
// DarwiNN packages and plain TFLite models.
package edgetpureport

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/relayout"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// etpuMaxTilingPositions bounds the (y, x) rectangles drawn per output.
const etpuMaxTilingPositions = 20000

// Page renders one or more Edge TPU (or plain TFLite) models: the memory
// of the models that share a caching token, where each operator runs, why
// it may be slow, and per model its executables, I/O layers and tiling.
// Paths are shown by their base name.
func Page(models []edgetpu.NamedModel) (*report.Page, error) {
	if len(models) == 0 {
		return nil, errors.New("no model")
	}
	var named []edgetpu.NamedModel
	// A non-nil report: "no findings" is shown rather than nothing.
	page := &report.Page{Title: "Edge TPU model", Diagnostics: diag.Report{}}
	if len(models) > 1 {
		page.Title = fmt.Sprintf("%d Edge TPU models", len(models))
	}
	for _, nm := range models {
		nm.Path = filepath.Base(nm.Path)
		named = append(named, nm)
		page.Diagnostics = append(page.Diagnostics, edgetpu.Check(nm.Model).WithFile(nm.Path)...)
	}
	page.Subtitle = named[0].Path
	if len(named) > 1 {
		page.Subtitle += fmt.Sprintf(" and %d more", len(named)-1)
	}
	mem := edgetpu.BuildMemoryReport(named)
	first := named[0].Model
	page.Summary = etpuSummary(named)
	if len(first.Packages()) > 0 {
		page.Sections = append(page.Sections, etpuMemorySection(mem))
	} else {
		page.Title = "TFLite model"
		page.Summary = []report.KV{{Key: "Operators", Value: humanize.Count(int64(first.TFLite.NumOperators()))}, {Key: "On the Edge TPU", Value: "none (not compiled)"}}
	}
	if sec, ok := etpuSlowSection(page.Diagnostics); ok {
		page.Sections = append(page.Sections, sec)
	}
	// The graphs: one section per model, or, for several models (pipeline
	// segments, co-compiled models), one section with the models side by
	// side.
	var graphs []report.Block
	for i, nm := range named {
		if sec, ok := graphSection(i, nm); ok {
			if len(named) == 1 {
				page.Sections = append(page.Sections, sec)
				continue
			}
			graphs = append(graphs, &report.Titled{Title: nm.Path, Blocks: sec.Blocks})
		}
	}
	if len(graphs) > 0 {
		page.Sections = append(page.Sections, report.Section{ID: "graphs", Title: "Graphs",
			Intro:  "The models side by side, each coloured by where its operators run; the hand-over tensors between the Edge TPU and the CPU are marked on their edges.",
			Blocks: []report.Block{&report.Row{Blocks: graphs}}})
	}
	for i, nm := range named {
		page.Sections = append(page.Sections, etpuOperatorSection(i, nm))
		if sec, ok := etpuLatencySection(i, nm); ok {
			page.Sections = append(page.Sections, sec)
		}
		page.Sections = append(page.Sections, etpuModelSections(i, nm)...)
	}
	page.SectionFor = func(d diag.Diagnostic) string {
		for i, nm := range named {
			if d.File == nm.Path {
				return fmt.Sprintf("exe-%d", i)
			}
		}
		return ""
	}
	return page, nil
}

// fitsWords says whether a token group's cached parameters fit the
// parameter SRAM, in words (not "true").
func fitsWords(fits bool) string {
	if fits {
		return "fits"
	}
	return "does not fit"
}

func etpuMemorySection(r *edgetpu.MemoryReport) report.Section {
	chart := &report.BarChart{Caption: "Parameters and instructions per file against the 8 MiB parameter SRAM",
		Series: []report.Series{{Name: "on-chip cached parameters"}, {Name: "streamed parameters"}, {Name: "instructions"}},
		Unit:   report.Bytes, XLabel: "size", Limit: edgetpu.ParameterSRAM, LimitLabel: "8 MiB SRAM"}
	t := &report.Table{Caption: "Token groups", Header: []string{"token", "files", "cached total", "8 MiB SRAM", "statement"}, Numeric: []int{1, 2}}
	for _, g := range r.Groups {
		for _, f := range g.Files {
			chart.Bars = append(chart.Bars, report.HBar{Label: filepath.Base(f.Path), Segments: []report.Segment{
				{Series: 0, Value: float64(f.Cached), Tip: humanize.Bytes(f.Cached)},
				{Series: 1, Value: float64(f.Streamed), Tip: humanize.Bytes(f.Streamed)},
				{Series: 2, Value: float64(f.Instructions), Tip: humanize.Bytes(f.Instructions)},
			}})
		}
		t.Rows = append(t.Rows, []string{g.Token, strconv.Itoa(len(g.Files)), humanize.Bytes(g.Cached), fitsWords(g.Fits), g.Statement})
	}
	intro := r.Statement
	if r.Pipeline != nil {
		intro += " " + r.Pipeline.Statement
	}
	return report.Section{ID: "memory", Title: "Parameter memory", Intro: intro, Blocks: []report.Block{chart, t}}
}

// etpuSlowSection gathers the findings about what an inference costs
// (edgetpu.PerformanceRules) into one section: why the model may be slow.
func etpuSlowSection(rep diag.Report) (report.Section, bool) {
	t := &report.Table{Header: []string{"file", "where", "finding"}}
	for _, d := range rep {
		if slices.Contains(edgetpu.PerformanceRules, d.Rule) {
			t.Rows = append(t.Rows, []string{d.File, d.Location, d.Message})
		}
	}
	if len(t.Rows) == 0 {
		return report.Section{}, false
	}
	return report.Section{ID: "slow", Title: "Why it may be slow",
		Intro:  "What crosses the host link or runs on the CPU every inference, with lower-bound times over USB 2.0, USB 3.0 and PCIe.",
		Blocks: []report.Block{t}}, true
}

// etpuOperatorSection lists the TFLite operators in order and where they
// run; for a model without an Edge TPU op, also where the compiler would
// put them (edgetpu plan).
func etpuOperatorSection(i int, nm edgetpu.NamedModel) report.Section {
	sec := report.Section{ID: fmt.Sprintf("ops-%d", i), Title: "Operators: " + nm.Path}
	if nm.Model.TFLite == nil {
		sec.Intro = "A raw DarwiNN package: no TFLite operators."
		return sec
	}
	s := edgetpu.Summarize(nm.Model)
	var plan *edgetpu.Plan
	header := []string{"#", "operator", "runs on", "output"}
	if len(nm.Model.Ops) == 0 {
		plan = edgetpu.PlanModel(nm.Model.TFLite, edgetpu.PlanOptions{})
		header = append(header, "compiler would", "why not on the Edge TPU")
		sec.Intro = fmt.Sprintf("Not compiled: every operator runs on the CPU. Predicted for the Edge TPU compiler %d: %s (npukit edgetpu plan).", plan.Compiler, plan)
	} else {
		tpu, cpu := 0, 0
		for _, o := range s.Operators {
			if o.RunsOn == "Edge TPU" {
				tpu++
			} else {
				cpu++
			}
		}
		sec.Intro = fmt.Sprintf("%s: %s holding the compiled part, %s on the CPU (marked).", humanize.Plural(len(s.Operators), "operator"), humanize.Plural(tpu, "Edge TPU op"), humanize.Count(int64(cpu)))
	}
	t := &report.Table{Header: header, Numeric: []int{0}, MaxRows: 2000}
	for k, o := range s.Operators {
		where := o.RunsOn
		if o.RunsOn == "CPU" && o.Position != "" && o.Position != "no Edge TPU op" {
			where = "CPU, " + o.Position + " the Edge TPU"
		}
		out := ""
		if len(o.Outputs) > 0 {
			out = o.Outputs[0].Label()
		}
		row := []string{strconv.Itoa(o.Index), o.Code, where, out}
		if plan != nil && k < len(plan.Ops) {
			po := plan.Ops[k]
			why := po.Reason
			if po.Placement == "TPU" {
				why = ""
			}
			row = append(row, po.Placement, why)
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Blocks = []report.Block{t}
	return sec
}

func etpuModelSections(i int, nm edgetpu.NamedModel) []report.Section {
	var secs []report.Section
	exeT := &report.Table{Caption: "Executables", Header: []string{"package", "#", "type", "name", "batch", "chunks", "instructions", "parameters", "scratch", "narrow mem/tile", "token"},
		Numeric: []int{4, 5, 6, 7, 8, 9}}
	layT := &report.Table{Caption: "Input and output layers", Header: []string{"executable", "dir", "name", "y x x x z", "type", "zero point", "scale", "padded size", "execs", "tiling"},
		Numeric: []int{5, 6, 7, 8}}
	var blocks []report.Block
	var dma []report.Block
	s := edgetpu.Summarize(nm.Model)
	pi := -1
	for oi, op := range nm.Model.Ops {
		for opi, p := range op.Packages {
			pi++
			ps := s.EdgeTPUOps[oi].Packages[opi]
			for _, e := range ps.Executables {
				exeT.Rows = append(exeT.Rows, []string{strconv.Itoa(pi), strconv.Itoa(e.Index), e.Type, e.Name, humanize.Count(int64(e.BatchSize)),
					humanize.Count(int64(e.Chunks)), humanize.Bytes(e.InstructionBytes), humanize.Bytes(e.ParameterBytes), humanize.Bytes(int64(e.ScratchBytes)),
					humanize.Bytes(int64(e.NarrowMemPerTile)), e.Token})
				for _, d := range []struct {
					dir string
					ls  []edgetpu.LayerSummary
				}{{"in", e.Inputs}, {"out", e.Outputs}} {
					for _, l := range d.ls {
						layT.Rows = append(layT.Rows, []string{strconv.Itoa(e.Index), d.dir, l.Name, fmt.Sprintf("%dx%dx%d", l.Y, l.X, l.Z), l.DataType,
							humanize.Count(int64(l.ZeroPoint)), fmt.Sprintf("%g", l.Scale), humanize.Bytes(int64(l.SizeBytes)), humanize.Count(int64(l.ExecutionCount)), l.Tiling})
					}
				}
			}
			if main := p.Main(); main != nil {
				// Outputs of one layout share one chart that names them all.
				type group struct {
					names []string
					outs  []relayout.Output
				}
				var groups []*group
			layers:
				for _, l := range main.OutputLayers {
					if l.Output == nil || l.Output.Layout == nil || (l.Y <= 1 && l.X <= 1) || int64(l.Y)*int64(l.X) > etpuMaxTilingPositions {
						continue
					}
					o := l.RelayoutOutput()
					for _, g := range groups {
						if report.SameTiling(g.outs[0], o) {
							g.names, g.outs = append(g.names, l.Name), append(g.outs, o)
							continue layers
						}
					}
					groups = append(groups, &group{[]string{l.Name}, []relayout.Output{o}})
				}
				for _, g := range groups {
					if b, err := report.OutputTilingShared(g.names, g.outs); err == nil {
						blocks = append(blocks, b)
					}
				}
			}
			plan, err := dmaplan.Build(edgetpu.PlanInput(p), dmaplan.DefaultLinks())
			if err == nil && len(plan.SteadyState) > 0 {
				usb3 := plan.Links[0]
				for _, l := range plan.Links {
					if l.Name == "USB 3.0" {
						usb3 = l
					}
				}
				dma = append(dma, report.DMAPlanTimeline(plan, usb3))
				tt := &report.Table{Caption: fmt.Sprintf("Package %d: bytes per inference and lower-bound transfer time", pi),
					Header: []string{"phase", "host->device", "device->host"}, Numeric: []int{1, 2}}
				for _, l := range plan.Links {
					tt.Header = append(tt.Header, l.Name)
					tt.Numeric = append(tt.Numeric, len(tt.Header)-1)
				}
				for _, ph := range []struct {
					name string
					t    dmaplan.Totals
				}{{"first inference", plan.First}, {"steady state", plan.Steady}} {
					row := []string{ph.name, humanize.Bytes(ph.t.HostToDevice), humanize.Bytes(ph.t.DeviceToHost)}
					for _, l := range plan.Links {
						row = append(row, humanize.Micros(ph.t.LowerBoundUs[l.Name]))
					}
					tt.Rows = append(tt.Rows, row)
				}
				dma = append(dma, tt)
				for _, r := range plan.USBRejects {
					dma = append(dma, &report.Text{Text: fmt.Sprintf("Executable %s: %s.", r, edgetpu.NotDeterministicAdvice)})
				}
			}
		}
	}
	secs = append(secs, report.Section{ID: fmt.Sprintf("exe-%d", i), Title: nm.Path + ": executables and layers",
		Intro: "Every executable of every package, and the I/O layers with their quantization and device padding.", Blocks: []report.Block{exeT, layT}})
	if len(blocks) > 0 {
		secs = append(secs, report.Section{ID: fmt.Sprintf("tiling-%d", i), Title: nm.Path + ": output tiling",
			Intro: "Which device tile produces each (y, x) position of the tiled outputs; the runtime re-lays them out to plain y, x, z order.", Blocks: blocks})
	}
	if len(dma) > 0 {
		secs = append(secs, report.Section{ID: fmt.Sprintf("dma-%d", i), Title: nm.Path + ": DMA plan (USB)",
			Intro: "The transfers the USB runtime derives from the DMA hints; times are lower bounds over raw link bandwidth.", Blocks: dma})
	}
	return secs
}

// etpuSummary states the key facts of every model on the page, not only
// the first: the newest runtime any package needs, the executables, the
// cached and streamed parameters summed over the models' packages, and
// the caching tokens. Nil when no model has an Edge TPU package.
func etpuSummary(models []edgetpu.NamedModel) []report.KV {
	var minRuntime int32
	var exes, compiled int
	var cached, streamed int64
	var tokens []string
	for _, nm := range models {
		ps := nm.Model.Packages()
		if len(ps) > 0 {
			compiled++
		}
		for _, p := range ps {
			m := edgetpu.MemoryOf(p)
			minRuntime = max(minRuntime, p.MinRuntimeVersion)
			exes += len(p.Executables)
			cached += m.Cached
			streamed += m.Streamed
			if !slices.Contains(tokens, m.TokenHex) {
				tokens = append(tokens, m.TokenHex)
			}
		}
	}
	if compiled == 0 {
		return nil
	}
	var kvs []report.KV
	if len(models) > 1 {
		kvs = append(kvs, report.KV{Key: "Models", Value: fmt.Sprintf("%s (%s compiled for the Edge TPU)", humanize.Count(int64(len(models))), humanize.Count(int64(compiled)))})
	}
	each := ""
	if compiled > 1 {
		each = " (all models)"
	}
	tokenKey := "Caching token"
	if len(tokens) > 1 {
		tokenKey = "Caching tokens"
	}
	return append(kvs,
		report.KV{Key: "Runtime", Value: edgetpu.RuntimeStatement(minRuntime)},
		report.KV{Key: "Executables", Value: humanize.Count(int64(exes))},
		report.KV{Key: "On-chip cached parameters" + each, Value: humanize.Bytes(cached)},
		report.KV{Key: "Streamed parameters per inference" + each, Value: humanize.Bytes(streamed)},
		report.KV{Key: tokenKey, Value: strings.Join(tokens, ", ")},
	)
}

// latencyKinds are the parts of an inference, in the order drawn.
var latencyKinds = []struct{ kind, name string }{
	{edgetpu.PartInvoke, "invocation overhead"}, {edgetpu.PartTransfer, "transfers"}, {edgetpu.PartParameters, "parameters streamed"},
	{edgetpu.PartTPU, "Edge TPU compute"}, {edgetpu.PartCPU, "CPU operators"},
}

// etpuLatencySection shows the estimated inference time on every host
// class, split by part, and the parts on the default host next to the
// operators (npukit sim); a plain TFLite model also gets the estimate of
// its predicted Edge TPU mapping (npukit edgetpu plan).
func etpuLatencySection(i int, nm edgetpu.NamedModel) (report.Section, bool) {
	m := nm.Model
	sec := report.Section{ID: fmt.Sprintf("latency-%d", i), Title: "Latency: " + nm.Path}
	chart := &report.BarChart{Caption: "Steady-state time per inference on each host class (npukit sim --host)", Unit: report.Nanoseconds, XLabel: "time"}
	for _, k := range latencyKinds {
		chart.Series = append(chart.Series, report.Series{Name: k.name})
	}
	var def *edgetpu.Latency
	var plan *edgetpu.Latency
	var predicted *edgetpu.Plan
	var failing *edgetpu.DefaultFailure
	if m.TFLite != nil && len(m.Ops) == 0 {
		predicted = edgetpu.PlanModel(m.TFLite, edgetpu.PlanOptions{})
	}
	for _, h := range edgetpu.Hosts() {
		l, err := edgetpu.EstimateModel(m, h, edgetpu.LatencyOptions{Twin: nm.Twin, TwinNote: nm.TwinNote})
		if err != nil {
			return sec, false
		}
		if h.Name == edgetpu.DefaultHost {
			def = l
		}
		bar := report.HBar{Label: h.Name}
		if f := l.FailsByDefault; f != nil {
			// The bar is the time under the setting, not by default.
			bar.Label += " (fails by default)"
			failing = f
		}
		for si, k := range latencyKinds {
			if v := l.ByKind[k.kind]; v > 0 {
				bar.Segments = append(bar.Segments, report.Segment{Series: si, Value: v * 1000})
			}
		}
		chart.Bars = append(chart.Bars, bar)
		if p := predicted; p != nil {
			if p.TPU > 0 {
				pl := edgetpu.EstimatePlan(m.TFLite, p, h, edgetpu.LatencyOptions{})
				if h.Name == edgetpu.DefaultHost {
					plan = pl
				}
				bar := report.HBar{Label: h.Name + " (compiled, predicted)"}
				for si, k := range latencyKinds {
					if v := pl.ByKind[k.kind]; v > 0 {
						bar.Segments = append(bar.Segments, report.Segment{Series: si, Value: v * 1000})
					}
				}
				chart.Bars = append(chart.Bars, bar)
			}
		}
	}
	if def == nil {
		return sec, false
	}
	sec.Intro = fmt.Sprintf("Estimated on %s: first inference %s, steady state %s per inference.", def.Host.Name, usText(def.FirstInferenceUs), usText(def.SteadyStateUs))
	if f := failing; f != nil {
		sec.Intro = fmt.Sprintf("On the USB host classes every inference fails with the default runtime settings (npukit check: %s; %s); their estimates assume %s. ", f.Rule, f.Reason, f.Setting) + sec.Intro
	}
	if plan != nil {
		sec.Intro += fmt.Sprintf(" Compiled for the Edge TPU as predicted (npukit edgetpu plan): %s per inference.", usText(plan.SteadyStateUs))
	}
	if u := def.Uncompiled; u != nil && u.Path != "" {
		sec.Intro += fmt.Sprintf(" Edge TPU compute layer by layer from the uncompiled model %s (%s).", filepath.Base(u.Path), u.How)
	}
	sec.Intro += " Constants and what they were fitted on: npukit sim --host help."
	t := &report.Table{Caption: "Parts of one inference on " + def.Host.Name, Header: []string{"part", "kind", "time", "bytes", "MACs", "first only"}, Numeric: []int{2, 3, 4}, MaxRows: 2000}
	for _, p := range def.Parts {
		b, macs, first := "", "", ""
		if p.Bytes > 0 {
			b = humanize.Bytes(p.Bytes)
		}
		if p.MACs > 0 {
			macs = humanize.Count(p.MACs)
		}
		if p.FirstOnly {
			first = "yes"
		}
		t.Rows = append(t.Rows, []string{p.Name, p.Kind, usText(p.Us), b, macs, first})
	}
	sec.Blocks = []report.Block{chart, t}
	for _, n := range def.Notes {
		// What the estimate assumed (a model wholly on the CPU, float
		// kernels at the int8 rates, compute estimated from parameters).
		sec.Blocks = append(sec.Blocks, &report.Text{Text: "Note: " + n, Muted: true})
	}
	return sec, true
}

func usText(us float64) string { return report.Nanoseconds.Format(us * 1000) }
