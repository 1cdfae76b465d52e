package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
)

// The NEFF report states the time `npukit sim` predicts, the same number
// (issue 32: the report showed only its DMA time while sim printed the
// predicted kernel time).
func TestNeffReportStatesSimTime(t *testing.T) {
	files := conformance.CorpusFiles(t, "neff", "*.neff")
	if len(files) == 0 {
		t.Skip("no NEFF")
	}
	dir := t.TempDir()
	for _, f := range files[:min(3, len(files))] {
		r := run(t, ".", "--json", "sim", f)
		var sim struct {
			TotalNs int64 `json:"total_ns"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &sim); err != nil || r.code != 0 {
			t.Fatalf("%s: sim: %v\n%s", f, err, r)
		}
		out := filepath.Join(dir, filepath.Base(f)+".html")
		if r := run(t, ".", "report", f, "-o", out); r.code != 0 {
			t.Fatalf("%s: report: %s", f, r)
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := "Predicted time (npukit sim)</dt><dd>" + humanize.Nanos(sim.TotalNs)
		if !strings.Contains(string(page), want) {
			t.Errorf("%s: the report does not state sim's %d ns", filepath.Base(f), sim.TotalNs)
		}
	}
}
