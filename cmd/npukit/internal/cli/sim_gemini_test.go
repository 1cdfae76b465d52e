package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/trace"
	"github.com/spf13/pflag"
)

// geminiSim runs the Gemini simulator on a file as `npukit sim` would,
// with the given simulator flags, and returns the output as text and JSON.
func geminiSim(t *testing.T, path, tracePath string, args ...string) (string, map[string]any) {
	t.Helper()
	fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	options := bindKindFlags("sim", fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	a, err := npukit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != detect.GeminiIR {
		t.Fatalf("%s detected as %s", path, a.Kind)
	}
	o, err := options()
	if err != nil {
		t.Fatal(err)
	}
	o.TracePath = tracePath
	var so bytes.Buffer
	out, err := a.Simulate(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.WriteText(&so); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := writeJSON(&js, out); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(&js)
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return so.String(), m
}

// validTrace checks a written trace with the Perfetto importer's rules
// (package trace: no partially overlapping slices on one track, flows
// paired) and returns its summary.
func validTrace(t *testing.T, path string) *trace.Summary {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := trace.Validate(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sum
}

func TestGeminiSimCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	files := conformance.Files(t, dir, "*.json")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tp := filepath.Join(t.TempDir(), "trace.json")
			text, m := geminiSim(t, f, tp)
			total, ok := m["total_cycles"].(json.Number)
			if !ok {
				t.Fatalf("total_cycles missing or not a number: %v", m["total_cycles"])
			}
			if _, err := total.Int64(); err != nil {
				t.Fatalf("total_cycles %v is not an integer", total)
			}
			if !strings.Contains(text, "Total: ") || !strings.Contains(text, "DRAM: ") {
				t.Errorf("text output lacks the summary:\n%s", text)
			}
			sum := validTrace(t, tp)
			cores := m["cores"].([]any)
			seen := 0
			for name := range sum.Names {
				if strings.HasPrefix(name, "core ") {
					seen++
				}
			}
			if seen != len(cores) {
				t.Errorf("trace has %d core tracks, schedule %d cores (%v)", seen, len(cores), sum.Names)
			}
			if sum.Phases["C"] == 0 {
				t.Error("no L2 occupancy counters")
			}
			if !slicesContain(sum.Process, "DRAM") {
				t.Errorf("no DRAM track: processes %v", sum.Process)
			}
			if len(cores) > 1 {
				if !slicesContain(sum.Process, "NoC") {
					t.Errorf("multi-core trace without NoC tracks: %v", sum.Process)
				}
				if sum.Flows == 0 {
					t.Error("multi-core trace without flow arrows")
				}
			}
		})
	}
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestGeminiSimRaw2x2: the raw 2x2 file simulates with traffic between
// cores and its trace shows all four cores.
func TestGeminiSimRaw2x2(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	files := conformance.Files(t, dir, "*raw*2x2*.json")
	if len(files) == 0 {
		t.Skip("no raw 2x2 file")
	}
	tp := filepath.Join(t.TempDir(), "trace.json")
	text, m := geminiSim(t, files[0], tp)
	sum := validTrace(t, tp)
	for _, c := range []string{"core 0", "core 1", "core 2", "core 3"} {
		if sum.Names[c] == 0 {
			t.Errorf("trace lacks track %q: %v", c, sum.Names)
		}
	}
	var cross float64
	for _, c := range m["cores"].([]any) {
		v, _ := c.(map[string]any)["wait_cores_cycles"].(json.Number).Float64()
		cross += v
	}
	if cross == 0 {
		t.Error("no core waits on another core")
	}
	if len(m["links"].([]any)) == 0 || !strings.Contains(text, "NoC links:") {
		t.Error("no NoC link traffic")
	}
}

// TestGeminiSimZebu compares with the emulator and honours the flags.
func TestGeminiSimZebu(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	traces := conformance.Files(t, filepath.Join(dir, "zebu"), "*_sim.txt")
	if len(traces) == 0 {
		t.Skip("no emulator trace")
	}
	zt := traces[0]
	sp := filepath.Join(dir, strings.TrimSuffix(filepath.Base(zt), "_sim.txt")+"_stschedule.json")
	text, m := geminiSim(t, sp, "", "--zebu", zt)
	z, ok := m["zebu"].(map[string]any)
	if !ok {
		t.Fatal("no zebu comparison in the JSON")
	}
	e, _ := z["error_pct"].(json.Number).Float64()
	if e > 5 || e < -5 {
		t.Errorf("error vs emulator %.2f%%", e)
	}
	if !strings.Contains(text, "ZeBu emulator:") {
		t.Error("text lacks the comparison")
	}
	base, _ := m["total_cycles"].(json.Number).Int64()
	_, m2 := geminiSim(t, sp, "", "--dram-bw", "4")
	slow, _ := m2["total_cycles"].(json.Number).Int64()
	if slow <= base {
		t.Errorf("--dram-bw 4: %d cycles, not slower than %d", slow, base)
	}
	_, m3 := geminiSim(t, sp, "", "--prefetch", "hazard")
	if _, ok := m3["total_cycles"].(json.Number); !ok {
		t.Error("hazard prefetch: no total")
	}
}

// Audit item 7: renaming a schedule to *_bw8.json changed its predicted
// time by half and nothing said why. The Model line and the JSON say where
// each assumption came from: the file name, a flag, or the default.
func TestGeminiSimSaysWhereAssumptionsCameFrom(t *testing.T) {
	data, err := os.ReadFile("../../../../internal/examples/data/demo_gemini_schedule.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain, bw8 := filepath.Join(dir, "s.json"), filepath.Join(dir, "s_bw8.json")
	for _, p := range []string{plain, bw8} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	source := func(m map[string]any) map[string]any {
		s, _ := m["params"].(map[string]any)["source"].(map[string]any)
		return s
	}
	for _, c := range []struct {
		path  string
		args  []string
		text  []string
		json  map[string]string
		other string // the source of every other assumption
	}{
		{plain, nil, []string{"DRAM 17.2 GB/s (default: no bwN in the file name;", "clock 1 GHz (default)"},
			map[string]string{"dram_gb_per_s": "default: no bwN in the file name"}, "default"},
		{bw8, nil, []string{"DRAM 8.6 GB/s (from the file name's bw8;", "prefetch snapshot (default)"},
			map[string]string{"dram_gb_per_s": "from the file name's bw8"}, "default"},
		{bw8, []string{"--dram-bw", "20", "--clock", "2", "--link-bw", "30", "--hop-latency", "5", "--prefetch", "hazard"},
			[]string{"DRAM 20.0 GB/s (--dram-bw;", "clock 2 GHz (--clock)", "NoC links 30.0 GB/s (--link-bw)", "5 cycles per hop (--hop-latency)", "prefetch hazard (--prefetch)"},
			map[string]string{"dram_gb_per_s": "--dram-bw", "core_ghz": "--clock", "link_gb_per_s": "--link-bw", "hop_latency_cycles": "--hop-latency", "prefetch": "--prefetch"}, ""},
	} {
		text, m := geminiSim(t, c.path, "", c.args...)
		for _, w := range c.text {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: the text lacks %q:\n%s", filepath.Base(c.path), c.args, w, text)
			}
		}
		src := source(m)
		if len(src) != 5 {
			t.Errorf("%s %v: params.source %v", filepath.Base(c.path), c.args, src)
		}
		for k, v := range src {
			want, ok := c.json[k]
			if !ok {
				want = c.other
			}
			if v != want {
				t.Errorf("%s %v: params.source.%s = %v, want %q", filepath.Base(c.path), c.args, k, v, want)
			}
		}
	}
}
