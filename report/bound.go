package report

import (
	"fmt"
	"html/template"
)

// BoundCharts sets the mark budget of every timeline and rectangle map of
// secs that has none (or a larger one) to marks: a page of many files
// gives each file's charts a share of one page-wide budget, so that the
// page grows with the files by their tables and graphs, not by every
// span of every timeline.
func BoundCharts(secs []Section, marks int) {
	for _, s := range secs {
		for _, b := range s.Blocks {
			switch c := b.(type) {
			case *Timeline:
				if c.MaxMarks == 0 || c.MaxMarks > marks {
					c.MaxMarks = marks
				}
			case *RectMap:
				if c.MaxRects == 0 || c.MaxRects > marks {
					c.MaxRects = marks
				}
			}
		}
	}
}

// PageMarks is the page-wide budget of chart marks BoundCharts shares
// among the files of a multi-file page (about 4 MB of page at some 250
// bytes a mark, hover text included), and MinFileMarks the least share of
// a file (a 30-NEFF page draws each DMA timeline at 600 marks).
const (
	PageMarks    = 16000
	MinFileMarks = 600
)

// FileMarks is one file's share of PageMarks on a page of n files.
func FileMarks(n int) int {
	if n < 1 {
		n = 1
	}
	return max(MinFileMarks, min(DefaultMaxMarks, PageMarks/n))
}

// prerendered is a block already rendered to HTML.
type prerendered template.HTML

func (p prerendered) html() (template.HTML, error) { return template.HTML(p), nil }

// Prerender renders the blocks of secs in place, so that a page of many
// files need not keep every file's model, timeline spans and tables until
// the page is written: a builder renders one file's sections, drops what
// they were built from, and goes on to the next file.
func Prerender(secs []Section) error {
	for i := range secs {
		for j, b := range secs[i].Blocks {
			if _, ok := b.(prerendered); ok {
				continue
			}
			h, err := b.html()
			if err != nil {
				return fmt.Errorf("report: section %s: %w", secs[i].ID, err)
			}
			secs[i].Blocks[j] = prerendered(h)
		}
	}
	return nil
}
