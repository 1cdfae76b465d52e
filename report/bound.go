package report

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
// among the files of a multi-file page (about 8 MB of page), and
// MinFileMarks the least share of a file.
const (
	PageMarks    = 48000
	MinFileMarks = 1500
)

// FileMarks is one file's share of PageMarks on a page of n files.
func FileMarks(n int) int {
	if n < 1 {
		n = 1
	}
	return max(MinFileMarks, min(DefaultMaxMarks, PageMarks/n))
}
