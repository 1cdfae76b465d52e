package nki_test

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
)

// check traces and checks one entry of this directory's manifest.
func check(t *testing.T, id string) *nki.Checked {
	t.Helper()
	m, err := nki.ReadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(id)
	if err != nil {
		t.Fatal(err)
	}
	res, err := nki.Trace(nki.OptionsFor(m, e))
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	arch, err := neuroncore.ArchByName(e.NCVersion)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := nki.CheckKernel(res, arch)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return ck
}

// clean fails on any error or warning.
func clean(t *testing.T, id string, ck *nki.Checked) {
	t.Helper()
	for _, d := range ck.Report {
		if d.Severity >= diag.Warning {
			t.Errorf("%s: %v", id, d)
		}
	}
}

// only requires exactly the one error rule (and no warning).
func only(t *testing.T, id string, ck *nki.Checked, rule string) diag.Diagnostic {
	t.Helper()
	var hit []diag.Diagnostic
	for _, d := range ck.Report {
		if d.Severity >= diag.Warning {
			hit = append(hit, d)
		}
	}
	if len(hit) != 1 || hit[0].Rule != rule || hit[0].Severity != diag.Error {
		t.Fatalf("%s: want one %s error, got %v", id, rule, hit)
	}
	return hit[0]
}

// tensor finds a traced tensor by the name it is assigned to.
func tensor(t *testing.T, ck *nki.Checked, name string) *nki.TensorRec {
	t.Helper()
	for _, r := range ck.Recs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no tensor %s", name)
	return nil
}

// addrs lists a directly allocated tensor's tiles as byte addresses in
// logical tile order (every tile starts at partition 0 here).
func addrs(t *testing.T, r *nki.TensorRec) []int64 {
	t.Helper()
	var out []int64
	for _, row := range r.Alloc.Tiles {
		if p := row[len(row)-2]; p != 0 {
			t.Errorf("%s: tile %v starts at partition %d", r.Name, row, p)
		}
		out = append(out, row[len(row)-1])
	}
	return out
}

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The guide's ncc.sbuf.alloc examples: an allocation function puts four
// logical tiles back to back (0, 1024, 2048, 3072 for 512 bfloat16 per
// partition), and an allocator factory hands two tensors successive
// ranges (the second starts 4096 bytes after the first).
func TestAllocFunc(t *testing.T) {
	ck := check(t, "guide.alloc_func")
	clean(t, "alloc_func", ck)
	if got := addrs(t, tensor(t, ck, "tiles")); !eq(got, []int64{0, 1024, 2048, 3072}) {
		t.Errorf("tiles at %v", got)
	}
	t0, t1 := addrs(t, tensor(t, ck, "t0")), addrs(t, tensor(t, ck, "t1"))
	if !eq(t0, []int64{4096, 5120, 6144, 7168}) || !eq(t1, []int64{8192, 9216, 10240, 11264}) {
		t.Errorf("t0 at %v, t1 at %v", t0, t1)
	}
}

// The guide's modulo allocation table: mod_alloc(base_addr=0,
// num_free_tiles=(2,)) maps logical tiles 0, 1, 2, 3 to bytes 0, 1024,
// 0, 1024; each iteration's load writes the physical tile (i % 2).
func TestDoubleBuffer(t *testing.T) {
	ck := check(t, "guide.double_buffer")
	clean(t, "double_buffer", ck)
	if got := addrs(t, tensor(t, ck, "inp")); !eq(got, []int64{0, 1024, 0, 1024, 0, 1024, 0, 1024}) {
		t.Errorf("inp at %v", got)
	}
	var perIter []int64
	for _, e := range ck.Exec.Events {
		if e.Step.Name != "nl.load" {
			continue
		}
		w := e.Writes[0]
		pt := ck.Plan.Tensors[w.Tensor]
		l, ok := pt.Location(w.Tile)
		if !ok {
			t.Fatalf("load writes unplaced %s", pt.TileName(w.Tile))
		}
		perIter = append(perIter, l.Addr)
	}
	if !eq(perIter, []int64{0, 1024, 0, 1024, 0, 1024, 0, 1024}) {
		t.Errorf("loads per iteration write bytes %v", perIter)
	}
}

// The guide's first best practice: a tensor declared inside the loop has
// one tile (every iteration a fresh tensor at the same address, so the
// iterations serialise); hoisted above the loop with eight physical
// tiles, the iterations overlap. Both check clean; simulated, the
// hoisted kernel is faster.
func TestHoistAllocations(t *testing.T) {
	in, ho := check(t, "guide.in_loop"), check(t, "guide.hoisted")
	clean(t, "in_loop", in)
	clean(t, "hoisted", ho)
	tin := tensor(t, in, "t")
	if got := addrs(t, tin); !eq(got, []int64{0}) || tin.Instances != 8 {
		t.Errorf("in-loop t: tiles at %v, %d instances at run time", got, tin.Instances)
	}
	if n := len(in.Exec.Lifetimes); n != 8 {
		t.Errorf("in-loop t: %d tile lifetimes, want one per iteration", n)
	}
	if got := addrs(t, tensor(t, ho, "t")); !eq(got, []int64{0, 1024, 2048, 3072, 4096, 5120, 6144, 7168}) {
		t.Errorf("hoisted t at %v", got)
	}
	rin, err := neuroncore.SimulateExecution(in.Exec)
	if err != nil {
		t.Fatal(err)
	}
	rho, err := neuroncore.SimulateExecution(ho.Exec)
	if err != nil {
		t.Fatal(err)
	}
	if !(rho.Timeline.Makespan*2 < rin.Timeline.Makespan) {
		t.Errorf("hoisted %d ns, in-loop %d ns: want the hoisted kernel at least twice as fast", rho.Timeline.Makespan/1000, rin.Timeline.Makespan/1000)
	}
}

// The guide's lifetime conflicts: tensors whose physical tiles overlap
// while both are alive, and more logical tiles alive than physical tiles;
// the fixes check clean.
func TestLifetimeConflicts(t *testing.T) {
	d := only(t, "overlap", check(t, "guide.overlap"), neuroncore.RuleLifetimeOverlap)
	if !strings.Contains(d.Message, "t0[1]") || !strings.Contains(d.Message, "t1[0]") || !strings.Contains(d.Message, "bytes 1024..2047") {
		t.Errorf("overlap: %v", d)
	}
	clean(t, "disjoint", check(t, "guide.disjoint"))
	d = only(t, "too_few_tiles", check(t, "guide.too_few_tiles"), neuroncore.RuleTooFewTiles)
	if !strings.Contains(d.Message, "tensor t has 2 physical tiles but 8 logical tiles are alive") {
		t.Errorf("too_few_tiles: %v", d)
	}
	clean(t, "blocked", check(t, "guide.blocked"))
}

// The guide's common errors and known limitations, one kernel each.
func TestCommonErrors(t *testing.T) {
	cases := []struct{ id, rule, says string }{
		{"guide.mixed", neuroncore.RuleMixedAllocation, "t is automatic"},
		{"guide.softmax", neuroncore.RuleImplicitTensor, "nl.softmax"},
		{"guide.transpose", neuroncore.RuleImplicitTensor, "identity"},
		{"guide.scratch_hbm", neuroncore.RuleNonIOHBM, "Non IO HBM tensor is not supported in allocated NKI kernel: scratch"},
		{"guide.psum_bank", neuroncore.RulePSUMBank, "cross the 2048-byte bank boundary"},
	}
	for _, c := range cases {
		d := only(t, c.id, check(t, c.id), c.rule)
		if !strings.Contains(d.Message, c.says) {
			t.Errorf("%s: %v", c.id, d)
		}
	}
}

// Every manifest entry is exercised above.
func TestManifestCovered(t *testing.T) {
	m, err := nki.ReadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 13 {
		t.Errorf("%d entries; the tests above cover 13", len(m.Entries))
	}
}
