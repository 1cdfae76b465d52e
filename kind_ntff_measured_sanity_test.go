package npukit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// `sim X.neff --measured X.ntff` compares a prediction only with what the
// capture measures: every engine or queue time the capture's summary
// withdraws (ntff.Sanity: format 4's engine times, a queue faster than a
// DMA engine) is left out of the rows and named under NotCompared. On the
// format 4 captures the queues' busy times, read with their events'
// nanosecond clock as picoseconds, gave ratios of 2,800x to 16,000x.
func TestMeasuredLeavesOutWithdrawnTimes(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	rows := conformance.CSV(t, filepath.Join(dir, "truth.csv"))
	withdrawn := 0
	for _, r := range rows {
		a, err := Open(filepath.Join(dir, r["neff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		capb, err := os.ReadFile(filepath.Join(dir, r["ntff_file"]))
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Simulate(&Options{NeffMeasured: capb})
		if err != nil {
			t.Fatalf("%s: %v", r["neff_file"], err)
		}
		m := out.(*NeffMeasured)
		gone := map[string]bool{}
		for _, c := range m.Measured.Cores {
			for _, e := range c.Engines {
				if e.NotMeasured != "" {
					gone[c.Name+" "+e.Engine+" busy"] = true
				}
			}
			for _, q := range c.Queues {
				if q.NotMeasured != "" {
					gone[c.Name+" "+q.Name+" busy"] = true
				}
			}
		}
		withdrawn += len(gone)
		if len(gone) > 0 && len(m.NotCompared) == 0 {
			t.Errorf("%s: %d quantities withdrawn, none named as not compared", r["ntff_file"], len(gone))
		}
		for _, row := range m.Rows {
			// (a queue row may name how many queues it sums)
			if what, _, _ := strings.Cut(row.What, " ("); gone[what] {
				t.Errorf("%s: %q compared (measured %.3f us, ratio %.2f) though the capture does not measure it", r["ntff_file"], row.What, row.MeasuredUs, row.Ratio)
			}
		}
		if r["ntff_version"] == "4" {
			for _, row := range m.Rows {
				if strings.Contains(row.What, "Tensor") || strings.Contains(row.What, "qSPIO0") {
					t.Errorf("%s: format 4 row %q compared", r["ntff_file"], row.What)
				}
			}
		}
	}
	if withdrawn == 0 {
		t.Error("no capture has a withdrawn quantity: the test checks nothing")
	}
}
