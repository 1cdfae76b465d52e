package npukit

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/zebureport"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// A ZeBu emulator trace is the timing ground truth of a Gemini run;
// `npukit inspect` summarises it (`npukit sim schedule.json --zebu trace`
// compares it with the simulator).
func init() {
	Register(Adapter{Kind: detect.ZebuTrace, Inspect: inspectZebu, Check: checkZebu, Report: reportZebu, Simulate: simulateZebu})
}

// ZebuTrace reads a ZeBu emulator trace.
func (a *Artifact) ZebuTrace() (*zebu.Trace, error) {
	if a.path != "" {
		return zebu.ReadFile(a.path)
	}
	return zebu.Parse(bytes.NewReader(a.data))
}

// ZebuReplay is Simulate of an emulator trace: the run is already
// timed, so the "simulation" replays it: the totals, and with
// Options.TracePath its timeline as a Perfetto trace to set beside the
// simulator's.
type ZebuReplay struct {
	File        string `json:"file"`
	Source      string `json:"source"`
	TotalCycles int64  `json:"total_cycles"`
	// ClockGHz is the nominal core clock cycles are converted to time at
	// (the emulator itself runs the core at 1/40 of the nominal 1 GHz).
	ClockGHz float64          `json:"clock_ghz"`
	Classes  []zebu.ClassStat `json:"classes"`
	Trace    string           `json:"trace,omitempty"`
}

func simulateZebu(a *Artifact, o *Options) (Output, error) {
	t, err := a.ZebuTrace()
	if err != nil {
		return nil, err
	}
	out := &ZebuReplay{File: a.Name, Source: "ZeBu emulator trace (measured, replayed)", TotalCycles: t.Total(), Classes: t.Classes(), ClockGHz: o.clockGHz()}
	if o.TracePath != "" {
		tl, err := sim.Run(zebu.Lower(t))
		if err != nil {
			return nil, err
		}
		topt := trace.Options{NanosPerUnit: 1 / out.ClockGHz, // cycles at the nominal clock, as gemini sim traces
			Metadata: [][2]string{{"trace", filepath.Base(a.Name)}, {"source", "ZeBu emulator (replayed)"}, {"total_cycles", strconv.FormatInt(out.TotalCycles, 10)}},
			Args: func(id sim.TaskID, a *trace.Args) {
				in := &t.Insts[tl.Graph.Tasks[id].Tag]
				a.Int("layer", in.Layer)
				a.Int("workload", in.Workload)
				a.Int("tile", in.Tile)
				a.Int("inst_idx", in.Index)
			}}
		if err := trace.WriteFile(o.TracePath, tl, topt); err != nil {
			return nil, fmt.Errorf("the trace: %w", err)
		}
		out.Trace = o.TracePath
	}
	return out, nil
}

// WriteText prints the totals and the busy cycles per instruction class.
func (r *ZebuReplay) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\nTotal: %s cycles (%s at %g GHz; measured by the emulator; to simulate a schedule against it: npukit sim SCHEDULE.json --zebu %s)\n",
		r.File, r.Source, humanize.Count(r.TotalCycles), humanize.Micros(float64(r.TotalCycles)/(r.ClockGHz*1e3)), r.ClockGHz, filepath.Base(r.File))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tINSTRUCTIONS\tBUSY (cycles)\t")
	for _, c := range r.Classes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", c.Class, humanize.Count(int64(c.Insts)), humanize.Count(c.Busy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Trace != "" {
		fmt.Fprintf(w, "trace written to %s\n", r.Trace)
	}
	return nil
}

func checkZebu(a *Artifact, o *Options) (diag.Report, error) {
	t, err := a.ZebuTrace()
	if err != nil {
		return nil, err
	}
	return zebu.Check(t), nil
}

func inspectZebu(a *Artifact, o *Options) (Output, error) {
	t, err := a.ZebuTrace()
	if err != nil {
		return nil, err
	}
	return zebu.Summarize(t, a.Name), nil
}

func reportZebu(files []*Artifact, o *Options) (*report.Page, error) {
	var fs []zebureport.File
	for _, f := range files {
		t, err := f.ZebuTrace()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fs = append(fs, zebureport.File{Name: f.Name, Trace: t})
	}
	return zebureport.Page(fs)
}
