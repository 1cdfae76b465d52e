package geminireport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
)

var (
	workloadNode = regexp.MustCompile(`data-workload-index="(\d+)"`)
	groupNode    = regexp.MustCompile(`data-workload-count="(\d+)"`)
)

// Every schedule of the corpora: one node per workload that `inspect`
// counts (data-workload-index 0..N-1), or, past the size where the graph
// collapses, groups whose counts add up to N.
func TestGraphMatchesInspect(t *testing.T) {
	var files []string
	for _, d := range []string{"corpus/gemini", "corpus2/gemini"} {
		files = append(files, conformance.Files(t, conformance.Shared(t, d), "*.json")...)
	}
	// A schedule past the collapse size, made here.
	big, err := gemini.Synth(gemini.SynthConfig{Cores: 16, Workloads: 125}) // 2,000 workloads
	checked := 0
	check := func(name string, s *gemini.Schedule) {
		sum := gemini.Summarize(s, false)
		total := 0
		for _, c := range sum.Cores {
			total += c.Workloads
		}
		sec, ok := graphSection(s, name, "")
		if !ok {
			if total > 0 {
				t.Errorf("%s: no graph for %d workloads", name, total)
			}
			return
		}
		checked++
		var buf bytes.Buffer
		if err := report.Render(&buf, &report.Page{Title: "t", Sections: []report.Section{sec}}); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if total > graphMaxWorkloads {
			n := 0
			for _, m := range groupNode.FindAllStringSubmatch(html, -1) {
				k, _ := strconv.Atoi(m[1])
				n += k
			}
			if n != total || workloadNode.MatchString(html) {
				t.Errorf("%s: collapsed groups count %d workloads, inspect %d", name, n, total)
			}
			return
		}
		seen := map[int]bool{}
		for _, m := range workloadNode.FindAllStringSubmatch(html, -1) {
			k, _ := strconv.Atoi(m[1])
			if seen[k] || k < 0 || k >= total {
				t.Errorf("%s: workload node %d repeated or out of range", name, k)
			}
			seen[k] = true
		}
		if len(seen) != total {
			t.Errorf("%s: %d workload nodes, inspect counts %d", name, len(seen), total)
		}
	}
	for _, f := range files {
		s, err := gemini.ReadFile(f)
		if err != nil {
			continue // not a schedule (a README's JSON, a golden)
		}
		check(filepath.Base(f), s)
	}
	if err == nil {
		check("synthetic 16x2000", big)
	}
	if checked == 0 {
		t.Skip("no schedule")
	}
}
