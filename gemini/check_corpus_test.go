package gemini

import (
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// TestCheckCorpus: every real schedule of both corpora (the compiler's,
// the public generator's raw IR, a third-party simulator's converter and
// hand-written microbenchmark) passes Check without errors.
func TestCheckCorpus(t *testing.T) {
	for _, p := range conformance.CorpusFiles(t, "gemini", "*.json") {
		s, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rep := Check(s)
		counts := map[string]int{}
		for _, d := range rep {
			counts[d.Severity.String()+" "+d.Rule]++
			if d.Severity == diag.Error && counts[d.Severity.String()+" "+d.Rule] <= 3 {
				t.Errorf("%s: %s", p, d)
			}
		}
		t.Logf("%s: %v", p, counts)
	}
}
