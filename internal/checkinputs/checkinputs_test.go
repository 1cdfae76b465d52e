package checkinputs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit/detect"
)

// tree writes a directory with two artifacts (one in a subdirectory), a
// text file, a hidden directory holding an artifact and a kernel source.
func tree(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	csv, err := os.ReadFile("../examples/data/demo_alloc.65536.csv")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"a.csv":        csv,
		"sub/b.csv":    csv,
		"notes.txt":    []byte("not an artifact\n"),
		".git/c.csv":   csv,
		"k/kernel.py":  []byte("# a kernel\n"),
		"k/.hide/h.py": []byte("# hidden\n"),
		"k/readme.md":  []byte("text\n"),
	} {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestArtifactsWalksByContent(t *testing.T) {
	d := tree(t)
	files, skipped, err := Artifacts([]string{d}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(d, "a.csv"), filepath.Join(d, "sub/b.csv")}
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if !slices.Contains(skipped, filepath.Join(d, "notes.txt")) || slices.Contains(skipped, filepath.Join(d, ".git/c.csv")) {
		t.Errorf("skipped %v", skipped)
	}
	// Another kind only: nothing to check is an error naming the directory.
	if _, _, err := Artifacts([]string{d}, false, detect.NEFF); err == nil || !strings.Contains(err.Error(), "no artifact") {
		t.Errorf("NEFF only: %v", err)
	}
	// A glob is expanded; a named file is kept unless skipOther.
	files, _, err = Artifacts([]string{filepath.Join(d, "*.txt")}, false)
	if err != nil || len(files) != 1 {
		t.Errorf("glob: %v %v", files, err)
	}
	files, skipped, err = Artifacts([]string{filepath.Join(d, "notes.txt")}, true)
	if err != nil || len(files) != 0 || len(skipped) != 1 {
		t.Errorf("skipOther: %v %v %v", files, skipped, err)
	}
	if _, _, err := Artifacts([]string{filepath.Join(d, "*.none")}, false); err == nil {
		t.Error("a glob matching nothing was accepted")
	}
}

func TestSources(t *testing.T) {
	d := tree(t)
	named := filepath.Join(d, "notes.txt")
	files, isNamed, skipped, err := Sources([]string{filepath.Join(d, "k"), named}, ".py")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{filepath.Join(d, "k/kernel.py"), named}) || !isNamed[named] {
		t.Errorf("files %v named %v", files, isNamed)
	}
	if !slices.Equal(skipped, []string{filepath.Join(d, "k/readme.md")}) {
		t.Errorf("skipped %v", skipped)
	}
}

// Audit r3 #23: a directory of NKI kernels has "no artifact" for check;
// the message counts the kernels and names the command that checks them.
func TestNKIKernelsSkippedNamed(t *testing.T) {
	d := t.TempDir()
	for name, src := range map[string]string{"a.py": "import neuronxcc.nki as nki\n", "b.py": "@nki.jit\ndef k(a):\n    pass\n", "c.txt": "text\n"} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := Artifacts([]string{d}, false)
	if err == nil || !strings.Contains(err.Error(), "(3 files skipped); 2 of them NKI kernels: `npukit nki check "+d+"`") {
		t.Errorf("a directory of NKI kernels: %v", err)
	}
	if _, _, err := Artifacts([]string{filepath.Join(tree(t), "k")}, false); err == nil || strings.Contains(err.Error(), "of them NKI kernels") {
		t.Errorf("Python without NKI named as kernels: %v", err)
	}
}
