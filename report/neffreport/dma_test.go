package neffreport

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/report"
)

// The DMA report sections render for every corpus NEFF (and the demo one)
// into a valid page with a traffic and a timeline section.
func TestNeffDMASections(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff")
	for _, f := range files {
		m, err := neff.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		secs := neffDMASections(m)
		var rep diag.Report
		for _, p := range dmaprog.FromModel(m) {
			rep = append(rep, dma.Findings(p.Descriptors, p.Layout, dmaprog.SetupFor(m).Params)...)
		}
		ids := map[string]bool{}
		for _, s := range secs {
			ids[s.ID] = true
		}
		if !ids["dma-traffic"] || !ids["dma-timeline"] {
			t.Errorf("%s: sections %v", f, ids)
		}
		page := &report.Page{Title: "NEFF", Sections: secs, Diagnostics: rep, SectionFor: func(d diag.Diagnostic) string { return neffDMASectionFor(m, d) }}
		var html bytes.Buffer
		if err := report.Render(&html, page); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if html.Len() > 5<<20 {
			t.Errorf("%s: report of %d bytes", f, html.Len())
		}
		for _, d := range rep {
			if neffDMASectionFor(m, d) != "dma-traffic" {
				t.Errorf("%s: finding %v not linked", f, d)
			}
		}
	}
}
