// Package zebureport builds the report page of ZeBu emulator traces of
// Gemini runs.
package zebureport

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// File is one trace of a report.
type File struct {
	Name  string
	Trace *zebu.Trace
}

// Page renders each trace: its totals, the busy time per unit class and
// the per-layer extents.
func Page(files []File) (*report.Page, error) {
	if len(files) == 0 {
		return nil, errors.New("no trace")
	}
	page := &report.Page{Title: "ZeBu emulator trace", Subtitle: filepath.Base(files[0].Name), Diagnostics: diag.Report{}}
	if len(files) > 1 {
		page.Title = fmt.Sprintf("%d ZeBu emulator traces", len(files))
		page.Subtitle += fmt.Sprintf(" and %d more", len(files)-1)
	}
	for i, f := range files {
		t := f.Trace
		name := filepath.Base(f.Name)
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
			classes.Rows = append(classes.Rows, []string{c.Class, zebu.ClassName(c.Class), strconv.Itoa(c.Insts), humanize.Count(c.Sum), humanize.Count(c.Busy), fmt.Sprintf("%.1f", pct)})
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
			Intro:  fmt.Sprintf("Total %s cycles (end of the last instruction): %s at the nominal 1 GHz clock npukit states cycles at everywhere (1 cycle = 1 ns; the emulator itself runs 40 times slower).", humanize.Count(total), humanize.Nanos(total)),
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
			if n := zebu.ClassName(in.Class); n != "" {
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
