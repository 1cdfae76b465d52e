package zebu

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

const checkTrace = `[ct_st, {'slyr': 0, 'wkl': 0, 'tile': -1}, {'inst_idx': 1, 'time': [0, 33]}, {}]
[pe_conv, {'slyr': 0, 'wkl': 0, 'tile': 0}, {'inst_idx': 2, 'time': [33, 90]}, {}]
[ct_ed, {'slyr': 0, 'wkl': 0, 'tile': -1}, {'inst_idx': 3, 'time': [90, 100]}, {}]
`

func rulesOf(t *testing.T, text string) []string {
	t.Helper()
	tr, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range Check(tr) {
		out = append(out, d.Rule)
	}
	return out
}

// Each rule is violated by exactly one mutation of a valid trace.
func TestCheckRules(t *testing.T) {
	if got := rulesOf(t, checkTrace); len(got) != 0 {
		t.Fatalf("valid trace: %v", got)
	}
	for _, c := range []struct{ rule, from, to string }{
		{RuleIndexOrder, "'inst_idx': 2", "'inst_idx': 1"},
		{RuleNoEnd, "[ct_ed", "[ct_bc"},
	} {
		got := rulesOf(t, strings.Replace(checkTrace, c.from, c.to, 1))
		if len(got) != 1 || got[0] != c.rule {
			t.Errorf("%s: got %v", c.rule, got)
		}
	}
}

func TestCheckCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini/zebu")
	for _, p := range conformance.Files(t, dir, "*.txt") {
		tr, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if rep := Check(tr); len(rep) > 0 {
			t.Errorf("%s: %v", p, rep)
		}
	}
}
