package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

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
			Intro: fmt.Sprintf("%s descriptors move %s in all. Short contiguous runs (under 512 B) make DMA overhead-bound; runs are counted on %s.", humanize.Count(int64(a.Descriptors)), humanize.Bytes(a.Bytes), dma.RunsSide),
			Blocks: []Block{
				&Table{Header: []string{"engine", "queue", "descriptors", "bytes", "runs", "partitions"}, Numeric: []int{2, 3, 4, 5}, Rows: rows},
				&ColumnChart{Caption: "Contiguous runs by size class, per queue (each descriptor's more fragmented side)", Series: series, Columns: cols, Unit: Number, XLabel: "engine / queue", YLabel: "runs"},
			}})
	}
	if res != nil && tl != nil && len(tl.Graph.Tasks) > 0 {
		rows := [][]string{}
		for _, q := range res.Queues {
			rows = append(rows, []string{q.Queue, fmt.Sprint(q.Engines), humanize.Count(int64(q.Descriptors)), humanize.Bytes(q.Bytes), fmt.Sprintf("%.1f", float64(q.BusyNs)/1000), fmt.Sprintf("%.2f", q.AchievedGBps)})
		}
		secs = append(secs, Section{ID: "dma-timeline", Title: "Simulated DMA timeline",
			Intro: fmt.Sprintf("DMA program alone (no instruction order; npukit sim prices the engines' instructions too): %s at %.1f GB/s achieved over %d engines (model: %.1f GB/s per engine, a descriptor's rows spread over the engines, %d ns fixed latency).",
				humanize.Nanos(res.TotalNs), res.AchievedGBps, res.Params.Engines, res.Params.BytesPerNs, res.Params.OverheadNs),
			Blocks: []Block{
				SimTimeline(tl, Nanoseconds, "One track per DMA engine; colour = queue", nil),
				&Table{Header: []string{"queue", "engines", "descriptors", "bytes", "busy us", "GB/s"}, Numeric: []int{2, 3, 4, 5}, Rows: rows},
			}})
	}
	return secs
}

// OutputTiling draws which device tile holds each (y, x) position of a
// 3-D output: one rectangle per position, coloured by tile, row 0 at the
// top as in the tensor, each tile's number written on it where it fits.
func OutputTiling(name string, o relayout.Output) (Block, error) {
	return OutputTilingShared([]string{name}, []relayout.Output{o})
}

// OutputTilingShared draws the tiling of several outputs that place their
// (y, x) positions on the same tiles (SameTiling) as one chart naming all
// of them: three outputs of one layout are one picture, not three.
func OutputTilingShared(names []string, outs []relayout.Output) (Block, error) {
	if len(names) == 0 || len(names) != len(outs) {
		return nil, fmt.Errorf("tiling: %d names for %d outputs", len(names), len(outs))
	}
	o := outs[0]
	if o.Layout == nil || o.Y < 1 || o.X < 1 {
		return nil, fmt.Errorf("output %s has no tiled layout", names[0])
	}
	if len(o.Layout.YTile) < o.Y || len(o.Layout.XTile) < o.X {
		return nil, fmt.Errorf("output %s: tile maps shorter than its %dx%d shape", names[0], o.Y, o.X)
	}
	for i, other := range outs[1:] {
		if !SameTiling(o, other) {
			return nil, fmt.Errorf("outputs %s and %s are tiled differently", names[0], names[i+1])
		}
	}
	// The device element of a position is the same for all outputs only
	// when their layouts agree in every field.
	sameElements := true
	for _, other := range outs[1:] {
		sameElements = sameElements && sameLayout(o, other)
	}
	var rects []Rect
	tiles := map[int]int{}
	type area struct{ y0, y1, x0, x1, n int }
	areas := map[int]*area{}
	var series []Series
	for y := 0; y < o.Y; y++ {
		for x := 0; x < o.X; x++ {
			tile := int(o.Layout.YTile[y] + o.Layout.XTile[x])
			tip := fmt.Sprintf("tile %d", tile)
			if sameElements {
				idx, err := o.Layout.DeviceIndex(y, x, 0)
				if err != nil {
					return nil, err
				}
				tip += fmt.Sprintf(", device element %d", idx)
			}
			s, ok := tiles[tile]
			if !ok {
				s = len(series)
				tiles[tile] = s
				series = append(series, Series{Name: fmt.Sprintf("tile %d", tile)})
				areas[tile] = &area{y, y + 1, x, x + 1, 0}
			}
			a := areas[tile]
			a.y0, a.y1, a.x0, a.x1 = min(a.y0, y), max(a.y1, y+1), min(a.x0, x), max(a.x1, x+1)
			a.n++
			rects = append(rects, Rect{X0: float64(x), X1: float64(x + 1), Y0: float64(y), Y1: float64(y + 1), Series: s,
				Label: fmt.Sprintf("(y=%d, x=%d)", y, x), Tip: tip})
		}
	}
	var labels []AreaLabel
	for tile, a := range areas {
		if a.n != (a.y1-a.y0)*(a.x1-a.x0) {
			continue // not one rectangle: a centred number could sit on another tile
		}
		labels = append(labels, AreaLabel{X0: float64(a.x0), X1: float64(a.x1), Y0: float64(a.y0), Y1: float64(a.y1), Text: strconv.Itoa(tile)})
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].Text < labels[j].Text })
	caption := fmt.Sprintf("%s: %dx%dx%d output, device tile of each (y, x)", names[0], o.Y, o.X, o.Z)
	if len(names) > 1 {
		shapes := make([]string, len(names))
		for i, n := range names {
			shapes[i] = fmt.Sprintf("%s (%dx%dx%d)", n, outs[i].Y, outs[i].X, outs[i].Z)
		}
		caption = fmt.Sprintf("One chart for %d outputs that put every (y, x) position on the same tile: %s. Device tile of each (y, x)", len(names), strings.Join(shapes, "; "))
	}
	return &RectMap{Caption: caption, Series: series, Rects: rects, Labels: labels, YDown: true,
		XUnit: Number, YUnit: Number, XLabel: "x", YLabel: "y", Height: 320}, nil
}

// SameTiling reports whether two outputs draw the same tiling chart: the
// same height and width and every (y, x) position on the same tile.
func SameTiling(a, b relayout.Output) bool {
	if a.Y != b.Y || a.X != b.X || a.Layout == nil || b.Layout == nil ||
		len(a.Layout.YTile) < a.Y || len(b.Layout.YTile) < a.Y || len(a.Layout.XTile) < a.X || len(b.Layout.XTile) < a.X {
		return false
	}
	return slices.Equal(a.Layout.YTile[:a.Y], b.Layout.YTile[:a.Y]) && slices.Equal(a.Layout.XTile[:a.X], b.Layout.XTile[:a.X])
}

// sameLayout: the outputs agree in shape, element size and every map, so
// each position is the same device element in both.
func sameLayout(a, b relayout.Output) bool {
	if a.Y != b.Y || a.X != b.X || a.Z != b.Z || a.ElemSize != b.ElemSize || a.Layout == nil || b.Layout == nil {
		return false
	}
	la, lb := a.Layout, b.Layout
	return slices.Equal(la.YTile, lb.YTile) && slices.Equal(la.XTile, lb.XTile) && slices.Equal(la.TileOffset, lb.TileOffset) &&
		slices.Equal(la.XLocal, lb.XLocal) && slices.Equal(la.YLocal, lb.YLocal) && slices.Equal(la.RowSize, lb.RowSize)
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
