package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

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
		// Tell the parent, then block until it signals (stdin never
		// delivers anything: the parent holds it open).
		os.Stdout.WriteString("\nstarted\n")
		io.Copy(io.Discard, os.Stdin)
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
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the helper to say its write started: no polling, no
	// wall-clock limit (issue 32); go test's own -timeout ends a hang.
	started := false
	for sc := bufio.NewScanner(stdout); sc.Scan(); {
		if sc.Text() == "started" {
			started = true
			break
		}
	}
	if !started {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("helper did not start its write")
	}
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, stdout); close(drained) }()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("want one temporary file during the write, got %v", entries)
	}
	cmd.Process.Signal(syscall.SIGINT)
	<-drained // the helper exited (Wait must not run before the reads end)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left after Ctrl-C: %v", entries)
	}
}
