package conformance

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The note on an absent corpus is written once per go test run: the first
// test binary of a run writes it, the others of the same run (same parent
// process) do not, and a marker of a run that has ended is removed.
func TestAbsentNoteOncePerRun(t *testing.T) {
	dir := t.TempDir()
	var first, second bytes.Buffer
	if !writeAbsentOnce(&first, dir, os.Getpid()) || first.String() != AbsentNote+"\n" {
		t.Fatalf("first package of a run wrote %q, want the note", first.String())
	}
	if writeAbsentOnce(&second, dir, os.Getpid()) || second.Len() != 0 {
		t.Fatalf("second package of the same run wrote %q, want nothing", second.String())
	}
	// A process that has exited: its marker goes, and its run would write.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to make an exited process:", err)
	}
	dead := cmd.Process.Pid
	var third bytes.Buffer
	if !writeAbsentOnce(&third, dir, dead) {
		t.Fatal("a new run (another parent) did not write the note")
	}
	var again bytes.Buffer
	writeAbsentOnce(&again, dir, os.Getpid())
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return // no /proc: ended runs cannot be told from live ones
	}
	if _, err := os.Stat(filepath.Join(dir, "npukit-no-corpus-"+runKey(dead))); err == nil {
		t.Errorf("the marker of an ended run (process %d) was kept", dead)
	}
	if _, err := os.Stat(filepath.Join(dir, "npukit-no-corpus-"+runKey(os.Getpid()))); err != nil {
		t.Errorf("the marker of the live run was removed: %v", err)
	}
}

// SharedDir with NPUKIT_SHARED naming no directory returns "" (and the
// note is due); naming a directory returns it.
func TestSharedDirFollowsTheEnvironment(t *testing.T) {
	t.Setenv("NPUKIT_SHARED", filepath.Join(t.TempDir(), "absent"))
	if d := sharedDir(); d != "" {
		t.Fatalf("absent NPUKIT_SHARED gave %q", d)
	}
	d := t.TempDir()
	t.Setenv("NPUKIT_SHARED", d)
	if got := sharedDir(); got != d {
		t.Fatalf("NPUKIT_SHARED=%s gave %q", d, got)
	}
}
