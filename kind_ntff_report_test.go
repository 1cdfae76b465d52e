package npukit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/report"
)

// The report of a capture gives the kernel time and the launch beside
// the total, as inspect does (the summary said only "Total time 46.471
// us", of which 14.5 us is launch).
func TestNtffReportKernelSplit(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	f := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.ntff")
	a, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	page, err := a.Report(&Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Inspect(&Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := out.(*NtffSummary).Cores[0]
	if c.KernelUs <= 0 {
		t.Fatal("no kernel span in the capture")
	}
	kv := map[string]string{}
	for _, x := range page.Summary {
		kv[x.Key] = x.Value
	}
	if !strings.Contains(kv["Kernel"], humanize.Micros(c.KernelUs)) || !strings.Contains(kv["Launch"], humanize.Micros(c.LaunchBeforeUs)) {
		t.Errorf("report summary %v lacks the kernel %s and launch %s of inspect", kv, humanize.Micros(c.KernelUs), humanize.Micros(c.LaunchBeforeUs))
	}
}

// A format 4 capture's tables say they count the whole capture, not
// "inside the profiled window" (a report of a format 4 and a format 5
// capture set 86 whole-capture instructions beside 28 windowed ones
// under the same heading).
func TestNtffReportFormat4Span(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	rows := conformance.CSV(t, filepath.Join(dir, "truth.csv"))
	n := 0
	for _, r := range rows {
		a, err := Open(filepath.Join(dir, r["ntff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		page, err := a.Report(&Options{})
		if err != nil {
			t.Fatal(err)
		}
		whole := r["ntff_version"] == "4"
		for _, sec := range page.Sections {
			for _, b := range sec.Blocks {
				tb, ok := b.(*report.Table)
				if !ok || !strings.HasPrefix(tb.Caption, "Engines") && !strings.HasPrefix(tb.Caption, "DMA queues") {
					continue
				}
				n++
				if got := strings.Contains(tb.Caption, "whole capture"); got != whole || strings.Contains(tb.Caption, "inside the profiled window") == whole {
					t.Errorf("%s (format %s): %q", r["ntff_file"], r["ntff_version"], tb.Caption)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no engine or queue table")
	}
}
