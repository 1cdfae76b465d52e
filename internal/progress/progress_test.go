package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A writer that is not a file gets nothing; a file gets the reporting
// functions.
func TestStartQuietWhereItShould(t *testing.T) {
	var b bytes.Buffer
	if IsTerminal(&b) {
		t.Error("a buffer is a terminal")
	}
	nodes, stage, done := Start(&b, "alloc")
	if nodes != nil || stage != nil {
		t.Error("a buffer gets progress")
	}
	done()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	nodes, stage, done = Start(f, "alloc")
	if nodes == nil || stage == nil {
		t.Fatal("a log file gets no progress")
	}
	nodes(5)
	stage("minimizing")
	done()
}
