package geminireport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

// TestGeminiSimSections renders the simulation sections of every shared
// schedule (and one with its emulator comparison) as a page.
func TestGeminiSimSections(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, f := range conformance.Files(t, dir, "*.json") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := gemini.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			secs, err := geminiSimReport(s, timing.ForName(f))
			if err != nil {
				t.Fatal(err)
			}
			zp := filepath.Join(dir, "zebu", strings.TrimSuffix(filepath.Base(f), "_stschedule.json")+"_sim.txt")
			if tr, err := zebu.ReadFile(zp); err == nil {
				res, err := timing.Simulate(s, timing.ForName(f))
				if err != nil {
					t.Fatal(err)
				}
				cmp, err := timing.Compare(res, tr)
				if err != nil {
					t.Fatal(err)
				}
				secs = geminiSimSections(res, cmp)
			}
			var b bytes.Buffer
			if err := report.Render(&b, &report.Page{Title: filepath.Base(f), Sections: secs}); err != nil {
				t.Fatal(err)
			}
			html := b.String()
			for _, want := range []string{"Timing simulation", "waiting on DRAM", "core 0", "DRAM"} {
				if !strings.Contains(html, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if b.Len() > 5<<20 {
				t.Errorf("page is %d bytes, over 5 MB", b.Len())
			}
		})
	}
}
