package neuroncore

import (
	"strings"
	"testing"
)

// A plan with fields of another format is answered in the plan's terms,
// not with the Go types the YAML decoder fills.
func TestParsePlanErrorsNameNoGoTypes(t *testing.T) {
	for src, want := range map[string]string{
		"tensors:\n  - name: a\n    bogus: 1\n": "field bogus not found in a tensor",
		"-1: x\n":                               "field -1 not found in a plan",
		"tensors: 5\n":                          "into a list of tensors",
	} {
		_, err := ParsePlan([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "neuroncore.") || strings.Contains(err.Error(), "raw") {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
