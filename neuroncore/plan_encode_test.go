package neuroncore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every example plan encodes to YAML that reads back with the same check
// findings and the same unrolled steps.
func TestEncodePlanRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../examples/sbuf/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example plans")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParsePlan(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		enc := EncodePlan(p)
		q, err := ParsePlan(enc)
		if err != nil {
			t.Fatalf("%s: encoded plan does not read back: %v\n%s", f, err, enc)
		}
		r1, x1, err := Check(p)
		if err != nil {
			t.Fatal(err)
		}
		r2, x2, err := Check(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(x1.Events) != len(x2.Events) || len(r1) != len(r2) {
			t.Errorf("%s: %d events / %d findings, after encoding %d / %d", f, len(x1.Events), len(r1), len(x2.Events), len(r2))
		}
		for i := range r1 {
			if i < len(r2) && r1[i].Rule != r2[i].Rule {
				t.Errorf("%s: finding %d: %s became %s", f, i, r1[i].Rule, r2[i].Rule)
			}
		}
	}
}

// A reference's "(PxF)" suffix is the slice the step touches: the
// simulation charges it, the encoder writes it back, and a slice larger
// than the tile or malformed is refused.
func TestPlanSliceReference(t *testing.T) {
	const plan = `
arch: v2
tensors:
  - {name: x, partitions: 128, free: [8192], dtype: float32, buffer: sbuf}
  - {name: y, partitions: 128, free: [8192], dtype: float32, buffer: sbuf}
body:
  - {op: activation, func: exp, read: [READ], write: [y]}
`
	time := func(read string) (float64, *Plan) {
		t.Helper()
		p, err := ParsePlan([]byte(strings.Replace(plan, "READ", read, 1)))
		if err != nil {
			t.Fatalf("%s: %v", read, err)
		}
		r, err := Simulate(p)
		if err != nil {
			t.Fatal(err)
		}
		return r.Summary().KernelNs, p
	}
	whole, _ := time("x")
	slice, p := time(`"x(128x512)"`)
	if slice <= 0 || slice >= whole {
		t.Errorf("a 512-wide slice takes %.0f ns, the 8192-wide tile %.0f ns: want the slice cheaper", slice, whole)
	}
	if enc := string(EncodePlan(p)); !strings.Contains(enc, `"x(128x512)"`) {
		t.Errorf("encoded plan lost the slice:\n%s", enc)
	}
	for _, bad := range []string{`"x(256x512)"`, `"x(128x9000)"`, `"x(128*512)"`, `"x(128x0)"`, `"x128x512)"`} {
		if _, err := ParsePlan([]byte(strings.Replace(plan, "READ", bad, 1))); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
