package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// inspect recognises an emulator trace by content and states the run's
// total (the end of its last instruction) in text and JSON.
func TestInspectZebuCorpus(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "gemini/zebu"), "*.txt")
	for _, f := range files {
		r := run(t, "", "inspect", "--json", f)
		if r.code != 0 {
			t.Fatalf("%s: %s", f, r)
		}
		var out []struct {
			Kind   string `json:"kind"`
			Result struct {
				Total   int64 `json:"total_cycles"`
				Classes []struct {
					Class string `json:"class"`
					Busy  int64  `json:"busy_cycles"`
				} `json:"classes"`
				Layers []struct {
					Start, End int64
				} `json:"layers"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != 1 {
			t.Fatalf("%s: %v\n%s", f, err, r.stdout)
		}
		res := out[0].Result
		if out[0].Kind != "zebu-trace" || res.Total <= 0 || len(res.Classes) == 0 || len(res.Layers) == 0 {
			t.Fatalf("%s: %+v", f, out[0])
		}
		for _, l := range res.Layers {
			if l.End > res.Total || l.Start > l.End {
				t.Errorf("%s: layer span %+v outside the total %d", f, l, res.Total)
			}
		}
		txt := run(t, "", "inspect", f)
		if txt.code != 0 || !strings.Contains(txt.stdout, "ZeBu emulator trace") || !strings.Contains(txt.stdout, "cycles") {
			t.Errorf("%s: text output:\n%s", f, txt)
		}
	}
}

// The report of an emulator trace draws its instructions on a timeline,
// one track per unit class, besides the tables.
func TestReportZebuTimeline(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "gemini/zebu"), "*.txt")
	out := filepath.Join(t.TempDir(), "z.html")
	if r := run(t, "", "report", files[0], "-o", out); r.code != 0 {
		t.Fatalf("%s", r)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	if !strings.Contains(h, `class="chart timeline`) || !strings.Contains(h, "pe (PE array)") || strings.Count(h, `<rect class="mark"`) < 100 {
		t.Fatalf("no instruction timeline in the report (%d marks)", strings.Count(h, `<rect class="mark"`))
	}
}
