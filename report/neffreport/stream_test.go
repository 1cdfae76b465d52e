package neffreport

import (
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
)

// A page of several NEFFs reads them one at a time and keeps each one's
// sections rendered, not its model and timeline spans (report's
// TestPrerenderSamePage: the page is the same).
func TestPageFuncRendersFileByFile(t *testing.T) {
	paths := conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff")
	if len(paths) < 2 {
		t.Skip("fewer than two corpus NEFFs")
	}
	paths = paths[:3]
	var files []File
	for _, p := range paths {
		m, err := neff.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: p, Model: m})
	}
	asked := 0
	page, err := PageFunc(len(files), func(i int) (File, error) {
		if i != asked {
			t.Fatalf("file %d asked for after %d", i, asked)
		}
		asked++
		return files[i], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Sections {
		for _, b := range s.Blocks {
			switch b.(type) {
			case *report.Timeline, *report.Table, *report.RectMap:
				t.Fatalf("section %s keeps a %T: the files' sections are not rendered as they are built", s.ID, b)
			}
		}
	}
}
