package report

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// A tile's number is drawn only where marks lie under all of it: a map of
// more rectangles than it draws merges them into cells that keep to their
// columns, and a number centred on a tile's area could float over the gaps
// between them (the browser test found "2" and "6" outside every mark on
// the output tiling of a 640x640 YOLOv8n).
func TestAreaLabelsLieOnMarksWhenMerged(t *testing.T) {
	const ny, nx, tile = 160, 100, 20
	c := &RectMap{YDown: true, XUnit: Number, YUnit: Number, XLabel: "x", YLabel: "y", Height: 320}
	series := map[int]int{}
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			id := (y/tile)*(nx/tile) + x/tile
			s, ok := series[id]
			if !ok {
				s = len(c.Series)
				series[id] = s
				c.Series = append(c.Series, Series{Name: fmt.Sprintf("tile %d", id)})
				c.Labels = append(c.Labels, AreaLabel{X0: float64(x), X1: float64(x + tile), Y0: float64(y), Y1: float64(y + tile), Text: strconv.Itoa(id)})
			}
			c.Rects = append(c.Rects, Rect{X0: float64(x), X1: float64(x + 1), Y0: float64(y), Y1: float64(y + 1), Series: s})
		}
	}
	h, err := c.html()
	if err != nil {
		t.Fatal(err)
	}
	num := `([0-9.]+)`
	rectRe := regexp.MustCompile(`<rect class="mark" x="` + num + `" y="` + num + `" width="` + num + `" height="` + num + `"`)
	var marks []rectMark
	for _, m := range rectRe.FindAllStringSubmatch(string(h), -1) {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
		marks = append(marks, rectMark{bx: f(1), by: f(2), bw: f(3), bh: f(4)})
	}
	if len(marks) >= len(c.Rects) {
		t.Fatalf("%d rectangles drawn as %d marks: the test needs merged cells", len(c.Rects), len(marks))
	}
	labelRe := regexp.MustCompile(`<text class="area-label" x="` + num + `" y="` + num + `"[^>]*>([^<]*)</text>`)
	for _, m := range labelRe.FindAllStringSubmatch(string(h), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		tw := textWidth(m[3], fontSize)
		cy := y - 4 // the label's baseline sits 4 px below the area's centre
		if !coveredByMarks(marks, x-tw/2, x+tw/2, cy-fontSize/2, cy+fontSize/2) {
			t.Errorf("label %q at (%.1f, %.1f) lies partly over no mark", m[3], x, y)
		}
	}
}
