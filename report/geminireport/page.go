// Package geminireport builds the report page of Gemini scheduler IR
// schedules, with their timing simulation.
package geminireport

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// Bounds that keep a report of a large schedule small enough for a browser
// (rectangles and columns cost a few hundred bytes each).
const (
	geminiMaxMapCores   = 8
	geminiMaxRects      = 4500
	geminiMaxLayerCols  = 300
	geminiMaxOccupWorks = 600
)

// File is one schedule of a report: its file name, the schedule, and the
// timing parameters its simulation section uses.
type File struct {
	Name     string
	Schedule *gemini.Schedule
	Sim      timing.Params
	// Zebu, when set, is an emulator trace of this schedule's run: the
	// simulation section compares with it (one that is not a run of the
	// schedule fails the page).
	Zebu *zebu.Trace
}

// Page renders one or more schedules: per schedule its cores and
// workloads, DRAM and core-to-core traffic, the L2 maps, and the timing
// simulation, with the check findings linked to those sections.
func Page(files []File) (*report.Page, error) {
	if len(files) == 0 {
		return nil, errors.New("no schedule")
	}
	page := &report.Page{Title: "Gemini schedule", Diagnostics: diag.Report{}}
	if len(files) > 1 {
		page.Title = fmt.Sprintf("%d Gemini schedules", len(files))
	}
	page.Subtitle = filepath.Base(files[0].Name)
	if len(files) > 1 {
		page.Subtitle += fmt.Sprintf(" and %d more", len(files)-1)
	}
	type fileInfo struct {
		name, prefix string
		cores        int
	}
	var infos []fileInfo
	for i, f := range files {
		s := f.Schedule
		name := filepath.Base(f.Name)
		prefix := ""
		if len(files) > 1 {
			prefix = fmt.Sprintf("f%d-", i)
		}
		sum := gemini.Summarize(s, true)
		if i == 0 {
			page.Summary = geminiKeyFacts(s, sum)
		}
		page.Sections = append(page.Sections, geminiSections(s, sum, name, prefix)...)
		simSecs, err := geminiSimReportSections(s, f.Sim, f.Zebu, prefix)
		if err != nil {
			return nil, err // the caller names the file
		}
		page.Sections = append(page.Sections, simSecs...)
		page.Diagnostics = append(page.Diagnostics, gemini.Check(s).WithFile(name)...)
		infos = append(infos, fileInfo{name, prefix, len(s.Cores)})
	}
	page.SectionFor = func(d diag.Diagnostic) string {
		for _, fi := range infos {
			if d.File != fi.name {
				continue
			}
			// Locations start with "core KEY / workload ...": link the
			// buffer findings to the core's map when it is drawn.
			if strings.Contains(d.Location, "/ buffer[") || strings.Contains(d.Location, "_buffer[") {
				return fi.prefix + "l2"
			}
			if strings.HasPrefix(d.Location, "core ") || strings.HasPrefix(d.Location, "dram ") {
				return fi.prefix + "traffic"
			}
			return fi.prefix + "cores"
		}
		return ""
	}
	return page, nil
}

// coreName names a core as every command does (gemini.Core.Name: by ID,
// the CORE column of npukit inspect, with the file's key when that differs),
// capitalised as a caption.
func coreName(c *gemini.Core) string {
	return "C" + strings.TrimPrefix(c.Name(), "c")
}

func geminiKeyFacts(s *gemini.Schedule, sum *gemini.Summary) []report.KV {
	kv := []report.KV{
		{Key: "Variant", Value: string(s.Variant) + " IR"},
		{Key: "Cores", Value: fmt.Sprintf("%d on a %dx%d mesh", len(s.Cores), s.XLen, s.YLen)},
		{Key: "Workloads", Value: fmt.Sprintf("%s in %s", humanize.Count(int64(sum.Workloads)), humanize.Plural(sum.Layers, "layer"))},
		{Key: "Sum of time", Value: humanize.Count(sum.TimeSum) + " cycles"},
		{Key: "DRAM reads", Value: fmt.Sprintf("%s weights, %s feature maps", humanize.Bytes(sum.DRAM.WeightReadBytes), humanize.Bytes(sum.DRAM.FmapReadBytes))},
		{Key: "DRAM writes", Value: humanize.Bytes(sum.DRAM.WriteBytes)},
		{Key: "Core to core", Value: humanize.Bytes(sum.Transfers.CoreToCoreBytes)},
	}
	if s.BufferSize > 0 {
		kv = append(kv, report.KV{Key: "L2 per core", Value: humanize.Bytes(s.BufferSize)})
	}
	return kv
}

func geminiSections(s *gemini.Schedule, sum *gemini.Summary, name, prefix string) []report.Section {
	var secs []report.Section
	secs = append(secs, geminiCoreSection(s, sum, name, prefix))
	if sec, ok := graphSection(s, name, prefix); ok {
		secs = append(secs, sec)
	}
	secs = append(secs, geminiTrafficSection(sum, name, prefix))
	secs = append(secs, geminiL2Section(s, name, prefix))
	return secs
}

func geminiCoreSection(s *gemini.Schedule, sum *gemini.Summary, name, prefix string) report.Section {
	t := &report.Table{Caption: "Per core",
		Header:  []string{"core", "key", "x,y", "workloads", "time (cycles)", "L2 peak", "L2 mean", "WL peak"},
		Numeric: []int{0, 1, 3, 4, 5, 6, 7}}
	chart := &report.BarChart{Caption: "L2 occupancy per core (sum of the snapshot's tensors)",
		Series: []report.Series{{Name: "mean"}, {Name: "peak above mean"}}, Unit: report.Bytes, XLabel: "L2 occupancy"}
	if s.BufferSize > 0 {
		chart.Limit, chart.LimitLabel = float64(s.BufferSize), "buffersize "+humanize.Bytes(s.BufferSize)
	}
	for _, c := range sum.Cores {
		t.Rows = append(t.Rows, []string{strconv.Itoa(c.ID), strconv.FormatInt(c.Key, 10), fmt.Sprintf("%d,%d", c.X, c.Y),
			humanize.Count(int64(c.Workloads)), humanize.Count(c.TimeSum), humanize.Bytes(c.L2Peak), humanize.Bytes(c.L2Mean), humanize.Bytes(c.WLPeak)})
		chart.Bars = append(chart.Bars, report.HBar{Label: fmt.Sprintf("core %d", c.ID), Segments: []report.Segment{
			{Series: 0, Value: float64(c.L2Mean), Tip: "mean " + humanize.Bytes(c.L2Mean)},
			{Series: 1, Value: float64(c.L2Peak - c.L2Mean), Tip: "peak " + humanize.Bytes(c.L2Peak)},
		}})
	}
	types := make([]string, 0, len(sum.ByType))
	for _, tc := range sum.ByType {
		types = append(types, fmt.Sprintf("%s %d", tc.Type, tc.Count))
	}
	kv := &report.KeyValues{Caption: "Deliveries of core ofmaps (ofmap x destination)", Items: []report.KV{
		{Key: "Workloads by type", Value: strings.Join(types, ", ")},
		{Key: "Core to core", Value: fmt.Sprintf("%d, %s", sum.Transfers.CoreToCore, humanize.Bytes(sum.Transfers.CoreToCoreBytes))},
		{Key: "Same core", Value: fmt.Sprintf("%d, %s", sum.Transfers.SameCore, humanize.Bytes(sum.Transfers.SameCoreBytes))},
		{Key: "Via DRAM", Value: fmt.Sprintf("%d, %s", sum.Transfers.ViaDRAM, humanize.Bytes(sum.Transfers.ViaDRAMBytes))},
	}}
	if r := sum.Routes; sum.Transfers.ViaDRAM > 0 {
		// The same split as inspect and sim: who reads the DRAM copy back.
		kv.Items = append(kv.Items,
			report.KV{Key: "Via DRAM, read back by another core", Value: fmt.Sprintf("%d, %s", r.ToOtherCore, humanize.Bytes(r.ToOtherCoreBytes))},
			report.KV{Key: "Via DRAM, read back by the same core only", Value: fmt.Sprintf("%d, %s", r.ToSameCore, humanize.Bytes(r.ToSameCoreBytes))},
			report.KV{Key: "Via DRAM, not read back (output)", Value: fmt.Sprintf("%d, %s", r.NotReadBack, humanize.Bytes(r.NotReadBackBytes))})
	}
	blocks := []report.Block{kv, t, chart}
	if len(chart.Bars) == 0 { // a schedule without cores: nothing to chart
		blocks = []report.Block{kv, &report.Text{Text: "The schedule has no cores.", Muted: true}}
	}
	return report.Section{ID: prefix + "cores", Title: "Cores of " + name,
		Intro:  "Work and buffer occupancy per core. Time is the scheduler's compute estimate (DRAM time not included).",
		Blocks: blocks}
}

func geminiTrafficSection(sum *gemini.Summary, name, prefix string) report.Section {
	chart := &report.ColumnChart{Caption: "DRAM and core-to-core traffic per layer (DRAM reads counted at their first consumer)",
		Series: []report.Series{{Name: "weight reads"}, {Name: "feature map reads"}, {Name: "DRAM writes"}, {Name: "core to core"}},
		Unit:   report.Bytes, XLabel: "layer (program order)", YLabel: "traffic"}
	t := &report.Table{Caption: "Per layer", Header: []string{"layer", "type", "workloads", "cores", "time (cycles)", "weight read", "fmap read", "DRAM write", "core to core"},
		Numeric: []int{2, 3, 4, 5, 6, 7, 8}, MaxRows: 500}
	for i, l := range sum.LayerTraffic {
		if i < geminiMaxLayerCols {
			chart.Columns = append(chart.Columns, report.Column{Label: l.Name, Segments: []report.Segment{
				{Series: 0, Value: float64(l.WeightReadBytes), Tip: humanize.Bytes(l.WeightReadBytes)},
				{Series: 1, Value: float64(l.FmapReadBytes), Tip: humanize.Bytes(l.FmapReadBytes)},
				{Series: 2, Value: float64(l.WriteBytes), Tip: humanize.Bytes(l.WriteBytes)},
				{Series: 3, Value: float64(l.CoreToCoreBytes), Tip: humanize.Bytes(l.CoreToCoreBytes)},
			}})
		}
		t.Rows = append(t.Rows, []string{l.Name, l.Type, humanize.Count(int64(l.Workloads)), humanize.Count(int64(l.Cores)), humanize.Count(l.TimeSum),
			humanize.Bytes(l.WeightReadBytes), humanize.Bytes(l.FmapReadBytes), humanize.Bytes(l.WriteBytes), humanize.Bytes(l.CoreToCoreBytes)})
	}
	blocks := []report.Block{chart}
	if len(chart.Columns) == 0 { // no workloads: no layers to chart
		blocks = []report.Block{&report.Text{Text: "The schedule has no workloads.", Muted: true}}
	}
	if len(sum.LayerTraffic) > geminiMaxLayerCols {
		blocks = append(blocks, &report.Text{Text: fmt.Sprintf("The chart shows the first %d of %d layers; the table lists more.", geminiMaxLayerCols, len(sum.LayerTraffic)), Muted: true})
	}
	blocks = append(blocks, t)
	d := sum.DRAM
	return report.Section{ID: prefix + "traffic", Title: "Traffic of " + name,
		Intro: fmt.Sprintf("DRAM reads: %s (%s), %s (%s); DRAM writes: %s (%s).",
			humanize.Plural(d.WeightReads, "weight"), humanize.Bytes(d.WeightReadBytes), humanize.Plural(d.FmapReads, "feature map"), humanize.Bytes(d.FmapReadBytes), humanize.Count(int64(d.Writes)), humanize.Bytes(d.WriteBytes)),
		Blocks: blocks}
}

var geminiTensorSeries = []report.Series{{Name: "weight"}, {Name: "ifmap from DRAM"}, {Name: "ifmap from a core"}, {Name: "ofmap (to DRAM)"}}

func geminiTensorSeriesOf(l *gemini.Lifetime) int {
	switch {
	case l.Type == "weight":
		return 0
	case l.Type == "ofmap":
		return 3
	case l.FromDRAM:
		return 1
	}
	return 2
}

// geminiL2Section draws each core's L2 address map over its workloads (one
// rectangle per tensor lifetime) or, for schedules without addresses (raw
// IR), the occupancy per workload.
func geminiL2Section(s *gemini.Schedule, name, prefix string) report.Section {
	sec := report.Section{ID: prefix + "l2", Title: "L2 buffer of " + name}
	cores := s.Cores
	if len(cores) > geminiMaxMapCores {
		cores = cores[:geminiMaxMapCores]
	}
	perCore := geminiMaxRects / max(1, len(cores))
	tn := gemini.IdentifyTensors(s)
	for _, c := range cores {
		ls := s.LifetimesOf(c, tn)
		if len(ls) == 0 {
			continue
		}
		m := &report.RectMap{Caption: fmt.Sprintf("%s: L2 address map over its workloads (one rectangle per tensor while it stays at one address)", coreName(c)),
			Series: geminiTensorSeries, XUnit: report.Number, YUnit: report.Bytes, XLabel: "workload (program order)", YLabel: "L2 address",
			YLimit: float64(s.BufferSize), LimitLabel: "buffersize", Height: 300}
		shown := 0
		for i := range ls {
			l := &ls[i]
			if len(m.Rects)+len(l.Spans) > perCore {
				break
			}
			shown++
			w0, w1 := &c.Workloads[l.First], &c.Workloads[l.Last]
			label := fmt.Sprintf("%s %s, %s", l.Type, l.LayerName, humanize.Bytes(l.Size))
			tip := fmt.Sprintf("workloads %d..%d, address %d", w0.ID, w1.ID, l.Address)
			if l.TensorID >= 0 {
				tip = fmt.Sprintf("tensor %d, %s", l.TensorID, tip)
			}
			if len(l.TransferIDs) > 0 {
				tip += fmt.Sprintf(", transfers %v", l.TransferIDs)
			}
			for _, sp := range l.Spans {
				m.Rects = append(m.Rects, report.Rect{X0: float64(l.First), X1: float64(l.Last + 1), Y0: float64(sp.Start), Y1: float64(sp.End),
					Series: geminiTensorSeriesOf(l), Label: label, Tip: tip})
			}
		}
		if len(m.Rects) == 0 {
			continue
		}
		sec.Blocks = append(sec.Blocks, m)
		if shown < len(ls) {
			sec.Blocks = append(sec.Blocks, &report.Text{Text: fmt.Sprintf("%s: the map shows the first %d of %d tensor lifetimes.", coreName(c), shown, len(ls)), Muted: true})
		}
	}
	if len(sec.Blocks) > 0 {
		sec.Intro = "Where each tensor lives in L2 over time. A tensor wrapping around the end of its ring region is drawn as two rectangles."
		if len(cores) < len(s.Cores) {
			sec.Blocks = append(sec.Blocks, &report.Text{Text: fmt.Sprintf("Maps of the first %d of %d cores.", len(cores), len(s.Cores)), Muted: true})
		}
		return sec
	}
	// No addresses: occupancy per workload, stacked by tensor type.
	sec.Intro = "This schedule has no buffer addresses (raw IR): occupancy per workload, from the snapshots' sizes."
	for _, c := range cores {
		chart := &report.ColumnChart{Caption: fmt.Sprintf("%s: L2 occupancy per workload", coreName(c)),
			Series: []report.Series{{Name: "weight"}, {Name: "ifmap"}, {Name: "ofmap"}}, Unit: report.Bytes, XLabel: "workload", YLabel: "L2 occupancy"}
		for wi := range c.Workloads {
			if wi >= geminiMaxOccupWorks {
				break
			}
			w := &c.Workloads[wi]
			var by [3]int64
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				switch e.Type {
				case "weight":
					by[0] += e.Size
				case "ofmap":
					by[2] += e.Size
				default:
					by[1] += e.Size
				}
			}
			col := report.Column{Label: strconv.FormatInt(w.ID, 10)}
			for k, v := range by {
				col.Segments = append(col.Segments, report.Segment{Series: k, Value: float64(v), Tip: w.LayerName + ": " + humanize.Bytes(v)})
			}
			chart.Columns = append(chart.Columns, col)
		}
		if len(chart.Columns) > 0 {
			sec.Blocks = append(sec.Blocks, chart)
		}
	}
	if len(sec.Blocks) == 0 {
		sec.Blocks = append(sec.Blocks, &report.Text{Text: "No buffer snapshots.", Muted: true})
	}
	return sec
}
