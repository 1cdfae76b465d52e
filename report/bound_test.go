package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// bigTimeline is a schedule of n spans over tracks tracks, each span with
// a label and hover text, as a simulated NEFF or NKI kernel gives.
func bigTimeline(n, tracks int) *Timeline {
	tl := &Timeline{Series: []Series{{Name: "matmul"}, {Name: "dma"}, {Name: "stall"}}, Unit: Nanoseconds, XLabel: "time"}
	for k := range tracks {
		tr := Track{Name: fmt.Sprintf("engine %d", k)}
		at := 0.0
		for i := range n / tracks {
			d := float64(1 + (i*7+k)%5)
			tr.Spans = append(tr.Spans, Span{Start: at, End: at + d, Series: i % 3, Label: fmt.Sprintf("instruction %d", i), Tip: "queue q0, 4 KiB"})
			at += d + float64(i%2)
		}
		tl.Tracks = append(tl.Tracks, tr)
	}
	return tl
}

// bigRectMap is n tiles of a few pixels each (lifetimes against
// addresses), as an NKI kernel's SBUF map gives.
func bigRectMap(n int) *RectMap {
	rm := &RectMap{Series: []Series{{Name: "a"}, {Name: "b"}}, XUnit: Number, YUnit: Bytes, XLabel: "step", YLabel: "address", LabelRects: true}
	for i := range n {
		x, y := float64(i%1000)*10, float64(i/1000)*1024
		rm.Rects = append(rm.Rects, Rect{X0: x, X1: x + 12, Y0: y, Y1: y + 1000, Series: i % 2, Label: fmt.Sprintf("t[%d]", i), Tip: "partitions 0..127"})
	}
	return rm
}

func renderSize(t *testing.T, p *Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A page of a 100k-instruction schedule and a 100k-tile map stays a few
// MB: the charts draw at most their mark budgets and say how many spans
// and tiles they merged (the 8.1 MB NKI report of issue reportsize).
func TestPageSizeBoundedByMarks(t *testing.T) {
	tl, rm := bigTimeline(100000, 16), bigRectMap(100000)
	page := renderSize(t, &Page{Title: "big", Sections: []Section{{ID: "t", Title: "timeline", Blocks: []Block{tl}}, {ID: "m", Title: "map", Blocks: []Block{rm}}}})
	marks := strings.Count(page, `<rect class="mark"`)
	if marks > DefaultMaxMarks+DefaultMaxRects {
		t.Errorf("%d marks drawn, budget %d", marks, DefaultMaxMarks+DefaultMaxRects)
	}
	// About 250 bytes per mark and 60 KB of page furniture.
	if limit := 250*(DefaultMaxMarks+DefaultMaxRects) + 60<<10; len(page) > limit {
		t.Errorf("page of %d bytes for %d marks, more than %d", len(page), marks, limit)
	}
	if !strings.Contains(page, "100,000 spans drawn as") || !strings.Contains(page, "100,000 rectangles drawn as") {
		t.Error("the charts do not say what they merged")
	}
	if !strings.Contains(page, "rectangles merged at this zoom") {
		t.Error("merged cells do not say what they hold")
	}
}

// Spans merge only within a track: with more tracks than the budget the
// bound still holds and the page says how many spans were not drawn.
func TestTimelineBoundManyTracks(t *testing.T) {
	tl := &Timeline{Series: []Series{{Name: "dma"}}, Unit: Number, MaxMarks: 500}
	for i := range 800 {
		tl.Tracks = append(tl.Tracks, Track{Name: fmt.Sprint("queue ", i), Spans: []Span{{Start: float64(i), End: float64(i + 10), Label: "x"}, {Start: float64(i + 20), End: float64(i + 30), Label: "y"}}})
	}
	h, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(h), `<rect class="mark"`); n > 500 || n == 0 {
		t.Fatalf("%d marks for a budget of 500", n)
	}
	if !strings.Contains(string(h), "600 more not drawn") {
		i := strings.Index(string(h), "chart-bound")
		t.Errorf("the spans not drawn are not stated: %.300s", string(h)[max(i, 0):])
	}
}

// A bound timeline draws at most MaxMarks marks, exactly (the merging
// could draw twice the budget).
func TestTimelineBoundExact(t *testing.T) {
	for _, budget := range []int{300, 1000, 5000} {
		tl := bigTimeline(60000, 7)
		tl.MaxMarks = budget
		h, err := tl.html()
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(h), `<rect class="mark"`); n > budget || n < budget/4 {
			t.Errorf("budget %d: %d marks", budget, n)
		}
	}
}

// A page of many files shares one budget: 30 files' timelines of 20k
// spans each make a page of about PageMarks marks, not 30 x 20k.
func TestBoundChartsSharesPageBudget(t *testing.T) {
	const files = 30
	var secs []Section
	for i := range files {
		s := []Section{{ID: fmt.Sprintf("f%d", i), Title: "file", Blocks: []Block{bigTimeline(20000, 16)}}}
		BoundCharts(s, FileMarks(files))
		secs = append(secs, s...)
	}
	page := renderSize(t, &Page{Title: "many", Sections: secs})
	if n := strings.Count(page, `<rect class="mark"`); n > max(PageMarks, files*MinFileMarks) {
		t.Errorf("%d marks on a page of %d files", n, files)
	}
	if len(page) > 6<<20 {
		t.Errorf("page of %d bytes for %d files", len(page), files)
	}
}

// Prerendered sections give the page the blocks would have given.
func TestPrerenderSamePage(t *testing.T) {
	build := func() *Page {
		return &Page{Title: "p", Summary: []KV{{Key: "k", Value: "v"}}, Sections: []Section{
			{ID: "t", Title: "timeline", Blocks: []Block{bigTimeline(3000, 3), &Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}}},
			{ID: "m", Title: "map", Blocks: []Block{bigRectMap(500)}},
		}}
	}
	p := build()
	if err := Prerender(p.Sections); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Sections[0].Blocks[0].(*Timeline); ok {
		t.Fatal("a block is not prerendered")
	}
	if a, b := renderSize(t, p), renderSize(t, build()); a != b {
		t.Error("prerendered page differs")
	}
}

// From and To widen a timeline's axis, so that two timelines read one
// above the other share one range (report --measured: a predicted kernel
// of 29 us drew on 0..20 ticks above a measured window drawn on 0..40).
func TestTimelineFromTo(t *testing.T) {
	tl := &Timeline{Unit: Nanoseconds, XLabel: "time", Tracks: []Track{{Name: "a", Spans: []Span{{Start: 0, End: 10_000}}}}}
	narrow, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	tl.From, tl.To = -20_000, 40_000
	wide, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(narrow), "data-signed") || !strings.Contains(string(wide), "data-signed") {
		t.Error("an axis reaching before 0 is not marked data-signed (the browser test refuses its negative ticks otherwise), or one from 0 is")
	}
	for _, tick := range []string{">-20</text>", ">40</text>"} {
		if strings.Contains(string(narrow), tick) || !strings.Contains(string(wide), tick) {
			t.Errorf("tick %q: in the span's own range %v, in [From, To] %v", tick, strings.Contains(string(narrow), tick), strings.Contains(string(wide), tick))
		}
	}
}
