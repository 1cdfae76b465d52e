package cli_test

import (
	"strings"
	"testing"
)

// sim --help says what a NEFF's predicted time includes and what
// --measured compares, not only the Edge TPU estimate (it described the
// Edge TPU alone, though NEFF flags make up half of its flags).
func TestSimHelpSaysWhatANeffPredictionIs(t *testing.T) {
	r := run(t, "", "sim", "--help")
	long := r.stdout[:strings.Index(r.stdout, "Accepted input")]
	for _, want := range []string{"For a NEFF", "launch plus the", "--measured X.ntff", "Gemini schedule", "SBUF/PSUM plan"} {
		if !strings.Contains(long, want) {
			t.Errorf("sim --help does not say %q:\n%s", want, long)
		}
	}
}
