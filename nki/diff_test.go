package nki

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiffApplies(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	cases := []string{
		"x\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n", // insert at top
		"a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n", // change and append
		"a\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",          // deletes at both ends
		"",
	}
	if UnifiedDiff("a", "b", a, a) != "" {
		t.Error("equal texts give a diff")
	}
	patch, err := exec.LookPath("patch")
	for _, b := range cases {
		d := UnifiedDiff("k.py", "k.py", a, b)
		if !strings.HasPrefix(d, "--- k.py\n+++ k.py\n@@ ") {
			t.Fatalf("diff:\n%s", d)
		}
		if err != nil {
			continue
		}
		dir := t.TempDir()
		f := filepath.Join(dir, "k.py")
		os.WriteFile(f, []byte(a), 0o644)
		cmd := exec.Command(patch, "-s", f)
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v %s\n%s", err, out, d)
		}
		got, _ := os.ReadFile(f)
		if string(got) != b {
			t.Errorf("patched %q, want %q\n%s", got, b, d)
		}
	}
}
