package cli

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
)

// TestNeffReportPart: a registered part's sections and findings reach the
// page, and its findings link to its own section.
func TestNeffReportPart(t *testing.T) {
	files := conformance.CorpusFiles(t, "neff", "*.neff")
	saved := neffReportParts
	defer func() { neffReportParts = saved }()
	neffReportParts = nil // without the DMA part: only the fake one
	registerNeffReportPart(func(env *Env, path string, m *neff.Model) (neffReportPart, error) {
		var rep diag.Report
		rep.Add(neff.RuleBinSize, "part location", "a finding of the part")
		return neffReportPart{
			Sections:    []report.Section{{ID: "part-x", Title: "part"}},
			Diagnostics: rep,
			SectionFor:  func(d diag.Diagnostic) string { return map[bool]string{true: "part-x"}[d.Location == "part location"] },
		}, nil
	})
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	page, err := reportNeff(env, []detect.Result{{Path: files[0], Kind: detect.NEFF}})
	if err != nil {
		t.Fatal(err)
	}
	last := page.Sections[len(page.Sections)-1]
	if last.ID != "neff-0-part-x" {
		t.Fatalf("sections end with %q", last.ID)
	}
	found := false
	for _, d := range page.Diagnostics {
		if d.Location == "part location" {
			found = true
			if d.File != filepath.Base(files[0]) || page.SectionFor(d) != "neff-0-part-x" {
				t.Fatalf("finding %+v links to %q", d, page.SectionFor(d))
			}
		}
	}
	if !found {
		t.Fatal("the part's finding is not on the page")
	}
	if id := page.SectionFor(diag.Diagnostic{File: filepath.Base(files[0]), Location: "offset 8"}); id != "neff-0-header" {
		t.Fatalf("header finding links to %q", id)
	}
}
