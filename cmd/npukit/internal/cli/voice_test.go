package cli_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUnknownSubcommand: a mistyped subcommand of any group is a usage
// error (exit 2) with cobra's suggestion, never the group's help and exit 0.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct{ group, typo, want string }{
		{"neff", "unpak", "unpack"},
		{"edgetpu", "lnk", "link"},
		{"gemini", "synt", "synth"},
		{"sbuf", "chek", "check"},
	} {
		r := run(t, t.TempDir(), c.group, c.typo)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown command") || !strings.Contains(r.stderr, "Did you mean this?\n\t"+c.want) {
			t.Errorf("%s %s: %s", c.group, c.typo, r)
		}
		// The bare group still prints its help.
		if r := run(t, t.TempDir(), c.group); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
			t.Errorf("%s: %s", c.group, r)
		}
	}
}

// demoFiles writes npukit's built-in examples (one file of every kind)
// into a temporary directory and returns it.
func demoFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r := run(t, dir, "demo", "--dir", "."); r.code != 0 {
		t.Fatalf("demo: %s", r)
	}
	return dir
}

// TestWrongKind: every command given a file of another kind answers
// "this is a <kind>, not a <kind>", exit 2: no reader's message about
// fields of the wrong format, no Go type names.
func TestWrongKind(t *testing.T) {
	dir := demoFiles(t)
	const (
		neffF = "demo.neff"
		tfl   = "demo_edgetpu.tflite"
		sched = "demo_gemini_schedule.json"
		csv   = "demo_alloc.65536.csv"
	)
	cases := [][]string{
		{"neff", "unpack", tfl, "-o", "x"},
		{"neff", "dma", tfl},
		{"neff", "dma", sched},
		{"neff", "pack", tfl, "-o", "x.neff"},
		{"edgetpu", "memory", neffF},
		{"edgetpu", "extract", sched, "-o", "x"},
		{"edgetpu", "dma", csv},
		{"edgetpu", "plan", neffF},
		{"gemini", "realloc", neffF},
		{"gemini", "realloc", csv},
		{"alloc", neffF},
		{"alloc", sched},
		{"alloc", "--validate", csv, tfl},
		{"alloc", "--from", tfl},
		{"alloc", "--from", csv},
		{"sbuf", "check", neffF},
		{"sbuf", "show", sched},
		{"sbuf", "sim", tfl},
		{"sbuf", "place", csv},
		{"sbuf", "report", neffF, "-o", "x.html"},
		{"sim", sched, "--zebu", neffF},
	}
	var all strings.Builder
	for _, args := range cases {
		r := run(t, dir, args...)
		if r.code != 2 || !wrongKindMsg.MatchString(r.stderr) || strings.Contains(r.stderr, "neuroncore.") {
			t.Errorf("%v: %s", args, r)
		}
		fmt.Fprintf(&all, "$ npukit %s\n%s\n", strings.Join(args, " "), r)
	}
	golden(t, "wrong-kind", all.String())
}

var wrongKindMsg = regexp.MustCompile(`^npukit: [^:]+: this is an? [^\n]+, not an? [^\n]+\n$`)

// commandPaths lists every command of the tree ("neff unpack", ...) by
// walking the help of the built binary.
func commandPaths(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	var walk func(path []string)
	re := regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)\s{2,}\S`)
	walk = func(path []string) {
		r := run(t, ".", append(append([]string{}, path...), "--help")...)
		if r.code != 0 {
			t.Fatalf("%v --help: %s", path, r)
		}
		out = append(out, path)
		_, cmds, ok := strings.Cut(r.stdout, "Available Commands:")
		if !ok {
			return
		}
		cmds, _, _ = strings.Cut(cmds, "\n\n")
		for _, m := range re.FindAllStringSubmatch(cmds, -1) {
			if m[1] == "help" || m[1] == "completion" {
				continue
			}
			walk(append(append([]string{}, path...), m[1]))
		}
	}
	walk(nil)
	return out
}

// flagLines returns the flag lines of a command's own "Flags:" section.
func flagLines(help string) []string {
	_, fl, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		return nil
	}
	fl, _, _ = strings.Cut(fl, "\n\n")
	var lines []string
	for _, l := range strings.Split(fl, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestOutputFlagOneMeaning: -o is --output, the path a command writes, in
// every command; no flag named --output means anything else (a layer
// name, an address).
func TestOutputFlagOneMeaning(t *testing.T) {
	for _, p := range commandPaths(t) {
		r := run(t, ".", append(append([]string{}, p...), "--help")...)
		for _, l := range flagLines(r.stdout) {
			if (strings.Contains(l, "-o, ") || strings.Contains(l, "--output ")) && !strings.Contains(l, "-o, --output ") {
				t.Errorf("%v: %s", p, strings.TrimSpace(l))
			}
			if strings.Contains(l, "--out ") {
				t.Errorf("%v: --out: the output path is -o/--output everywhere: %s", p, strings.TrimSpace(l))
			}
		}
	}
}

// TestFlagRangesAndKinds: a value out of range is refused like a negative
// one (--dram-bw 0 is not "the default"); a flag of another kind is
// refused, whatever the command and however many files (issue 32: it was
// an error in sim and a note in inspect and check), never silently ignored.
func TestFlagRangesAndKinds(t *testing.T) {
	dir := demoFiles(t)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"sim", "demo_gemini_schedule.json", "--dram-bw", "0"}, 2, "--dram-bw 0: want a value greater than 0"},
		{[]string{"sim", "demo_gemini_schedule.json", "--hop-latency", "-1"}, 2, "--hop-latency -1"},
		{[]string{"edgetpu", "dma", "demo_edgetpu.tflite", "--pcie-gbps", "0"}, 2, "--pcie-gbps 0"},
		{[]string{"edgetpu", "dma", "demo_edgetpu.tflite", "--pcie-gbps", "-3"}, 2, "--pcie-gbps -3"},
		{[]string{"alloc", "demo_alloc.65536.csv", "--capacity", "-5"}, 2, "--capacity -5"},
		{[]string{"sbuf", "place", "demo_sbuf_double_buffer.yaml", "--max-simulations", "0"}, 2, "--max-simulations 0"},
		{[]string{"gemini", "realloc", "demo_gemini_schedule.json", "--budget", "-1s"}, 2, "--budget -1s: must not be negative"},
		{[]string{"sim", "demo.neff", "--dram-bw", "5"}, 2, "--dram-bw applies to Gemini scheduler IR only, not to a NEFF"},
		{[]string{"sim", "demo_gemini_schedule.json", "--dma-engines", "4"}, 2, "--dma-engines applies to NEFF"},
		{[]string{"inspect", "demo.neff", "--layers"}, 2, "--layers applies to Gemini scheduler IR only"},
		{[]string{"inspect", "demo.neff", "demo_edgetpu.tflite", "--layers"}, 2, "--layers applies to Gemini scheduler IR only, not to a NEFF"},
		{[]string{"check", "demo_edgetpu.tflite", "--neff-runtime-major", "3"}, 2, "--neff-runtime-major applies to NEFF"},
	} {
		r := run(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: want exit %d and %q: %s", c.args, c.code, c.stderr, r)
		}
	}
	// A flag that applies to one of several files is no news.
	if r := run(t, dir, "inspect", "demo.neff", "demo_gemini_schedule.json", "--layers"); r.code != 0 || r.stderr != "" {
		t.Errorf("mixed inspect --layers: %s", r)
	}
}

// TestDiffVerdictFirst: diff of every kind with a diff answers with the
// verdict in the user's terms first, exact numbers as JSON numbers; a
// Gemini schedule against its own realloc rewrite says how the L2 extent
// shrank and how many addresses moved.
func TestDiffVerdictFirst(t *testing.T) {
	dir := demoFiles(t)
	r := run(t, dir, "diff", "demo_gemini_schedule.json", "demo_gemini_schedule.realloc.json")
	if r.code != 1 || !strings.Contains(r.stdout, "L2 address extent") || !strings.Contains(r.stdout, "buffer entries at another L2 address: 0 -> ") {
		t.Errorf("gemini diff: %s", r)
	}
	// Details per core: the same workloads, entries at another address.
	if !strings.Contains(r.stdout, "core 0: 8 -> 8 workloads (the same workloads)\n  buffer entries at another address: 0 -> 30 (+30)") {
		t.Errorf("gemini diff details: %s", r)
	}
	if r := run(t, dir, "--json", "diff", "demo_gemini_schedule.json", "demo_gemini_schedule.realloc.json"); !strings.Contains(r.stdout, `"addresses_moved": 30`) || !strings.Contains(r.stdout, `"core": "core 3"`) {
		t.Errorf("gemini diff --json details: %s", r)
	}
	if r := run(t, dir, "diff", "demo_gemini_schedule.json", "demo_gemini_schedule.json"); r.code != 0 || !strings.HasPrefix(r.stdout, "identical") {
		t.Errorf("gemini self diff: %s", r)
	}
	for _, pair := range [][2]string{
		{"demo_gemini_schedule.json", "demo_gemini_schedule.realloc.json"},
		{"demo.neff", "demo_neff_dma.neff"},
	} {
		r := run(t, dir, "diff", pair[0], pair[1])
		lines := strings.Split(r.stdout, "\n")
		if r.code != 1 || len(lines) < 3 || lines[1] != "Changes:" || strings.Contains(r.stdout, "e+0") {
			t.Errorf("%v: verdict not first: %s", pair, r)
		}
		r = run(t, dir, "--json", "diff", pair[0], pair[1])
		var v struct {
			Statement string
			Verdict   []struct {
				What string
				Unit string
				A, B any
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || len(v.Verdict) == 0 || v.Statement == "" {
			t.Fatalf("%v --json: %v %s", pair, err, r)
		}
		for _, c := range v.Verdict {
			if c.Unit == "bytes" || c.Unit == "count" || c.Unit == "cycles" {
				if _, ok := c.A.(float64); !ok {
					t.Errorf("%v: %s: a is %T, not a number", pair, c.What, c.A)
				}
			}
		}
	}
}

// TestVersionFromBuildInfo: built from a checkout with VCS stamping, the
// version names the module version and the revision (debug.ReadBuildInfo),
// not only "devel".
func TestVersionFromBuildInfo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bin := filepath.Join(t.TempDir(), "npukit")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Skipf("no VCS stamping here: %v %s", err, out)
	}
	if m, _ := exec.Command("go", "version", "-m", bin).Output(); !strings.Contains(string(m), "vcs.revision") {
		t.Skip("the Go toolchain stamps no revision here (a git worktree): scripts/release.sh sets it")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^npukit v\S+ \(go[^,]+, commit [0-9a-f]{12}(, modified)?\)\n$`).Match(out) {
		t.Errorf("version: %q", out)
	}
}
