package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file with one @nki.jit function needs no --kernel; with several, the
// refusal lists them.
func TestNkiKernelFromFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(nkiKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "nki", "check", "k.py", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]")
	if r.code != 0 || !strings.Contains(r.stdout, "checked") {
		t.Errorf("one kernel, no --kernel: %s", r)
	}
	two := nkiKernel + `
def helper(x):
    return x

@nki.jit
def sub(a, b):
    return a
`
	if err := os.WriteFile(filepath.Join(dir, "two.py"), []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "nki", "check", "two.py", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]")
	if r.code != 2 || !strings.Contains(r.stderr, "add, sub") || strings.Contains(r.stderr, "helper") {
		t.Errorf("two kernels, no --kernel: %s", r)
	}
}
