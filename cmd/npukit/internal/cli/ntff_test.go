package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
)

// A capture reads by content through every command: inspect (with
// total_time_us per core in --json), check, sim --trace (Perfetto JSON),
// diff, and `sim X.neff --measured X.ntff` prints predicted and measured
// side by side.
func TestNtffCommands(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	caps := conformance.Files(t, dir, "*stream_256k_fd*k.ntff")
	capA := caps[0]
	var out []struct {
		Result struct {
			Cores []struct {
				Name        string  `json:"name"`
				TotalTimeUs float64 `json:"total_time_us"`
			} `json:"cores"`
			Instance string `json:"instance_type"`
		} `json:"result"`
	}
	runJSON(t, &out, "inspect", capA)
	if len(out) != 1 {
		t.Fatalf("inspect --json: %d entries", len(out))
	}
	sum := out[0].Result
	if len(sum.Cores) == 0 || sum.Cores[0].TotalTimeUs <= 0 || sum.Instance == "" {
		t.Fatalf("inspect --json: %+v", sum)
	}
	if r := run(t, "", "check", capA); r.code != 0 {
		t.Errorf("check: %s", r)
	}
	tp := filepath.Join(t.TempDir(), "t.json")
	if r := run(t, "", "sim", capA, "--trace", tp); r.code != 0 {
		t.Fatalf("sim --trace: %s", r)
	}
	b, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || len(tr.TraceEvents) < 100 {
		t.Fatalf("trace: %v, %d events", err, len(tr.TraceEvents))
	}
	if len(caps) > 1 {
		r := run(t, "", "diff", caps[0], caps[1])
		if r.code != 1 || !strings.Contains(r.stdout, "total us") {
			t.Errorf("diff of two captures: %s", r)
		}
	}
	neff := strings.TrimSuffix(capA, ".ntff") + ".neff"
	if _, err := os.Stat(neff); err != nil {
		t.Skipf("no NEFF beside %s", capA)
	}
	var cmp struct {
		Rows []struct {
			What        string  `json:"what"`
			PredictedUs float64 `json:"predicted_us"`
			MeasuredUs  float64 `json:"measured_us"`
			Ratio       float64 `json:"ratio"`
		} `json:"comparison"`
	}
	runJSON(t, &cmp, "sim", neff, "--measured", capA)
	if len(cmp.Rows) == 0 || cmp.Rows[0].MeasuredUs != sum.Cores[0].TotalTimeUs || cmp.Rows[0].PredictedUs <= 0 {
		t.Fatalf("sim --measured: %+v", cmp.Rows)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if r := run(t, "", "report", neff, "--measured", capA, "-o", html); r.code != 0 {
		t.Fatalf("report --measured: %s", r)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "Predicted and measured") || !strings.Contains(string(b), "measured instructions") {
		t.Errorf("report --measured has no comparison section or measured timeline (%v)", err)
	}
	if r := run(t, "", "sim", neff, "--measured", neff); r.code != 2 {
		t.Errorf("--measured with a NEFF is refused: %s", r)
	}
}

// inspect and sim of a capture print its total time with the same digits:
// sim truncated the picoseconds to whole nanoseconds first (26.416 us
// against inspect's 26.417 us for a 26,416,626 ps run).
func TestNtffInspectSimTotalAgree(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	total := regexp.MustCompile(`(?m)^Total(?: time)?: ([0-9.]+) us`)
	for _, f := range conformance.Files(t, dir, "*.ntff") {
		ri, rs := run(t, "", "inspect", f), run(t, "", "sim", f)
		mi, ms := total.FindStringSubmatch(ri.stdout), total.FindStringSubmatch(rs.stdout)
		if mi == nil || ms == nil {
			t.Fatalf("%s: no total line\ninspect: %s\nsim: %s", f, ri, rs)
		}
		if mi[1] != ms[1] {
			t.Errorf("%s: inspect total %s us, sim total %s us", filepath.Base(f), mi[1], ms[1])
		}
	}
}

// sim X.neff --measured X.ntff compares each core's total as it compares
// the total: launch included on both sides. The core rows printed the
// kernel alone against the capture's window (sg00 11.790 us predicted
// against 26.417 us measured, while the total row said 21.790 us).
func TestNtffMeasuredCoreRowsIncludeLaunch(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	n := 0
	for _, capf := range conformance.Files(t, dir, "*.ntff") {
		neff := strings.TrimSuffix(capf, ".ntff") + ".neff"
		if _, err := os.Stat(neff); err != nil {
			continue
		}
		var cmp struct {
			Simulation struct {
				LaunchNs int64 `json:"launch_ns"`
			} `json:"simulation"`
			Rows []struct {
				What        string  `json:"what"`
				PredictedUs float64 `json:"predicted_us"`
				MeasuredUs  float64 `json:"measured_us"`
				Note        string  `json:"note"`
			} `json:"comparison"`
		}
		runJSON(t, &cmp, "sim", neff, "--measured", capf)
		if len(cmp.Rows) < 2 || cmp.Simulation.LaunchNs <= 0 {
			t.Fatalf("%s: %+v", filepath.Base(capf), cmp)
		}
		total := cmp.Rows[0]
		for _, r := range cmp.Rows[1:] {
			if !strings.HasSuffix(r.What, " total (launch + kernel)") || r.Note != "" {
				continue
			}
			n++
			// sim's section of the subgraph states the same time, labelled
			// (audit item 17: "sg01 0.000 us" against "sg01 total 10.000")
			sg, _, _ := strings.Cut(r.What, " ")
			want := regexp.MustCompile(`(?m)^Subgraph ` + sg + ` \(physical core \d+, from [^)]*\): kernel [^,]+, ` + regexp.QuoteMeta(humanize.Micros(r.PredictedUs)) + ` with the launch$`)
			if text := run(t, "", "sim", neff).stdout; !want.MatchString(text) {
				t.Errorf("%s: sim's section of %s does not state %s with the launch:\n%s", filepath.Base(capf), sg, humanize.Micros(r.PredictedUs), text)
			}
			if r.PredictedUs < float64(cmp.Simulation.LaunchNs)/1e3 || r.PredictedUs > total.PredictedUs+1e-9 {
				t.Errorf("%s: %s predicted %.3f us, the total %.3f us with a launch of %d ns", filepath.Base(capf), r.What, r.PredictedUs, total.PredictedUs, cmp.Simulation.LaunchNs)
			}
		}
	}
	if n == 0 {
		t.Skip("no capture with its NEFF")
	}
}

// A capture of another NEFF: sim --measured refuses it (exit 2, naming
// both UUIDs and the flag that compares anyway), --measured-other-neff
// compares with a warning; inspect --neff says the UUID differs, and a
// --neff that does not exist is a usage error. (The comparison ran
// without a word; inspect printed "(UUID matches)" for any path.)
func TestNtffMeasuredOtherNeff(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	capf := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__stream_256k_fd1k.ntff")
	own := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__stream_256k_fd1k.neff")
	other := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.neff")
	r := run(t, "", "sim", other, "--measured", capf)
	if r.code != 2 || !strings.Contains(r.stderr, "not a run of this NEFF") || !strings.Contains(r.stderr, "--measured-other-neff") {
		t.Errorf("sim --measured with another NEFF's capture: %s", r)
	}
	r = run(t, "", "sim", other, "--measured", capf, "--measured-other-neff")
	if r.code != 0 || !strings.Contains(r.stdout, "WARNING: the capture is of another NEFF") {
		t.Errorf("sim --measured-other-neff: %s", r)
	}
	if r := run(t, "", "sim", own, "--measured", capf); r.code != 0 || strings.Contains(r.stdout, "WARNING") {
		t.Errorf("sim --measured with the NEFF's own capture: %s", r)
	}
	if r := run(t, "", "inspect", capf, "--neff", other); r.code != 0 || strings.Contains(r.stdout, "UUID matches") || !strings.Contains(r.stdout, "UUID differs") {
		t.Errorf("inspect --neff another NEFF: %s", r)
	}
	if r := run(t, "", "inspect", capf, "--neff", own); r.code != 0 || !strings.Contains(r.stdout, "(UUID matches)") {
		t.Errorf("inspect --neff its NEFF: %s", r)
	}
	if r := run(t, "", "inspect", capf, "--neff", filepath.Join(t.TempDir(), "x.neff")); r.code != 2 || strings.Contains(r.stdout, "UUID matches") {
		t.Errorf("inspect --neff of a missing file: %s", r)
	}
}
