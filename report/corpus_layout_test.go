package report_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

var figureRe = regexp.MustCompile(`(?s)<figure><svg class="chart.*?</figure>`)

// TestCorpusChartsLayout renders the report of every shared corpus file
// and runs the layout checks on each of its charts: no text outside its
// chart or over another, one unit per axis named by its title. The
// allocation problems are left to the browser test, which checks every
// corpus file in Chromium with real fonts: their reports solve the
// placement first (seconds each).
func TestCorpusChartsLayout(t *testing.T) {
	var files []string
	for _, sub := range []string{"edgetpu", "edgetpu-pairs/models", "gemini", "gemini/zebu", "neff"} {
		for _, pat := range []string{"*.tflite", "*.json", "*.txt", "*.neff"} {
			m, _ := filepath.Glob(filepath.Join(conformance.SharedDir(), "corpus", sub, pat))
			files = append(files, m...)
			m, _ = filepath.Glob(filepath.Join(conformance.SharedDir(), "corpus2", sub, pat))
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		conformance.Corpus(t, ".") // skips, or fails when the corpus is required
		t.Fatal("no corpus files")
	}
	charts := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, err := npukit.Open(f)
			if err != nil {
				t.Skipf("not an input: %v", err)
			}
			p, err := a.Report(nil)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := report.Render(&b, p); err != nil {
				t.Fatal(err)
			}
			for _, fig := range figureRe.FindAllString(b.String(), -1) {
				charts++
				report.CheckChartHTML(t, filepath.Base(f), fig)
			}
		})
	}
	if charts == 0 {
		t.Fatal("no chart in any corpus report")
	}
}
