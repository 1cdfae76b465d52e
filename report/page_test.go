package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

func samplePage() *Page {
	return &Page{
		Title:    "sample <report>",
		Subtitle: "x.bin",
		Summary:  []KV{{"total", "12 MiB"}},
		Sections: []Section{
			{ID: "mem", Title: "Memory", Blocks: []Block{
				&BarChart{Caption: "memory", Series: []Series{{Name: "cached"}, {Name: "streamed"}}, Unit: Bytes,
					Bars: []HBar{{Label: "a", Segments: []Segment{{0, 3 << 20, ""}, {1, 1 << 20, ""}}}}, Limit: 8 << 20, LimitLabel: "8 MiB SRAM"},
				&Table{Header: []string{"name", "bytes"}, Numeric: []int{1}, Rows: [][]string{{"a<b", "1"}, {"c", "2"}}, MaxRows: 1},
			}},
			{ID: "time", Title: "Time", Blocks: []Block{
				&Timeline{Series: []Series{{Name: "compute"}, {Name: "dram"}}, Unit: Cycles, Tracks: []Track{
					{Name: "core 0", Spans: []Span{{0, 10, 0, "w0", ""}, {10, 30, 1, "w1", ""}}},
				}},
				&RectMap{XLabel: "workload", YLabel: "address", YUnit: Bytes, Series: []Series{{Name: "fmap"}}, Rects: []Rect{{0, 2, 0, 1024, 0, "t1", ""}}, YLimit: 4096, LimitLabel: "L2"},
				&ColumnChart{XLabel: "layer", Unit: Bytes, Series: []Series{{Name: "read"}}, Columns: []Column{{Label: "conv1", Segments: []Segment{{0, 100, ""}}}}},
				&KeyValues{Items: []KV{{"k", "v"}}},
				&Tree{Root: []TreeNode{{Label: "sg00", Children: []TreeNode{{Label: "def.json", Detail: "2 KiB"}}}}},
				&Text{Text: "plain"},
			}},
		},
		Diagnostics: diag.Report{{Severity: diag.Error, Rule: "x/y", Location: "here", Message: "bad & worse"}},
		SectionFor:  func(diag.Diagnostic) string { return "mem" },
	}
}

func TestRenderSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, samplePage()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"<!DOCTYPE html>", "sample &lt;report&gt;", `id="mem"`, `id="time"`, `id="diagnostics"`,
		`class="chart bar-chart"`, `class="chart timeline zoomable"`, `class="chart rect-map zoomable"`, `class="chart column-chart"`,
		"8 MiB SRAM", "a&lt;b", "Showing 1 of 2 rows", "bad &amp; worse", `href="#mem"`, "default-src 'none'",
		`class="axis-title"`, `class="legend"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Self-contained: nothing that would make the browser fetch anything.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)`).FindString(out); m != "" {
		t.Errorf("external reference %q", m)
	}
	// url(#id) refers to a pattern inside the page; any other url( loads.
	if strings.Contains(out, "@import") || regexp.MustCompile(`url\(\s*[^#\s]`).MatchString(out) {
		t.Error("CSS loads something")
	}
}

func TestDuplicateSectionID(t *testing.T) {
	p := &Page{Sections: []Section{{ID: "a", Title: "A"}, {ID: "a", Title: "B"}}}
	if err := Render(&bytes.Buffer{}, p); err == nil {
		t.Fatal("duplicate ID accepted")
	}
	p = &Page{Sections: []Section{{ID: "diagnostics", Title: "A"}}}
	if err := Render(&bytes.Buffer{}, p); err == nil {
		t.Fatal("reserved ID accepted")
	}
}

func TestEmptyChartIsError(t *testing.T) {
	for _, b := range []Block{&BarChart{}, &ColumnChart{}, &Timeline{}, &RectMap{}} {
		if _, err := b.html(); err == nil {
			t.Errorf("%T without data rendered", b)
		}
	}
}

// A long timeline is merged down to about MaxMarks rectangles.
func TestTimelineMerging(t *testing.T) {
	var spans []Span
	for i := range 100000 {
		spans = append(spans, Span{Start: float64(i), End: float64(i) + 1, Series: i % 2 / 2})
	}
	tl := &Timeline{Tracks: []Track{{Name: "core", Spans: spans}}, MaxMarks: 1000}
	h, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(h), `<rect class="mark"`)
	if n > 1100 || n < 100 {
		t.Fatalf("%d rects for 100000 spans with MaxMarks 1000", n)
	}
	if !strings.Contains(string(h), "spans merged") {
		t.Fatal("merged spans not labelled")
	}
}

func TestNiceTicks(t *testing.T) {
	got := niceTicks(0, 8<<20, 4, Bytes)
	if len(got) != 5 || got[1] != 2<<20 || got[4] != 8<<20 {
		t.Fatalf("bytes ticks %v", got)
	}
	got = niceTicks(0, 1000, 5, Cycles)
	if len(got) != 6 || got[1] != 200 {
		t.Fatalf("cycle ticks %v", got)
	}
	if len(niceTicks(5, 5, 4, Number)) != 1 {
		t.Fatal("degenerate range")
	}
}

func TestUnitFormat(t *testing.T) {
	for _, c := range []struct {
		u    Unit
		v    float64
		want string
	}{{Bytes, 2048, "2.0 KiB"}, {Cycles, 1.5e6, "1.5M cyc"}, {Number, 12000, "12k"}, {Microseconds, 2500, "2.5 ms"}, {Number, 0.25, "0.25"}} {
		if got := c.u.Format(c.v); got != c.want {
			t.Errorf("%v.Format(%v)=%q want %q", c.u, c.v, got, c.want)
		}
	}
}

// The nav announces Diagnostics on every page with a summary; a clean
// check (nil report) must still render that section, not a dead link.
func TestCleanDiagnosticsRendered(t *testing.T) {
	var b bytes.Buffer
	p := &Page{Title: "t", Summary: []KV{{Key: "k", Value: "v"}}}
	if err := Render(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `href="#diagnostics"`) || !strings.Contains(out, `id="diagnostics"`) {
		t.Fatalf("nav link or section missing:\n%s", out)
	}
	if !strings.Contains(out, "No findings") {
		t.Error("a clean check should say so")
	}
}

// TestTimelineMergingAlternatingSeries: spans of alternating series (a
// compute span, then a stall, then compute...) still merge below the
// resolution, and the mark takes the colour of the series holding most of
// the merged time.
func TestTimelineMergingAlternatingSeries(t *testing.T) {
	var spans []Span
	at := 0.0
	for i := range 100000 {
		d := 1.0 // stall
		if i%2 == 0 {
			d = 3 // compute: three quarters of the time
		}
		spans = append(spans, Span{Start: at, End: at + d, Series: i % 2})
		at += d
	}
	ser := []Series{{Name: "compute"}, {Name: "stall"}}
	tl := &Timeline{Series: ser, Tracks: []Track{{Name: "core", Spans: spans}}, MaxMarks: 1000}
	h, err := tl.html()
	if err != nil {
		t.Fatal(err)
	}
	s := string(h)
	n := strings.Count(s, `<rect class="mark"`)
	if n > 2200 || n < 100 {
		t.Fatalf("%d rects for 100000 alternating spans with MaxMarks 1000", n)
	}
	if !strings.Contains(s, "compute 75%, stall 25%") {
		t.Fatal("merged marks do not give the series shares")
	}
	if c0, c1 := strings.Count(s, `fill="`+seriesColor(ser, 0)+`"`), strings.Count(s, `fill="`+seriesColor(ser, 1)+`"`); c0 < n*9/10 || c1 > n/10 {
		t.Fatalf("marks coloured compute %d, stall %d of %d: merged groups take the dominant series", c0, c1, n)
	}
}
