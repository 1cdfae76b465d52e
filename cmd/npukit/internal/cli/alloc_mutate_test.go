package cli_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mutations returns truncated and byte-flipped variants of src.
func mutations(src string, n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	out := []string{""}
	for i := 0; i < n; i++ {
		b := []byte(src)
		switch i % 3 {
		case 0:
			b = b[:r.IntN(len(b))]
		case 1:
			for k := 0; k < 1+r.IntN(4); k++ {
				b[r.IntN(len(b))] = byte(r.IntN(256))
			}
		default:
			ins := []string{",", "\n", "-", "99999999999999999999", "\"", "\r", "\x00", ":", "[", "{", "- "}
			p := r.IntN(len(b))
			b = append(b[:p], append([]byte(ins[r.IntN(len(ins))]), b[p:]...)...)
		}
		out = append(out, string(b))
	}
	return out
}

// Truncated and byte-flipped problems, solutions and plans through every
// command of the allocation and SBUF groups: exit 0, 1 or 2, never a
// panic (3) or a hang.
func TestAllocSbufMutatedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary a few hundred times")
	}
	dir := t.TempDir()
	csvSeed := "buffer_id,start,end,size,alignment,gaps,offset\na,0,9,16,8,2-4 5-6@0:8,0\nb,5,12,8,,,32\nc,10,20,64,4,,\nd,3,30,24,,,\n"
	planSeed, err := os.ReadFile(sbufExample("double-buffer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte(csvSeed), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(r result, args ...string) {
		t.Helper()
		if r.code > 2 || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	for i, m := range mutations(csvSeed, 30, 1) {
		f := filepath.Join(dir, "m"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".128.csv")
		if err := os.WriteFile(f, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"alloc", f, "--timeout", "2s"},
			{"alloc", f, "--minimize", "--timeout", "2s"},
			{"alloc", "--validate", good, f, "--capacity", "128"},
			{"check", f},
			{"inspect", f},
		} {
			check(run(t, dir, args...), args...)
		}
	}
	for i, m := range mutations(string(planSeed), 30, 2) {
		f := filepath.Join(dir, "p"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".yaml")
		if err := os.WriteFile(f, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"sbuf", "check", f},
			{"sbuf", "sim", f},
			{"sbuf", "place", f},
			{"sbuf", "show", f},
		} {
			check(run(t, dir, args...), args...)
		}
	}
}
