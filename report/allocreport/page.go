// Package allocreport builds the report page of a static allocation
// problem (MiniMalloc CSV).
package allocreport

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// allocReportSolveTime bounds the solve a report runs for a problem that
// carries no placement, as a backstop: the work budget below ends it
// first on this machine type; past either, the greedy placement is drawn.
const allocReportSolveTime = 60 * time.Second

// allocMaxRects bounds the rectangles drawn (about 3 MB of page); past it
// the largest buffers (bytes x lifetime) are drawn.
const allocMaxRects = 12000

// Page renders an allocation problem (name is its file's name): its
// buffers over time as placed (by the file's own offsets, or solved within
// a time bound), the occupancy against the capacity and the findings.
func Page(name string, t *alloc.Table) (*report.Page, error) {
	p := &t.Problem
	name = filepath.Base(name)
	page := &report.Page{Title: "Static allocation", Subtitle: name, Diagnostics: alloc.Check(t).WithFile(name)}
	sum := alloc.Summarize(t)
	sol, how, own := allocPlacement(t)
	height := alloc.Height(p, sol)
	page.Summary = []report.KV{
		{Key: "Buffers", Value: humanize.Count(int64(sum.Buffers))},
		{Key: "Peak bytes alive", Value: humanize.Bytes(sum.Peak)},
		{Key: "Placement height", Value: humanize.Bytes(height)},
		{Key: "Placement", Value: how},
	}
	if p.Capacity > 0 {
		page.Summary = append(page.Summary, report.KV{Key: "Capacity", Value: humanize.Bytes(p.Capacity)})
	}
	rm := &report.RectMap{
		Caption: "Buffers over time (x) and address (y)",
		Series:  []report.Series{{Name: "buffer"}, {Name: "fixed"}},
		XUnit:   report.Number, YUnit: report.Bytes,
		XLabel: "time", YLabel: "offset",
		YLimit: float64(p.Capacity), LimitLabel: "capacity",
	}
	order := make([]int, len(p.Buffers))
	for i := range order {
		order[i] = i
	}
	if len(order) > allocMaxRects {
		area := func(i int) float64 {
			b := &p.Buffers[i]
			return float64(b.Size) * float64(b.Upper-b.Lower)
		}
		sort.SliceStable(order, func(a, b int) bool { return area(order[a]) > area(order[b]) })
	}
	drawn := 0
	for _, i := range order {
		if len(rm.Rects) >= allocMaxRects {
			break
		}
		drawn++
		b := &p.Buffers[i]
		series := 0
		if b.Fixed && !own {
			series = 1
		}
		for _, pc := range alloc.Pieces(b) {
			off := sol.Offsets[i]
			rm.Rects = append(rm.Rects, report.Rect{
				X0: float64(pc.T0), X1: float64(pc.T1),
				Y0: float64(off + pc.Lo), Y1: float64(off + pc.Hi),
				Series: series, Label: b.ID,
				Tip: fmt.Sprintf("%s: [%d, %d) x [%d, %d), %s", b.ID, pc.T0, pc.T1, off+pc.Lo, off+pc.Hi, humanize.Bytes(b.Size)),
			})
		}
	}
	placement := report.Section{ID: "placement", Title: "Placement", Intro: "Each rectangle is a buffer: its lifetime across, its addresses up. " + how + ".", Blocks: []report.Block{rm}}
	if drawn < len(p.Buffers) {
		placement.Blocks = append(placement.Blocks, &report.Text{Muted: true,
			Text: fmt.Sprintf("The map draws the %s largest of %s buffers (bytes x lifetime); the placement covers all of them.", humanize.Count(int64(drawn)), humanize.Count(int64(len(p.Buffers))))})
	}
	if len(rm.Rects) == 0 {
		// No buffer occupies memory (none, or all of size zero or with
		// empty lifespans): nothing to draw.
		placement.Intro = "No buffer occupies memory at any time (the problem is empty, or its buffers have zero size or empty lifespans)."
		placement.Blocks = []report.Block{&report.KeyValues{Items: []report.KV{{Key: "Buffers", Value: humanize.Count(int64(len(p.Buffers)))}}}}
	}
	page.Sections = []report.Section{
		placement,
		{ID: "problem", Title: "Problem", Blocks: []report.Block{&report.KeyValues{Items: []report.KV{
			{Key: "Time span", Value: fmt.Sprintf("[%d, %d)", sum.TimeStart, sum.TimeEnd)},
			{Key: "Total size", Value: humanize.Bytes(sum.TotalBytes)},
			{Key: "Largest buffer", Value: humanize.Bytes(sum.LargestBuf)},
			{Key: "Fixed / aligned / with gaps", Value: fmt.Sprintf("%d / %d / %d", sum.Fixed, sum.Aligned, sum.WithGaps)},
		}}}},
	}
	page.SectionFor = func(diag.Diagnostic) string { return "placement" }
	return page, nil
}

// allocPlacement is the file's own placement when it has one, else the
// exact solver's within a short time (at the capacity, or minimal when no
// capacity is known), else the greedy one.
func allocPlacement(t *alloc.Table) (sol *alloc.Solution, how string, own bool) {
	p := &t.Problem
	full := t.HasOffsetColumn()
	for _, ok := range t.HasOffset {
		full = full && ok
	}
	if full {
		return &alloc.Solution{Offsets: append([]int64(nil), t.Offsets...)}, "the placement in the file", true
	}
	// A work budget, so the page shows the same placement on every
	// machine (a time limit gave a greedy 1.4 MiB placement under load
	// and 1023 KiB alone); the time limit is only a backstop for slow
	// hosts (the browser viewer runs on one thread).
	ctx, cancel := context.WithTimeout(context.Background(), allocReportSolveTime)
	defer cancel()
	opt := alloc.Options{Budget: allocReportBudget}
	stopped := func() string {
		if ctx.Err() != nil {
			return "stopped by the time limit"
		}
		return "stopped by its work budget"
	}
	if p.Capacity > 0 {
		if sol, st, _ := alloc.Exact(ctx, p, opt); st == alloc.Solved {
			return sol, "found by the exact solver", false
		}
	} else if m, err := alloc.Minimize(ctx, p, alloc.Exact, opt); err == nil {
		if m.Proven {
			return m.Solution, "found by the exact solver at the minimal capacity", false
		}
		// The best placement the bisection found (at worst the greedy
		// one): computing the greedy placement again costs O(n^2).
		return m.Solution, "the smallest placement found (minimum not proven: " + stopped() + ")", false
	}
	return alloc.Heuristic(p), "greedy placement (the exact solver " + stopped() + " before deciding)", false
}

// allocReportBudget is the work budget of a report's solve (per search
// strategy; alloc.Options.Budget): every problem of MiniMalloc's
// benchmark solves within a third of it (about a second each here).
const allocReportBudget = 6e7
