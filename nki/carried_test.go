package nki

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

// checkSourceRaw traces and checks a whole kernel file written in the test.
func checkSourceRaw(t *testing.T, src string, args ...Arg) diag.Report {
	t.Helper()
	ck, err := CheckKernel(traceSource(t, src, "gen3", args...), &neuroncore.V2)
	if err != nil {
		t.Fatal(err)
	}
	return ck.Report
}

// A tensor declared outside an affine_range loop, written in one
// iteration and read in a later one, is a loop-carried dependency; the
// forms the NKI docs allow or that carry nothing are not reported.
func TestAffineCarriedDependency(t *testing.T) {
	const head = `
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
`
	cases := []struct {
		name, body string
		fires      bool
		says       string
	}{
		{"state updated across iterations", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.affine_range(4):
        s[...] = nl.exp(s)
    nl.store(out, value=s)
    return out
`, true, "reads s in iteration i=1 of the nl.affine_range loop at k.py:12:5, but iteration i=0 wrote it"},
		{"previous block read", `
    t = nl.ndarray((4, nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    t[0] = nl.load(a)
    for i in nl.affine_range(3):
        t[i + 1] = nl.exp(t[i])
    nl.store(out, value=t[3])
    return out
`, true, "reads t[1] in iteration i=1"},
		{"sequential_range", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.sequential_range(4):
        s[...] = nl.exp(s)
    nl.store(out, value=s)
    return out
`, false, ""},
		{"declared inside the loop", `
    for i in nl.affine_range(4):
        s = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
        s[...] = nl.load(a)
        s[...] = nl.exp(s)
        nl.store(out, value=s)
    return out
`, false, ""},
		{"own block per iteration", `
    t = nl.ndarray((4, nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        t[i] = nl.load(a)
        t[i] = nl.exp(t[i])
    nl.store(out, value=t[3])
    return out
`, false, ""},
		{"accumulation (+=) is a reduction", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.affine_range(4):
        x = nl.load(a)
        s[...] += nl.exp(x)
    nl.store(out, value=s)
    return out
`, false, ""},
		{"accumulation written out (t = t + v) is a reduction", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.affine_range(4):
        x = nl.load(a)
        s[...] = s[...] + nl.exp(x)
    nl.store(out, value=s)
    return out
`, false, ""},
		{"t = t - v is no reduction", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.affine_range(4):
        x = nl.load(a)
        s[...] = s[...] - nl.exp(x)
    nl.store(out, value=s)
    return out
`, true, "reads s in iteration i=1"},
		{"matmul accumulation into PSUM", `
    x = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype, buffer=nl.sbuf)
    y = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    p = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    r = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    x[...] = nl.load(a[:, 0:128])
    y[...] = nl.load(a)
    for k in nl.affine_range(4):
        p[...] += nisa.nc_matmul(x, y)
    r[...] = nl.copy(p)
    nl.store(out, value=r)
    return out
`, false, ""},
		{"disjoint slices updated in place", `
    s = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=nl.sbuf)
    s[...] = nl.load(a)
    for i in nl.affine_range(4):
        s[:, i * 128:(i + 1) * 128] = nl.exp(s[:, i * 128:(i + 1) * 128])
    nl.store(out, value=s)
    return out
`, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := checkSource(t, head+c.body, a128)
			d := findRule(rep, RuleAffineCarried)
			if !c.fires {
				if d != nil {
					t.Errorf("false finding: %v", d)
				}
				return
			}
			if d == nil {
				t.Fatalf("no %s in %v", RuleAffineCarried, rep)
			}
			if !strings.Contains(d.Message, c.says) || !strings.HasPrefix(d.Location, "k.py:") {
				t.Errorf("finding: %s: %s", d.Location, d.Message)
			}
		})
	}
}

// The current API's range iterators are aliases of Python range (unrolled
// in order): nothing there is a parallel loop.
func TestAffineCarriedCurrentAPI(t *testing.T) {
	const src = `import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def kernel(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    s = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=a)
    for i in nl.affine_range(4):
        nisa.activation(dst=s, op=nl.exp, data=s)
    nisa.dma_copy(dst=out, src=s)
    return out
`
	rep := checkSourceRaw(t, src, a128)
	if d := findRule(rep, RuleAffineCarried); d != nil {
		t.Errorf("current API: %v", d)
	}
}

// The corpus's one hand-pipelined kernel (affine_range with
// precise_schedule=True) carries data between iterations by design: an
// info, not a warning; no other corpus entry has the dependency.
func TestAffineCarriedCorpus(t *testing.T) {
	m, err := ReadManifest(corpusManifest)
	if err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	infos := 0
	for i := range m.Entries {
		e := &m.Entries[i]
		ck, err := checkEntry(t, OptionsFor(m, e))
		if err != nil {
			continue
		}
		for _, d := range ck.Report {
			switch d.Rule {
			case RuleAffineCarried:
				t.Errorf("%s: %s: %s", e.ID, d.Location, d.Message)
			case RuleAffineCarriedPrecise:
				infos++
				if e.ID != "samples.pipelined_attention" {
					t.Errorf("%s: %s", e.ID, d.Message)
				}
			}
		}
	}
	if infos == 0 {
		t.Error("pipelined_attention's hand-pipelined loop: no carried dependency found")
	}
}
