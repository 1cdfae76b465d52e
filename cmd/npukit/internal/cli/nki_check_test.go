package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// a double-buffered, directly allocated kernel: x and y each have two
// physical tiles of 1 KiB (bf16 x 512); y starts at BASE.
const nkiDirectKernel = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc

@nki.jit
def scale(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((4, nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    y = nl.ndarray((4, nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=BASE, num_free_tiles=(2,)))
    for i in nl.affine_range(4):
        x[i] = nl.load(a[i * 128:(i + 1) * 128, :])
        y[i] = nl.exp(x[i])
        y[i] = nl.add(x[i], y[i])
        nl.store(out[i * 128:(i + 1) * 128, :], value=y[i])
    return out
`

func writeDirectKernel(t *testing.T, base string) string {
	dir := t.TempDir()
	src := strings.Replace(nkiDirectKernel, "BASE", base, 1)
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestNkiCheckDirect(t *testing.T) {
	dir := writeDirectKernel(t, "2048")
	r := run(t, dir, "nki", "check", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]", "--emit-plan", "plan.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "0 errors, 0 warnings") {
		t.Fatalf("clean kernel: %s", r)
	}
	// the emitted plan is an sbuf plan that checks the same
	r = run(t, dir, "sbuf", "check", "plan.yaml")
	if r.code != 0 {
		t.Fatalf("emitted plan: %s", r)
	}

	// y over x's bytes while x is still read: an overlap naming the
	// kernel line, the tensors and the iteration
	dir = writeDirectKernel(t, "0")
	r = run(t, dir, "nki", "check", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]")
	if r.code != 1 {
		t.Fatalf("overlapping kernel: want exit 1: %s", r)
	}
	for _, want := range []string{"sbuf/lifetime-overlap", "k.py:9", "x[0]", "y[0]", "i=0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s", want, r.stdout)
		}
	}
	r = run(t, dir, "nki", "check", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]", "--json")
	if r.code != 1 || !strings.Contains(r.stdout, `"rule": "sbuf/lifetime-overlap"`) {
		t.Errorf("--json: %s", r)
	}

	r = run(t, dir, "nki", "sim", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]")
	if r.code != 0 || !strings.Contains(r.stdout, "UTILISATION") {
		t.Errorf("sim: %s", r)
	}
	r = run(t, dir, "nki", "report", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[512,512]", "-o", "r.html")
	if r.code != 0 {
		t.Errorf("report: %s", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || !strings.Contains(string(b), "lifetime-overlap") {
		t.Errorf("report page: %v", err)
	}
}

func TestNkiPlace(t *testing.T) {
	dir := t.TempDir()
	// the sum bound to a name: place declares named results only
	src := strings.Replace(nkiKernel, "nl.store(out[i * 128:(i + 1) * 128, :], value=t + u)", "v = t + u\n        nl.store(out[i * 128:(i + 1) * 128, :], value=v)", 1)
	if src == nkiKernel {
		t.Fatal("test kernel changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"k.py", "--kernel", "add", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]"}
	r := run(t, dir, append([]string{"nki", "place"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "+++ b/k.py") || !strings.Contains(r.stdout, "ncc.sbuf.mod_alloc(") ||
		!strings.Contains(r.stdout, "import neuronxcc.nki.compiler as ncc") || !strings.Contains(r.stdout, "0 errors") {
		t.Fatalf("place diff: %s", r)
	}
	r = run(t, dir, append([]string{"nki", "place", "-o", "placed.py"}, args...)...)
	if r.code != 0 {
		t.Fatalf("place -o: %s", r)
	}
	args[0] = "placed.py"
	r = run(t, dir, append([]string{"nki", "check"}, args...)...)
	if r.code != 0 || strings.Contains(r.stdout, "sbuf/unplaced") || strings.Contains(r.stdout, "mixed-allocation") {
		t.Fatalf("the placed kernel: %s", r)
	}
	// the placed kernel has nothing left to place: exit 0, unchanged
	r = run(t, dir, append([]string{"nki", "place", "-o", "again.py"}, args...)...)
	if b, err := os.ReadFile(filepath.Join(dir, "again.py")); r.code != 0 || !strings.Contains(r.stdout, "kernel unchanged") || err != nil {
		t.Errorf("place of a placed kernel: %s", r)
	} else if p, _ := os.ReadFile(filepath.Join(dir, "placed.py")); string(b) != string(p) {
		t.Errorf("place of a placed kernel changed it")
	}
	// two 96 KiB tiles alive at once do not fit a partition: a finding
	// (exit 1) naming what is needed and what is available
	big := `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def big(a, b):
    out = nl.ndarray((128, 24576), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(out, value=x + y)
    return out
`
	if err := os.WriteFile(filepath.Join(dir, "big.py"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "nki", "place", "big.py", "--kernel", "big", "--arg", "a=float32[128,24576]", "--arg", "b=float32[128,24576]")
	if r.code != 1 || !strings.Contains(r.stderr, "bytes per partition, 180,224 available") || !strings.Contains(r.stderr, "big.py:7") {
		t.Errorf("unplaceable: %s", r)
	}
}

// The report of a kernel counts the findings of `nki check`, not those of
// the plan rules that do not apply to kernels: a matmul of views of
// larger tiles breaks sbuf/matmul-shape on whole tensors, and the page's
// summary said "1 errors" for a kernel that checks clean.
func TestNkiReportSummaryCountsKernelFindings(t *testing.T) {
	const src = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def mm(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    p = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    p[...] = nisa.nc_matmul(x[:, 0:128], y[:, 0:512])
    r = nl.copy(p)
    nl.store(out, value=r)
    return out
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mm.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"mm.py", "--kernel", "mm", "--arg", "a=bfloat16[128,1024]", "--arg", "b=bfloat16[128,1024]"}
	r := run(t, dir, append([]string{"nki", "check"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, " 0 errors, 0 warnings") {
		t.Fatalf("check: %s", r)
	}
	r = run(t, dir, append([]string{"nki", "report", "-o", "r.html"}, args...)...)
	if r.code != 0 {
		t.Fatalf("report: %s", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<dt>Check</dt><dd>0 errors, 0 warnings") {
		t.Errorf("the report's summary does not count the kernel's findings: %s", regexp.MustCompile(`<dt>Check</dt><dd>[^<]*`).FindString(string(b)))
	}
}

// nki check folds as check does (diag.Folds): 12 directly allocated
// tensors no step uses are one nki/allocated-unused line in the text and
// --json (it printed each, 11 lines for nkilib.attention_cte, though more
// than 10 findings of one rule in one file are folded), --all lists each,
// and a kernel set checked at once folds too.
func TestNkiCheckFolds(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.compiler as ncc\n\n# npukit: check scale(a=bfloat16[128,512])\n@nki.jit\ndef scale(a):\n")
	b.WriteString("    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n")
	for i := range 12 {
		fmt.Fprintf(&b, "    s%d = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=%d))\n", i, i*1024)
	}
	b.WriteString("    x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=16384))\n")
	b.WriteString("    x[...] = nl.load(a[0:128, :])\n    nl.store(out[0:128, :], value=x)\n    return out\n")
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	one := []string{"nki", "check", "k.py", "--kernel", "scale", "--arg", "a=bfloat16[128,512]"}
	const rule = "[nki/allocated-unused]"
	if r := run(t, dir, append(one, "--all")...); strings.Count(r.stdout, rule) != 12 {
		t.Fatalf("--all: want 12 %s lines: %s", rule, r)
	}
	for _, args := range [][]string{one, {"nki", "check", "k.py"}} {
		r := run(t, dir, args...)
		if c := strings.Count(r.stdout, rule); c != 1 || !strings.Contains(r.stdout, "12 findings like this one") || !strings.Contains(r.stdout, "13 infos") {
			t.Errorf("%v: %d %s lines, want one folded line standing for 12:\n%s", args, c, rule, r)
		}
		r = run(t, dir, append(args, "--json")...)
		if c := strings.Count(r.stdout, `"nki/allocated-unused"`); c != 1 || !strings.Contains(r.stdout, `"count": 12`) {
			t.Errorf("%v --json: %d allocated-unused findings, want one with count 12:\n%s", args, c, r.stdout)
		}
	}
}
