package geminireport

import (
	"bytes"
	"html"
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

// Audit r3 #13: the simulation section said "default parameters" for a
// bandwidth read from the file name; it states each assumption and its
// source, as sim's Model line does.
func TestGeminiSimSectionStatesModel(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 2, Workloads: 10})
	if err != nil {
		t.Fatal(err)
	}
	p := timing.ForName("sched_bw8.json")
	secs, err := geminiSimReport(s, p)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, &report.Page{Title: "t", Sections: secs}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "default parameters") {
		t.Error("the page still calls a bandwidth from the name \"default parameters\"")
	}
	if want := p.ModelLine(); !strings.Contains(page, html.EscapeString(want)) || !strings.Contains(want, "from the file name's bw8") {
		t.Errorf("the page lacks the model line %q", want)
	}
}
