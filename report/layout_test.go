package report

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/edgetpu/relayout"
)

// The layout tests check the charts' SVG the way the browser test checks
// the rendered page, with the text widths the layout code assumes: every
// text inside the chart's box, no two texts overlapping, every axis in one
// unit named by its title.

var (
	svgRe      = regexp.MustCompile(`<svg class="chart[^"]*"[^>]*viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	textRe     = regexp.MustCompile(`<text([^>]*)>([^<]*)</text>`)
	attrRe     = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	transRe    = regexp.MustCompile(`translate\(([-0-9.]+),([-0-9.]+)\)(?: rotate\(([-0-9.]+)\))?`)
	tickUnitRe = regexp.MustCompile(`^-?[0-9][0-9.,]*([kMG])?(?: ?([A-Za-z]+))?$`)
)

type svgTextBox struct {
	text, class, axis string
	corners           [4][2]float64
}

// chartTexts parses one rendered chart: its size and the outline of every
// text, from its position, anchor, font size and rotation.
func chartTexts(t *testing.T, h string) (w, hgt float64, boxes []svgTextBox) {
	t.Helper()
	m := svgRe.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("no chart svg in %.200s", h)
	}
	w, _ = strconv.ParseFloat(m[1], 64)
	hgt, _ = strconv.ParseFloat(m[2], 64)
	for _, tm := range textRe.FindAllStringSubmatch(h, -1) {
		attrs := map[string]string{}
		for _, a := range attrRe.FindAllStringSubmatch(tm[1], -1) {
			attrs[a[1]] = a[2]
		}
		text := html.UnescapeString(tm[2])
		if strings.TrimSpace(text) == "" {
			continue
		}
		size := fontSize
		if fs, ok := attrs["font-size"]; ok {
			size, _ = strconv.ParseFloat(fs, 64)
		}
		tw := textWidth(text, size)
		x0 := 0.0
		switch attrs["text-anchor"] {
		case "middle":
			x0 = -tw / 2
		case "end":
			x0 = -tw
		}
		local := [4][2]float64{{x0, -0.8 * size}, {x0 + tw, -0.8 * size}, {x0 + tw, 0.25 * size}, {x0, 0.25 * size}}
		tx, ty, rot := 0.0, 0.0, 0.0
		if tr := transRe.FindStringSubmatch(attrs["transform"]); tr != nil {
			tx, _ = strconv.ParseFloat(tr[1], 64)
			ty, _ = strconv.ParseFloat(tr[2], 64)
			if tr[3] != "" {
				rot, _ = strconv.ParseFloat(tr[3], 64)
			}
		} else {
			tx, _ = strconv.ParseFloat(attrs["x"], 64)
			ty, _ = strconv.ParseFloat(attrs["y"], 64)
		}
		sin, cos := math.Sincos(rot * math.Pi / 180)
		var b svgTextBox
		b.text, b.class, b.axis = text, attrs["class"], attrs["data-axis"]
		for i, p := range local {
			b.corners[i] = [2]float64{tx + p[0]*cos - p[1]*sin, ty + p[0]*sin + p[1]*cos}
		}
		boxes = append(boxes, b)
	}
	return w, hgt, boxes
}

// quadsOverlap is the separating axis test for two convex quads, with 1
// px of slack.
func quadsOverlap(p, q [4][2]float64) bool {
	for _, poly := range [][4][2]float64{p, q} {
		for i := range 4 {
			a, b := poly[i], poly[(i+1)%4]
			nx, ny := a[1]-b[1], b[0]-a[0]
			l := math.Hypot(nx, ny)
			if l == 0 {
				continue
			}
			proj := func(ps [4][2]float64) (lo, hi float64) {
				lo, hi = math.Inf(1), math.Inf(-1)
				for _, c := range ps {
					v := (c[0]*nx + c[1]*ny) / l
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
				return
			}
			plo, phi := proj(p)
			qlo, qhi := proj(q)
			if phi-1 <= qlo || qhi-1 <= plo {
				return false
			}
		}
	}
	return true
}

// checkChartLayout fails on a text outside the chart, two overlapping
// texts, or an axis whose ticks and title disagree on the unit.
func checkChartLayout(t *testing.T, b Block) {
	t.Helper()
	h, err := b.html()
	if err != nil {
		t.Fatal(err)
	}
	checkChartHTML(t, fmt.Sprintf("%T", b), string(h))
}

// checkChartHTML checks one rendered chart (a figure's HTML); b names it.
func checkChartHTML(t *testing.T, b, h string) {
	t.Helper()
	w, hgt, boxes := chartTexts(t, h)
	for _, bx := range boxes {
		for _, c := range bx.corners {
			if c[0] < -0.5 || c[0] > w+0.5 || c[1] < -0.5 || c[1] > hgt+0.5 {
				t.Errorf("%s: text %q reaches outside the %gx%g chart (corner %.1f,%.1f)", b, bx.text, w, hgt, c[0], c[1])
				break
			}
		}
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if quadsOverlap(boxes[i].corners, boxes[j].corners) {
				t.Errorf("%s: texts %q and %q overlap", b, boxes[i].text, boxes[j].text)
			}
		}
	}
	ticks := map[string][]string{}
	titles := map[string]string{}
	for _, bx := range boxes {
		switch bx.class {
		case "tick":
			ticks[bx.axis] = append(ticks[bx.axis], bx.text)
		case "axis-title":
			if bx.axis == "" {
				t.Errorf("%s: axis title %q without data-axis", b, bx.text)
			}
			titles[bx.axis] = bx.text
		}
	}
	if len(ticks) == 0 {
		t.Errorf("%s: no tick marked with its axis", b)
	}
	for ax, ts := range ticks {
		units := map[string]bool{}
		for _, tk := range ts {
			m := tickUnitRe.FindStringSubmatch(tk)
			if m == nil {
				t.Errorf("%s: %s tick %q is not NUMBER [UNIT]", b, ax, tk)
				continue
			}
			units[m[2]] = true
		}
		if len(units) > 1 || units[""] == false && len(units) == 1 {
			t.Errorf("%s: %s ticks carry units %v: the axis title names the unit once", b, ax, units)
		}
		if _, ok := titles[ax]; !ok {
			t.Errorf("%s: %s axis has ticks but no title", b, ax)
		}
	}
}

func TestChartsLayout(t *testing.T) {
	long := "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_1_of_3_edgetpu.tflite"
	bar := &BarChart{Series: []Series{{Name: "a"}, {Name: "b"}}, Unit: Bytes, XLabel: "size", Limit: 8 << 20, LimitLabel: "8 MiB SRAM",
		Bars: []HBar{{Label: long, Segments: []Segment{{0, 784 << 10, ""}}}, {Label: "x", Segments: []Segment{{0, 9 << 20, ""}, {1, 1000, ""}}}}}
	var cols []Column
	for i := range 70 {
		cols = append(cols, Column{Label: fmt.Sprintf("FeatureExtractor/MobilenetV1/Conv2d_%d_pointwise/Relu6", i), Segments: []Segment{{0, float64(i * 1000), ""}}})
	}
	column := &ColumnChart{Series: []Series{{Name: "runs"}}, Columns: cols, Unit: Number, XLabel: "engine / queue", YLabel: "runs"}
	timeline := &Timeline{Series: []Series{{Name: "dma"}}, Unit: Nanoseconds, Tracks: []Track{
		{Name: "a very long track name of a DMA engine queue that goes on and on and on", Spans: []Span{{0, 2.5e6, 0, "x", ""}}}}}
	rects := &RectMap{Series: []Series{{Name: "buf"}}, XUnit: Number, YUnit: Bytes, XLabel: "time", YLabel: "offset", YLimit: 1 << 30, LimitLabel: "capacity",
		Rects: []Rect{{0, 1e6, 0, 1 << 30, 0, "b", ""}}}
	// Labelled rectangles, many overlapping: labels only where they fit
	// and never over each other.
	labelled := &RectMap{Series: []Series{{Name: "t"}}, XUnit: Number, YUnit: Bytes, XLabel: "partition", YLabel: "byte address", LabelRects: true}
	for i := range 40 {
		labelled.Rects = append(labelled.Rects, Rect{X0: float64(i % 7), X1: float64(i%7 + 3), Y0: float64(i * 100), Y1: float64(i*100 + 900), Label: fmt.Sprintf("tensor_%d", i)})
	}
	for _, b := range []Block{bar, column, timeline, rects, labelled} {
		checkChartLayout(t, b)
	}
	if h, _ := labelled.html(); strings.Count(string(h), `class="area-label"`) < 5 {
		t.Errorf("only %d rectangles labelled", strings.Count(string(h), `class="area-label"`))
	}
}

// A timeline in ns over milliseconds is titled in ms, its ticks plain
// numbers (it was titled "time (ns)" over ticks in us and ms).
func TestAxisTitleNamesTicksUnit(t *testing.T) {
	tl := &Timeline{Series: []Series{{Name: "dma"}}, Unit: Nanoseconds, Tracks: []Track{{Name: "q", Spans: []Span{{0, 2.5e6, 0, "x", ""}}}}}
	h, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), ">time (ms)</text>") {
		t.Errorf("title is not time (ms): %s", h)
	}
	if strings.Contains(string(h), " us</text>") || strings.Contains(string(h), " ms</text>") {
		t.Error("ticks repeat the unit")
	}
	for _, c := range []struct {
		u     Unit
		max   float64
		label string
		want  string
	}{{Bytes, 8 << 20, "bytes", "size (MiB)"}, {Bytes, 300, "offset", "offset (B)"}, {Cycles, 5e6, "cycles", "time (cycles)"},
		{Microseconds, 2500, "", "time (ms)"}, {Number, 10, "x", "x"}, {Nanoseconds, 10, "time (ns)", "time (ns)"}} {
		if got := scaleFor(c.u, niceTicks(0, c.max, 5, c.u)).title(c.label); got != c.want {
			t.Errorf("title(%v up to %g, %q) = %q, want %q", c.u, c.max, c.label, got, c.want)
		}
	}
}

// The tiling chart draws row 0 at the top, as in the tensor: the
// rectangle of (y=0, x=0) has the smallest screen y and the y axis's
// first tick, 0, is at the top (row 0 was drawn at the bottom).
func TestOutputTilingRowZeroAtTop(t *testing.T) {
	o := relayout.Output{Y: 4, X: 2, Z: 1, ElemSize: 1, Layout: &relayout.Layout{
		YTile: []int32{0, 0, 2, 2}, XTile: []int32{0, 1}, TileOffset: []int32{0, 4, 8, 12},
		XLocal: []int32{0, 0}, YLocal: []int32{0, 1, 0, 1}, RowSize: []int32{1, 1}}}
	b, err := OutputTiling("out", o)
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.html()
	if err != nil {
		t.Fatal(err)
	}
	ys := map[string]float64{}
	for _, m := range regexp.MustCompile(`<rect class="mark" x="[^"]*" y="([^"]*)"[^>]*data-tip="\(y=(\d), x=0\)`).FindAllStringSubmatch(string(h), -1) {
		ys[m[2]], _ = strconv.ParseFloat(m[1], 64)
	}
	if len(ys) != 4 || !(ys["0"] < ys["1"] && ys["1"] < ys["2"] && ys["2"] < ys["3"]) {
		t.Fatalf("rows not drawn top to bottom: %v", ys)
	}
	m := regexp.MustCompile(`class="tick" data-axis="y" x="[^"]*" y="([^"]*)"[^>]*>0</text>`).FindStringSubmatch(string(h))
	if m == nil {
		t.Fatal("no y tick 0")
	}
	if y0, _ := strconv.ParseFloat(m[1], 64); y0 > ys["0"]+20 {
		t.Errorf("y tick 0 at %g, row 0 at %g: the axis reads upwards", y0, ys["0"])
	}
	// Each tile's number is written on it.
	for _, tile := range []string{">0</text>", ">1</text>", ">2</text>", ">3</text>"} {
		if !strings.Contains(string(h), `class="area-label"`) || !strings.Contains(string(h), tile) {
			t.Errorf("tile label %s missing", tile)
		}
	}
	checkChartLayout(t, b)
}

// Outputs placing every position on the same tile share one chart that
// names them all; a differently tiled output is refused.
func TestOutputTilingShared(t *testing.T) {
	lay := &relayout.Layout{YTile: []int32{0, 2}, XTile: []int32{0, 1}, TileOffset: []int32{0, 1, 2, 3}, XLocal: []int32{0, 0}, YLocal: []int32{0, 0}, RowSize: []int32{1, 1}}
	a := relayout.Output{Y: 2, X: 2, Z: 8, ElemSize: 1, Layout: lay}
	b := relayout.Output{Y: 2, X: 2, Z: 4, ElemSize: 1, Layout: lay}
	if !SameTiling(a, b) {
		t.Fatal("same tiles, different depth: one picture")
	}
	blk, err := OutputTilingShared([]string{"first", "second"}, []relayout.Output{a, b})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := blk.html()
	if !strings.Contains(string(h), "One chart for 2 outputs") || !strings.Contains(string(h), "first (2x2x8); second (2x2x4)") {
		t.Errorf("caption does not name both outputs: %s", h)
	}
	if strings.Contains(string(h), "device element") {
		t.Error("device element shown though the outputs' elements differ")
	}
	c := relayout.Output{Y: 2, X: 2, Z: 8, ElemSize: 1, Layout: &relayout.Layout{YTile: []int32{0, 0}, XTile: []int32{0, 1}}}
	if SameTiling(a, c) {
		t.Fatal("different tiles taken for the same")
	}
	if _, err := OutputTilingShared([]string{"a", "c"}, []relayout.Output{a, c}); err == nil {
		t.Fatal("differently tiled outputs drawn as one")
	}
}

// 32 categories get 32 different looks (colour and pattern), and no two
// neighbouring categories share a colour (the palette repeated after 12:
// tiles 12-15 looked like 0-3).
func TestPaletteLooksDistinct(t *testing.T) {
	var ss []Series
	for i := range 80 {
		ss = append(ss, Series{Name: fmt.Sprint(i)})
	}
	seen := map[string]int{}
	for i := range ss {
		look := swatchStyle(ss, i)
		if j, ok := seen[look]; ok {
			t.Errorf("categories %d and %d look alike: %s", j, i, look)
		}
		seen[look] = i
		if i > 0 && seriesColor(ss, i) == seriesColor(ss, i-1) {
			t.Errorf("neighbours %d and %d share a colour", i-1, i)
		}
	}
	// Patterned marks draw their overlay, referring to a pattern the page
	// defines.
	rm := &RectMap{Series: ss, XUnit: Number, YUnit: Number, XLabel: "x", YLabel: "y"}
	for i := range ss {
		rm.Rects = append(rm.Rects, Rect{X0: float64(i), X1: float64(i + 1), Y0: 0, Y1: 1, Series: i})
	}
	h, err := rm.html()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range patterns[1:] {
		if !strings.Contains(string(h), `fill="url(#`+p.id+`)"`) || !strings.Contains(patternDefs, `id="`+p.id+`"`) {
			t.Errorf("pattern %s not drawn or not defined", p.id)
		}
	}
}

// fitText keeps both ends of a name and fits the width.
func TestFitText(t *testing.T) {
	s := "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_1_of_3_edgetpu.tflite"
	got := fitText(s, fontSize, 200)
	if textWidth(got, fontSize) > 200 || !strings.HasPrefix(got, "pipeline") || !strings.HasSuffix(got, ".tflite") || !strings.Contains(got, "…") {
		t.Errorf("fitText = %q (%.0f px)", got, textWidth(got, fontSize))
	}
	if fitText("short", fontSize, 200) != "short" {
		t.Error("a fitting text was changed")
	}
}

// Long fused layer names wrap at their separators inside table cells;
// short cells and numbers never break.
func TestTableCellsWrapLongNames(t *testing.T) {
	tb := &Table{Header: []string{"name", "type", "bytes"}, Numeric: []int{2}, Rows: [][]string{
		{"FeatureExtractor/MobilenetV1/Conv2d_13_pointwise/Relu6;FeatureExtractor/MobilenetV1/add_fold", "FIXED_POINT8", "1,234.5"}}}
	h, err := tb.html()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "Relu6;<wbr>FeatureExtractor/<wbr>") {
		t.Errorf("long name has no break opportunities: %s", h)
	}
	if strings.Count(string(h), "<wbr>") != strings.Count(tb.Rows[0][0], ";")+strings.Count(tb.Rows[0][0], "/")+strings.Count(tb.Rows[0][0], "_") {
		t.Errorf("short cells or numbers got break opportunities: %s", h)
	}
}

// A tick at zero reads "0", never "-0" (issue 32: a Gemini timeline's
// axis started at "-0" when its domain began a hair below zero).
func TestTickZeroIsNotNegative(t *testing.T) {
	for _, u := range []Unit{Number, Nanoseconds, Cycles, Bytes} {
		s := scaleFor(u, []float64{0, 100})
		for _, v := range niceTicks(-1e-9, 100, 5, u) {
			if got := s.tick(v); strings.HasPrefix(got, "-") {
				t.Errorf("unit %v: tick %v reads %q", u, v, got)
			}
		}
		if got := s.tick(math.Copysign(0, -1)); got != "0" {
			t.Errorf("unit %v: -0 reads %q", u, got)
		}
	}
}

// A table without rows is not drawn as a header over nothing (issue 32).
func TestEmptyTableIsNotHeaderOnly(t *testing.T) {
	h, err := (&Table{Caption: "Packages", Header: []string{"package", "type"}}).html()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(h), "<th") || !strings.Contains(string(h), "None.") {
		t.Errorf("empty table: %s", h)
	}
}

// A page of several files names each file once in its navigation, with
// that file's sections on its line (issue 32: a three-model report's
// header was ten lines of repeated file names).
func TestNavNamesEachFileOnce(t *testing.T) {
	name := func(i int) string { return fmt.Sprintf("cocompiled_model_number_%d_edgetpu.tflite", i) }
	var nav []navItem
	nav = append(nav, navItem{"summary", "Summary"})
	for i := range 3 {
		nav = append(nav, navItem{fmt.Sprintf("ops-%d", i), "Operators: " + name(i)}, navItem{fmt.Sprintf("exe-%d", i), name(i) + ": executables and layers"})
	}
	h := string(navHTML(nav))
	visible := regexp.MustCompile(` title="[^"]*"`).ReplaceAllString(h, "")
	for i := range 3 {
		if n := strings.Count(visible, name(i)); n != 1 {
			t.Errorf("%s shown %d times in %s", name(i), n, h)
		}
	}
	if strings.Count(h, "<li>") != 4 || !strings.Contains(h, `href="#exe-2"`) {
		t.Errorf("nav: %s", h)
	}
}
