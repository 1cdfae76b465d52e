package nki

import (
	"os"
	"path/filepath"
	"testing"
)

// Constructs of current-API (nki.*) library kernels that the tracer must
// evaluate as the real frontend does. Each kernel is written here for the
// test; none is copied from a published file.

const currentHeader = `import nki
import nki.isa as nisa
import nki.language as nl
`

// traceCurrent traces a current-API kernel written in the test.
func traceCurrent(t *testing.T, body string, args ...Arg) *Result {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(currentHeader+body), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: args, NCVersion: "gen3"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func callsOf(res *Result, fn string) []*CallRec {
	var out []*CallRec
	for _, c := range res.Calls {
		if c.Fn == fn {
			out = append(out, c)
		}
	}
	return out
}

// t.buffer compares equal to the buffer it was declared in (nki-library
// asserts x.buffer == nl.sbuf before an SBUF-only helper), is usable as a
// dict key and in a membership test, and differs from other buffers.
func TestBufferAttributeEquality(t *testing.T) {
	res := traceCurrent(t, `
@nki.jit
def kernel(a):
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
    assert x.buffer == nl.sbuf
    assert x.buffer != nl.psum
    assert a.buffer != nl.sbuf
    assert x.buffer in (nl.psum, nl.sbuf)
    names = {nl.sbuf: "sb", nl.psum: "ps"}
    assert names[x.buffer] == "sb"
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    if x.buffer == nl.sbuf:
        nisa.dma_copy(dst=x, src=a)
    nisa.dma_copy(dst=out, src=x)
    return out
`, Arg{Name: "a", Shape: []int64{128, 64}, DType: "bfloat16"})
	if n := len(callsOf(res, "nisa.dma_copy")); n != 2 {
		t.Fatalf("dma_copy sites = %d, want 2 (the guarded copy runs)", n)
	}
}
