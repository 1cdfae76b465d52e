// Package sbufreport builds the report page of a NeuronCore SBUF/PSUM
// allocation plan.
package sbufreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/sim"
)

// sbufMaxLifetimeRects bounds the lifetime rectangles drawn.
const sbufMaxLifetimeRects = 20000

// sbufMaxTimelineSpans bounds the timeline spans drawn: a loop of 600,000
// steps made a 566 MB page (alternating series on one DMA queue are not
// merged).
const sbufMaxTimelineSpans = 20000

// capTimeline keeps the spans that start before the (limit+1)-th start,
// so at most about limit spans remain; it returns that cut (in the
// timeline's unit), the number of spans before, and whether it cut.
func capTimeline(tl *report.Timeline, limit int) (cut float64, total int, ok bool) {
	var starts []float64
	for _, tr := range tl.Tracks {
		for _, sp := range tr.Spans {
			starts = append(starts, sp.Start)
		}
	}
	if len(starts) <= limit {
		return 0, len(starts), false
	}
	slices.Sort(starts)
	cut = starts[limit]
	for i := range tl.Tracks {
		tl.Tracks[i].Spans = slices.DeleteFunc(tl.Tracks[i].Spans, func(sp report.Span) bool { return sp.Start >= cut })
	}
	tl.Tracks = slices.DeleteFunc(tl.Tracks, func(tr report.Track) bool { return len(tr.Spans) == 0 })
	return cut, len(starts), true
}

// Page renders a plan: tensors, the partition x byte maps of SBUF
// and PSUM, tile lifetimes over the body, and the simulated engine
// timeline. Tensors left automatic are shown as `sbuf place` would place
// them.
func Page(p *neuroncore.Plan) (*report.Page, error) {
	rep, x, err := neuroncore.Check(p)
	if err != nil {
		return nil, err
	}
	return CheckedPage(x, rep)
}

// CheckedPage is Page for a plan already checked: x is its unrolled body
// and rep the findings to show, which may be a front end's own (an NKI
// kernel's, where some plan rules do not apply and others are renamed);
// the page's summary counts the findings it shows.
func CheckedPage(x *neuroncore.Execution, rep diag.Report) (*report.Page, error) {
	p := x.Plan
	rep = slices.Clone(rep)
	rep.Sort()
	if rep == nil {
		rep = diag.Report{}
	}
	name := p.Name
	if name == "" {
		name = "allocation plan"
	}
	page := &report.Page{Title: "NeuronCore plan: " + name, Diagnostics: rep}
	var auto int
	for _, t := range p.Tensors {
		if !t.Direct() {
			auto++
		}
	}
	// The time is the one `sim` and `nki sim` print, under the same
	// assumption (automatic tensors given unlimited memory), simulated on
	// the check's unrolling (issue 32: the page simulated the placement it
	// draws, 155 us where sim said 55 us for the same plan, neither saying
	// why). The placement drawn gets its own, labelled time.
	res, err := neuroncore.SimulateExecution(x)
	if err != nil {
		return nil, err
	}
	ss := res.Summary()
	timeline := timelineSection(res, ss)
	// Each plan is simulated and unrolled once (nki report took 1.75
	// times the memory of nki sim: it simulated the plan and the placed
	// plan twice each and unrolled the body again for the placed one).
	// The placement search starts from the run above; the placed time is
	// its own run of the placement it chose, and what is drawn is the
	// check's unrolling with that placement.
	shown := p
	placedNote, placedTime := "", ""
	if auto > 0 {
		if pl, err := neuroncore.PlaceExecution(x, neuroncore.PlaceOptions{Unbounded: res}); err == nil {
			if x, err = pl.Execution(); err != nil {
				return nil, err
			}
			shown = pl.Plan
			placedNote = fmt.Sprintf(" %s automatic tensors are drawn where `npukit sbuf place` puts them.", humanize.Count(int64(auto)))
			placedTime = fmt.Sprintf("%s with the automatic tensors where `npukit sbuf place` puts them (the memory maps below draw this placement; the engine timeline draws the run of \"Simulated time\")", usText(pl.TimeNs))
		} else {
			placedNote = fmt.Sprintf(" %s automatic tensors could not be placed (%v) and are not drawn.", humanize.Count(int64(auto)), err)
		}
	}
	sum := neuroncore.SummarizeExecution(x)
	page.Summary = []report.KV{
		{Key: "Architecture", Value: "NeuronCore-" + p.Arch.Name},
		{Key: "Tensors", Value: fmt.Sprintf("%s (%s automatic)", humanize.Count(int64(len(p.Tensors))), humanize.Count(int64(auto)))},
		{Key: "Instructions run", Value: ss.CountText()},
		{Key: "Simulated time", Value: usText(ss.TimeNs) + ", assuming " + ss.Memory},
		{Key: "Busiest engine", Value: ss.Bottleneck},
		{Key: "Check", Value: rep.Summary()},
	}
	if ss.SPMD != nil {
		page.Summary = slices.Insert(page.Summary, 4, report.KV{Key: "SPMD launch", Value: ss.SPMD.Note})
	}
	if placedTime != "" {
		page.Summary = slices.Insert(page.Summary, 4, report.KV{Key: "Simulated time, placed", Value: placedTime})
	}

	tt := &report.Table{Caption: "Tensors", Header: []string{"tensor", "buffer", "shape", "dtype", "tile bytes", "logical", "physical", "max alive", "allocation"}, Numeric: []int{4, 5, 6, 7}}
	for i, t := range sum.Tensors {
		alloc := t.Code
		if !p.Tensors[i].Direct() {
			alloc = "auto -> " + alloc
		}
		tt.Rows = append(tt.Rows, []string{t.Name, t.Buffer, t.Shape, t.DType, humanize.Count(t.TileBytes), humanize.Count(t.LogicalTiles), humanize.Count(t.Physical), humanize.Count(int64(t.MaxAlive)), alloc})
	}
	page.Sections = append(page.Sections, report.Section{ID: "tensors", Title: "Tensors", Intro: "Every on-chip tensor with its allocation." + placedNote, Blocks: []report.Block{tt}})

	rects := neuroncore.PhysicalRects(shown)
	series := map[string]int{}
	var ser []report.Series
	for _, t := range shown.Tensors {
		series[t.Name] = len(ser)
		ser = append(ser, report.Series{Name: t.Name})
	}
	for _, buf := range []neuroncore.Buffer{neuroncore.SBUF, neuroncore.PSUM} {
		m := &report.RectMap{Series: ser, XUnit: report.Number, YUnit: report.Bytes, XLabel: "partition", YLabel: "byte address in a partition", LabelRects: true}
		var top int64
		for _, r := range rects {
			if r.Buffer != buf {
				continue
			}
			tip := fmt.Sprintf("%s: partitions %d..%d, bytes %d..%d; %s", r.Tensor, r.Partition, r.Partition+r.Partitions-1, r.Offset, r.Offset+r.Bytes-1, strings.Join(r.Logical, ", "))
			if r.More > 0 {
				tip += fmt.Sprintf(" and %s more", humanize.Count(int64(r.More)))
			}
			m.Rects = append(m.Rects, report.Rect{X0: float64(r.Partition), X1: float64(r.Partition + r.Partitions), Y0: float64(r.Offset), Y1: float64(r.Offset + r.Bytes), Series: series[r.Tensor], Label: r.Tensor, Tip: tip})
			top = max(top, r.Offset+r.Bytes)
		}
		if len(m.Rects) == 0 {
			continue
		}
		if buf == neuroncore.SBUF {
			m.Caption = fmt.Sprintf("SBUF: physical tiles by partition and byte address (%s used of %s usable per partition)", humanize.Bytes(top), humanize.Bytes(p.Arch.SBUFUsableBytes))
			m.YLimit, m.LimitLabel = float64(p.Arch.SBUFUsableBytes), "usable bytes"
			if top < p.Arch.SBUFUsableBytes/4 {
				m.YLimit = 0 // keep the tiles readable; the caption gives the capacity
			}
			page.Sections = append(page.Sections, report.Section{ID: "sbuf", Title: "SBUF map", Intro: "Where the physical tiles of each tensor lie: partitions across, bytes of a partition up. Tiles of up to 64 (32) partitions may start at partition 64 (32, 64, 96).", Blocks: []report.Block{m}})
		} else {
			m.Caption = fmt.Sprintf("PSUM: physical tiles by partition and offset (%d banks of %s)", p.Arch.PSUMBanks, humanize.Bytes(p.Arch.PSUMBankBytes()))
			m.YLimit, m.LimitLabel = float64(p.Arch.PSUMPartitionBytes), "16 KiB"
			page.Sections = append(page.Sections, report.Section{ID: "psum", Title: "PSUM map", Intro: "PSUM tiles; a matmul output tile lies within one 2 KiB bank.", Blocks: []report.Block{m}})
		}
	}

	lts := x.LifetimeRects(sbufMaxLifetimeRects)
	for _, buf := range []neuroncore.Buffer{neuroncore.SBUF, neuroncore.PSUM} {
		lm := &report.RectMap{Caption: fmt.Sprintf("%s: logical tile lifetimes (body steps) against the bytes of their physical tile; overlapping rectangles are conflicts when their partitions overlap too", strings.ToUpper(buf.String())),
			Series: ser, XUnit: report.Number, YUnit: report.Bytes, XLabel: "body step", YLabel: "byte address in a partition", LabelRects: true}
		for _, l := range lts {
			if l.Buffer != buf {
				continue
			}
			lm.Rects = append(lm.Rects, report.Rect{X0: float64(l.Start), X1: float64(l.End), Y0: float64(l.Offset), Y1: float64(l.Offset + l.Bytes), Series: l.Tensor, Label: l.Tile,
				Tip: fmt.Sprintf("%s (%s): steps %d..%d, partitions %d..%d, bytes %d..%d", l.Tile, l.Buffer, l.Start, l.End-1, l.Partition, l.Partition+l.Partns-1, l.Offset, l.Offset+l.Bytes-1)})
		}
		if len(lm.Rects) == 0 {
			continue
		}
		intro := "Each logical tile from its first write to its last read."
		if len(lts) == sbufMaxLifetimeRects {
			intro += fmt.Sprintf(" Only the first %s tiles are drawn.", humanize.Count(sbufMaxLifetimeRects))
		}
		page.Sections = append(page.Sections, report.Section{ID: "lifetimes-" + buf.String(), Title: strings.ToUpper(buf.String()) + " tile lifetimes", Intro: intro, Blocks: []report.Block{lm}})
	}

	page.Sections = append(page.Sections, timeline)
	page.SectionFor = func(d diag.Diagnostic) string {
		if strings.HasPrefix(d.Rule, "sbuf/") {
			return "tensors"
		}
		return ""
	}
	return page, nil
}

// timelineSection draws a simulation's engines and DMA queues and tables
// its engines, the run of "Simulated time" (ss is its summary).
func timelineSection(res *neuroncore.SimResult, ss *neuroncore.SimSummary) report.Section {
	tl := report.SimTimeline(res.Timeline, report.Nanoseconds, "Engines and DMA queues", func(t *sim.Task) string { return t.Cat })
	for i := range tl.Tracks {
		for j := range tl.Tracks[i].Spans {
			s := &tl.Tracks[i].Spans[j]
			s.Start /= 1000 // ps -> ns
			s.End /= 1000
		}
	}
	// Which simulation is drawn (audit item 16): the run of "Simulated
	// time", not the placed one.
	run := fmt.Sprintf("the run of \"Simulated time\", %s, assuming %s", usText(ss.TimeNs), ss.Memory)
	if ss.Memory == "" {
		run = fmt.Sprintf("the run of \"Simulated time\", %s", usText(ss.TimeNs))
	}
	tl.Caption = "Engines and DMA queues: " + run
	et := &report.Table{Caption: "Engines: " + run, Header: []string{"engine", "instructions", "busy (us)", "utilisation"}, Numeric: []int{1, 2, 3}}
	for _, e := range ss.Engines {
		et.Rows = append(et.Rows, []string{e.Engine, humanize.Count(int64(e.Steps)), fmt.Sprintf("%.3f", e.BusyNs/1000), fmt.Sprintf("%.1f%%", e.Utilisation*100)})
	}
	intro := "The kernel body on the engine and DMA model (" + run + "): engines run in parallel, each in program order; a step waits for the tiles it reads and for earlier users of the physical tiles it overwrites. DMA utilisation is over all queues."
	if cut, total, ok := capTimeline(tl, sbufMaxTimelineSpans); ok {
		intro += fmt.Sprintf(" Only the first %s of %s spans are drawn (up to %s); the table covers the whole run.", humanize.Count(sbufMaxTimelineSpans), humanize.Count(int64(total)), humanize.Micros(cut/1000))
	}
	blocks := []report.Block{tl, et}
	if len(tl.Tracks) == 0 {
		// An empty body, or loops of zero trips: nothing runs, and a
		// timeline without tracks is not drawable.
		intro = "The kernel body runs no step (it is empty or its loops make zero trips)."
		blocks = []report.Block{&report.KeyValues{Items: []report.KV{{Key: "Steps", Value: "0"}}}}
	}
	return report.Section{ID: "timeline", Title: "Engine timeline", Intro: intro, Blocks: blocks}
}

// usText is a simulated time in the largest unit that keeps it at least 1
// (issue 32: "51984.3 us" is read more easily as 51.98 ms).
func usText(ns float64) string { return humanize.Nanos(int64(math.Round(ns))) }
