package report

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shownLabels returns, for a rendered chart, the full text of every
// shortened label (data-tip) and what it shows.
func shownLabels(h string) map[string]string {
	re := regexp.MustCompile(`<text [^>]*data-tip="([^"]*)"[^>]*>([^<]*)</text>`)
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(h, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// A label of a few words is never cut: a NEFF's DMA queue under a column
// read "sg00/Pool.…n qPoolIO0" (issue 32), a timeline's or a bar's label
// of 32 wide characters neither.
func TestShortAxisLabelsAreWhole(t *testing.T) {
	queues := []string{"sg00/Pool.json qPoolIO0", "sg00/SP.json qSPSpillReload0", "sg00/Pool.json qPoolSpillReload0", "sg00/Act.json qActIO0"}
	var cols []Column
	for _, q := range queues {
		cols = append(cols, Column{Label: q, Segments: []Segment{{0, 3, ""}}})
	}
	wide := strings.Repeat("W", 32)
	blocks := []Block{
		&ColumnChart{Series: []Series{{Name: "runs"}}, Columns: cols, Unit: Number, XLabel: "engine / queue", YLabel: "runs"},
		&Timeline{Series: []Series{{Name: "dma"}}, Unit: Nanoseconds, Tracks: []Track{{Name: wide, Spans: []Span{{0, 100, 0, "x", ""}}}}},
		&BarChart{Series: []Series{{Name: "a"}}, Unit: Bytes, Bars: []HBar{{Label: wide, Segments: []Segment{{0, 1000, ""}}}}},
	}
	for _, b := range blocks {
		h, err := b.html()
		if err != nil {
			t.Fatal(err)
		}
		for full, shown := range shownLabels(string(h)) {
			t.Errorf("%T: label %q (%d characters) shown as %q", b, full, len([]rune(full)), shown)
		}
		checkChartHTML(t, fmt.Sprintf("%T", b), string(h))
	}
}

// Long labels that differ only in their middle stay apart: cut to their
// start and end, "dequantize_Add_98_input_2_1..." and
// "dequantize_Add_121_input_2_1..." read alike; they show where they
// differ.
func TestLongLabelsStayDistinct(t *testing.T) {
	var cols []Column
	var names []string
	for _, k := range []int{77, 84, 98, 121, 1024} {
		n := fmt.Sprintf("model/block_%d/dequantize_Add_%d_input_2_1/quantized", k%3, k)
		names = append(names, n)
		cols = append(cols, Column{Label: n, Segments: []Segment{{0, float64(k), ""}}})
	}
	c := &ColumnChart{Series: []Series{{Name: "bytes"}}, Columns: cols, Unit: Bytes, XLabel: "tensor", YLabel: "bytes"}
	h, err := c.html()
	if err != nil {
		t.Fatal(err)
	}
	shown := shownLabels(string(h))
	seen := map[string]string{}
	for _, n := range names {
		s, ok := shown[n]
		if !ok {
			continue // shown whole
		}
		if o, dup := seen[s]; dup {
			t.Errorf("%q and %q both read %q", o, n, s)
		}
		seen[s] = n
		if textWidth(s, smallFontSize) > 121 {
			t.Errorf("%q shown as %q, %.0f px: wider than the labels' room", n, s, textWidth(s, smallFontSize))
		}
	}
	if len(seen) == 0 {
		t.Fatal("no label was shortened: the test exercises nothing")
	}
	checkChartHTML(t, "column chart", string(h))
}

// An axis of counts has whole-number ticks and says so (data-integral):
// a one-column chart of 1 run read 0, 0.2, 0.4, ... 1 (issue 32); a
// map over 0..12 partitions stepped 2.5.
func TestCountAxesHaveWholeTicks(t *testing.T) {
	tick := regexp.MustCompile(`<text class="tick" data-axis="([xy])"[^>]*>([^<]*)</text>`)
	blocks := []Block{
		&ColumnChart{Series: []Series{{Name: "runs"}}, Columns: []Column{{Label: "q0", Segments: []Segment{{0, 1, ""}}}}, Unit: Number, XLabel: "queue", YLabel: "runs"},
		&BarChart{Series: []Series{{Name: "findings"}}, Bars: []HBar{{Label: "rule", Segments: []Segment{{0, 2, ""}}}}, Unit: Number, XLabel: "findings"},
		&RectMap{Series: []Series{{Name: "t"}}, XUnit: Number, YUnit: Number, XLabel: "partition", YLabel: "row",
			Rects: []Rect{{X0: 0, X1: 12, Y0: 0, Y1: 3, Label: "t"}}},
	}
	for _, b := range blocks {
		h, err := b.html()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range tick.FindAllStringSubmatch(string(h), -1) {
			n++
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil || v != float64(int64(v)) {
				t.Errorf("%T: %s tick %q on an axis of whole numbers", b, m[1], m[2])
			}
		}
		if n < 2 {
			t.Errorf("%T: %d ticks", b, n)
		}
		if !strings.Contains(string(h), `data-integral="true"`) {
			t.Errorf("%T: no axis marked data-integral", b)
		}
	}
	// Times are not counts: a span of 1 us keeps its fractional ticks.
	tl := &Timeline{Series: []Series{{Name: "x"}}, Unit: Microseconds, Tracks: []Track{{Name: "a", Spans: []Span{{0, 1, 0, "x", ""}}}}}
	if h, _ := tl.html(); strings.Contains(string(h), "data-integral") || !strings.Contains(string(h), ">0.2<") {
		t.Errorf("a 1 us timeline: want ticks at 0.2 us and no data-integral")
	}
}

// A table in its frame ends at its last row: the table's bottom margin
// inside the bordered, scrolling box read as an empty last row in every
// table (issue 32).
func TestFramedTableHasNoMarginInsideItsFrame(t *testing.T) {
	css, err := os.ReadFile("page.css")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\.table-wrap\s*>\s*table\s*\{[^}]*margin:\s*0[;}]`).Match(css) {
		t.Error("page.css leaves the framed table its margin (blank space under the last row inside the frame)")
	}
	h, err := (&Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}).html()
	if err != nil || !strings.Contains(string(h), `<div class="table-wrap"><table>`) {
		t.Errorf("a table is not directly in its frame: %s %v", h, err)
	}
}
