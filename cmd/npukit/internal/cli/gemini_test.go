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

// TestGeminiCorpus: every real schedule (both variants) is detected,
// inspected and checked without errors.
func TestGeminiCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	variants := map[string]bool{}
	for _, f := range conformance.Files(t, dir, "*.json") {
		r := run(t, "", "check", "--json", f)
		if r.code != 0 {
			t.Errorf("check %s: exit %d\n%s", f, r.code, r)
		}
		var rep struct {
			Summary struct{ Files, Errors int }
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Summary.Files != 1 || rep.Summary.Errors != 0 {
			t.Errorf("check %s: %v %+v", f, err, rep.Summary)
		}
		r = run(t, "", "inspect", "--json", "--layers", f)
		if r.code != 0 {
			t.Fatalf("inspect %s: exit %d\n%s", f, r.code, r)
		}
		var ins []struct {
			Kind, Variant string
			Result        struct {
				Workloads int
				TimeSum   int64 `json:"time_sum_cycles"`
				Cores     []struct {
					L2Peak int64 `json:"l2_peak_bytes"`
				}
				DRAM struct {
					WeightReadBytes int64 `json:"weight_read_bytes"`
				}
				LayerTraffic []struct{ Name string } `json:"layer_traffic"`
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &ins); err != nil || len(ins) != 1 {
			t.Fatalf("inspect %s: %v", f, err)
		}
		e := ins[0]
		variants[e.Variant] = true
		if e.Kind != "gemini-ir" || e.Result.Workloads == 0 || e.Result.TimeSum == 0 || len(e.Result.Cores) == 0 ||
			e.Result.Cores[0].L2Peak == 0 || e.Result.DRAM.WeightReadBytes == 0 || len(e.Result.LayerTraffic) == 0 {
			t.Errorf("inspect %s: implausible summary %+v", f, e)
		}
	}
	if !variants["compiler"] || !variants["raw"] {
		t.Errorf("corpus lacks a variant: %v", variants)
	}
}

func TestGeminiInspectText(t *testing.T) {
	f := filepath.Join(conformance.Corpus(t, "gemini"), "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json")
	r := run(t, "", "inspect", f)
	for _, want := range []string{"1 core on a 1x1 mesh, 88 workloads (pe 62, vp 26)", "Sum of time: 1,863,694 cycles", "read weights", "L2 PEAK"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Layers (") {
		t.Error("per-layer table without --layers")
	}
	r = run(t, "", "inspect", "--layers", f)
	if !strings.Contains(r.stdout, "Layers (") || !strings.Contains(r.stdout, "Conv_1") {
		t.Errorf("--layers lacks the layer table:\n%s", r.stdout)
	}
}

// TestGeminiSynthCheck: synth output is detected and checks clean; a bad
// configuration is a usage error that leaves no file behind.
func TestGeminiSynthCheck(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	r := run(t, "", "gemini", "synth", "--cores", "3", "--workloads", "40", "--buffer", "1048576", "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "3 cores x 40 workloads") {
		t.Fatalf("synth: %s", r)
	}
	r = run(t, "", "check", out)
	if r.code != 0 || !strings.Contains(r.stdout, "0 errors, 0 warnings") || !strings.Contains(r.stdout, "gemini/ring-wrap") {
		t.Fatalf("check synth: %s", r)
	}
	r = run(t, "", "inspect", out)
	if !strings.Contains(r.stdout, "3 cores on a 3x1 mesh, 120 workloads") || strings.Contains(r.stdout, "core to core      0") {
		t.Errorf("inspect synth:\n%s", r.stdout)
	}
	bad := filepath.Join(dir, "bad.json")
	r = run(t, "", "gemini", "synth", "--cores", "0", "-o", bad)
	if r.code != 2 {
		t.Errorf("synth --cores 0: %s", r)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "bad*")); len(m) > 0 {
		t.Errorf("left behind %v", m)
	}
}

// TestGeminiReport: every corpus schedule renders a report with the L2,
// traffic and core sections, well under the 5 MB page limit.
func TestGeminiReport(t *testing.T) {
	dir := t.TempDir()
	for _, f := range conformance.Files(t, conformance.Corpus(t, "gemini"), "*.json") {
		out := filepath.Join(dir, filepath.Base(f)+".html")
		r := run(t, "", "report", f, "-o", out)
		if r.code != 0 {
			t.Fatalf("report %s: %s", f, r)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 5<<20 {
			t.Errorf("%s: report is %d bytes", f, len(b))
		}
		for _, want := range []string{`id="l2"`, `id="traffic"`, `id="cores"`, "DRAM and core-to-core traffic per layer"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: report lacks %s", f, want)
			}
		}
		if strings.Contains(f, "_stschedule") && !strings.Contains(string(b), "L2 address map") {
			t.Errorf("%s: no L2 address map", f)
		}
	}
}

// TestGeminiDegenerate: valid schedules with nothing in them (no cores,
// cores without workloads, workloads without transfers) go through every
// command of the Gemini area with exit 0.
func TestGeminiDegenerate(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{
		"nocores.json":    `{"-1":{"in":[],"out":[]},"buffersize":8388608,"top_batch_cut":1,"xlen":1,"ylen":1}`,
		"emptycores.json": `{"-1":{"in":[],"out":[]},"0":[],"1":[],"2":[],"3":[],"buffersize":8388608,"xlen":2,"ylen":2}`,
		"nulls.json":      `{"-1":null,"0":null,"buffersize":8388608,"xlen":1,"ylen":1}`,
		"notransfer.json": `{"-1":{"in":[],"out":[]},"0":[{"workload_id":0,"layer_name":"a","layer_type":"vp","time":100,"ifmap":[],"ofmap":[],"ofmap_size":0,"buffer":[],"wl0_buffer":[],"workload":[[0,0,0,0],[0,0,0,0]],"ring_buffer_info":[[0,8388608]]}],"buffersize":8388608,"xlen":1,"ylen":1}`,
	}
	for name, doc := range docs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"inspect", "--layers", p}, {"check", p}, {"sim", p}, {"report", p, "-o", filepath.Join(dir, "r.html")},
			{"gemini", "realloc", p}, {"alloc", "--from", p},
		} {
			if r := run(t, "", args...); r.code != 0 {
				t.Errorf("%s: %v: exit %d\n%s", name, args[:len(args)-1], r.code, r)
			}
		}
	}
}

// TestZebuCheckReport: emulator traces are checked (no findings on the
// real ones; a cut trace is a warning, exit 0) and reported.
func TestZebuCheckReport(t *testing.T) {
	dir := conformance.Corpus(t, "gemini/zebu")
	out := t.TempDir()
	for _, f := range conformance.Files(t, dir, "*.txt") {
		if r := run(t, "", "check", f); r.code != 0 || !strings.Contains(r.stdout, "0 errors, 0 warnings") {
			t.Errorf("check %s: exit %d\n%s", f, r.code, r)
		}
		if r := run(t, "", "report", f, "-o", filepath.Join(out, "z.html")); r.code != 0 {
			t.Errorf("report %s: exit %d\n%s", f, r.code, r)
		}
		// sim replays the measured run: its total is inspect's.
		tp := filepath.Join(out, "zt.json")
		var simOut, insOut struct {
			Total int64 `json:"total_cycles"`
		}
		r := run(t, "", "sim", "--json", "--trace", tp, f)
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &simOut) != nil {
			t.Fatalf("sim %s: exit %d\n%s", f, r.code, r)
		}
		r = run(t, "", "inspect", "--json", f)
		var ins []struct{ Result json.RawMessage }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &ins) != nil || len(ins) != 1 || json.Unmarshal(ins[0].Result, &insOut) != nil {
			t.Fatalf("inspect %s: exit %d\n%s", f, r.code, r)
		}
		if simOut.Total == 0 || simOut.Total != insOut.Total {
			t.Errorf("sim total %d, inspect total %d", simOut.Total, insOut.Total)
		}
		var tr struct{ TraceEvents []json.RawMessage }
		if b, err := os.ReadFile(tp); err != nil || json.Unmarshal(b, &tr) != nil || len(tr.TraceEvents) < 100 {
			t.Errorf("trace %s: %v, %d events", tp, err, len(tr.TraceEvents))
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		cut := filepath.Join(out, "cut.txt")
		if err := os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := run(t, "", "check", cut); r.code != 0 || !strings.Contains(r.stdout, "zebu/no-end") {
			t.Errorf("check of a cut trace: exit %d\n%s", r.code, r)
		}
	}
}

// Audit r3 #13: report takes sim's Gemini model flags (it refused
// --dram-bw) and states each assumption's source, and --zebu compares the
// one schedule's run (refusing a trace of another network).
func TestGeminiReportModelFlags(t *testing.T) {
	dir := demoFiles(t)
	r := run(t, dir, "report", "demo_gemini_schedule.json", "--dram-bw", "4", "--prefetch", "hazard", "-o", "m.html")
	if r.code != 0 {
		t.Fatalf("report --dram-bw: %s", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "m.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DRAM 4.0 GB/s (--dram-bw;", "prefetch hazard (--prefetch)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(string(b), "default parameters") {
		t.Error("the report says \"default parameters\"")
	}
	g := conformance.Corpus(t, "gemini")
	sched := filepath.Join(g, "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json")
	if r := run(t, dir, "report", sched, "--zebu", filepath.Join(g, "zebu", "int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt"), "-o", "z.html"); r.code != 0 {
		t.Errorf("report --zebu of the schedule's own run: %s", r)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "z.html")); !strings.Contains(string(b), "ZeBu emulator") {
		t.Error("report --zebu: no emulator comparison on the page")
	}
	if r := run(t, dir, "report", sched, "--zebu", filepath.Join(g, "zebu", "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"), "-o", "z2.html"); r.code != 2 || !strings.Contains(r.stderr, "not a run of this schedule") {
		t.Errorf("report --zebu of another network: want exit 2, got %s", r)
	}
}

// Audit r3 #25: typing the defaults sim --help prints ("34.4", "17.2
// GB/s") changed the simulated cycles; the help gives them exactly.
func TestGeminiHelpDefaultsAreTheDefaults(t *testing.T) {
	dir := demoFiles(t)
	help := run(t, dir, "sim", "--help").stdout
	link := regexp.MustCompile(`--link-bw float .*\(default ([0-9.]+)\)`).FindStringSubmatch(help)
	dram := regexp.MustCompile(`--dram-bw float .*= ([0-9.]+) GB/s\)`).FindStringSubmatch(help)
	if link == nil || dram == nil {
		t.Fatalf("sim --help gives no link or DRAM default:\n%s", help)
	}
	cycles := func(args ...string) int64 {
		var out struct {
			Total int64 `json:"total_cycles"`
		}
		r := run(t, dir, append([]string{"--json", "sim", "demo_gemini_schedule.json"}, args...)...)
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
			t.Fatalf("sim %v: %s", args, r)
		}
		return out.Total
	}
	if a, b := cycles(), cycles("--link-bw", link[1], "--dram-bw", dram[1]); a != b {
		t.Errorf("sim %d cycles, with the help's defaults typed (--link-bw %s --dram-bw %s) %d", a, link[1], dram[1], b)
	}
}
