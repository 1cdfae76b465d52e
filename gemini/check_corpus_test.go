package gemini

import (
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// TestCheckCorpus: every real schedule passes Check without errors.
func TestCheckCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, p := range conformance.Files(t, dir, "*.json") {
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
