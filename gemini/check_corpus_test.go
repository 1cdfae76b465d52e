package gemini

import (
	"slices"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// writerCauses are the errors a third-party slicing tool makes (verified
// against that tool's own simulator by the issue that asked for them): it
// renumbers workload_id without the references, and drops "-1" entries
// whose first destination it looks up by position. A slice it wrote may
// have them, each said once; no other error rule may fire on a real file.
var writerCauses = []string{RuleRenumbered, RuleMissingRead, RuleDRAMDestination}

// TestCheckCorpus: every real schedule of both corpora (the compiler's,
// the public generator's raw IR, a third-party simulator's converter and
// hand-written microbenchmark) passes Check without errors other than the
// slicing tool's, and those in at most a dozen lines.
func TestCheckCorpus(t *testing.T) {
	for _, p := range conformance.CorpusFiles(t, "gemini", "*.json") {
		s, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rep := Check(s)
		counts := map[string]int{}
		lines := 0
		for _, d := range rep {
			counts[d.Severity.String()+" "+d.Rule]++
			if d.Severity != diag.Error {
				continue
			}
			lines++
			if !slices.Contains(writerCauses, d.Rule) && counts[d.Severity.String()+" "+d.Rule] <= 3 {
				t.Errorf("%s: %s", p, d)
			}
		}
		if lines > 12 {
			t.Errorf("%s: %d error lines", p, lines)
		}
		t.Logf("%s: %v", p, counts)
	}
}
