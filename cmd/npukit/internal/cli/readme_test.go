package cli_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/npukit/npukit/cmd/npukit/internal/cli" // registers every format's rules
	"github.com/npukit/npukit/diag"
)

// TestReadmeRuleCounts: the formats table of README.md states how many
// check rules each format has ("42 rules (`neff/...`)"); the numbers must
// be those registered, so the README stays true as rules are added.
func TestReadmeRuleCounts(t *testing.T) {
	b, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, r := range diag.Rules() {
		have[strings.SplitN(r.ID, "/", 2)[0]]++
	}
	stated := regexp.MustCompile("([0-9]+) rules \\(`([a-z0-9]+)/\\.\\.\\.`").FindAllStringSubmatch(string(b), -1)
	if len(stated) == 0 {
		t.Fatal("README.md states no rule counts")
	}
	seen := map[string]bool{}
	for _, m := range stated {
		n, _ := strconv.Atoi(m[1])
		seen[m[2]] = true
		if have[m[2]] != n {
			t.Errorf("README.md says %d rules (%s/...), %d are registered", n, m[2], have[m[2]])
		}
	}
	for f := range have {
		if !seen[f] {
			t.Errorf("README.md states no rule count for %s/... (%d rules registered)", f, have[f])
		}
	}
}
