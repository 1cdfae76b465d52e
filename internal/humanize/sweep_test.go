package humanize

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepOutputs lints the text outputs scripts/sweep.sh saved (every
// command on every corpus file; NPUKIT_SWEEP names its directory): a
// plural after a count of one or thousands separators mixed within one
// output fails. Without NPUKIT_SWEEP there is nothing to read.
func TestSweepOutputs(t *testing.T) {
	dir := os.Getenv("NPUKIT_SWEEP")
	if dir == "" {
		t.Skip("NPUKIT_SWEEP not set: scripts/sweep.sh sets it to its output directory")
	}
	f, err := os.Open(filepath.Join(dir, "runs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// index, exit code, CPU seconds, label ("inspect FILE").
		cols := strings.SplitN(sc.Text(), "\t", 4)
		if len(cols) < 4 || strings.Contains(cols[3], "--json") {
			continue
		}
		for _, stream := range []string{".out", ".err"} {
			b, err := os.ReadFile(filepath.Join(dir, cols[0]+stream))
			if err != nil {
				continue
			}
			n++
			for _, m := range Lint(string(b)) {
				t.Errorf("%s: npukit %s (%s%s)", m, cols[3], filepath.Join(dir, cols[0]), stream)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no text output in %s", dir)
	}
	t.Logf("%d outputs linted", n)
}

// TestSweepBareCounts lists, without failing, the counts of four digits
// or more the sweep's text outputs write without separators
// (BareCounts), one line per command and file: scripts/sweep.sh prints
// them as LOOK lines, what is still to convert to Count.
func TestSweepBareCounts(t *testing.T) {
	dir := os.Getenv("NPUKIT_SWEEP")
	if dir == "" {
		t.Skip("NPUKIT_SWEEP not set: scripts/sweep.sh sets it to its output directory")
	}
	f, err := os.Open(filepath.Join(dir, "runs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.SplitN(sc.Text(), "\t", 4)
		if len(cols) < 4 || strings.Contains(cols[3], "--json") || strings.HasPrefix(cols[3], "diff ") {
			continue
		}
		for _, stream := range []string{".out", ".err"} {
			b, err := os.ReadFile(filepath.Join(dir, cols[0]+stream))
			if err != nil {
				continue
			}
			if bare := BareCounts(string(b)); len(bare) > 0 {
				if len(bare) > 5 {
					bare = append(bare[:5], "...")
				}
				t.Logf("bare counts %s: npukit %s (%s%s)", strings.Join(bare, " "), cols[3], filepath.Join(dir, cols[0]), stream)
			}
		}
	}
}
