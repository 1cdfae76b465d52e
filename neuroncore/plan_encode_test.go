package neuroncore

import (
	"os"
	"path/filepath"
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
