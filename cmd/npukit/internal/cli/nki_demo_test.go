package cli

import (
	"bytes"
	"strings"
	"testing"
)

// The demo's NKI step runs from the embedded kernels (no file of the
// repository is read): the guide's overlapping allocation is an error,
// its fix checks clean, and no step fails.
func TestDemoNKI(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	if failed := demoNKI(&Env{Stdout: &out}, dir); failed != 0 {
		t.Fatalf("%d steps failed:\n%s", failed, out.String())
	}
	s := out.String()
	overlap, fix, ok := strings.Cut(s, "--entry guide.disjoint")
	if !ok || !strings.Contains(overlap, "error [sbuf/lifetime-overlap] t1[0]") || !strings.Contains(overlap, "1 error,") ||
		!strings.Contains(fix, "0 errors, 0 warnings") {
		t.Errorf("demo output:\n%s", s)
	}
}
