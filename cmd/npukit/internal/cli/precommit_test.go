package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Every hook of .pre-commit-hooks.yaml runs as pre-commit runs it: its
// entry followed by the staged files its pattern matched, artifacts and
// other files mixed; the hook fails on an error finding and passes on
// clean files and files that are not its kind.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../../../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID, Entry, Language, Files string
		Types                      []string
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) < 5 {
		t.Fatalf("%d hooks", len(hooks))
	}
	dir := sbufTree(t)
	overlapKernel(t, dir, false)
	clean := []string{"plans/README.md", "plans/deep/double.yaml", "kernels/host.py"}
	bad := map[string]string{"npukit-nki": "kernels/overlap.py", "npukit-artifacts": "plans/overlap.yaml"}
	for _, h := range hooks {
		if h.Language != "golang" || !strings.HasPrefix(h.Entry, "npukit ") {
			t.Errorf("%s: entry %q, language %q", h.ID, h.Entry, h.Language)
			continue
		}
		args := strings.Fields(strings.TrimPrefix(h.Entry, "npukit "))
		r := run(t, dir, append(args, clean...)...)
		if r.code != 0 {
			t.Errorf("%s on clean and other files: %s", h.ID, r)
		}
		if f, ok := bad[h.ID]; ok {
			if r = run(t, dir, append(args, append(clean, f)...)...); r.code != 1 {
				t.Errorf("%s with %s: exit %d, want 1\n%s", h.ID, filepath.Base(f), r.code, r)
			}
		}
	}
}

// Audit r3 #25: the artifacts hook's pattern left out profile captures
// (.ntff) and ZeBu traces (run_sim.txt), which check reads.
func TestPreCommitArtifactsPatternCoversCheckedKinds(t *testing.T) {
	data, err := os.ReadFile("../../../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct{ ID, Files string }
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		if h.ID != "npukit-artifacts" {
			continue
		}
		re := regexp.MustCompile(h.Files)
		for _, f := range []string{"x.neff", "run.ntff", "m_edgetpu.tflite", "sched.json", "plan.yaml", "p.csv", "run_sim.txt"} {
			if !re.MatchString(f) {
				t.Errorf("npukit-artifacts (%s) does not match %s", h.Files, f)
			}
		}
		return
	}
	t.Fatal("no npukit-artifacts hook")
}
