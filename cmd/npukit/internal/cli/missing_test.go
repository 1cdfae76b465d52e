package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingFileMessages: every command that reads a file says
// "npukit: PATH: no such file or directory" for a missing one, naming the
// path once, and exits 2.
func TestMissingFileMessages(t *testing.T) {
	p := filepath.Join(t.TempDir(), "absent.bin")
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"inspect", p}, {"check", p}, {"report", p, "-o", out + ".html"}, {"sim", p}, {"diff", p, p},
		{"alloc", p}, {"alloc", "--validate", p, p}, {"alloc", "--from", p}, {"gemini", "realloc", p},
		{"sbuf", "check", p}, {"sbuf", "sim", p}, {"sbuf", "place", p}, {"sbuf", "show", p},
		{"neff", "unpack", p, "-o", out}, {"neff", "dma", p}, {"edgetpu", "memory", p}, {"edgetpu", "extract", p, "-o", out},
	} {
		r := run(t, "", args...)
		want := "npukit: " + p + ": no such file or directory"
		if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, p) != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, r.code, r.stderr, want)
		}
	}
}
