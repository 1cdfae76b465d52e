package npukit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// diff of a NEFF and its capture (either order) is refused, and says
// that sim --measured compares the two; other pairs of kinds get no
// hint.
func TestIncomparableHintNeffAndCapture(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	nf := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.neff")
	cf := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.ntff")
	n, err := Open(nf)
	if err != nil {
		t.Skip(err)
	}
	c, err := Open(cf)
	if err != nil {
		t.Skip(err)
	}
	if Comparable(n, c) {
		t.Fatal("a NEFF and a capture are comparable")
	}
	want := "npukit sim n.neff --measured c.ntff"
	if h := IncomparableHint(n, c, "n.neff", "c.ntff"); !strings.Contains(h, want) {
		t.Errorf("hint %q, want %q", h, want)
	}
	if h := IncomparableHint(c, n, "c.ntff", "n.neff"); !strings.Contains(h, want) {
		t.Errorf("reversed: hint %q, want %q", h, want)
	}
	if h := IncomparableHint(n, n, "a", "b"); h != "" {
		t.Errorf("two NEFFs: hint %q", h)
	}
}
