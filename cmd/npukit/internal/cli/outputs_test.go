package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsReplaceOnlyWhatWasNamed: every command that writes runs once
// with its output naming an existing file (replaced: the user named it,
// the help says so) and once naming one of its own inputs (refused, exit
// 2, before any work; the input unchanged). Directory outputs and names a
// command picks itself (report without -o, demo --dir) replace nothing
// that exists without --force. TestOutputFlagsAudited keeps the table
// complete: a new writing flag must appear here.
func TestOutputsReplaceOnlyWhatWasNamed(t *testing.T) {
	dir := demoFiles(t)
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(strings.Replace(nkiDirectKernel, "BASE", "2048", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "raw.bin"), make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	kernel := []string{"k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]"}
	// place needs automatic tensors: nkiKernel's, its sum bound to a name.
	auto := strings.Replace(nkiKernel, "nl.store(out[i * 128:(i + 1) * 128, :], value=t + u)", "v = t + u\n        nl.store(out[i * 128:(i + 1) * 128, :], value=v)", 1)
	if err := os.WriteFile(filepath.Join(dir, "auto.py"), []byte(auto), 0o644); err != nil {
		t.Fatal(err)
	}
	autoKernel := []string{"auto.py", "--kernel", "add", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]"}
	// The same kernel named by a manifest: the kernel file is an input too.
	manifest := `{"version": 1, "defaults": {"nc_version": "gen2"}, "entries": [{"id": "auto", "file": "auto.py", "function": "add",
		"args": [{"name": "a", "shape": [512, 256], "dtype": "bfloat16"}, {"name": "b", "shape": [512, 256], "dtype": "bfloat16"}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "m.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	const o = "OUT"
	cases := []struct {
		args  []string // OUT marks the output
		input string   // an input the output must not replace ("" = none)
		codes []int    // exit codes of a run that wrote
	}{
		{[]string{"alloc", "demo_alloc.65536.csv", "-o", o}, "demo_alloc.65536.csv", []int{0}},
		{[]string{"alloc", "--from", "demo_gemini_schedule.json", "--rewrite", o}, "demo_gemini_schedule.json", []int{0}},
		{[]string{"gemini", "realloc", "demo_gemini_schedule.json", "--rewrite", o}, "demo_gemini_schedule.json", []int{0}},
		{[]string{"gemini", "synth", "--cores", "2", "--workloads", "2", "-o", o}, "", []int{0}},
		{[]string{"edgetpu", "relayout", "demo_edgetpu.tflite", "--layer", "logits", "--in", "raw.bin", "-o", o}, "raw.bin", []int{0}},
		{[]string{"neff", "pack", "demo.unpacked", "-o", o}, "", []int{0}},
		{append([]string{"nki", "check", "--emit-plan", o}, kernel...), "k.py", []int{0}},
		{append([]string{"nki", "sim", "--trace", o}, kernel...), "k.py", []int{0}},
		{append([]string{"nki", "sim", "--emit-plan", o}, kernel...), "k.py", []int{0}},
		{append([]string{"nki", "report", "-o", o}, kernel...), "k.py", []int{0}},
		{append([]string{"nki", "report", "-o", "r.html", "--emit-plan", o}, kernel...), "k.py", []int{0}},
		{append([]string{"nki", "place", "-o", o}, autoKernel...), "auto.py", []int{0}},
		{[]string{"nki", "place", "--manifest", "m.json", "--entry", "auto", "-o", o}, "auto.py", []int{0}},
		{[]string{"report", "demo.neff", "-o", o}, "demo.neff", []int{0}},
		{[]string{"sim", "demo_gemini_schedule.json", "--trace", o}, "demo_gemini_schedule.json", []int{0}},
		{[]string{"sim", "demo.neff", "--trace", o}, "demo.neff", []int{0}},
		{[]string{"sbuf", "sim", "demo_sbuf_double_buffer.yaml", "--trace", o}, "demo_sbuf_double_buffer.yaml", []int{0}},
		{[]string{"sbuf", "place", "demo_sbuf_double_buffer.yaml", "-o", o}, "demo_sbuf_double_buffer.yaml", []int{0, 1}},
		{[]string{"sbuf", "report", "demo_sbuf_double_buffer.yaml", "-o", o}, "demo_sbuf_double_buffer.yaml", []int{0}},
	}
	old := []byte("an existing file\n")
	for _, c := range cases {
		with := func(out string) []string {
			a := append([]string(nil), c.args...)
			for i := range a {
				if a[i] == o {
					a[i] = out
				}
			}
			return a
		}
		// A named file that exists is replaced.
		if err := os.WriteFile(filepath.Join(dir, "old.out"), old, 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, with("old.out")...)
		got, _ := os.ReadFile(filepath.Join(dir, "old.out"))
		if !containsInt(c.codes, r.code) || bytes.Equal(got, old) {
			t.Errorf("%v: an existing named output was not replaced: %s", c.args, r)
		}
		if c.input == "" {
			continue
		}
		// Its own input is refused before any work.
		before, err := os.ReadFile(filepath.Join(dir, c.input))
		if err != nil {
			t.Fatal(err)
		}
		r = run(t, dir, with(c.input)...)
		after, _ := os.ReadFile(filepath.Join(dir, c.input))
		if r.code != 2 || !strings.Contains(r.stderr, "is the input "+c.input) || !bytes.Equal(before, after) {
			t.Errorf("%v: output = input %s: %s", c.args, c.input, r)
		}
	}

	// An input named by a flag is an input too.
	sched, _ := os.ReadFile(filepath.Join(dir, "demo_gemini_schedule.json"))
	if r := run(t, dir, "sim", "demo_gemini_schedule.json", "--zebu", "demo_alloc.65536.csv", "--trace", "demo_alloc.65536.csv"); r.code != 2 || !strings.Contains(r.stderr, "is the input demo_alloc.65536.csv") {
		t.Errorf("sim --trace onto its --zebu input: %s", r)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "demo_gemini_schedule.json")); !bytes.Equal(got, sched) {
		t.Error("the schedule changed")
	}

	// A directory is never a file output.
	if r := run(t, dir, "gemini", "synth", "--cores", "2", "--workloads", "2", "-o", "demo.unpacked"); r.code != 2 || !strings.Contains(r.stderr, "is a directory") {
		t.Errorf("synth -o DIR: %s", r)
	}
	// Two outputs naming one file.
	if r := run(t, dir, append([]string{"nki", "sim", "--trace", "x.json", "--emit-plan", "x.json"}, kernel...)...); r.code != 2 || !strings.Contains(r.stderr, "name one file") {
		t.Errorf("two outputs, one file: %s", r)
	}

	// Directories: a non-empty one only with --force.
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(full, "keep.txt")
	os.WriteFile(keep, old, 0o644)
	for _, args := range [][]string{
		{"neff", "unpack", "demo.neff", "-o", full},
		{"edgetpu", "extract", "demo_edgetpu.tflite", "-o", full},
		{"demo", "--dir", full},
	} {
		if r := run(t, dir, args...); r.code != 2 || !strings.Contains(r.stderr, "--force") {
			t.Errorf("%v into a non-empty directory: %s", args, r)
		}
		if got, err := os.ReadFile(keep); err != nil || !bytes.Equal(got, old) {
			t.Fatalf("%v touched a non-empty directory without --force", args)
		}
	}

	// A default name replaces an existing file only with --force.
	for _, args := range [][]string{{"report", "demo.neff"}, {"sbuf", "report", "demo_sbuf_double_buffer.yaml"}} {
		name := strings.TrimSuffix(filepath.Base(args[len(args)-1]), filepath.Ext(args[len(args)-1])) + ".html"
		os.WriteFile(filepath.Join(dir, name), old, 0o644)
		if r := run(t, dir, args...); r.code != 2 || !strings.Contains(r.stderr, "--force") {
			t.Errorf("%v over an existing %s: %s", args, name, r)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(got, old) {
			t.Errorf("%v replaced %s without --force", args, name)
		}
		if r := run(t, dir, append(args, "--force")...); r.code != 0 {
			t.Errorf("%v --force: %s", args, r)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); bytes.Equal(got, old) {
			t.Errorf("%v --force did not replace %s", args, name)
		}
	}
}

func containsInt(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// An output that cannot be created is named in the error, not the input
// nor a temporary: sim X --trace /missing/t.json said "X: no such file or
// directory" of an input that exists.
func TestUnwritableOutputNamed(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	var inputs []string
	for _, pat := range []string{"neff/*.neff", "edgetpu/*.tflite", "gemini/*.json"} {
		if fs := corpusGlob(t, pat); len(fs) > 0 {
			inputs = append(inputs, fs[0])
		}
	}
	for _, in := range inputs {
		for _, args := range [][]string{{"sim", in, "--trace", filepath.Join(missing, "t.json")}, {"report", in, "-o", filepath.Join(missing, "x.html")}} {
			r := run(t, dir, args...)
			if r.code != 2 || !strings.Contains(r.stderr, filepath.Join(missing, filepath.Base(args[3]))) || strings.Contains(r.stderr, ".tmp-") {
				t.Errorf("%s %s: %s", args[0], filepath.Base(in), r)
			}
		}
	}
}
