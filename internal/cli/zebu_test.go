package cli_test

import (
	"encoding/json"
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
