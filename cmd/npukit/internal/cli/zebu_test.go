package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

// One clock convention: cycles are stated at the nominal clock, 1 GHz
// unless --clock says otherwise, in the text, the JSON and the trace of
// both the Gemini simulation and the ZeBu replay.
func TestClockFlag(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	zp := filepath.Join(dir, "zebu", "int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt")
	sp := filepath.Join(dir, "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json")
	r := run(t, "", "sim", zp)
	if r.code != 0 || !regexp.MustCompile(`\d (us|ms|s) at 1 GHz`).MatchString(r.stdout) {
		t.Fatalf("default clock not stated: %s", r)
	}
	tp := filepath.Join(t.TempDir(), "z.json")
	r = run(t, "", "--json", "sim", zp, "--clock", "2", "--trace", tp)
	var z struct {
		TotalCycles int64   `json:"total_cycles"`
		ClockGHz    float64 `json:"clock_ghz"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &z) != nil || z.ClockGHz != 2 {
		t.Fatalf("zebu --clock 2: %s", r)
	}
	tb, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Ph  string  `json:"ph"`
			Ts  float64 `json:"ts"`
			Dur float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tb, &tr); err != nil {
		t.Fatal(err)
	}
	var end float64
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			end = max(end, e.Ts+e.Dur)
		}
	}
	// Trace times are microseconds: cycles / (2 GHz * 1000).
	if want := float64(z.TotalCycles) / 2000; end > want*1.001 || end < want*0.99 {
		t.Errorf("trace ends at %.1f us, want about %.1f (cycles at 2 GHz)", end, want)
	}
	r = run(t, "", "sim", sp, "--clock", "2")
	if r.code != 0 || !regexp.MustCompile(`\d (us|ms|s) at 2 GHz`).MatchString(r.stdout) {
		t.Fatalf("gemini --clock 2: %s", r)
	}
	if r := run(t, "", "sim", sp, "--clock", "0"); r.code != 2 {
		t.Errorf("--clock 0 accepted: %s", r)
	}
}
