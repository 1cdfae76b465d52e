package report

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
)

// Series names a category of marks (a segment kind, a task class).
type Series struct {
	Name  string
	Color string // optional; the palette is used when empty
}

func seriesColor(ss []Series, i int) string {
	if i >= 0 && i < len(ss) && ss[i].Color != "" {
		return ss[i].Color
	}
	return colorOf(i)
}

func legend(ss []Series) string {
	if len(ss) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<div class="legend">`)
	for i, s := range ss {
		fmt.Fprintf(&b, `<span><span class="sw" style="%s"></span>%s</span>`, swatchStyle(ss, i), esc(s.Name))
	}
	b.WriteString(`</div>`)
	return b.String()
}

// plot holds the geometry shared by the charts.
type plot struct {
	w, h                     float64 // whole SVG
	left, right, top, bottom float64 // margins
}

func (p plot) pw() float64 { return p.w - p.left - p.right }
func (p plot) ph() float64 { return p.h - p.top - p.bottom }

func f1(v float64) string { return trimZero(fmt.Sprintf("%.1f", v)) }

// HBar is one horizontal stacked bar.
type HBar struct {
	Label    string
	Segments []Segment
}

// Segment is a part of a bar; Series indexes BarChart.Series.
type Segment struct {
	Series int
	Value  float64
	Tip    string // extra hover text
}

// BarChart draws horizontal stacked bars against an optional limit line
// (e.g. memory use against 8 MiB of SRAM).
type BarChart struct {
	Caption    string
	Series     []Series
	Bars       []HBar
	Unit       Unit
	XLabel     string
	Limit      float64 // 0 = none
	LimitLabel string
}

// Sizes of chart text in px (page.css sets 11px for svg text).
const (
	fontSize      = 11.0
	smallFontSize = 9.0
)

// tickAttrs are the attributes of a tick label of axis ("x" or "y"): the
// browser test reads each axis's unit from them.
func tickAttrs(axis string, x, y float64, anchor string) string {
	return fmt.Sprintf(`class="tick" data-axis="%s" x="%s" y="%s" text-anchor="%s"`, axis, f1(x), f1(y), anchor)
}

func (c *BarChart) html() (template.HTML, error) {
	if len(c.Bars) == 0 {
		return "", errors.New("bar chart without bars")
	}
	maxv := c.Limit
	for _, b := range c.Bars {
		s := 0.0
		for _, g := range b.Segments {
			s += g.Value
		}
		maxv = math.Max(maxv, s)
	}
	if maxv <= 0 {
		maxv = 1
	}
	const maxLabelW = 320.0
	names := make([]string, len(c.Bars))
	for i, b := range c.Bars {
		names[i] = b.Label
	}
	labelW := math.Max(40, labelRoom(names, fontSize, maxLabelW-10)+10)
	shown := fitLabels(names, fontSize, labelW-10)
	// The total printed after the longest bar needs room on the right.
	totalW := 0.0
	for _, b := range c.Bars {
		t := 0.0
		for _, g := range b.Segments {
			t += g.Value
		}
		totalW = math.Max(totalW, textWidth(c.Unit.Format(t), fontSize))
	}
	p := plot{w: 960, left: labelW, right: math.Max(30, totalW+12), top: 20, bottom: 44}
	barH := 22.0
	p.h = p.top + p.bottom + float64(len(c.Bars))*(barH+8)
	x := func(v float64) float64 { return p.left + v/maxv*p.pw() }
	var s strings.Builder
	fmt.Fprintf(&s, `<figure><svg class="chart bar-chart" viewBox="0 0 %s %s" width="%s" role="img" aria-label="%s">`, f1(p.w), f1(p.h), f1(p.w), esc(c.Caption))
	var vals []float64
	for _, b := range c.Bars {
		for _, g := range b.Segments {
			vals = append(vals, g.Value)
		}
	}
	whole := allWhole(c.Unit, vals...)
	ticks := wholeTicks(0, maxv, 6, c.Unit, whole)
	sc := scaleFor(c.Unit, ticks)
	s.WriteString(`<g class="grid">`)
	for _, t := range ticks {
		fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(x(t)), f1(x(t)), f1(p.top), f1(p.h-p.bottom))
	}
	s.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.w-p.right), f1(p.h-p.bottom), f1(p.h-p.bottom))
	for _, t := range ticks {
		fmt.Fprintf(&s, `<text %s>%s</text>`, tickAttrs("x", x(t), p.h-p.bottom+14, "middle"), esc(sc.tick(t)))
	}
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="x"%s x="%s" y="%s" text-anchor="middle">%s</text></g>`, integralAttr(whole, sc), f1(p.left+p.pw()/2), f1(p.h-6), esc(sc.title(c.XLabel)))
	for i, b := range c.Bars {
		y := p.top + float64(i)*(barH+8) + 4
		svgText(&s, fmt.Sprintf(`x="%s" y="%s" text-anchor="end"`, f1(p.left-6), f1(y+barH/2+4)), shown[i], b.Label)
		acc := 0.0
		total := 0.0
		for _, g := range b.Segments {
			total += g.Value
		}
		for _, g := range b.Segments {
			if g.Value <= 0 {
				continue
			}
			name := ""
			if g.Series >= 0 && g.Series < len(c.Series) {
				name = c.Series[g.Series].Name
			}
			tip := fmt.Sprintf("%s\n%s: %s", b.Label, name, c.Unit.Format(g.Value))
			if g.Tip != "" {
				tip += "\n" + g.Tip
			}
			rx, ry, rw, rh := f1(x(acc)), f1(y), f1(math.Max(0.5, x(acc+g.Value)-x(acc))), f1(barH)
			fmt.Fprintf(&s, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s" data-tip="%s"/>`,
				rx, ry, rw, rh, seriesColor(c.Series, g.Series), esc(tip))
			overlay(&s, c.Series, g.Series, rx, ry, rw, rh)
			acc += g.Value
		}
		fmt.Fprintf(&s, `<text x="%s" y="%s" class="muted">%s</text>`, f1(x(total)+4), f1(y+barH/2+4), esc(c.Unit.Format(total)))
	}
	if c.Limit > 0 {
		// The limit's label sits above the plot, right-aligned at the line
		// (or left-aligned when the line is too near the left edge).
		lx, anchor := x(c.Limit)-3, "end"
		if lx-textWidth(c.LimitLabel, fontSize) < 2 {
			lx, anchor = x(c.Limit)+3, "start"
		}
		fmt.Fprintf(&s, `<line class="limit" x1="%s" x2="%s" y1="%s" y2="%s"/><text x="%s" y="%s" text-anchor="%s" fill="#c62828">%s</text>`,
			f1(x(c.Limit)), f1(x(c.Limit)), f1(p.top-6), f1(p.h-p.bottom), f1(lx), f1(p.top-6), anchor, esc(c.LimitLabel))
	}
	s.WriteString(`</svg>`)
	s.WriteString(legend(c.Series))
	if c.Caption != "" {
		fmt.Fprintf(&s, `<figcaption>%s</figcaption>`, esc(c.Caption))
	}
	s.WriteString(`</figure>`)
	return template.HTML(s.String()), nil
}

// Column is one vertical stacked column of a ColumnChart.
type Column struct {
	Label    string
	Segments []Segment
}

// ColumnChart draws vertical stacked columns (e.g. DRAM traffic per layer).
type ColumnChart struct {
	Caption string
	Series  []Series
	Columns []Column
	Unit    Unit
	XLabel  string
	YLabel  string
}

func (c *ColumnChart) html() (template.HTML, error) {
	if len(c.Columns) == 0 {
		return "", errors.New("column chart without columns")
	}
	maxv := 0.0
	for _, col := range c.Columns {
		s := 0.0
		for _, g := range col.Segments {
			s += g.Value
		}
		maxv = math.Max(maxv, s)
	}
	if maxv <= 0 {
		maxv = 1
	}
	var vals []float64
	for _, col := range c.Columns {
		for _, g := range col.Segments {
			vals = append(vals, g.Value)
		}
	}
	whole := allWhole(c.Unit, vals...)
	ticks := wholeTicks(0, maxv, 5, c.Unit, whole)
	sc := scaleFor(c.Unit, ticks)
	tickW := 0.0
	for _, t := range ticks {
		tickW = math.Max(tickW, textWidth(sc.tick(t), fontSize))
	}
	// Column labels are drawn rotated by 60 degrees below the axis, cut to
	// at most 120 px; the bottom margin holds the longest of them and,
	// under it, the axis title.
	const labelMaxW, sin60, cos60 = 120.0, 0.866, 0.5
	labelEvery := int(math.Ceil(float64(len(c.Columns)) / 60))
	var names []string
	for i, col := range c.Columns {
		if i%labelEvery == 0 {
			names = append(names, col.Label)
		}
	}
	shown := fitLabels(names, smallFontSize, labelMaxW)
	longest := 0.0
	for _, l := range shown {
		longest = math.Max(longest, textWidth(l, smallFontSize))
	}
	p := plot{w: 960, left: math.Max(56, tickW+28), right: 16, top: 12}
	p.bottom = 8 + longest*sin60 + smallFontSize*cos60 + 26
	p.h = p.top + 240 + p.bottom
	// The first label reaches left of its column by its run along the
	// rotated baseline.
	p.left = math.Max(p.left, longest*cos60-2)
	cw := p.pw() / float64(len(c.Columns))
	y := func(v float64) float64 { return p.top + p.ph() - v/maxv*p.ph() }
	var s strings.Builder
	fmt.Fprintf(&s, `<figure><svg class="chart column-chart" viewBox="0 0 %s %s" width="%s" role="img" aria-label="%s">`, f1(p.w), f1(p.h), f1(p.w), esc(c.Caption))
	s.WriteString(`<g class="grid">`)
	for _, t := range ticks {
		fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.w-p.right), f1(y(t)), f1(y(t)))
	}
	s.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.left), f1(p.top), f1(p.h-p.bottom))
	for _, t := range ticks {
		fmt.Fprintf(&s, `<text %s>%s</text>`, tickAttrs("y", p.left-4, y(t)+4, "end"), esc(sc.tick(t)))
	}
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="y"%s transform="translate(12,%s) rotate(-90)" text-anchor="middle">%s</text>`, integralAttr(whole, sc), f1(p.top+p.ph()/2), esc(sc.title(c.YLabel)))
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="x" x="%s" y="%s" text-anchor="middle">%s</text></g>`, f1(p.left+p.pw()/2), f1(p.h-6), esc(c.XLabel))
	for i, col := range c.Columns {
		x0 := p.left + float64(i)*cw
		acc := 0.0
		for _, g := range col.Segments {
			if g.Value <= 0 {
				continue
			}
			name := ""
			if g.Series >= 0 && g.Series < len(c.Series) {
				name = c.Series[g.Series].Name
			}
			tip := fmt.Sprintf("%s\n%s: %s", col.Label, name, c.Unit.Format(g.Value))
			if g.Tip != "" {
				tip += "\n" + g.Tip
			}
			rx, ry, rw, rh := f1(x0+cw*0.1), f1(y(acc+g.Value)), f1(math.Max(0.5, cw*0.8)), f1(math.Max(0.3, y(acc)-y(acc+g.Value)))
			fmt.Fprintf(&s, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s" data-tip="%s"/>`,
				rx, ry, rw, rh, seriesColor(c.Series, g.Series), esc(tip))
			overlay(&s, c.Series, g.Series, rx, ry, rw, rh)
			acc += g.Value
		}
		if i%labelEvery == 0 {
			svgText(&s, fmt.Sprintf(`transform="translate(%s,%s) rotate(-60)" text-anchor="end" class="small" font-size="%g"`, f1(x0+cw/2+3), f1(p.h-p.bottom+8), smallFontSize),
				shown[i/labelEvery], col.Label)
		}
	}
	s.WriteString(`</svg>`)
	s.WriteString(legend(c.Series))
	if c.Caption != "" {
		fmt.Fprintf(&s, `<figcaption>%s</figcaption>`, esc(c.Caption))
	}
	s.WriteString(`</figure>`)
	return template.HTML(s.String()), nil
}

// Span is an interval on a timeline track.
type Span struct {
	Start, End float64
	Series     int
	Label      string // hover text title
	Tip        string
}

// Track is one row of a timeline (a core, a DMA engine, a link).
type Track struct {
	Name  string
	Spans []Span
}

// Timeline is a Gantt chart: one row per track, time across. Spans
// narrower than a pixel are merged per track and series so that very long
// schedules stay small and fast to render.
type Timeline struct {
	Caption string
	Series  []Series
	Tracks  []Track
	Unit    Unit
	XLabel  string
	// MaxMarks bounds the rectangles drawn (0 = DefaultMaxMarks), about
	// 250 bytes of page each with their hover text.
	MaxMarks int
	// Exact names where every span is when some are merged (e.g. "the
	// --trace Perfetto export of `npukit sim`"); empty: a generic text.
	Exact string
	// From and To widen the time axis to at least [From, To] (zero: the
	// spans' own range, from 0): two timelines read one above the other
	// share one range, so that a mark above lines up with the mark below.
	From, To float64
}

// DefaultMaxMarks bounds a timeline's marks when Timeline.MaxMarks is 0:
// about 1.5 MB of page, some 5 marks per pixel column of a 1200 px chart,
// more than a screen shows without zoom.
const DefaultMaxMarks = 6000

// timelineMark is one drawn rectangle of a timeline: a span or a run of
// merged spans.
type timelineMark struct {
	Span
	merged int       // spans drawn by this mark
	mix    []float64 // time per series slot of a merged run
}

// timelineMarks merges each track's spans into at most maxMarks marks in
// all: spans narrower than a resolution are merged with the spans that
// follow them within that resolution, and the resolution (starting at the
// width that gives each track its share of maxMarks) grows until the
// marks fit. Should wide overlapping spans alone exceed the bound, the
// later ones of the busiest tracks are not drawn. It returns the marks per
// track and the number of spans in.
func timelineMarks(c *Timeline, x func(float64) float64, pw float64, maxMarks int) ([][]timelineMark, int) {
	total := 0
	sorted := make([][]Span, len(c.Tracks))
	for i, t := range c.Tracks {
		total += len(t.Spans)
		sorted[i] = append([]Span(nil), t.Spans...)
		sort.SliceStable(sorted[i], func(a, b int) bool { return sorted[i][a].Start < sorted[i][b].Start })
	}
	count := func(minW float64) int {
		n := 0
		for _, spans := range sorted {
			for j := 0; j < len(spans); j++ {
				sp := spans[j]
				if minW > 0 && x(sp.End)-x(sp.Start) < minW {
					end := sp.End
					for j+1 < len(spans) && x(math.Max(end, spans[j+1].End))-x(sp.Start) < minW {
						j++
						end = math.Max(end, spans[j].End)
					}
				}
				n++
			}
		}
		return n
	}
	minW := 0.0
	capped := false
	if total > maxMarks {
		minW = pw / float64(maxMarks+1)
		n := count(minW)
		for n > maxMarks && minW < 4*pw {
			minW *= 1.25
			n = count(minW)
		}
		capped = n > maxMarks
	}
	out := make([][]timelineMark, len(c.Tracks))
	// The share of the bound each track may draw should the merging not
	// reach it (wide overlapping spans).
	left := maxMarks
	for i, spans := range sorted {
		share := len(spans)
		if capped {
			share = left / (len(c.Tracks) - i)
		}
		for j := 0; j < len(spans) && len(out[i]) < share; j++ {
			m := timelineMark{Span: spans[j], merged: 1}
			if minW > 0 && x(m.End)-x(m.Start) < minW {
				// Spans narrower than the resolution are drawn as one mark
				// per minW of time whatever their series (alternating
				// series, e.g. compute and stall, would otherwise never
				// merge), coloured by the series holding most of the time.
				for j+1 < len(spans) && x(math.Max(m.End, spans[j+1].End))-x(m.Start) < minW {
					if m.mix == nil {
						m.mix = make([]float64, len(c.Series)+1)
						m.mix[seriesSlot(c.Series, m.Series)] += m.End - m.Start
					}
					j++
					m.mix[seriesSlot(c.Series, spans[j].Series)] += spans[j].End - spans[j].Start
					m.End = math.Max(m.End, spans[j].End)
					m.merged++
				}
				if m.mix != nil {
					best := 0
					for k, v := range m.mix {
						if v > m.mix[best] {
							best = k
						}
					}
					m.Series = best - 1
				}
			}
			out[i] = append(out[i], m)
		}
		left -= len(out[i])
	}
	return out, total
}

func (c *Timeline) html() (template.HTML, error) {
	if len(c.Tracks) == 0 {
		return "", errors.New("timeline without tracks")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range c.Tracks {
		for _, sp := range t.Spans {
			lo, hi = math.Min(lo, sp.Start), math.Max(hi, sp.End)
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	lo = math.Min(lo, 0)
	if c.To > c.From {
		lo, hi = math.Min(lo, c.From), math.Max(hi, c.To)
	}
	if hi <= lo {
		hi = lo + 1
	}
	names := make([]string, len(c.Tracks))
	for i, t := range c.Tracks {
		names[i] = t.Name
	}
	labelW := math.Max(60, labelRoom(names, fontSize, 250)+10)
	shown := fitLabels(names, fontSize, labelW-10)
	rowH := 20.0
	p := plot{w: 1200, left: labelW, right: 24, top: 10, bottom: 44}
	p.h = p.top + p.bottom + float64(len(c.Tracks))*(rowH+4)
	x := func(v float64) float64 { return p.left + (v-lo)/(hi-lo)*p.pw() }
	maxMarks := c.MaxMarks
	if maxMarks <= 0 {
		maxMarks = DefaultMaxMarks
	}
	tracks, spansIn := timelineMarks(c, x, p.pw(), maxMarks)
	var s strings.Builder
	fmt.Fprintf(&s, `<figure><svg class="chart timeline zoomable" data-plot-left="%s" viewBox="0 0 %s %s" width="%s" role="img" aria-label="%s">`, f1(p.left), f1(p.w), f1(p.h), f1(p.w), esc(c.Caption))
	ticks := niceTicks(lo, hi, 8, c.Unit)
	sc := scaleFor(c.Unit, ticks)
	s.WriteString(`<g class="grid">`)
	for _, t := range ticks {
		fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(x(t)), f1(x(t)), f1(p.top), f1(p.h-p.bottom))
	}
	s.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.w-p.right), f1(p.h-p.bottom), f1(p.h-p.bottom))
	for _, t := range ticks {
		fmt.Fprintf(&s, `<text %s>%s</text>`, tickAttrs("x", x(t), p.h-p.bottom+14, "middle"), esc(sc.tick(t)))
	}
	signed := ""
	if lo < 0 {
		// Times before the origin (the launch before a kernel drawn
		// from its start): the axis carries signed values.
		signed = " data-signed"
	}
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="x"%s x="%s" y="%s" text-anchor="middle">%s</text></g>`, signed, f1(p.left+p.pw()/2), f1(p.h-6), esc(sc.title(c.XLabel)))
	for i, t := range c.Tracks {
		y := p.top + float64(i)*(rowH+4)
		svgText(&s, fmt.Sprintf(`x="%s" y="%s" text-anchor="end"`, f1(p.left-6), f1(y+rowH/2+4)), shown[i], t.Name)
		for _, m := range tracks[i] {
			sp := m.Span
			name := ""
			if sp.Series >= 0 && sp.Series < len(c.Series) {
				name = c.Series[sp.Series].Name
			}
			tip := fmt.Sprintf("%s\n%s: %s .. %s (%s)", sp.Label, name, c.Unit.Format(sp.Start), c.Unit.Format(sp.End), c.Unit.Format(sp.End-sp.Start))
			if m.merged > 1 {
				tip = fmt.Sprintf("%s spans merged at this zoom: %s\n%s .. %s", humanize.Count(int64(m.merged)), mixText(c.Series, m.mix), c.Unit.Format(sp.Start), c.Unit.Format(sp.End))
			} else if sp.Tip != "" {
				tip += "\n" + sp.Tip
			}
			rx, ry, rw, rh := f1(x(sp.Start)), f1(y), f1(math.Max(0.4, x(sp.End)-x(sp.Start))), f1(rowH)
			fmt.Fprintf(&s, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s" data-tip="%s"/>`,
				rx, ry, rw, rh, seriesColor(c.Series, sp.Series), esc(strings.TrimPrefix(tip, "\n")))
			overlay(&s, c.Series, sp.Series, rx, ry, rw, rh)
		}
	}
	s.WriteString(`</svg>`)
	s.WriteString(legend(c.Series))
	s.WriteString(`<p class="zoom-hint">Mouse wheel over the chart zooms the time axis; double click resets.</p>`)
	drawn, covered := 0, 0
	for _, t := range tracks {
		drawn += len(t)
		for _, m := range t {
			covered += m.merged
		}
	}
	if drawn < spansIn {
		exact := c.Exact
		if exact == "" {
			exact = "the --trace Perfetto export of sim"
		}
		more := ""
		if covered < spansIn {
			more = fmt.Sprintf("; %s more not drawn", humanize.Count(int64(spansIn-covered)))
		}
		fmt.Fprintf(&s, `<p class="zoom-hint chart-bound">%s spans drawn as %s marks (at most %s on this chart): spans narrower than a few pixels at the page's width are merged into runs%s; every span is in %s.</p>`,
			esc(humanize.Count(int64(spansIn))), esc(humanize.Count(int64(drawn))), esc(humanize.Count(int64(maxMarks))), esc(more), esc(exact))
	}
	if c.Caption != "" {
		fmt.Fprintf(&s, `<figcaption>%s</figcaption>`, esc(c.Caption))
	}
	s.WriteString(`</figure>`)
	return template.HTML(s.String()), nil
}

// seriesSlot maps a series index to a slot of a per-series accumulator
// (slot 0 holds spans without a valid series).
func seriesSlot(series []Series, i int) int {
	if i < 0 || i >= len(series) {
		return 0
	}
	return i + 1
}

// mixText words the time shares of a merged group's series slots,
// largest first.
func mixText(series []Series, mix []float64) string {
	total := 0.0
	for _, v := range mix {
		total += v
	}
	type share struct {
		name string
		v    float64
	}
	var shares []share
	for k, v := range mix {
		if v <= 0 {
			continue
		}
		name := "other"
		if k > 0 {
			name = series[k-1].Name
		}
		shares = append(shares, share{name, v})
	}
	sort.SliceStable(shares, func(a, b int) bool { return shares[a].v > shares[b].v })
	parts := make([]string, 0, len(shares))
	for _, sh := range shares {
		if total > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", sh.name, 100*sh.v/total))
		} else {
			parts = append(parts, sh.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Rect is one rectangle of a RectMap: X is usually time, Y an address.
type Rect struct {
	X0, X1, Y0, Y1 float64
	Series         int
	Label          string
	Tip            string
}

// AreaLabel is a text drawn centred on an area of a RectMap (e.g. a tile
// number on its tile), only where it fits.
type AreaLabel struct {
	X0, X1, Y0, Y1 float64
	Text           string
}

// RectMap draws rectangles on two axes: an allocation (time x address),
// an L2 address map over workloads, an SBUF partition x byte map.
type RectMap struct {
	Caption    string
	Series     []Series
	Rects      []Rect
	Labels     []AreaLabel
	XUnit      Unit
	YUnit      Unit
	XLabel     string
	YLabel     string
	YLimit     float64 // capacity line (0 = none)
	LimitLabel string
	Height     float64 // plot height in px (0 = 420)
	// YDown draws y growing downwards (row 0 at the top), as for the rows
	// of an image or a tensor; otherwise y grows upwards (addresses).
	YDown bool
	// LabelRects writes each rectangle's Label on it where it fits and
	// does not cover another label (at most maxRectLabels).
	LabelRects bool
	// MaxRects bounds the rectangles drawn (0 = DefaultMaxRects), about
	// 250 bytes of page each: beyond it, rectangles smaller than a cell of
	// a few pixels are drawn as one mark per cell.
	MaxRects int
}

// DefaultMaxRects bounds a rectangle map's marks when RectMap.MaxRects is
// 0: about 0.75 MB of page.
const DefaultMaxRects = 3000

// rectMark is one drawn rectangle of a RectMap: a rectangle (rect >= 0)
// or the rectangles merged into one cell (rect < 0).
type rectMark struct {
	bx, by, bw, bh float64 // screen box
	x0, x1, y0, y1 float64 // data box
	series         int
	rect           int       // index in Rects, or -1 for a cell
	first          int       // index of the first rectangle drawn by it
	merged         int       // rectangles drawn by it
	mix            []float64 // screen area per series slot of a cell
}

// rectMarks turns the rectangles into at most maxRects marks: when there
// are more, rectangles narrower than a cell are merged per cell (a column
// of their centre and a band of their rows), the cell growing until the
// marks fit; should the rectangles still exceed the bound, the smallest
// marks are not drawn.
// It returns the marks in drawing order and the rectangles not drawn.
func rectMarks(c *RectMap, box func(ax0, ax1, ay0, ay1 float64) (bx, by, bw, bh float64), pw, ph float64, maxRects int) ([]rectMark, int) {
	marks := make([]rectMark, 0, min(len(c.Rects), maxRects+1))
	single := func(i int) rectMark {
		r := c.Rects[i]
		bx, by, bw, bh := box(r.X0, r.X1, r.Y0, r.Y1)
		return rectMark{bx, by, bw, bh, r.X0, r.X1, r.Y0, r.Y1, r.Series, i, i, 1, nil}
	}
	if len(c.Rects) <= maxRects {
		for i := range c.Rects {
			marks = append(marks, single(i))
		}
		return marks, 0
	}
	// A cell is a column of cw px and a band of rows from one multiple
	// of ch px to another: rectangles narrower than a cell at one address
	// band merge into a run across x (time) first; the band grows only
	// once a column spans the plot.
	type key struct{ x, y0, y1 int }
	screen := make([][4]float64, len(c.Rects))
	for i, r := range c.Rects {
		bx, by, bw, bh := box(r.X0, r.X1, r.Y0, r.Y1)
		screen[i] = [4]float64{bx, by, bw, bh}
	}
	cellOf := func(b [4]float64, cw, ch float64) key {
		return key{int(math.Floor((b[0] + b[2]/2) / cw)), int(math.Floor(b[1] / ch)), int(math.Floor((b[1] + b[3]) / ch))}
	}
	small := func(b [4]float64, cw, ch float64) bool { return b[2] < cw && (ch <= 1 || b[3] < ch) }
	cw, ch := 2.0, 1.0
	for {
		cells := map[key]bool{}
		large := 0
		for _, b := range screen {
			if small(b, cw, ch) {
				cells[cellOf(b, cw, ch)] = true
			} else {
				large++
			}
		}
		if large+len(cells) <= maxRects || ch > ph {
			break
		}
		if cw < pw {
			cw *= 1.5
		} else {
			ch *= 1.5
		}
	}
	cellIdx := map[key]int{}
	for i, b := range screen {
		if !small(b, cw, ch) {
			marks = append(marks, single(i))
			continue
		}
		r := c.Rects[i]
		k := cellOf(b, cw, ch)
		j, ok := cellIdx[k]
		if !ok {
			j = len(marks)
			cellIdx[k] = j
			marks = append(marks, rectMark{x0: r.X0, x1: r.X1, y0: r.Y0, y1: r.Y1, bx: b[0], by: b[1], bw: b[2], bh: b[3],
				rect: -1, first: i, mix: make([]float64, len(c.Series)+1)})
		}
		m := &marks[j]
		m.merged++
		m.mix[seriesSlot(c.Series, r.Series)] += math.Max(b[2]*b[3], 1e-9)
		m.x0, m.x1, m.y0, m.y1 = math.Min(m.x0, r.X0), math.Max(m.x1, r.X1), math.Min(m.y0, r.Y0), math.Max(m.y1, r.Y1)
		bx1, by1 := math.Max(m.bx+m.bw, b[0]+b[2]), math.Max(m.by+m.bh, b[1]+b[3])
		m.bx, m.by = math.Min(m.bx, b[0]), math.Min(m.by, b[1])
		m.bw, m.bh = bx1-m.bx, by1-m.by
	}
	// A cell's mark stays in its column: marks of neighbouring cells of
	// one band would otherwise overlap, which a memory map reads as a
	// conflict.
	for k, j := range cellIdx {
		m := &marks[j]
		if m.merged < 2 {
			continue
		}
		lo, hi := math.Max(m.bx, float64(k.x)*cw), math.Min(m.bx+m.bw, float64(k.x+1)*cw)
		m.bx, m.bw = lo, math.Max(hi-lo, 0.5)
	}
	for i := range marks {
		m := &marks[i]
		if m.rect >= 0 {
			continue
		}
		if m.merged == 1 {
			*m = single(m.first)
			continue
		}
		best := 0
		for k, v := range m.mix {
			if v > m.mix[best] {
				best = k
			}
		}
		m.series = best - 1
	}
	notDrawn := 0
	if len(marks) > maxRects {
		sort.SliceStable(marks, func(a, b int) bool { return marks[a].bw*marks[a].bh > marks[b].bw*marks[b].bh })
		for _, m := range marks[maxRects:] {
			notDrawn += m.merged
		}
		marks = marks[:maxRects]
		sort.SliceStable(marks, func(a, b int) bool { return marks[a].first < marks[b].first })
	}
	return marks, notDrawn
}

// maxRectLabels bounds the labels LabelRects draws.
const maxRectLabels = 400

func (c *RectMap) html() (template.HTML, error) {
	if len(c.Rects) == 0 {
		return "", errors.New("rectangle map without rectangles")
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), 0.0, c.YLimit
	for _, r := range c.Rects {
		x0, x1 = math.Min(x0, r.X0), math.Max(x1, r.X1)
		y0, y1 = math.Min(y0, r.Y0), math.Max(y1, r.Y1)
	}
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if y1 <= y0 {
		y1 = y0 + 1
	}
	h := c.Height
	if h == 0 {
		h = 420
	}
	var xs0, ys0 []float64
	for _, r := range c.Rects {
		xs0 = append(xs0, r.X0, r.X1)
		ys0 = append(ys0, r.Y0, r.Y1)
	}
	xwhole, ywhole := allWhole(c.XUnit, xs0...), allWhole(c.YUnit, append(ys0, c.YLimit)...)
	xticks, yticks := wholeTicks(x0, x1, 8, c.XUnit, xwhole), wholeTicks(y0, y1, 6, c.YUnit, ywhole)
	xs, ys := scaleFor(c.XUnit, xticks), scaleFor(c.YUnit, yticks)
	tickW := 0.0
	for _, t := range yticks {
		tickW = math.Max(tickW, textWidth(ys.tick(t), fontSize))
	}
	p := plot{w: 1200, left: math.Max(56, tickW+28), right: 24, top: 12, bottom: 44}
	if c.YLimit > 0 && c.LimitLabel != "" {
		p.top = 20 // room for the limit's label above a limit at the top
	}
	p.h = h + p.top + p.bottom
	x := func(v float64) float64 { return p.left + (v-x0)/(x1-x0)*p.pw() }
	y := func(v float64) float64 { return p.top + p.ph() - (v-y0)/(y1-y0)*p.ph() }
	if c.YDown {
		y = func(v float64) float64 { return p.top + (v-y0)/(y1-y0)*p.ph() }
	}
	// The screen box of a rectangle whatever the y direction.
	box := func(ax0, ax1, ay0, ay1 float64) (bx, by, bw, bh float64) {
		top, bottom := math.Min(y(ay0), y(ay1)), math.Max(y(ay0), y(ay1))
		return x(ax0), top, x(ax1) - x(ax0), bottom - top
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<figure><svg class="chart rect-map zoomable" data-plot-left="%s" viewBox="0 0 %s %s" width="%s" role="img" aria-label="%s">`, f1(p.left), f1(p.w), f1(p.h), f1(p.w), esc(c.Caption))
	s.WriteString(`<g class="grid">`)
	for _, t := range yticks {
		fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.w-p.right), f1(y(t)), f1(y(t)))
	}
	s.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.w-p.right), f1(p.h-p.bottom), f1(p.h-p.bottom))
	fmt.Fprintf(&s, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(p.left), f1(p.left), f1(p.top), f1(p.h-p.bottom))
	for _, t := range xticks {
		fmt.Fprintf(&s, `<text %s>%s</text>`, tickAttrs("x", x(t), p.h-p.bottom+14, "middle"), esc(xs.tick(t)))
	}
	for _, t := range yticks {
		fmt.Fprintf(&s, `<text %s>%s</text>`, tickAttrs("y", p.left-4, y(t)+4, "end"), esc(ys.tick(t)))
	}
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="x"%s x="%s" y="%s" text-anchor="middle">%s</text>`, integralAttr(xwhole, xs), f1(p.left+p.pw()/2), f1(p.h-6), esc(xs.title(c.XLabel)))
	fmt.Fprintf(&s, `<text class="axis-title" data-axis="y"%s transform="translate(12,%s) rotate(-90)" text-anchor="middle">%s</text></g>`, integralAttr(ywhole, ys), f1(p.top+p.ph()/2), esc(ys.title(c.YLabel)))
	maxRects := c.MaxRects
	if maxRects <= 0 {
		maxRects = DefaultMaxRects
	}
	marks, notDrawn := rectMarks(c, box, p.pw(), p.ph(), maxRects)
	for _, m := range marks {
		var tip string
		if m.rect >= 0 {
			r := c.Rects[m.rect]
			tip = fmt.Sprintf("%s\n%s: %s .. %s\n%s: %s .. %s (%s)", r.Label, c.XLabel, c.XUnit.Format(r.X0), c.XUnit.Format(r.X1), c.YLabel, c.YUnit.Format(r.Y0), c.YUnit.Format(r.Y1), c.YUnit.Format(r.Y1-r.Y0))
			if r.Tip != "" {
				tip += "\n" + r.Tip
			}
		} else {
			tip = fmt.Sprintf("%s rectangles merged at this zoom: %s\n%s: %s .. %s\n%s: %s .. %s", humanize.Count(int64(m.merged)), mixText(c.Series, m.mix), c.XLabel, c.XUnit.Format(m.x0), c.XUnit.Format(m.x1), c.YLabel, c.YUnit.Format(m.y0), c.YUnit.Format(m.y1))
		}
		rx, ry, rw, rh := f1(m.bx), f1(m.by), f1(math.Max(0.5, m.bw)), f1(math.Max(0.5, m.bh))
		fmt.Fprintf(&s, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.85" stroke="#fff" stroke-width="0.3" data-tip="%s"/>`,
			rx, ry, rw, rh, seriesColor(c.Series, m.series), esc(tip))
		overlay(&s, c.Series, m.series, rx, ry, rw, rh)
	}
	labels := c.Labels
	if c.LabelRects {
		// Only rectangles drawn as themselves are named on the chart.
		for _, m := range marks {
			if m.rect >= 0 {
				r := c.Rects[m.rect]
				labels = append(labels, AreaLabel{X0: r.X0, X1: r.X1, Y0: r.Y0, Y1: r.Y1, Text: r.Label})
			}
		}
	}
	type placed struct{ x0, x1, y0, y1 float64 }
	var taken []placed
	for _, l := range labels {
		if len(taken) == maxRectLabels {
			break
		}
		bx, by, bw, bh := box(l.X0, l.X1, l.Y0, l.Y1)
		tw := textWidth(l.Text, fontSize)
		pl := placed{bx + bw/2 - tw/2 - 2, bx + bw/2 + tw/2 + 2, by + bh/2 - fontSize/2 - 2, by + bh/2 + fontSize/2 + 2}
		if l.Text == "" || slices.ContainsFunc(taken, func(o placed) bool { return pl.x0 < o.x1 && o.x0 < pl.x1 && pl.y0 < o.y1 && o.y0 < pl.y1 }) {
			continue
		}
		if textWidth(l.Text, fontSize)+4 > bw || fontSize+4 > bh {
			continue // does not fit: the legend and the hover text tell
		}
		// Marks of another colour under the label (overlapping tensors in
		// a memory map, one drawn over the other) would put the name on
		// what it does not name: such a label is left to the hover text.
		if mixedUnder(marks, pl.x0, pl.x1, pl.y0, pl.y1) {
			continue
		}
		// Merged cells keep to their columns and may leave gaps: a label
		// not wholly on marks would float over nothing.
		if !coveredByMarks(marks, bx+bw/2-tw/2, bx+bw/2+tw/2, by+bh/2-fontSize/2, by+bh/2+fontSize/2) {
			continue
		}
		taken = append(taken, pl)
		fmt.Fprintf(&s, `<text class="area-label" x="%s" y="%s" text-anchor="middle" pointer-events="none">%s</text>`, f1(bx+bw/2), f1(by+bh/2+4), esc(l.Text))
	}
	if c.YLimit > 0 {
		ly := y(c.YLimit) - 4
		if c.YDown {
			ly = y(c.YLimit) + 13
		}
		fmt.Fprintf(&s, `<line class="limit" x1="%s" x2="%s" y1="%s" y2="%s"/><text x="%s" y="%s" text-anchor="end" fill="#c62828">%s</text>`,
			f1(p.left), f1(p.w-p.right), f1(y(c.YLimit)), f1(y(c.YLimit)), f1(p.w-p.right-4), f1(ly), esc(c.LimitLabel))
	}
	s.WriteString(`</svg>`)
	s.WriteString(legend(c.Series))
	if len(marks) < len(c.Rects) {
		more := ""
		if notDrawn > 0 {
			more = fmt.Sprintf("; %s more not drawn", humanize.Count(int64(notDrawn)))
		}
		fmt.Fprintf(&s, `<p class="zoom-hint chart-bound">%s rectangles drawn as %s marks (at most %s on this chart): rectangles smaller than a few pixels are merged per cell, hover a mark for what it holds%s.</p>`,
			esc(humanize.Count(int64(len(c.Rects)))), esc(humanize.Count(int64(len(marks)))), esc(humanize.Count(int64(maxRects))), esc(more))
	}
	if c.Caption != "" {
		fmt.Fprintf(&s, `<figcaption>%s</figcaption>`, esc(c.Caption))
	}
	s.WriteString(`</figure>`)
	return template.HTML(s.String()), nil
}

// mixedUnder reports whether marks of more than one series cover any part
// of the screen box x0..x1, y0..y1 of a rectangle map.
func mixedUnder(marks []rectMark, x0, x1, y0, y1 float64) bool {
	series := -1
	for _, m := range marks {
		if m.bx >= x1 || m.bx+m.bw <= x0 || m.by >= y1 || m.by+m.bh <= y0 {
			continue
		}
		if series >= 0 && m.series != series {
			return true
		}
		series = m.series
	}
	return false
}

// coveredByMarks reports whether every point of the screen box x0..x1,
// y0..y1 (sampled each pixel, edges included) lies on a drawn mark
// (within half a pixel): merged cells keep to their columns, and a gap
// between two of them can run through the middle of a label.
func coveredByMarks(marks []rectMark, x0, x1, y0, y1 float64) bool {
	on := func(x, y float64) bool {
		for _, m := range marks {
			if x >= m.bx-0.5 && x <= m.bx+math.Max(0.5, m.bw)+0.5 && y >= m.by-0.5 && y <= m.by+math.Max(0.5, m.bh)+0.5 {
				return true
			}
		}
		return false
	}
	for x := x0; ; x = math.Min(x+1, x1) {
		for y := y0; ; y = math.Min(y+1, y1) {
			if !on(x, y) {
				return false
			}
			if y >= y1 {
				break
			}
		}
		if x >= x1 {
			break
		}
	}
	return true
}
