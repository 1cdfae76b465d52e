package report

import (
	"fmt"
	"sort"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/relayout"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/sim"
)

// SimTimeline turns a simulated timeline into a Gantt chart: one track per
// resource lane, spans coloured by task category (or by seriesOf when set).
func SimTimeline(tl *sim.Timeline, unit Unit, caption string, seriesOf func(t *sim.Task) string) *Timeline {
	g := tl.Graph
	cats := map[string]int{}
	var series []Series
	index := func(name string) int {
		if i, ok := cats[name]; ok {
			return i
		}
		cats[name] = len(series)
		series = append(series, Series{Name: name})
		return cats[name]
	}
	type laneKey struct {
		r    sim.ResourceID
		lane int32
	}
	tracks := map[laneKey]*Track{}
	var order []laneKey
	for i := range g.Tasks {
		t := &g.Tasks[i]
		if t.Resource < 0 {
			continue
		}
		k := laneKey{t.Resource, tl.Lane[i]}
		tr := tracks[k]
		if tr == nil {
			name := g.Resources[t.Resource].Name
			if c := g.Resources[t.Resource].Capacity; c > 1 {
				name = fmt.Sprintf("%s #%d", name, tl.Lane[i])
			}
			tr = &Track{Name: name}
			tracks[k] = tr
			order = append(order, k)
		}
		cat := t.Cat
		if seriesOf != nil {
			cat = seriesOf(t)
		}
		label := t.Name
		if label == "" {
			label = fmt.Sprintf("task %d", i)
		}
		tip := ""
		if t.Bytes > 0 {
			tip = humanize.Bytes(t.Bytes)
		}
		tr.Spans = append(tr.Spans, Span{Start: float64(tl.Start[i]), End: float64(tl.End[i]), Series: index(cat), Label: label, Tip: tip})
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].r != order[j].r {
			return order[i].r < order[j].r
		}
		return order[i].lane < order[j].lane
	})
	out := &Timeline{Caption: caption, Series: series, Unit: unit}
	for _, k := range order {
		out.Tracks = append(out.Tracks, *tracks[k])
	}
	return out
}

// NeffDMASections renders a DMA traffic analysis and, when given, its
// simulation.
func NeffDMASections(a *dma.Analysis, res *dma.SimResult, tl *sim.Timeline) []Section {
	var secs []Section
	if a != nil && len(a.Queues) > 0 {
		rows := [][]string{}
		var cols []Column
		series := []Series{{Name: "runs < 512 B"}, {Name: "512 B - 4 KiB"}, {Name: ">= 4 KiB"}}
		for _, q := range a.Queues {
			rows = append(rows, []string{q.Engine, q.Queue, humanize.Count(int64(q.Descriptors)), humanize.Bytes(q.Bytes), humanize.Count(q.Runs), fmt.Sprint(q.Partitions)})
			h := q.Histogram
			cols = append(cols, Column{Label: q.Engine + " " + q.Queue, Segments: []Segment{
				{Series: 0, Value: float64(h.Under64 + h.Under512)},
				{Series: 1, Value: float64(h.Under2K + h.Under4K)},
				{Series: 2, Value: float64(h.Under64K + h.From64KUp)},
			}})
		}
		secs = append(secs, Section{ID: "dma-traffic", Title: "DMA traffic by engine and queue",
			Intro: fmt.Sprintf("%s descriptors move %s in all. Short contiguous runs (under 512 B) make DMA overhead-bound.", humanize.Count(int64(a.Descriptors)), humanize.Bytes(a.Bytes)),
			Blocks: []Block{
				&Table{Header: []string{"engine", "queue", "descriptors", "bytes", "runs", "partitions"}, Numeric: []int{2, 3, 4, 5}, Rows: rows},
				&ColumnChart{Caption: "Contiguous source runs by size class, per queue", Series: series, Columns: cols, Unit: Number, XLabel: "engine / queue", YLabel: "runs"},
			}})
	}
	if res != nil && tl != nil && len(tl.Graph.Tasks) > 0 {
		rows := [][]string{}
		for _, q := range res.Queues {
			rows = append(rows, []string{q.Queue, fmt.Sprint(q.Engines), humanize.Count(int64(q.Descriptors)), humanize.Bytes(q.Bytes), fmt.Sprintf("%.1f", float64(q.BusyNs)/1000), fmt.Sprintf("%.2f", q.AchievedGBps)})
		}
		secs = append(secs, Section{ID: "dma-timeline", Title: "Simulated DMA timeline",
			Intro: fmt.Sprintf("Total DMA time %.1f us at %.1f GB/s achieved over %d engines (model: %.1f GB/s per engine, %d ns per descriptor).",
				float64(res.TotalNs)/1000, res.AchievedGBps, res.Params.Engines, res.Params.BytesPerNs, res.Params.OverheadNs),
			Blocks: []Block{
				SimTimeline(tl, Nanoseconds, "One track per DMA engine; colour = queue", nil),
				&Table{Header: []string{"queue", "engines", "descriptors", "bytes", "busy us", "GB/s"}, Numeric: []int{2, 3, 4, 5}, Rows: rows},
			}})
	}
	return secs
}

// OutputTiling draws which device tile holds each (y, x) position of a
// 3-D output: one rectangle per position, coloured by tile.
func OutputTiling(name string, o relayout.Output) (Block, error) {
	if o.Layout == nil || o.Y < 1 || o.X < 1 {
		return nil, fmt.Errorf("output %s has no tiled layout", name)
	}
	var rects []Rect
	tiles := map[int]int{}
	var series []Series
	for y := 0; y < o.Y; y++ {
		for x := 0; x < o.X; x++ {
			idx, err := o.Layout.DeviceIndex(y, x, 0)
			if err != nil {
				return nil, err
			}
			tile := int(o.Layout.YTile[y] + o.Layout.XTile[x])
			s, ok := tiles[tile]
			if !ok {
				s = len(series)
				tiles[tile] = s
				series = append(series, Series{Name: fmt.Sprintf("tile %d", tile)})
			}
			rects = append(rects, Rect{X0: float64(x), X1: float64(x + 1), Y0: float64(o.Y - y - 1), Y1: float64(o.Y - y), Series: s,
				Label: fmt.Sprintf("(y=%d, x=%d)", y, x), Tip: fmt.Sprintf("tile %d, device element %d", tile, idx)})
		}
	}
	return &RectMap{Caption: fmt.Sprintf("%s: %dx%dx%d output, device tile of each (y, x)", name, o.Y, o.X, o.Z),
		Series: series, Rects: rects, XUnit: Number, YUnit: Number, XLabel: "x", YLabel: "y (top row = 0)", Height: 320}, nil
}

// DMAPlanTimeline lays the steady-state transfer plan out over time at a
// link's raw bandwidth (a lower bound: transfers back to back).
func DMAPlanTimeline(p *dmaplan.Plan, link dmaplan.Link) *Timeline {
	series := []Series{{Name: "instructions"}, {Name: "host->device"}, {Name: "device->host"}, {Name: "interrupt / fence"}}
	t := 0.0
	var in, out, ev []Span
	for _, s := range p.SteadyState {
		d := float64(s.Size) * 8 / link.BitsPerSec * 1e9 // ns
		label := s.Kind
		if s.Layer != "" {
			label += " " + s.Layer
		} else if s.Target != "" {
			label += " " + s.Target
		}
		switch {
		case s.Kind == "instructions":
			in = append(in, Span{Start: t, End: t + d, Series: 0, Label: fmt.Sprintf("chunk %d", s.Chunk), Tip: humanize.Bytes(s.Size)})
		case s.Kind == "dma" && s.Direction == dmaplan.Outfeed.String():
			out = append(out, Span{Start: t, End: t + d, Series: 2, Label: label, Tip: humanize.Bytes(s.Size)})
		case s.Kind == "dma":
			in = append(in, Span{Start: t, End: t + d, Series: 1, Label: label, Tip: humanize.Bytes(s.Size)})
		default:
			ev = append(ev, Span{Start: t, End: t + 1, Series: 3, Label: s.Kind})
		}
		t += d
	}
	tracks := []Track{{Name: "host->device", Spans: in}, {Name: "device->host", Spans: out}, {Name: "events", Spans: ev}}
	return &Timeline{Caption: fmt.Sprintf("Steady-state transfer plan over %s (lower bound: raw bandwidth, transfers back to back)", link.Name),
		Series: series, Tracks: tracks, Unit: Nanoseconds}
}
