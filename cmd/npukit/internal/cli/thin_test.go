package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCLILines bounds the command's own Go code (issue 37 point 8): the
// CLI parses flags, calls the library and renders; what it would compute
// beyond that belongs in the library (see DESIGN.md).
const maxCLILines = 3500

// TestCLIStaysThin counts the lines of this package's non-test Go files,
// as `wc -l` does.
func TestCLIStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
	}
	if total == 0 || total > maxCLILines {
		t.Errorf("the CLI's non-test Go files hold %d lines, more than %d: move what they compute beyond flags, calls and rendering into the library", total, maxCLILines)
	}
}
