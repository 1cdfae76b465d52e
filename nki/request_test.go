package nki

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequestOptions(t *testing.T) {
	d := t.TempDir()
	k := filepath.Join(d, "k.py")
	src := "# npukit: check add(a=float32[128,512]) grid=2 arch=v3\nimport nki\n@nki.jit\ndef add(a):\n    return a\n"
	if err := os.WriteFile(k, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _, err := Request{Args: []string{"a=float32[128,512]"}, Grid: []string{"2"}}.Options([]string{k})
	if err != nil {
		t.Fatal(err)
	}
	if o.Function != "add" || o.NCVersion != "gen2" || len(o.Args) != 1 || len(o.ProgramID) != 1 {
		t.Errorf("options %+v", o)
	}
	if _, _, err := (Request{Arch: "v9"}).Options([]string{k}); err == nil || !strings.Contains(err.Error(), "--arch") {
		t.Errorf("--arch v9: %v", err)
	}
	if _, _, err := (Request{Grid: []string{"x"}}).Options([]string{k}); err == nil {
		t.Error("a grid of x was accepted")
	}
	jobs, skipped, err := Request{API: "current"}.DirectiveJobs([]string{k}, nil, false)
	if err != nil || len(jobs) != 1 || len(skipped) != 0 {
		t.Fatalf("jobs %v skipped %v: %v", jobs, skipped, err)
	}
	if j := jobs[0]; j.Options.Function != "add" || j.Options.NCVersion != "gen3" || j.Path != k {
		t.Errorf("job %+v", j)
	}
	if lines := SourceLines(d)("k.py"); len(lines) != 5 {
		t.Errorf("%d lines", len(lines))
	}
}

// A kernel argument with no value is the request's mistake, not a Python
// TypeError at an invented 1:1: the error names the parameter where it is
// declared and says how to give it (audit item 12).
func TestMissingKernelArgument(t *testing.T) {
	d := t.TempDir()
	k := filepath.Join(d, "k.py")
	src := "import nki\n\n@nki.jit\ndef add(a, b, *, scale):\n    return a\n"
	if err := os.WriteFile(k, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _, err := Request{Args: []string{"a=float32[128,512]"}}.Options([]string{k})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Trace(o)
	if err == nil {
		t.Fatal("traced without b and scale")
	}
	msg := err.Error()
	for _, want := range []string{"k.py:4:", `"b", "scale"`, "--arg b=DTYPE[", "--arg scale="} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "TypeError") || strings.Contains(msg, ":1:1:") {
		t.Errorf("%q reads as the kernel's own TypeError", msg)
	}
	o.ArgsFrom = "manifest entry x.add"
	if _, err = Trace(o); err == nil || !strings.Contains(err.Error(), "manifest entry x.add gives none") || strings.Contains(err.Error(), "--arg") {
		t.Errorf("from a manifest: %v", err)
	}
	// a call inside the kernel that misses an argument stays Python's TypeError
	src = "import nki\n\ndef f(x):\n    return x\n\n@nki.jit\ndef add(a):\n    return f()\n"
	if err := os.WriteFile(k, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o.ArgsFrom = ""
	if _, err = Trace(o); err == nil || !strings.Contains(err.Error(), "TypeError") {
		t.Errorf("f(): %v", err)
	}
}

// --grid and --program-id apply to a manifest entry as to a kernel file
// (they were ignored: audit r3 #26), and an instance outside the grid is
// refused.
func TestRequestGridOverridesManifest(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "k.py"), []byte("import nki\n@nki.jit\ndef add(a):\n    return a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(d, "manifest.json")
	if err := os.WriteFile(man, []byte(`{"entries": [{"id": "e", "file": "k.py", "function": "add", "grid": [2, 2], "program_id": [1, 1], "args": [{"name": "a", "shape": [128, 512], "dtype": "float32"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Request{Manifest: man, Entry: "e"}
	o, _, err := r.Options(nil)
	if err != nil || fmt.Sprint(o.Grid, o.ProgramID) != "[2 2] [1 1]" {
		t.Fatalf("entry: grid %v program_id %v, %v", o.Grid, o.ProgramID, err)
	}
	r.Grid = []string{"8", "8"}
	if o, _, err = r.Options(nil); err != nil || fmt.Sprint(o.Grid, o.ProgramID) != "[8 8] [0 0]" {
		t.Errorf("--grid 8,8: grid %v program_id %v, %v", o.Grid, o.ProgramID, err)
	}
	r.ProgramID = []string{"7", "3"}
	if o, _, err = r.Options(nil); err != nil || fmt.Sprint(o.ProgramID) != "[7 3]" {
		t.Errorf("--program-id 7,3: %v, %v", o.ProgramID, err)
	}
	r.ProgramID = []string{"8", "0"}
	if _, _, err = r.Options(nil); err == nil || !strings.Contains(err.Error(), "--program-id") {
		t.Errorf("--program-id 8,0 in an 8x8 grid: %v", err)
	}
}

// --grid and --program-id are checked by the plan's rule
// (neuroncore.CheckGrid), said of the flag at fault: it bounds the grid
// as a plan file's is bounded.
func TestRequestGridChecksAsPlans(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "k.py"), []byte("import nki\n@nki.jit\ndef add(a):\n    return a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		grid, pid []string
		want      string
	}{
		{[]string{"2", "0"}, nil, "--grid: dimension 1 is 0, want at least 1"},
		{[]string{"1", "1", "1", "1", "1", "1", "1", "1", "1"}, nil, "--grid: 9 dims, at most 8"},
		{[]string{"65536", "65536"}, nil, "--grid: more than"},
		{[]string{"2", "2"}, []string{"1"}, "--program-id: 1 values for a 2-dimension grid"},
		{nil, []string{"0"}, "--program-id: given without a grid"},
	} {
		r := Request{Grid: c.grid, ProgramID: c.pid}
		if _, _, err := r.Options([]string{filepath.Join(d, "k.py")}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--grid %v --program-id %v: %v, want %q", c.grid, c.pid, err, c.want)
		}
	}
}
