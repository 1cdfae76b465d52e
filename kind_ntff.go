package npukit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/ntff"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// A Neuron profile capture (.ntff) is what the hardware measured while
// a NEFF ran: `npukit inspect` summarises it as neuron-profile does,
// `npukit sim X.ntff --trace` writes the captured run as a Perfetto
// trace, and `npukit sim X.neff --measured X.ntff` sets the NEFF's
// simulation beside it.
func init() {
	Register(Adapter{Kind: detect.NTFF, Inspect: inspectNtff, Check: checkNtff, Report: reportNtff, Simulate: simulateNtff, Diff: diffNtff})
}

// Ntff decodes a Neuron profile capture.
func (a *Artifact) Ntff() (*ntff.Profile, error) {
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	return ntff.Parse(b)
}

// NtffSummary is Inspect of a capture: neuron-profile's quantities and,
// when the profiled NEFF is found (Options.NtffNeff, or a .neff beside
// the capture whose UUID the capture records), its path and how the
// UUID the capture records compares with the NEFF's.
type NtffSummary struct {
	*ntff.Summary
	Neff      string          `json:"neff,omitempty"`
	NeffMatch *ntff.UUIDMatch `json:"neff_uuid_match,omitempty"`
}

// WriteText prints the summary and the profiled NEFF when found.
func (s *NtffSummary) WriteText(w io.Writer) error {
	if err := s.Summary.WriteText(w); err != nil {
		return err
	}
	if s.Neff == "" || s.NeffMatch == nil {
		return nil
	}
	what := "Profiled NEFF"
	if s.NeffMatch.Status == ntff.UUIDDiffers {
		what = "Not the profiled NEFF"
	}
	_, err := fmt.Fprintf(w, "%s: %s (%s)\n", what, s.Neff, s.NeffMatch)
	return err
}

// neffHeaderUUID reads a NEFF's header UUID: from its fixed header (a
// NEFF file), or from header.json (an unpacked directory; nil when it
// has none).
func neffHeaderUUID(a *Artifact) ([]byte, error) {
	if a.Kind == detect.NEFFDir {
		b, err := inputfile.ReadFile(filepath.Join(a.path, neff.HeaderFileName))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var hj neff.HeaderJSON
		if err := json.Unmarshal(b, &hj); err != nil {
			return nil, fmt.Errorf("%s: %w", neff.HeaderFileName, err)
		}
		return hj.UUID, nil
	}
	head := a.data
	if a.path != "" {
		// inputfile.Open refuses what is not a regular file without
		// blocking: a FIFO named *.neff would hang a plain open until
		// something writes to it.
		fh, _, err := inputfile.Open(a.path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		head = make([]byte, neff.HeaderSize)
		if _, err := io.ReadFull(fh, head); err != nil {
			return nil, err
		}
	}
	h, err := neff.ParseHeader(head)
	if err != nil {
		return nil, err
	}
	return h.UUID, nil
}

// ntffNeff finds the profiled NEFF and compares its UUID with the one
// the capture records: the NEFF named by o.NtffNeff (an error when it
// cannot be read as one), else the only .neff in the capture's directory
// whose header UUID the capture records ("" when none is found).
func ntffNeff(a *Artifact, p *ntff.Profile, o *Options) (string, *ntff.UUIDMatch, error) {
	if o.NtffNeff != "" {
		n, err := Open(o.NtffNeff)
		if err != nil {
			return "", nil, fmt.Errorf("the NEFF %s: %w", o.NtffNeff, err)
		}
		if n.Kind != detect.NEFF && n.Kind != detect.NEFFDir {
			return "", nil, fmt.Errorf("the NEFF %s: a %s, not a NEFF", o.NtffNeff, n.Describe())
		}
		u, err := neffHeaderUUID(n)
		if err != nil {
			return "", nil, fmt.Errorf("the NEFF %s: %w", o.NtffNeff, err)
		}
		m := p.MatchNeff(u)
		return o.NtffNeff, &m, nil
	}
	if a.path == "" || len(p.NeffUUID) == 0 {
		return "", nil, nil
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(a.path), "*.neff"))
	var found []string
	var match ntff.UUIDMatch
	for _, f := range m {
		u, err := neffHeaderUUID(&Artifact{Name: f, Kind: detect.NEFF, path: f})
		if err != nil {
			continue
		}
		if mt := p.MatchNeff(u); mt.Status == ntff.UUIDMatches {
			found, match = append(found, f), mt
		}
	}
	if len(found) == 1 {
		return found[0], &match, nil
	}
	return "", nil, nil
}

func inspectNtff(a *Artifact, o *Options) (Output, error) {
	p, err := a.Ntff()
	if err != nil {
		return nil, err
	}
	path, match, err := ntffNeff(a, p, o)
	if err != nil {
		return nil, err
	}
	return &NtffSummary{Summary: ntff.Summarize(p, a.Name), Neff: path, NeffMatch: match}, nil
}

func checkNtff(a *Artifact, o *Options) (diag.Report, error) {
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	rep, _ := ntff.Check(b)
	return rep, nil
}

func diffNtff(a, b *Artifact, o *Options) (Output, bool, error) {
	pa, err := a.Ntff()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	pb, err := b.Ntff()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	r := ntff.Diff(ntff.Summarize(pa, a.Name), ntff.Summarize(pb, b.Name))
	return r, r.Same, nil
}

// NtffReplay is Simulate of a capture: the run is already timed, so the
// "simulation" replays it: its totals, and with Options.TracePath the
// captured window as a Perfetto trace, one track per engine and DMA queue.
type NtffReplay struct {
	File    string `json:"file"`
	Source  string `json:"source"`
	TotalNs int64  `json:"total_ns"` // rounded to the nearest nanosecond
	totalPs int64
	Summary *ntff.Summary `json:"summary"`
	Trace   string        `json:"trace,omitempty"`
	// traceEndPs is where the trace ends (its last event's end): past
	// the total on a format 5 capture, whose counted events run to the
	// capture's last one.
	traceEndPs int64
}

// WriteText prints the measured total and where the trace was written.
func (r *NtffReplay) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s\nTotal: %s (measured; to compare a NEFF's simulation with it: npukit sim X.neff --measured %s)\n",
		r.File, r.Source, humanize.Micros(r.totalUs()), filepath.Base(r.File))
	if r.Trace != "" {
		fmt.Fprintf(w, "trace written to %s (open in ui.perfetto.dev): the events counted (%s), 0 to %s\n", r.Trace, r.Summary.Span(), humanize.Micros(float64(r.traceEndPs)/1e6))
	}
	return nil
}

// totalUs is the capture's total from its picoseconds (as inspect prints
// it), not from the nanoseconds, which would round twice.
func (r *NtffReplay) totalUs() float64 {
	if r.totalPs != 0 {
		return float64(r.totalPs) / 1e6
	}
	return float64(r.TotalNs) / 1e3
}

func simulateNtff(a *Artifact, o *Options) (Output, error) {
	p, err := a.Ntff()
	if err != nil {
		return nil, err
	}
	s := ntff.Summarize(p, a.Name)
	out := &NtffReplay{File: a.Name, Source: "Neuron profile capture (measured, replayed)", TotalNs: (s.TotalTimePs + 500) / 1000, totalPs: s.TotalTimePs, Summary: s}
	if o.TracePath != "" {
		end, err := writeNtffTrace(o.TracePath, a.Name, p, s)
		if err != nil {
			return nil, fmt.Errorf("the trace: %w", err)
		}
		out.Trace, out.traceEndPs = o.TracePath, end
	}
	return out, nil
}

// writeNtffTrace writes the captured run as a trace and returns where it
// ends, in picoseconds from its start.
func writeNtffTrace(path, name string, p *ntff.Profile, s *ntff.Summary) (int64, error) {
	rp, err := p.Timeline()
	if err != nil {
		return 0, err
	}
	return rp.Timeline.Makespan, trace.WriteFile(path, rp.Timeline, trace.Options{
		NanosPerUnit: 1e-3, // picoseconds
		Metadata: [][2]string{{"capture", filepath.Base(name)}, {"source", "Neuron profile capture (measured)"}, {"neff", p.NeffName},
			{"instance", p.Instance}, {"total_time_us", strconv.FormatFloat(s.TotalTimeUs, 'f', 3, 64)}, {"window", s.Window}},
		Args: func(id sim.TaskID, ar *trace.Args) {
			it := rp.Items[rp.Timeline.Graph.Tasks[id].Tag]
			c := &p.Cores[it.Core]
			if it.Instr >= 0 {
				in := c.Instrs[it.Instr]
				ar.Str("engine", ntff.EngineName(in.Engine))
				if in.PC >= 0 {
					ar.Int("pc", int64(in.PC))
				}
				return
			}
			pk := c.Packets[it.Packet]
			ar.Str("queue", c.QueueName(pk))
			ar.Int("dma_engine", int64(pk.DMAEngine))
			ar.Int("bytes", int64(pk.Bytes))
		},
	})
}

func reportNtff(files []*Artifact, o *Options) (*report.Page, error) {
	page := &report.Page{Title: "Neuron profile capture", Subtitle: filepath.Base(files[0].Name), Diagnostics: diag.Report{}}
	if len(files) > 1 {
		page.Title = fmt.Sprintf("%d Neuron profile captures", len(files))
	}
	for i, f := range files {
		b, err := f.Bytes()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		rep, p := ntff.Check(b)
		name := filepath.Base(f.Name)
		page.Diagnostics = append(page.Diagnostics, rep.WithFile(name)...)
		if p == nil {
			continue
		}
		s := ntff.Summarize(p, f.Name)
		kernel := ""
		if i == 0 {
			page.Summary = []report.KV{{Key: "Total time", Value: humanize.Micros(s.TotalTimeUs) + " (core 0, launch included)"}}
			if len(s.Cores) > 0 && s.Cores[0].KernelUs > 0 {
				c := s.Cores[0]
				page.Summary = append(page.Summary, report.KV{Key: "Kernel", Value: humanize.Micros(c.KernelUs) + " (core 0's kernel instructions)"},
					report.KV{Key: "Launch", Value: fmt.Sprintf("%s before the kernel, %s after", humanize.Micros(c.LaunchBeforeUs), humanize.Micros(c.LaunchAfterUs))})
			}
			page.Summary = append(page.Summary, report.KV{Key: "Instance", Value: s.Instance}, report.KV{Key: "Runtime", Value: s.Runtime}, report.KV{Key: "NeuronCores", Value: strconv.Itoa(len(s.Cores))})
		}
		if len(s.Cores) > 0 && s.Cores[0].KernelUs > 0 {
			c := s.Cores[0]
			kernel = fmt.Sprintf(": kernel instructions %s, launch %s before and %s after", humanize.Micros(c.KernelUs), humanize.Micros(c.LaunchBeforeUs), humanize.Micros(c.LaunchAfterUs))
		}
		page.Sections = append(page.Sections, report.Section{ID: fmt.Sprintf("f%d", i), Title: name,
			Intro:  fmt.Sprintf("Measured on %s (NTFF format %d, NEFF %s): %s on core 0%s; %s.", s.Instance, s.Format, s.NeffName, humanize.Micros(s.TotalTimeUs), kernel, s.Span()),
			Blocks: ntffBlocks(p, s, name, "measured")})
	}
	return page, nil
}

// ntffBlocks are a capture's tables and its measured timeline.
func ntffBlocks(p *ntff.Profile, s *ntff.Summary, name, what string) []report.Block {
	span := "inside the profiled window"
	if s.Window == ntff.WholeCapture {
		// Format 4: every event is counted, the runtime's pre- and
		// postamble with the kernel; said so, beside a later capture's
		// windowed counts in a report of several.
		span = "over the whole capture (NTFF format 4 records no profiled window)"
	} else if s.Window == ntff.ToCaptureEnd {
		// Format 5: counted as neuron-profile counts it, from the
		// estimated window's start to the capture's end.
		span = "from the profiled window's start to the capture's end (NTFF format 5 records no window; neuron-profile counts it so)"
	}
	eng := &report.Table{Caption: "Engines " + span, Header: []string{"core", "engine", "instructions", "instruction us", "busy us"}, Numeric: []int{2, 3, 4}}
	q := &report.Table{Caption: "DMA queues " + span, Header: []string{"core", "queue", "engine.queue", "kind", "packets", "bytes", "busy us"}, Numeric: []int{4, 5, 6}, MaxRows: 500}
	mem := &report.Table{Caption: "Memory usage", Header: []string{"core", "use", "bytes"}, Numeric: []int{2}}
	var notes []string
	for _, c := range s.Cores {
		for _, e := range c.Engines {
			ins, bz := fmt.Sprintf("%.3f", e.InstructionNs/1e3), fmt.Sprintf("%.3f", e.BusyNs/1e3)
			if e.NotMeasured != "" {
				ins, bz = "not measured", "not measured"
				notes = addNote(notes, "Engine times "+e.NotMeasured)
			}
			eng.Rows = append(eng.Rows, []string{c.Name, e.Engine, humanize.Count(int64(e.Instructions)), ins, bz})
		}
		for _, x := range c.Queues {
			bz := fmt.Sprintf("%.3f", x.BusyNs/1e3)
			if x.NotMeasured != "" {
				bz = "not measured"
				notes = addNote(notes, x.Name+" busy "+x.NotMeasured)
			}
			q.Rows = append(q.Rows, []string{c.Name, x.Name, fmt.Sprintf("%d.%d", x.DMAEngine, x.Queue), x.Kind, humanize.Count(int64(x.Packets)), humanize.Bytes(x.Bytes), bz})
		}
		for _, m := range c.Memory {
			if m.Bytes > 0 {
				mem.Rows = append(mem.Rows, []string{c.Name, m.Name, humanize.Bytes(m.Bytes)})
			}
		}
	}
	blocks := []report.Block{eng, q}
	for _, n := range notes {
		blocks = append(blocks, &report.Text{Text: n, Muted: true})
	}
	if tl, _ := ntffTimeline(p, name, what, false); tl != nil {
		blocks = append(blocks, tl)
	}
	return append(blocks, mem)
}

// addNote adds n to notes unless it is there.
func addNote(notes []string, n string) []string {
	for _, x := range notes {
		if x == n {
			return notes
		}
	}
	return append(notes, n)
}

// timelineOrigin is where a drawn capture's time 0 lies.
type timelineOrigin int

const (
	fromWindow      timelineOrigin = iota // the start of the profiled window
	fromFirstEvents                       // a format 4 capture's first events (it has no window)
	fromKernel                            // core 0's first kernel instruction
)

// String is the origin as the axis title and the report say it.
func (o timelineOrigin) String() string {
	switch o {
	case fromFirstEvents:
		return "the capture's first event"
	case fromKernel:
		return "the start of the kernel"
	}
	return "the start of the profiled window"
}

// ntffTimeline draws what the capture counts (ntff.Profile.Counting): one
// track per core's engine and DMA queue. With kernel, times are from core
// 0's kernel start (its first kernel instruction: the launch before it is
// drawn at negative times), when the capture lays its streams out; else
// from the window's start, or on a format 4 capture (no window) from its
// first events. origin says which.
func ntffTimeline(p *ntff.Profile, name, what string, kernel bool) (tl *report.Timeline, origin timelineOrigin) {
	start, end, how := p.Counting()
	insOrigin, dmaOrigin := start, start
	origin = fromWindow
	if how == ntff.WholeCapture {
		insOrigin, dmaOrigin = p.FirstEvents()
		origin = fromFirstEvents
	} else if kernel && len(p.Cores) > 0 {
		ws, we, _ := p.Window()
		if f, _, ok := p.Cores[0].KernelSpan(ws, we); ok {
			insOrigin, dmaOrigin = f, f
			origin = fromKernel
		}
	}
	tl = &report.Timeline{Caption: name + ": " + what + " instructions and DMA packets", Unit: report.Nanoseconds, XLabel: "time from " + origin.String(),
		Series: []report.Series{{Name: "instruction"}, {Name: "DMA packet"}}}
	for ci := range p.Cores {
		c := &p.Cores[ci]
		tracks := map[string]int{}
		track := func(n string) *report.Track {
			k, ok := tracks[n]
			if !ok {
				k = len(tl.Tracks)
				tracks[n] = k
				tl.Tracks = append(tl.Tracks, report.Track{Name: n})
			}
			return &tl.Tracks[k]
		}
		for _, in := range c.Instrs {
			if in.In(start, end) {
				t := track(c.Name + " " + ntff.EngineName(in.Engine))
				t.Spans = append(t.Spans, report.Span{Start: float64(in.Start-insOrigin) / 1e3, End: float64(in.End-insOrigin) / 1e3, Series: 0, Label: in.OpName(), Tip: fmt.Sprintf("pc %d", in.PC)})
			}
		}
		for _, pk := range c.Packets {
			if pk.Start >= start && pk.Start <= end {
				t := track(c.Name + " " + c.QueueName(pk))
				t.Spans = append(t.Spans, report.Span{Start: float64(pk.Start-dmaOrigin) / 1e3, End: float64(pk.End-dmaOrigin) / 1e3, Series: 1, Label: fmt.Sprintf("%d B", pk.Bytes)})
			}
		}
	}
	if len(tl.Tracks) == 0 {
		return nil, origin
	}
	return tl, origin
}

// timelineRange is the range of a timeline's spans, from 0 at least.
func timelineRange(tl *report.Timeline) (lo, hi float64) {
	for _, t := range tl.Tracks {
		for _, sp := range t.Spans {
			lo, hi = min(lo, sp.Start), max(hi, sp.End)
		}
	}
	return lo, hi
}

// NeffMeasured is Simulate of a NEFF given Options.NeffMeasured (`npukit
// sim X.neff --measured X.ntff`): the NEFF's simulation and the capture
// side by side, total, per core and per DMA
// queue, with the ratio predicted/measured.
type NeffMeasured struct {
	Simulation Output        `json:"simulation"`
	Measured   *ntff.Summary `json:"measured"`
	Rows       []MeasuredRow `json:"comparison"`
	// NotCompared names the measured quantities left out of Rows because
	// the capture does not measure them (ntff.Sanity), with why.
	NotCompared []string `json:"not_compared,omitempty"`
	// NeffMatch compares the NEFF UUID the capture records with the
	// NEFF's: a capture of another NEFF is compared only when
	// Options.NeffMeasuredOtherNeff asks for it, and then says so.
	NeffMatch *ntff.UUIDMatch `json:"neff_uuid_match,omitempty"`
}

// Warning is what the comparison must say before its figures: that the
// capture is of another NEFF, or that whether it is could not be told
// ("" when the UUIDs match).
func (m *NeffMeasured) Warning() string {
	if m.NeffMatch == nil {
		return ""
	}
	switch m.NeffMatch.Status {
	case ntff.UUIDDiffers:
		return fmt.Sprintf("the capture is of another NEFF (%s, %s): this compares two different programs", dashIfEmpty(m.Measured.NeffName), m.NeffMatch)
	case ntff.UUIDUnknown:
		return "whether the capture is of this NEFF is not known (" + m.NeffMatch.Detail + ")"
	}
	return ""
}

// Compared says whether the row compares a prediction with a
// measurement: not when the model did not simulate the quantity (Note)
// or nothing was measured. RatioText prints "-" and the JSON a null
// ratio for a row not compared, so that a ratio of 0 means only "the
// model prices at nothing what was measured" (audit5 F8).
func (r MeasuredRow) Compared() bool { return r.Note == "" && r.MeasuredUs != 0 }

// MarshalJSON writes ratio null for a row not compared, and predicted_us
// null for a quantity the model did not simulate.
func (r MeasuredRow) MarshalJSON() ([]byte, error) {
	type row struct {
		What        string   `json:"what"`
		PredictedUs *float64 `json:"predicted_us"`
		MeasuredUs  float64  `json:"measured_us"`
		Ratio       *float64 `json:"ratio"`
		Note        string   `json:"note,omitempty"`
	}
	out := row{What: r.What, MeasuredUs: r.MeasuredUs, Note: r.Note}
	if r.Note == "" {
		out.PredictedUs = &r.PredictedUs
	}
	if r.Compared() {
		out.Ratio = &r.Ratio
	}
	return json.Marshal(out)
}

// RatioText prints the row's ratio with two significant digits at least
// (0.0031, not 0.00), "0" when the model prices at nothing what was
// measured, and "-" when the row is not compared (not simulated, or
// nothing measured).
func (r MeasuredRow) RatioText() string {
	switch {
	case !r.Compared():
		return "-"
	case r.Ratio == 0:
		return "0"
	case r.Ratio >= 0.1:
		return strconv.FormatFloat(r.Ratio, 'f', 2, 64)
	}
	d := 1 - int(math.Floor(math.Log10(r.Ratio)))
	return strconv.FormatFloat(r.Ratio, 'f', min(d, 12), 64)
}

// MeasuredRow is one compared quantity (ratio predicted/measured; see
// Compared for the rows whose ratio is not one).
type MeasuredRow struct {
	What        string  `json:"what"`
	PredictedUs float64 `json:"predicted_us"`
	MeasuredUs  float64 `json:"measured_us"`
	Ratio       float64 `json:"ratio"`
	Note        string  `json:"note,omitempty"`
	// queues is the number of DMA queues of one name the row sums (0:
	// not a queue row, 1: one queue).
	queues int
}

// sumsQueues says whether a row sums several queues of one name, which
// queueTimeNote explains under the comparison.
func (m *NeffMeasured) sumsQueues() bool {
	for _, r := range m.Rows {
		if r.queues > 1 {
			return true
		}
	}
	return false
}

// WriteText prints the simulation, then the predicted and measured
// quantities side by side.
func (m *NeffMeasured) WriteText(w io.Writer) error {
	if err := m.Simulation.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPredicted and measured (%s, %s, %s):\n", m.Measured.Base(), m.Measured.Instance, m.Measured.Span())
	if wn := m.Warning(); wn != "" {
		fmt.Fprintf(w, "WARNING: %s\n", wn)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "WHAT\tPREDICTED us\tMEASURED us\tPREDICTED/MEASURED\t")
	for _, r := range m.Rows {
		pred := fmt.Sprintf("%.3f", r.PredictedUs)
		if r.Note != "" {
			pred = r.Note
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t\n", r.What, pred, r.MeasuredUs, r.RatioText())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if m.sumsQueues() {
		fmt.Fprintln(w, queueTimeNote)
	}
	for _, n := range m.NotCompared {
		fmt.Fprintf(w, "Not compared: %s\n", n)
	}
	return nil
}

// queueTimeNote explains the comparison's queue rows.
const queueTimeNote = "(A DMA queue's busy is queue-time: the busy time of every queue of the name, one per DMA engine serving it, summed, so it can exceed the kernel's time; ratio 0: the model prices at nothing what was measured; -: not compared)"

// predictedTotals reads what any NEFF simulation output predicts through
// its JSON (total_ns; per subgraph, per DMA queue busy_ns), so the
// comparison holds whatever the cost model adds.
type predictedTotals struct {
	TotalNs   int64 `json:"total_ns"`
	LaunchNs  int64 `json:"launch_ns"`
	Subgraphs []struct {
		Subgraph string `json:"subgraph"`
		StartNs  int64  `json:"start_ns"`
		KernelNs *int64 `json:"kernel_ns"`
		Engines  *struct {
			Engines []struct {
				Engine       string `json:"engine"`
				Instructions int    `json:"instructions"`
				BusyNs       int64  `json:"busy_ns"`
			} `json:"engines"`
		} `json:"engines"`
		Result *struct {
			TotalNs int64 `json:"total_ns"`
			Queues  []struct {
				Queue  string `json:"queue"`
				BusyNs int64  `json:"busy_ns"`
				Bytes  int64  `json:"bytes"`
			} `json:"queues"`
		} `json:"result"`
	} `json:"subgraphs"`
}

func ratio(p, m float64) float64 {
	if m == 0 {
		return 0
	}
	return p / m
}

// compareMeasured builds the comparison of a NEFF simulation output with
// a capture's summary.
func compareMeasured(simOut Output, s *ntff.Summary) (*NeffMeasured, error) {
	var pt predictedTotals
	b, err := json.Marshal(simOut)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &pt); err != nil {
		return nil, err
	}
	m := &NeffMeasured{Simulation: simOut, Measured: s}
	add := func(what string, pNs, mNs float64, note string) *MeasuredRow {
		m.Rows = append(m.Rows, MeasuredRow{What: what, PredictedUs: pNs / 1e3, MeasuredUs: mNs / 1e3, Ratio: ratio(pNs, mNs), Note: note})
		return &m.Rows[len(m.Rows)-1]
	}
	add("total (core 0)", float64(pt.TotalNs), float64(s.TotalTimePs)/1e3, "")
	for _, c := range s.Cores {
		var pred, predKernel float64
		var have, haveKernel bool
		predQ := map[string]float64{}
		predE := map[string]float64{}
		for _, sg := range pt.Subgraphs {
			if sg.Subgraph != c.Name {
				continue
			}
			if sg.Result != nil {
				pred, have = float64(sg.Result.TotalNs), true
				for _, q := range sg.Result.Queues {
					predQ[q.Queue] += float64(q.BusyNs)
				}
			}
			if sg.KernelNs != nil {
				// The capture's per-core total spans the launch as its
				// total does: compare it with the launch, the core's
				// start and its kernel, as the total row is compared.
				pred, have = float64(pt.LaunchNs+sg.StartNs+*sg.KernelNs), true
				predKernel, haveKernel = float64(*sg.KernelNs), true
			}
			if sg.Engines != nil {
				for _, e := range sg.Engines.Engines {
					predE[strings.ToLower(e.Engine)] = float64(e.BusyNs)
				}
			}
		}
		note := ""
		if !have {
			note = "not simulated"
		}
		// launch included, as sim's "N us with the launch" of the subgraph
		add(c.Name+" total (launch + kernel)", pred, c.TotalTimeUs*1e3, note)
		if haveKernel && c.KernelUs > 0 {
			// The kernel alone: its instructions' span in the capture
			// against the simulated kernel, the launch left out of both.
			add(c.Name+" kernel (no launch)", predKernel, c.KernelUs*1e3, "")
		}
		var unE []string
		reasonE := ""
		for _, e := range c.Engines {
			if e.NotMeasured != "" {
				unE, reasonE = append(unE, e.Engine), e.NotMeasured
				continue
			}
			if p, ok := predE[strings.ToLower(e.Engine)]; ok {
				add(c.Name+" "+e.Engine+" busy", p, e.BusyNs, "")
			} else if e.Instructions > 0 {
				add(c.Name+" "+e.Engine+" busy", 0, e.BusyNs, "not simulated")
			}
		}
		if len(unE) > 0 {
			m.NotCompared = append(m.NotCompared, fmt.Sprintf("%s busy of %s: %s", c.Name, strings.Join(unE, ", "), reasonE))
		}
		measQ := map[string]float64{}
		nQ := map[string]int{}
		unQ := map[string]string{}
		var names, unNames []string
		for _, q := range c.Queues {
			if _, ok := measQ[q.Name]; !ok {
				names = append(names, q.Name)
			}
			measQ[q.Name] += q.BusyNs
			nQ[q.Name]++
			if q.NotMeasured != "" && unQ[q.Name] == "" {
				// One queue of the name unmeasured: their sum is not
				// a measurement either.
				unQ[q.Name] = q.NotMeasured
				unNames = append(unNames, q.Name)
			}
		}
		for _, n := range unNames {
			m.NotCompared = append(m.NotCompared, fmt.Sprintf("%s %s busy: %s", c.Name, n, strings.TrimPrefix(unQ[n], "not measured: ")))
		}
		for _, n := range names {
			if unQ[n] != "" {
				continue
			}
			// Queue-time: a name's queues (one per DMA engine serving
			// it) summed on both sides, so it can exceed the kernel.
			what := c.Name + " " + n + " busy"
			if nQ[n] > 1 {
				what += fmt.Sprintf(" (%s queues summed)", humanize.Count(int64(nQ[n])))
			}
			note := ""
			p, ok := predQ[n]
			if !ok {
				note = "not simulated"
			}
			add(what, p, measQ[n], note).queues = nQ[n]
		}
	}
	return m, nil
}

// simulateNeffMeasured is Simulate of a NEFF: the simulation, and with
// Options.NeffMeasured the comparison with a capture of the same NEFF.
func simulateNeffMeasured(a *Artifact, o *Options) (Output, error) {
	if o.NeffMeasured == nil {
		return simulateNeff(a, o)
	}
	_, s, match, err := measuredCapture(a, o)
	if err != nil {
		return nil, err
	}
	out, err := simulateNeff(a, o)
	if err != nil {
		return nil, err
	}
	m, err := compareMeasured(out, s)
	if err != nil {
		return nil, err
	}
	m.NeffMatch = match
	return m, nil
}

// MeasuredOtherNeffError refuses to compare a NEFF's simulation with a
// capture whose recorded NEFF UUID is not the NEFF's: a run of another
// program (Options.NeffMeasuredOtherNeff compares anyway).
type MeasuredOtherNeffError struct {
	Capture, CaptureNeff string // the capture and the NEFF name it records
	Match                ntff.UUIDMatch
}

func (e *MeasuredOtherNeffError) Error() string {
	return fmt.Sprintf("the capture %s is not a run of this NEFF: it records NEFF %s, UUID %s; this NEFF's UUID is %s. Give a capture of this NEFF (npukit inspect X.ntff --neff X.neff checks a pair), or --measured-other-neff to compare two different programs anyway",
		e.Capture, dashIfEmpty(e.CaptureNeff), dashIfEmpty(e.Match.Capture), e.Match.Neff)
}

// measuredCapture decodes Options.NeffMeasured and checks that it is a
// capture of a's NEFF (*MeasuredOtherNeffError when its recorded UUID
// differs, unless Options.NeffMeasuredOtherNeff).
func measuredCapture(a *Artifact, o *Options) (*ntff.Profile, *ntff.Summary, *ntff.UUIDMatch, error) {
	p, err := ntff.Parse(o.NeffMeasured)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the capture: %w", err)
	}
	name := o.NeffMeasuredName
	if name == "" {
		name = "capture"
	}
	u, err := neffHeaderUUID(a)
	if err != nil {
		return nil, nil, nil, err
	}
	m := p.MatchNeff(u)
	if m.Status == ntff.UUIDDiffers && !o.NeffMeasuredOtherNeff {
		return nil, nil, nil, &MeasuredOtherNeffError{Capture: filepath.Base(name), CaptureNeff: p.NeffName, Match: m}
	}
	return p, ntff.Summarize(p, name), &m, nil
}

// maxDrawnPredicted bounds the simulated tasks drawn on the report's
// predicted timeline (the page must stay small).
const maxDrawnPredicted = 20000

// reportNeffMeasured is Report of NEFFs: with Options.NeffMeasured (one
// NEFF) it adds the comparison with the capture and the predicted and
// measured timelines one above the other.
func reportNeffMeasured(files []*Artifact, o *Options) (*report.Page, error) {
	// One simulation of each NEFF: the page's predicted time, and with a
	// capture the comparison and the predicted timeline (simulated three
	// times before).
	var sim *NeffSimulation
	var run *dmaprog.Run
	var simErr error
	page, err := reportNeff(files, o, func(f *Artifact) (*NeffSimulation, error) {
		sim, run, simErr = runNeff(f, o)
		return sim, simErr
	})
	if err != nil || o.NeffMeasured == nil || len(files) != 1 {
		return page, err
	}
	p, s, match, err := measuredCapture(files[0], o)
	if err != nil {
		return nil, err
	}
	name := s.File
	if simErr != nil {
		return nil, simErr
	}
	cmp, err := compareMeasured(sim, s)
	if err != nil {
		return nil, err
	}
	cmp.NeffMatch = match
	tab := &report.Table{Caption: "Predicted (npukit sim) and measured (" + filepath.Base(name) + ")", Header: []string{"what", "predicted us", "measured us", "predicted/measured"}, Numeric: []int{1, 2, 3}}
	for _, r := range cmp.Rows {
		pred := fmt.Sprintf("%.3f", r.PredictedUs)
		if r.Note != "" {
			pred = r.Note
		}
		tab.Rows = append(tab.Rows, []string{r.What, pred, fmt.Sprintf("%.3f", r.MeasuredUs), r.RatioText()})
	}
	blocks := []report.Block{tab}
	if cmp.sumsQueues() {
		blocks = append(blocks, &report.Text{Text: queueTimeNote, Muted: true})
	}
	if wn := cmp.Warning(); wn != "" {
		blocks = append([]report.Block{&report.Text{Text: "Warning: " + wn + "."}}, blocks...)
	}
	// The two timelines on one origin, the kernel's start (the
	// simulation's is its 0; the capture's, core 0's first kernel
	// instruction), and one range, so that a mark above lines up with
	// the mark below.
	pred := predictedTimeline(files[0].Name, run)
	meas, origin := ntffTimeline(p, filepath.Base(name), "measured", true)
	var lo, hi float64
	for _, tl := range []*report.Timeline{pred, meas} {
		if tl != nil {
			l, h := timelineRange(tl)
			lo, hi = min(lo, l), max(hi, h)
		}
	}
	for _, tl := range []*report.Timeline{pred, meas} {
		if tl != nil {
			if origin == fromKernel {
				tl.From, tl.To = lo, hi
			}
			blocks = append(blocks, tl)
		}
	}
	drawn := "The predicted timeline is drawn above the measured one, both from the start of the kernel on one time axis: the measured launch before the kernel at negative times (the simulation's launch, a constant, is not drawn)."
	if origin != fromKernel {
		why := "the capture does not lay its instruction streams out"
		if s.Window == ntff.WholeCapture {
			why = "NTFF format 4 records no profiled window"
		}
		drawn = "The predicted timeline, from the start of the kernel, is drawn above the measured one, from " + origin.String() + ": " + why + ", so the kernel's start is not known in the capture and the two do not line up."
	}
	page.Sections = append(page.Sections, report.Section{ID: "measured", Title: "Predicted and measured",
		Intro: fmt.Sprintf("The simulation beside the capture %s (%s, runtime %s, %s): total %s measured, %s predicted. %s",
			filepath.Base(name), s.Instance, s.Runtime, s.Span(), humanize.Micros(s.TotalTimeUs), humanize.Micros(cmp.Rows[0].PredictedUs), drawn),
		Blocks: blocks})
	return page, nil
}

// predictedTimeline draws a NEFF's simulated run (every subgraph's
// tasks, one track per simulated resource); nil when it has too many
// tasks to draw.
func predictedTimeline(name string, run *dmaprog.Run) *report.Timeline {
	tl := &report.Timeline{Caption: filepath.Base(name) + ": predicted (npukit sim)", Unit: report.Nanoseconds, XLabel: "time from the start of the kernel",
		Series: []report.Series{{Name: "simulated task"}}}
	drawn := 0
	for _, sr := range run.Subgraphs {
		t := sr.Timeline
		if t == nil || t.Graph == nil {
			continue
		}
		drawn += len(t.Graph.Tasks)
		if drawn > maxDrawnPredicted {
			return nil
		}
		tracks := map[sim.ResourceID]int{}
		for id, task := range t.Graph.Tasks {
			if task.Resource == sim.None {
				continue
			}
			k, ok := tracks[task.Resource]
			if !ok {
				k = len(tl.Tracks)
				tracks[task.Resource] = k
				r := t.Graph.Resources[task.Resource]
				tl.Tracks = append(tl.Tracks, report.Track{Name: sr.Subgraph + " " + r.Name})
			}
			tl.Tracks[k].Spans = append(tl.Tracks[k].Spans, report.Span{Start: float64(sr.StartNs + t.Start[id]), End: float64(sr.StartNs + t.End[id]), Label: task.Name})
		}
	}
	if len(tl.Tracks) == 0 {
		return nil
	}
	return tl
}

// dashIfEmpty is s, or "-" when it is empty.
func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
