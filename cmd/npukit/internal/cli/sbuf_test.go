package cli_test

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/trace"
)

func sbufExample(name string) string {
	return filepath.Join("..", "..", "..", "..", "examples", "sbuf", name)
}

// The guide's examples give the outcomes the guide states through the CLI.
func TestSbufCheckExamples(t *testing.T) {
	cases := []struct {
		file  string
		code  int
		rule  string // expected error rule, "" for none
		names []string
	}{
		{"single-buffer.yaml", 0, "", nil},
		{"double-buffer.yaml", 0, "", nil},
		{"disjoint-t0-t1.yaml", 0, "", nil},
		{"mod-alloc-table.yaml", 0, "", nil},
		{"too-few-tiles-fixed.yaml", 0, "", nil},
		{"overlap-t0-t1.yaml", 1, "sbuf/lifetime-overlap", []string{"t0[1]", "t1[0]", `step "load t0[i]"`}},
		{"too-few-tiles.yaml", 1, "sbuf/too-few-physical-tiles", []string{"tensor t1", "8 logical tiles", `step "load t1[i]"`}},
	}
	for _, c := range cases {
		r := run(t, "", "sbuf", "check", sbufExample(c.file))
		if r.code != c.code {
			t.Errorf("%s: %s", c.file, r)
			continue
		}
		if c.rule == "" {
			if !strings.Contains(r.stdout, "0 errors") {
				t.Errorf("%s: %s", c.file, r)
			}
			continue
		}
		if !strings.Contains(r.stdout, "error ["+c.rule+"]") {
			t.Errorf("%s lacks %s: %s", c.file, c.rule, r)
		}
		for _, n := range c.names {
			if !strings.Contains(r.stdout, n) {
				t.Errorf("%s: message does not name %s: %s", c.file, n, r.stdout)
			}
		}
		// --json carries the same diagnostics.
		j := run(t, "", "--json", "sbuf", "check", sbufExample(c.file))
		var out struct {
			Diagnostics []struct {
				Rule string `json:"rule"`
			} `json:"diagnostics"`
			Summary struct{ Errors int } `json:"summary"`
		}
		if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || j.code != 1 {
			t.Fatalf("%s --json: %v %s", c.file, err, j)
		}
		if out.Summary.Errors != 1 || len(out.Diagnostics) != 1 || out.Diagnostics[0].Rule != c.rule {
			t.Errorf("%s --json: %+v", c.file, out)
		}
	}
}

func TestSbufCheckUnreadable(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("tensors: [{name: x, partitions: 999}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, filepath.Join(dir, "missing.yaml")} {
		if r := run(t, "", "sbuf", "check", f); r.code != 2 || r.stderr == "" {
			t.Errorf("%s: %s", f, r)
		}
	}
}

type sbufSimJSON struct {
	TimeNs  float64 `json:"time_ns"`
	Steps   int     `json:"steps"`
	Engines []struct {
		Engine      string  `json:"engine"`
		Steps       int     `json:"steps"`
		Utilisation float64 `json:"utilisation"`
	} `json:"engines"`
}

func sbufSim(t *testing.T, file string, args ...string) sbufSimJSON {
	t.Helper()
	r := run(t, "", append([]string{"--json", "sbuf", "sim", sbufExample(file)}, args...)...)
	var out sbufSimJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("%s: %v %s", file, err, r)
	}
	return out
}

// Double buffering overlaps the load of x[i+1] with the exp of x[i]: the
// simulated time drops against one physical tile per tensor.
func TestSbufSimDoubleBufferingOverlaps(t *testing.T) {
	trc := filepath.Join(t.TempDir(), "trace.json")
	single := sbufSim(t, "single-buffer.yaml")
	double := sbufSim(t, "double-buffer.yaml", "--trace", trc)
	if single.Steps != 24 || double.Steps != 24 {
		t.Fatalf("steps %d %d", single.Steps, double.Steps)
	}
	if !(double.TimeNs < 0.8*single.TimeNs) {
		t.Errorf("double buffering %.0f ns vs single %.0f ns: no overlap", double.TimeNs, single.TimeNs)
	}
	var scalar bool
	for _, e := range double.Engines {
		if e.Engine == "Scalar" && e.Steps == 8 && e.Utilisation > 0 {
			scalar = true
		}
	}
	if !scalar {
		t.Errorf("engines %+v", double.Engines)
	}
	f, err := os.Open(trc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := trace.Validate(f)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Phases["X"] < 24 {
		t.Errorf("trace has %d slices", sum.Phases["X"])
	}
	// Text output names the engines with units.
	r := run(t, "", "sbuf", "sim", sbufExample("single-buffer.yaml"))
	for _, want := range []string{"us", "UTILISATION", "Scalar", "DMA"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sim text lacks %q: %s", want, r.stdout)
		}
	}
}

// place -o writes a plan that passes sbuf check; the allocation code is
// printed per tensor.
func TestSbufPlace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "placed.yaml")
	r := run(t, "", "sbuf", "place", sbufExample("place-32.yaml"), "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "32 tensors placed") || !strings.Contains(r.stdout, "ncc.psum.mod_alloc(base_bank=") || !strings.Contains(r.stdout, "ncc.sbuf.mod_alloc(base_addr=") {
		t.Fatalf("%s", r)
	}
	if c := run(t, "", "sbuf", "check", out); c.code != 0 || !strings.Contains(c.stdout, "0 errors, 0 warnings, 0 infos") {
		t.Errorf("placed plan: %s", c)
	}
	if c := run(t, "", "sbuf", "check", sbufExample("place-32.yaml")); c.code != 0 || !strings.Contains(c.stdout, "sbuf/unplaced") {
		t.Errorf("unplaced plan: %s", c)
	}
	j := run(t, "", "--json", "sbuf", "place", sbufExample("place-32.yaml"))
	var pl struct {
		Tensors []struct {
			Tensor   string `json:"tensor"`
			Physical int64  `json:"physical_tiles"`
			Code     string `json:"code"`
		} `json:"tensors"`
		TimeNs float64 `json:"time_ns"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &pl); err != nil || j.code != 0 || len(pl.Tensors) != 32 || pl.TimeNs <= 0 {
		t.Fatalf("%v %s", err, j)
	}
	for _, tn := range pl.Tensors {
		if tn.Physical < 1 || !strings.HasPrefix(tn.Code, "ncc.") {
			t.Errorf("%+v", tn)
		}
	}
	// A fully direct plan is not an error (TestSbufPlaceNothingToPlace).
	if r := run(t, "", "sbuf", "place", sbufExample("double-buffer.yaml")); r.code != 0 {
		t.Errorf("direct plan: %s", r)
	}
}

// Plans are recognised by content: the shared inspect, check and sim
// commands work on them, and the demo shows double buffering's gain.
func TestSbufSharedCommandsAndDemo(t *testing.T) {
	r := run(t, "", "inspect", sbufExample("mod-alloc-table.yaml"))
	if r.code != 0 || !strings.Contains(r.stdout, "nki_tensor[3]  -> (0, 1024)") || !strings.Contains(r.stdout, "num_free_tiles=(2,)") {
		t.Errorf("inspect: %s", r)
	}
	if r := run(t, "", "check", sbufExample("too-few-tiles.yaml")); r.code != 1 || !strings.Contains(r.stdout, "sbuf/too-few-physical-tiles") {
		t.Errorf("check: %s", r)
	}
	if r := run(t, "", "sim", sbufExample("double-buffer.yaml")); r.code != 0 || !strings.Contains(r.stdout, "UTILISATION") {
		t.Errorf("sim: %s", r)
	}
	d := run(t, "", "demo", "--dir", t.TempDir())
	if d.code != 0 || !strings.Contains(d.stdout, "x faster: DMA transfers overlap") {
		t.Errorf("demo: %s", d)
	}
}

func TestSbufReport(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"double-buffer.yaml", "place-32.yaml"} {
		out := filepath.Join(dir, f+".html")
		r := run(t, "", "sbuf", "report", sbufExample(f), "-o", out)
		b, err := os.ReadFile(out)
		if r.code != 0 || err != nil {
			t.Fatalf("%s: %v %s", f, err, r)
		}
		for _, want := range []string{"SBUF map", "SBUF tile lifetimes", "Engine timeline", "<svg"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: report lacks %q", f, want)
			}
		}
	}
	// Without -o the page is named like npukit report names it.
	abs, _ := filepath.Abs(sbufExample("double-buffer.yaml"))
	if r := run(t, dir, "sbuf", "report", abs); r.code != 0 || !fileExists(filepath.Join(dir, "double-buffer.html")) {
		t.Errorf("without -o: %s", r)
	}
}

// place lists the tile counts the exact solver proves infeasible: on v4
// (245,752 usable bytes per partition; DMA fast enough that more tiles of
// x pay, so the placer tries them) four 60000-byte tiles fill a
// partition, so x gets at most three beside y.
func TestSbufPlaceRejected(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	src := `arch: v4
tensors:
  - {name: x, block: [4], partitions: 128, free: [15000], dtype: fp32}
  - {name: y, partitions: 128, free: [15000], dtype: fp32}
body:
  - {op: memset, write: y}
  - loop: i
    range: 4
    body:
      - {op: load, write: "x[i]"}
      - {op: tensor_tensor, read: ["x[i]", y], write: "x[i]"}
      - {op: store, read: "x[i]"}
  - {op: store, read: y}
`
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "placed.yaml")
	r := run(t, "", "sbuf", "place", plan, "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "tile counts tried that do not fit:") || !strings.Contains(r.stdout, "x=4 y=1: infeasible (proved by the exact solver)") {
		t.Fatalf("%s", r)
	}
	if c := run(t, "", "sbuf", "check", out); c.code != 0 || !strings.Contains(c.stdout, "0 errors, 0 warnings, 0 infos") {
		t.Errorf("placed plan: %s", c)
	}
	j := run(t, "", "--json", "sbuf", "place", plan)
	if j.code != 0 || !strings.Contains(j.stdout, `"reason": "infeasible"`) {
		t.Errorf("%s", j)
	}
}

// A plan with only direct allocations has nothing to place: that is not an
// error, and -o still receives the plan unchanged.
func TestSbufPlaceNothingToPlace(t *testing.T) {
	in := filepath.Join("..", "..", "..", "..", "examples", "sbuf", "disjoint-t0-t1.yaml")
	out := filepath.Join(t.TempDir(), "placed.yaml")
	r := run(t, "", "sbuf", "place", in, "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "no automatic tensors") {
		t.Fatalf("want exit 0 and a statement, got %s", r)
	}
	a, _ := os.ReadFile(in)
	b, err := os.ReadFile(out)
	if err != nil || string(a) != string(b) {
		t.Fatalf("-o should hold the plan unchanged (%v)", err)
	}
	if r := run(t, "", "--json", "sbuf", "place", in); r.code != 0 || !strings.Contains(r.stdout, `"placed": 0`) {
		t.Fatalf("--json: %s", r)
	}
}

// Plans with nothing to run still make a report: an empty tensor list
// (which detection cannot recognise) and loops of zero trips.
func TestSbufReportEmptyPlans(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"none.yaml": "tensors: []\n",
		"zero.yaml": "tensors:\n  - {name: x, block: [2], partitions: 128, free: [64], dtype: nl.bfloat16}\nbody:\n  - {loop: i, range: 0, body: [{op: load, write: \"x[i]\"}]}\n",
	} {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := run(t, "", "sbuf", "report", in, "-o", filepath.Join(dir, name+".html")); r.code != 0 {
			t.Errorf("%s: %s", name, r)
		}
	}
}

// A plan that cannot be placed is a finding (exit 1), not unusable input.
func TestSbufPlaceUnplaceable(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "full.yaml")
	src := "tensors:\n  - {name: a, block: [4], partitions: 128, free: [12000], dtype: fp32}\nbody:\n" +
		"  - {loop: i, range: 4, body: [{op: load, write: \"a[i]\"}]}\n  - {loop: j, range: 4, body: [{op: store, read: \"a[j]\"}]}\n"
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "sbuf", "place", in); r.code != 1 || !strings.Contains(r.stderr, "no placement exists") {
		t.Errorf("place: %s", r)
	}
	if r := run(t, "", "sbuf", "check", in); r.code != 1 || !strings.Contains(r.stdout, "sbuf/live-over-capacity") {
		t.Errorf("check: %s", r)
	}
}

// Issue 32: `sim` and `report` of one plan (and `nki sim` / `nki report`
// of one kernel) gave different times (55.4 us against 155.3 us for
// place-32.yaml: the report placed the automatic tensors first) and
// neither said what it assumed. Both print the same time beside the same
// assumption; the report gives the time of the placement it draws on a
// line of its own, saying so.
func TestSimAndReportSayOneTimeAndItsAssumption(t *testing.T) {
	type faces struct {
		name      string
		sim, page []string
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	cases := []faces{{"place-32", []string{"sim", sbufExample("place-32.yaml")}, []string{"report", sbufExample("place-32.yaml")}}}
	if d := conformance.SharedDir(); d != "" {
		man := filepath.Join(d, "corpus2", "nki", "manifest.json")
		if _, err := os.Stat(man); err == nil {
			e := []string{"--manifest", man, "--entry", "samples.layernorm_v2"}
			cases = append(cases, faces{"layernorm_v2", append([]string{"nki", "sim"}, e...), append([]string{"nki", "report"}, e...)})
		}
	}
	for _, c := range cases {
		r := run(t, "", append([]string{"--json"}, c.sim...)...)
		var s struct {
			TimeNs float64 `json:"time_ns"`
			Memory string  `json:"memory"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || r.code != 0 {
			t.Fatalf("%s: %v %s", c.name, err, r)
		}
		if !strings.Contains(s.Memory, "unlimited memory") {
			t.Errorf("%s: sim --json says no assumption about automatic tensors: %q", c.name, s.Memory)
		}
		if txt := run(t, "", c.sim...); !strings.Contains(txt.stdout, "assumes "+s.Memory) {
			t.Errorf("%s: sim's text does not say what the time assumed:\n%s", c.name, txt.stdout)
		}
		if r := run(t, "", append(c.page, "-o", page)...); r.code != 0 {
			t.Fatalf("%s: %s", c.name, r)
		}
		h, _ := os.ReadFile(page)
		want := humanize.Nanos(int64(math.Round(s.TimeNs))) + ", assuming " + s.Memory
		if !strings.Contains(html.UnescapeString(string(h)), want) {
			t.Errorf("%s: the report's simulated time is not sim's %q", c.name, want)
		}
	}
}

// Audit item 2: sbuf place printed its times without the launch while sim
// and sbuf report include it (56.0 against 66.0 us for the same plan with
// unlimited memory, 165.8 against 175.8 us placed). The three commands give
// one number per quantity.
func TestSbufPlaceTimesAgreeWithSimAndReport(t *testing.T) {
	plan := sbufExample("place-32.yaml")
	var pl struct {
		TimeNs      float64 `json:"time_ns"`
		UnboundedNs float64 `json:"unbounded_time_ns"`
		LaunchNs    float64 `json:"launch_ns"`
	}
	p := run(t, "", "--json", "sbuf", "place", plan)
	if err := json.Unmarshal([]byte(p.stdout), &pl); err != nil || p.code != 0 || pl.LaunchNs <= 0 {
		t.Fatalf("%v %s", err, p)
	}
	var sim struct {
		TimeNs   float64 `json:"time_ns"`
		LaunchNs float64 `json:"launch_ns"`
	}
	for _, cmd := range [][]string{{"sim"}, {"sbuf", "sim"}} {
		s := run(t, "", append(append([]string{"--json"}, cmd...), plan)...)
		if err := json.Unmarshal([]byte(s.stdout), &sim); err != nil || s.code != 0 {
			t.Fatalf("%v %s", err, s)
		}
		if math.Abs(sim.TimeNs-pl.UnboundedNs) > 0.5 || sim.LaunchNs != pl.LaunchNs {
			t.Errorf("%v: %.1f ns (launch %.1f), sbuf place with unlimited memory %.1f ns (launch %.1f)", cmd, sim.TimeNs, sim.LaunchNs, pl.UnboundedNs, pl.LaunchNs)
		}
	}
	txt := run(t, "", "sbuf", "place", plan)
	for _, want := range []string{fmt.Sprintf("%.3f us with unlimited memory", pl.UnboundedNs/1000), fmt.Sprintf("launch's %.3f us included", pl.LaunchNs/1000)} {
		if !strings.Contains(txt.stdout, want) {
			t.Errorf("sbuf place does not say %q:\n%s", want, txt.stdout)
		}
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if r := run(t, "", "sbuf", "report", plan, "-o", page); r.code != 0 {
		t.Fatal(r)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for key, ns := range map[string]float64{"Simulated time": pl.UnboundedNs, "Simulated time, placed": pl.TimeNs} {
		want := "<dt>" + key + "</dt><dd>" + humanize.Nanos(int64(math.Round(ns)))
		if !strings.Contains(string(b), want) {
			t.Errorf("sbuf report lacks %q (sbuf place: %.1f ns)", want, ns)
		}
	}
}
