package cli_test

import (
	"strings"
	"testing"
)

// TestUnknownSubcommand: a mistyped subcommand of any group is a usage
// error (exit 2) with cobra's suggestion, never the group's help and exit 0.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct{ group, typo, want string }{
		{"neff", "unpak", "unpack"},
		{"edgetpu", "lnk", "link"},
		{"gemini", "synt", "synth"},
		{"sbuf", "chek", "check"},
	} {
		r := run(t, t.TempDir(), c.group, c.typo)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown command") || !strings.Contains(r.stderr, "Did you mean this?\n\t"+c.want) {
			t.Errorf("%s %s: %s", c.group, c.typo, r)
		}
		// The bare group still prints its help.
		if r := run(t, t.TempDir(), c.group); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
			t.Errorf("%s: %s", c.group, r)
		}
	}
}
