package npukit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
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
