package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/npukit/npukit/internal/atomicfile"
)

// TestHelperBlockedWrite is not a test by itself: run by
// TestInterruptRemovesTemps as a child process, it starts a write that
// never ends, as a long report or solve would, and waits for the signal.
func TestHelperBlockedWrite(t *testing.T) {
	dir := os.Getenv("NPUKIT_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	removeTempsOnSignal()
	atomicfile.Write(filepath.Join(dir, "out.json"), 0o644, func(w io.Writer) error {
		os.WriteFile(filepath.Join(dir, "..", "started"), nil, 0o644)
		time.Sleep(time.Minute)
		return errors.New("not interrupted")
	})
}

// Ctrl-C during a write left the hidden .out.json.tmp-* behind.
func TestInterruptRemovesTemps(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	os.Mkdir(dir, 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBlockedWrite$")
	cmd.Env = append(os.Environ(), "NPUKIT_HELPER_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(base, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("helper did not start its write")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("want one temporary file during the write, got %v", entries)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left after Ctrl-C: %v", entries)
	}
}
