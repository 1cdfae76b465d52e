package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// TestNeffCommandsOnDamagedFiles: truncated, byte-flipped and re-packed
// corrupted NEFFs make every NEFF command report (exit 0, 1 or 2), never
// crash (exit 3 is the CLI's "internal error").
func TestNeffCommandsOnDamagedFiles(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff")
	src := files[0]
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() < 64<<10 {
			src = f
		}
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var variants []string
	add := func(name string, b []byte) {
		p := filepath.Join(dir, name+".neff")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		variants = append(variants, p)
	}
	for _, n := range []int{0, 100, 1023, 1024, 1030, len(orig) / 2, len(orig) - 1} {
		add("trunc_"+strconv.Itoa(n), orig[:n])
	}
	for _, off := range []int{0, 8, 16, 0x18, 0xA8, 0x220, 1024, 1030, 1100, len(orig) / 3, len(orig) / 2} {
		b := bytes.Clone(orig)
		b[off] ^= 0x41
		add("flip_"+strconv.Itoa(off), b)
	}
	// Members damaged and re-packed with a valid hash: the model sees them.
	unpacked := filepath.Join(dir, "u")
	if r := run(t, "", "neff", "unpack", src, "-o", unpacked); r.code != 0 {
		t.Fatalf("unpack: %s", r)
	}
	def := filepath.Join(unpacked, "sg00", "def.json")
	defJSON, err := os.ReadFile(def)
	if err != nil {
		t.Skip("no sg00/def.json to damage")
	}
	num := regexp.MustCompile(`\b\d+\b`)
	for i, mut := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { return num.ReplaceAll(b, []byte("9223372036854775807")) },
		func(b []byte) []byte { return num.ReplaceAll(b, []byte("-1")) },
		func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(`"`), []byte(`"x`)) },
		func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(`[`), []byte(`{"a":[`)) },
	} {
		if err := os.WriteFile(def, mut(bytes.Clone(defJSON)), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "member_"+strconv.Itoa(i)+".neff")
		if r := run(t, "", "neff", "pack", unpacked, "-o", p); r.code != 0 {
			t.Fatalf("pack: %s", r)
		}
		variants = append(variants, p)
	}
	for _, v := range variants {
		for _, args := range [][]string{
			{"inspect", v}, {"inspect", "--json", v}, {"check", v}, {"neff", "dma", v}, {"sim", v},
			{"report", v, "-o", filepath.Join(dir, "r.html")}, {"neff", "unpack", "--force", v, "-o", filepath.Join(dir, "x")},
			{"diff", src, v},
		} {
			r := run(t, "", args...)
			if r.code > 2 || strings.Contains(r.stderr, "internal error") || strings.Contains(r.stderr, "goroutine") {
				t.Errorf("%s %v: %s", filepath.Base(v), args[:len(args)-1], r)
			}
		}
	}
}
