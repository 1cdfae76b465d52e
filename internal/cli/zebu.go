package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// A ZeBu emulator trace is the timing ground truth of a Gemini run;
// `npukit inspect` summarises it (`npukit sim schedule.json --zebu trace`
// compares it with the simulator).
func init() {
	registerFormat(Format{Kind: detect.ZebuTrace, Inspect: inspectZebu, Check: checkZebu})
	registerReporter(detect.ZebuTrace, reportZebu)
	registerSimulator(Simulator{Kind: detect.ZebuTrace, Run: simZebu})
}

// zebuSimOutput is `npukit sim` of an emulator trace: the run is already
// timed, so the "simulation" replays it (the totals, and with --trace its
// timeline as a Perfetto trace beside the simulator's).
type zebuSimOutput struct {
	File        string           `json:"file"`
	Source      string           `json:"source"`
	TotalCycles int64            `json:"total_cycles"`
	Classes     []zebu.ClassStat `json:"classes"`
	Trace       string           `json:"trace,omitempty"`
}

func simZebu(_ *Env, r detect.Result, opts SimOptions) (Output, error) {
	t, err := zebu.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	out := &zebuSimOutput{File: r.Path, Source: "ZeBu emulator trace (measured, replayed)", TotalCycles: t.Total(), Classes: t.Classes()}
	if opts.Trace != "" {
		tl, err := sim.Run(zebu.Lower(t))
		if err != nil {
			return nil, err
		}
		topt := trace.Options{NanosPerUnit: 1, // cycles at the nominal 1 GHz, as gemini sim traces
			Metadata: [][2]string{{"trace", filepath.Base(r.Path)}, {"source", "ZeBu emulator (replayed)"}, {"total_cycles", strconv.FormatInt(out.TotalCycles, 10)}},
			Args: func(id sim.TaskID, a *trace.Args) {
				in := &t.Insts[tl.Graph.Tasks[id].Tag]
				a.Int("layer", in.Layer)
				a.Int("workload", in.Workload)
				a.Int("tile", in.Tile)
				a.Int("inst_idx", in.Index)
			}}
		if err := trace.WriteFile(opts.Trace, tl, topt); err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		out.Trace = opts.Trace
	}
	return out, nil
}

func (o *zebuSimOutput) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\nTotal: %s cycles (measured by the emulator; to simulate a schedule against it: npukit sim SCHEDULE.json --zebu %s)\n",
		o.File, o.Source, humanize.Count(o.TotalCycles), filepath.Base(o.File))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tINSTRUCTIONS\tBUSY (cycles)\t")
	for _, c := range o.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", c.Class, c.Insts, humanize.Count(c.Busy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if o.Trace != "" {
		fmt.Fprintf(w, "trace written to %s\n", o.Trace)
	}
	return nil
}

func checkZebu(_ *Env, r detect.Result) (diag.Report, error) {
	t, err := zebu.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	return zebu.Check(t), nil
}

// reportZebu renders each trace: its totals, the busy time per unit class
// and the per-layer extents.
func reportZebu(_ *Env, files []detect.Result) (*report.Page, error) {
	page := &report.Page{Title: "ZeBu emulator trace", Subtitle: filepath.Base(files[0].Path), Diagnostics: diag.Report{}}
	if len(files) > 1 {
		page.Title = fmt.Sprintf("%d ZeBu emulator traces", len(files))
		page.Subtitle += fmt.Sprintf(" and %d more", len(files)-1)
	}
	for i, f := range files {
		t, err := zebu.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f.Path)
		total := t.Total()
		layers := t.Layers()
		if i == 0 {
			page.Summary = []report.KV{
				{Key: "Total", Value: humanize.Count(total) + " cycles"},
				{Key: "Instructions", Value: humanize.Count(int64(len(t.Insts)))},
				{Key: "Layers", Value: strconv.Itoa(len(layers))},
			}
		}
		classes := &report.Table{Caption: "Unit classes", Header: []string{"class", "unit", "instructions", "sum (cycles)", "busy (cycles)", "busy %"}, Numeric: []int{2, 3, 4, 5}}
		for _, c := range t.Classes() {
			pct := 0.0
			if total > 0 {
				pct = 100 * float64(c.Busy) / float64(total)
			}
			classes.Rows = append(classes.Rows, []string{c.Class, zebuClassNames[c.Class], strconv.Itoa(c.Insts), humanize.Count(c.Sum), humanize.Count(c.Busy), fmt.Sprintf("%.1f", pct)})
		}
		lt := &report.Table{Caption: "Layers (non-configuration instructions)", Header: []string{"layer", "start", "end", "cycles", "instructions"}, Numeric: []int{0, 1, 2, 3, 4}, MaxRows: 500}
		for _, l := range layers {
			lt.Rows = append(lt.Rows, []string{strconv.FormatInt(l.ID, 10), humanize.Count(l.Start), humanize.Count(l.End), humanize.Count(l.End - l.Start), strconv.Itoa(l.Insts)})
		}
		blocks := []report.Block{classes}
		if tl := zebuTimeline(t, name); tl != nil {
			blocks = append(blocks, tl)
		}
		blocks = append(blocks, lt)
		page.Sections = append(page.Sections, report.Section{ID: fmt.Sprintf("f%d", i), Title: name,
			Intro:  fmt.Sprintf("Total %s cycles (end of the last instruction); the emulator runs the core at 25 MHz.", humanize.Count(total)),
			Blocks: blocks})
		page.Diagnostics = append(page.Diagnostics, zebu.Check(t).WithFile(name)...)
	}
	return page, nil
}

// zebuTimeline draws the traced instructions: one track per unit class
// (configuration instructions left out), coloured by class; nil when the
// trace has none.
func zebuTimeline(t *zebu.Trace, name string) *report.Timeline {
	var classes []string
	track := map[string]int{}
	tl := &report.Timeline{Caption: name + ": traced instructions per unit class", Unit: report.Cycles, XLabel: "cycles"}
	for _, in := range t.Insts {
		if in.Config {
			continue
		}
		k, ok := track[in.Class]
		if !ok {
			k = len(classes)
			track[in.Class] = k
			classes = append(classes, in.Class)
			label := in.Class
			if n := zebuClassNames[in.Class]; n != "" {
				label += " (" + n + ")"
			}
			tl.Tracks = append(tl.Tracks, report.Track{Name: in.Class})
			tl.Series = append(tl.Series, report.Series{Name: label})
		}
		tl.Tracks[k].Spans = append(tl.Tracks[k].Spans, report.Span{Start: float64(in.Start), End: float64(in.End), Series: k,
			Label: in.Name, Tip: fmt.Sprintf("layer %d, workload %d, line %d", in.Layer, in.Workload, in.Line)})
	}
	if len(tl.Tracks) == 0 {
		return nil
	}
	return tl
}

// zebuSummary is the inspect output of an emulator trace.
type zebuSummary struct {
	File          string            `json:"file"`
	TotalCycles   int64             `json:"total_cycles"`
	Instructions  int               `json:"instructions"`
	Configuration int               `json:"configuration_instructions"`
	Classes       []zebu.ClassStat  `json:"classes"`
	Layers        []zebu.Span       `json:"layers"`
	Workloads     int               `json:"workloads"`
	Longest       []zebu.Span       `json:"-"`
	classNames    map[string]string // unit class -> what it is, for the text
}

// zebuClassNames says what each instruction class of the emulator is.
var zebuClassNames = map[string]string{
	"ct": "control", "ld": "DRAM load", "lda": "DRAM load (ifmap)", "ldw": "DRAM load (weights)",
	"lw": "weight buffer load", "pe": "PE array", "vp": "vector unit", "dt": "data transform",
	"st": "store", "sta": "store to DRAM",
}

// zebuTextLayers bounds the layer table of the text output (JSON has all).
const zebuTextLayers = 10

func inspectZebu(_ *Env, r detect.Result) (Output, error) {
	t, err := zebu.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	s := &zebuSummary{File: r.Path, TotalCycles: t.Total(), Instructions: len(t.Insts),
		Classes: t.Classes(), Layers: t.Layers(), Workloads: len(t.Workloads()), classNames: zebuClassNames}
	for _, in := range t.Insts {
		if in.Config {
			s.Configuration++
		}
	}
	s.Longest = append([]zebu.Span(nil), s.Layers...)
	sort.SliceStable(s.Longest, func(i, j int) bool {
		return s.Longest[i].End-s.Longest[i].Start > s.Longest[j].End-s.Longest[j].Start
	})
	if len(s.Longest) > zebuTextLayers {
		s.Longest = s.Longest[:zebuTextLayers]
	}
	return s, nil
}

func (s *zebuSummary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: ZeBu emulator trace (Gemini run)\n", s.File)
	fmt.Fprintf(w, "  total          %s cycles (end of the last instruction)\n", humanize.Count(s.TotalCycles))
	fmt.Fprintf(w, "  instructions   %s (%s configuration)\n", humanize.Count(int64(s.Instructions)), humanize.Count(int64(s.Configuration)))
	fmt.Fprintf(w, "  layers         %d, workloads %d\n\n", len(s.Layers), s.Workloads)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tUNIT\tINSTRUCTIONS\tSUM (cycles)\tBUSY (cycles)\tBUSY %\t")
	for _, c := range s.Classes {
		pct := 0.0
		if s.TotalCycles > 0 {
			pct = 100 * float64(c.Busy) / float64(s.TotalCycles)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.1f%%\t\n", c.Class, s.classNames[c.Class], c.Insts,
			humanize.Count(c.Sum), humanize.Count(c.Busy), pct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Longest) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nLongest layers (%d of %d; --json lists all)\n", len(s.Longest), len(s.Layers))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LAYER\tSTART\tEND\tCYCLES\tINSTRUCTIONS\t")
	for _, l := range s.Longest {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t\n", l.ID, humanize.Count(l.Start), humanize.Count(l.End), humanize.Count(l.End-l.Start), l.Insts)
	}
	return tw.Flush()
}
