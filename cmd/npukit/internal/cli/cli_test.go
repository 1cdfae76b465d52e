package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/detect/detecttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

var binary string

// TestMain builds the real command once; the tests run it as a user would.
func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "npukit-cli-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "npukit")
	out, err := exec.Command("go", "build", "-o", binary, "../..").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building npukit: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{so.String(), se.String(), code}
}

func golden(t *testing.T, name string, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n-- stdout\n%s-- stderr\n%s", r.code, r.stdout, r.stderr)
}

func TestJunkInputs(t *testing.T) {
	dir := t.TempDir()
	junk, err := detecttest.WriteJunk(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, j := range junk {
		// A plain TFLite model is not junk: it reads (all on the CPU).
		want := 2
		if j.Name == "plain.tflite" {
			want = 0
		}
		for _, cmd := range []string{"inspect", "check"} {
			r := run(t, dir, cmd, j.Name)
			if r.code != want {
				t.Errorf("%s %s: exit %d, want %d\n%s", cmd, j.Name, r.code, want, r)
			}
			fmt.Fprintf(&all, "$ npukit %s %s\n%s\n", cmd, j.Name, r)
		}
		r := run(t, dir, "--json", "inspect", j.Name)
		var entries []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil || len(entries) != 1 || (entries[0]["error"] == nil) != (want == 0) {
			t.Errorf("inspect --json %s: %v %s", j.Name, err, r.stdout)
		}
	}
	golden(t, "junk", all.String())
}

func TestMissingFile(t *testing.T) {
	r := run(t, t.TempDir(), "check", "nope.neff")
	if r.code != 2 || !strings.Contains(r.stderr, "nope.neff: no such file") {
		t.Fatal(r)
	}
	r = run(t, t.TempDir(), "--json", "check", "nope.neff")
	var v struct {
		Diagnostics []any `json:"diagnostics"`
		Errors      []struct{ Path string }
	}
	if r.code != 2 || json.Unmarshal([]byte(r.stdout), &v) != nil || len(v.Errors) != 1 || v.Diagnostics == nil {
		t.Fatal(r)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"inspect"}, {"check"}, {"--no-such-flag"}, {"version", "extra"}} {
		r := run(t, t.TempDir(), args...)
		if r.code != 2 || r.stderr == "" {
			t.Errorf("%v: %s", args, r)
		}
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	r := run(t, ".", "--help")
	if r.code != 0 {
		t.Fatal(r)
	}
	// Every listed command answers --help with its usage.
	re := regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)\s{2,}\S`)
	cmds := re.FindAllStringSubmatch(r.stdout, -1)
	if len(cmds) < 5 {
		t.Fatalf("too few commands in help:\n%s", r.stdout)
	}
	for _, c := range cmds {
		h := run(t, ".", c[1], "--help")
		if h.code != 0 || !strings.Contains(h.stdout, "Usage:") {
			t.Errorf("%s --help: %s", c[1], h)
		}
	}
	golden(t, "check-help", run(t, ".", "check", "--help").String())
	golden(t, "inspect-help", run(t, ".", "inspect", "--help").String())
}

func TestCompletion(t *testing.T) {
	r := run(t, ".", "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "npukit") {
		t.Fatal(r)
	}
}

func TestVersion(t *testing.T) {
	r := run(t, ".", "version")
	if r.code != 0 || !regexp.MustCompile(`^npukit \S+ \(go1\.[0-9.]+.*\)\n$`).MatchString(r.stdout) {
		t.Fatal(r)
	}
	r = run(t, ".", "--json", "version")
	var v map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || v["version"] == nil {
		t.Fatal(r)
	}
}

func TestListRules(t *testing.T) {
	r := run(t, ".", "check", "--list-rules")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "RULE") {
		t.Fatal(r)
	}
	r = run(t, ".", "--json", "check", "--list-rules")
	var rules []struct{ ID, Severity, Description string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rules) != nil {
		t.Fatal(r)
	}
	for _, rule := range rules {
		if rule.ID == "" || rule.Description == "" || rule.Severity == "" {
			t.Errorf("incomplete rule %+v", rule)
		}
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	r := run(t, ".", "demo", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "Demo finished") || !strings.Contains(r.stdout, dir) {
		t.Fatal(r)
	}
}

// Output that cannot be written is a failure: sim, neff dma and edgetpu dma
// exited 0 with standard output on /dev/full (a full disk).
func TestStdoutWriteErrorFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	dir := t.TempDir()
	if r := run(t, ".", "demo", "--dir", dir); r.code != 0 {
		t.Fatal(r)
	}
	for _, args := range [][]string{
		{"sim", "demo.neff"},
		{"neff", "dma", "demo_neff_dma.neff"},
		{"edgetpu", "dma", "demo_edgetpu.tflite"},
		{"inspect", "demo_gemini_schedule.json"},
	} {
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		var se bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &se
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v into /dev/full: %v, want exit 2 (%s)", args, err, se.String())
		}
		if !strings.Contains(se.String(), "no space left") {
			t.Errorf("%v: the error does not say why: %s", args, se.String())
		}
	}
}

// An output that is one of the inputs is refused before any work: a
// kernel's imported helper module, an input inside a directory output
// (unpack -o d --force deleted d/x.neff), a file output inside an input
// directory (pack d -o d/x.neff packed the first output into the second).
func TestOutputIsAnInputRefused(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, ".", "demo", "--dir", dir); r.code != 0 {
		t.Fatal(r)
	}
	kdir := filepath.Join(dir, "k")
	os.Mkdir(kdir, 0o755)
	os.WriteFile(filepath.Join(kdir, "k.py"), []byte("import neuronxcc.nki.language as nl\nfrom .helper import X\n\ndef kernel():\n    return\n"), 0o644)
	os.WriteFile(filepath.Join(kdir, "helper.py"), []byte("from .inner import Y\nX = 1\n"), 0o644)
	os.WriteFile(filepath.Join(kdir, "inner.py"), []byte("Y = 1\n"), 0o644)
	unpacked := filepath.Join(dir, "u")
	if r := run(t, dir, "neff", "unpack", "demo.neff", "-o", unpacked); r.code != 0 {
		t.Fatal(r)
	}
	inDir := filepath.Join(dir, "in")
	os.Mkdir(inDir, 0o755)
	neffIn := filepath.Join(inDir, "x.neff")
	data, _ := os.ReadFile(filepath.Join(dir, "demo.neff"))
	os.WriteFile(neffIn, data, 0o644)
	for _, c := range []struct {
		args []string
		kept string
	}{
		{[]string{"nki", "place", "k/k.py", "--kernel", "kernel", "-o", "k/helper.py"}, "k/helper.py"},
		{[]string{"nki", "check", "k/k.py", "--kernel", "kernel", "--emit-plan", "k/inner.py"}, "k/inner.py"},
		{[]string{"neff", "unpack", "in/x.neff", "-o", "in", "--force"}, "in/x.neff"},
		{[]string{"neff", "pack", "u", "-o", "u/x.neff"}, ""},
	} {
		var before []byte
		if c.kept != "" {
			before, _ = os.ReadFile(filepath.Join(dir, c.kept))
		}
		r := run(t, dir, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, "input") {
			t.Errorf("%v: exit %d, %s", c.args, r.code, r.stderr)
		}
		if c.kept != "" {
			if after, err := os.ReadFile(filepath.Join(dir, c.kept)); err != nil || !bytes.Equal(after, before) {
				t.Errorf("%v: the input %s was changed (%v)", c.args, c.kept, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(unpacked, "x.neff")); err == nil {
		t.Error("pack wrote into its input directory")
	}
}
