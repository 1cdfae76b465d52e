package nki

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

// directEntries are the manifest entries whose kernels allocate directly.
func directEntries(t *testing.T) (*Manifest, []*Entry) {
	t.Helper()
	m, err := ReadManifest(corpusManifest)
	if err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	var out []*Entry
	for i := range m.Entries {
		e := &m.Entries[i]
		if strings.Contains(e.Allocation, "alloc") || strings.Contains(e.Allocation, "address=") {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Fatal("no direct-allocation entries in the manifest")
	}
	return m, out
}

func checkEntry(t *testing.T, o Options) (*Checked, error) {
	t.Helper()
	res, err := Trace(o)
	if err != nil {
		return nil, err
	}
	arch, err := neuroncore.ArchByName(o.NCVersion)
	if err != nil {
		t.Fatal(err)
	}
	return CheckKernel(res, arch)
}

// The shipped direct-allocation kernels are published, working samples:
// a check error on one is a false error.
func TestCheckShippedDirectKernelsClean(t *testing.T) {
	m, entries := directEntries(t)
	checked := 0
	for _, e := range entries {
		ck, err := checkEntry(t, OptionsFor(m, e))
		if err != nil {
			var te *Error
			if errors.As(err, &te) {
				t.Logf("%s: refused by the tracer: %v", e.ID, err)
				continue
			}
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		checked++
		for _, d := range ck.Report {
			if d.Severity >= diag.Warning {
				t.Errorf("%s: %v", e.ID, d)
			}
		}
		if len(ck.Plan.Tensors) == 0 || len(ck.Exec.Events) == 0 {
			t.Errorf("%s: lowered to %d tensors and %d steps", e.ID, len(ck.Plan.Tensors), len(ck.Exec.Events))
		}
	}
	if checked < len(entries)*3/4 {
		t.Errorf("only %d of %d direct-allocation entries checked", checked, len(entries))
	}
	t.Logf("%d of %d direct-allocation entries check without errors or warnings", checked, len(entries))
}

var baseAddrArg = regexp.MustCompile(`\bbase_addr=[A-Za-z_][A-Za-z_0-9]*`)

// A mutated copy of each direct kernel (every mod_alloc base_addr computed
// by the kernel forced to 0, so tensors alive together share bytes) must
// report an error naming the line, the tensor and the iteration.
func TestCheckMutatedOverlapReported(t *testing.T) {
	m, entries := directEntries(t)
	mutated := 0
	for _, e := range entries {
		src, err := os.ReadFile(filepath.Join(m.Dir(), e.File))
		if err != nil {
			t.Fatal(err)
		}
		mut := baseAddrArg.ReplaceAll(src, []byte("base_addr=0"))
		if string(mut) == string(src) {
			continue
		}
		o := OptionsFor(m, e)
		dir := t.TempDir()
		o.Dir, o.File, o.Modules = dir, filepath.Base(e.File), nil
		if err := os.WriteFile(filepath.Join(dir, o.File), mut, 0o644); err != nil {
			t.Fatal(err)
		}
		ck, err := checkEntry(t, o)
		if err != nil {
			t.Logf("%s: mutated copy not checked: %v", e.ID, err)
			continue
		}
		mutated++
		var overlap *diag.Diagnostic
		for i, d := range ck.Report {
			if d.Rule == neuroncore.RuleLifetimeOverlap || d.Rule == neuroncore.RuleTooFewTiles {
				overlap = &ck.Report[i]
				break
			}
		}
		if overlap == nil {
			t.Errorf("%s: mutated copy (base_addr=0) reports no overlap: %v", e.ID, ck.Report)
			continue
		}
		// the finding names the kernel line, a tensor and a loop iteration
		if !regexp.MustCompile(`\.py:\d+`).MatchString(overlap.Location) || !strings.Contains(overlap.Message, "=") {
			t.Errorf("%s: finding does not name line and iteration: %v", e.ID, overlap)
		}
		t.Logf("%s: %v", e.ID, overlap)
	}
	if mutated == 0 {
		t.Fatal("no direct kernel could be mutated")
	}
}

// Every traced manifest entry lowers to a plan whose YAML (--emit-plan)
// reads back, checks with the same plan findings and simulates to the same
// time.
func TestLoweredPlanRoundTrip(t *testing.T) {
	m, err := ReadManifest(corpusManifest)
	if err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	n := 0
	for i := range m.Entries {
		e := &m.Entries[i]
		res, err := Trace(OptionsFor(m, e))
		if err != nil {
			continue
		}
		arch, _ := neuroncore.ArchByName(e.NCVersion)
		lw, err := Lower(res, arch)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		r1, x1, err := neuroncore.Check(lw.Plan)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		enc := neuroncore.EncodePlan(lw.Plan)
		q, err := neuroncore.ParsePlan(enc)
		if err != nil {
			t.Errorf("%s: emitted plan does not read back: %v", e.ID, err)
			continue
		}
		r2, x2, err := neuroncore.Check(q)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		if len(x1.Events) != len(x2.Events) || len(r1) != len(r2) {
			t.Errorf("%s: %d events / %d findings, read back %d / %d", e.ID, len(x1.Events), len(r1), len(x2.Events), len(r2))
		}
		// sbuf sim of the emitted plan is nki sim of the kernel (audit r3
		// #21: the plan lost slices and charged whole tiles, 2.8-4x).
		s1, err1 := neuroncore.SimulateExecution(x1)
		s2, err2 := neuroncore.SimulateExecution(x2)
		if err1 != nil || err2 != nil {
			t.Errorf("%s: simulate: %v / read back: %v", e.ID, err1, err2)
		} else if a, b := s1.Summary().TimeNs, s2.Summary().TimeNs; a != b {
			t.Errorf("%s: nki sim %.0f ns, sbuf sim of the emitted plan %.0f ns (x%.2f)", e.ID, a, b, b/a)
		}
		n++
	}
	t.Logf("%d entries round-trip", n)
}
