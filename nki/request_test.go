package nki

import (
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
