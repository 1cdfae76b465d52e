package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportDefaultName: every command that writes a report names it one
// way without -o: the input's base name without its extension, .html, in
// the current directory (report, sbuf report), or in its directory (demo);
// the help of each says so; a default name that is the input itself is
// refused, never overwritten.
func TestReportDefaultName(t *testing.T) {
	src := demoFiles(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", filepath.Join(src, "demo_edgetpu.tflite")}, "demo_edgetpu.html"},
		{[]string{"report", filepath.Join(src, "demo_alloc.65536.csv")}, "demo_alloc.65536.html"},
		{[]string{"report", filepath.Join(src, "demo.neff"), filepath.Join(src, "demo_neff_dma.neff")}, "demo.html"},
		{[]string{"report", filepath.Join(src, "demo.unpacked") + "/"}, "demo.html"},
		{[]string{"sbuf", "report", filepath.Join(src, "demo_sbuf_double_buffer.yaml")}, "demo_sbuf_double_buffer.html"},
	} {
		dir := t.TempDir()
		r := run(t, dir, c.args...)
		if r.code != 0 || r.stdout != "report written to "+c.want+"\n" {
			t.Errorf("%v: %s", c.args, r)
		}
		if _, err := os.Stat(filepath.Join(dir, c.want)); err != nil {
			t.Errorf("%v: %v", c.args, err)
		}
		// Again, over the page just written: the default name replaces an
		// existing file only with --force.
		if r := run(t, dir, c.args...); r.code != 2 || !strings.Contains(r.stderr, "pass --force to replace it") {
			t.Errorf("%v again: %s", c.args, r)
		}
		r = run(t, dir, append(append([]string{"--json"}, c.args...), "--force")...)
		var j struct{ Report string }
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Report != c.want {
			t.Errorf("%v --json: %s", c.args, r)
		}
	}

	// Help states the rule with the command's own argument name.
	for _, c := range [][]string{{"report"}, {"sbuf", "report"}} {
		r := run(t, ".", append(c, "--help")...)
		if !strings.Contains(r.stdout, "Without -o the page is written to the current directory, named after") ||
			!strings.Contains(r.stdout, "'s base name without extension, .html, in the current directory)") {
			t.Errorf("%v --help does not state the naming rule:\n%s", c, r.stdout)
		}
	}

	// demo names its reports by the same rule, beside the examples.
	if _, err := os.Stat(filepath.Join(src, "demo_edgetpu.html")); err != nil {
		t.Errorf("demo: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(src, "*.*.html")); len(m) != 1 || filepath.Base(m[0]) != "demo_alloc.65536.html" {
		t.Errorf("demo kept extensions in report names: %v", m)
	}

	// A schedule named x.html: its report's default name is itself.
	dir := t.TempDir()
	in, err := os.ReadFile(filepath.Join(src, "demo_gemini_schedule.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sched.html"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "report", "sched.html"); r.code != 2 || !strings.Contains(r.stderr, "give -o") {
		t.Errorf("report of sched.html: %s", r)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sched.html")); !bytes.Equal(got, in) {
		t.Errorf("the input was overwritten")
	}

	// Standard input gives stdin.html.
	cmd := exec.Command(binary, "report", "-")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "report written to stdin.html\n" {
		t.Errorf("report -: %v %s", err, out)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
