package npukit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/simhook"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/ntff"
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
// under the same heading); a format 5 capture's, that they count from the
// window's start to the capture's end (as neuron-profile does).
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
		whole, toEnd := r["ntff_version"] == "4", r["ntff_version"] == "5"
		for _, sec := range page.Sections {
			for _, b := range sec.Blocks {
				tb, ok := b.(*report.Table)
				if !ok || !strings.HasPrefix(tb.Caption, "Engines") && !strings.HasPrefix(tb.Caption, "DMA queues") {
					continue
				}
				n++
				if strings.Contains(tb.Caption, "whole capture") != whole || strings.Contains(tb.Caption, "to the capture's end") != toEnd ||
					strings.Contains(tb.Caption, "inside the profiled window") == (whole || toEnd) {
					t.Errorf("%s (format %s): %q", r["ntff_file"], r["ntff_version"], tb.Caption)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no engine or queue table")
	}
}

// report X.neff --measured X.ntff draws both timelines from the kernel's
// start on one time range, as its intro says: the measured one started at
// the window (14.5 us of launch earlier) on an axis of another length,
// and both axis titles read "ns ... (us)".
func TestNeffMeasuredTimelinesOneOrigin(t *testing.T) {
	a, capb := transposePair(t)
	page, err := a.Report(&Options{NeffMeasured: capb, NeffMeasuredName: "transpose_1024.ntff"})
	if err != nil {
		t.Fatal(err)
	}
	var tls []*report.Timeline
	var intro string
	for _, sec := range page.Sections {
		if sec.ID != "measured" {
			continue
		}
		intro = sec.Intro
		for _, b := range sec.Blocks {
			if tl, ok := b.(*report.Timeline); ok {
				tls = append(tls, tl)
			}
		}
	}
	if len(tls) != 2 {
		t.Fatalf("%d timelines in the comparison, want predicted and measured", len(tls))
	}
	if !strings.Contains(intro, "both from the start of the kernel") {
		t.Errorf("intro: %s", intro)
	}
	capt, err := ntff.Parse(capb)
	if err != nil {
		t.Fatal(err)
	}
	s := ntff.Summarize(capt, "c")
	for _, tl := range tls {
		if tl.XLabel != "time from the start of the kernel" {
			t.Errorf("%s: axis title %q", tl.Caption, tl.XLabel)
		}
		if tl.From != tls[0].From || tl.To != tls[0].To || tl.To <= 0 {
			t.Errorf("%s: range [%g, %g], the other's [%g, %g]", tl.Caption, tl.From, tl.To, tls[0].From, tls[0].To)
		}
	}
	// The measured kernel starts at 0 and the launch before it is at
	// negative times, as long as inspect says.
	lo, first := 0.0, math.Inf(1)
	for _, tr := range tls[1].Tracks {
		for _, sp := range tr.Spans {
			lo = min(lo, sp.Start)
			if sp.Start >= 0 {
				first = min(first, sp.Start)
			}
		}
	}
	if first != 0 {
		t.Errorf("the measured kernel's first instruction at %g ns, want 0", first)
	}
	if want := -s.Cores[0].LaunchBeforeUs * 1e3; lo < want-1 {
		t.Errorf("measured timeline from %g ns, before the window (launch %g ns)", lo, want)
	}
	if tls[0].From > -s.Cores[0].LaunchBeforeUs*1e3*0.5 {
		t.Errorf("the shared range starts at %g ns, not before the kernel", tls[0].From)
	}
}

// A format 4 capture locates no kernel: the comparison's intro does not
// claim the timelines share the kernel's origin, and the axis says where
// the measured one starts.
func TestNeffMeasuredFormat4Origin(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	rows := conformance.CSV(t, filepath.Join(dir, "truth.csv"))
	for _, r := range rows {
		if r["ntff_version"] != "4" {
			continue
		}
		a, err := Open(filepath.Join(dir, r["neff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		capb, err := os.ReadFile(filepath.Join(dir, r["ntff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		page, err := a.Report(&Options{NeffMeasured: capb})
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range page.Sections {
			if sec.ID != "measured" {
				continue
			}
			if strings.Contains(sec.Intro, "both from the start of the kernel") || !strings.Contains(sec.Intro, "do not line up") {
				t.Errorf("%s: intro %q", r["ntff_file"], sec.Intro)
			}
			for _, b := range sec.Blocks {
				if tl, ok := b.(*report.Timeline); ok && strings.Contains(tl.Caption, "measured") && tl.XLabel != "time from the capture's first event" {
					t.Errorf("%s: measured axis %q", r["ntff_file"], tl.XLabel)
				}
			}
		}
		return
	}
	t.Skip("no format 4 pair")
}

// report X.neff --measured X.ntff simulates each subgraph's program once:
// the page's predicted time, the comparison and the predicted timeline
// share one run (each was simulated anew, three runs in all). Counted
// through the simulation hook dmaprog reports to, by subgraph: each run
// decodes the NEFF's programs anew.
func TestNeffMeasuredReportSimulatesOnce(t *testing.T) {
	a, capb := transposePair(t)
	seen := map[string]int{}
	restore := simhook.Set(func(p any) {
		if prog, ok := p.(*dmaprog.Program); ok {
			seen[prog.Subgraph]++
		}
	})
	page, err := a.Report(&Options{NeffMeasured: capb})
	restore()
	if err != nil {
		t.Fatal(err)
	}
	measured := false
	for _, sec := range page.Sections {
		measured = measured || sec.ID == "measured"
	}
	if !measured || len(seen) == 0 {
		t.Fatalf("no comparison (%v) or no simulation seen (%d programs)", measured, len(seen))
	}
	for sg, n := range seen {
		if n != 1 {
			t.Errorf("%s simulated %d times", sg, n)
		}
	}
}

// transposePair opens the corpus's transpose NEFF and reads the capture
// of its run.
func transposePair(t *testing.T) (*Artifact, []byte) {
	t.Helper()
	dir := conformance.Shared(t, "corpus3/ntff")
	a, err := Open(filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.neff"))
	if err != nil {
		t.Fatal(err)
	}
	capb, err := os.ReadFile(filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.ntff"))
	if err != nil {
		t.Fatal(err)
	}
	return a, capb
}
