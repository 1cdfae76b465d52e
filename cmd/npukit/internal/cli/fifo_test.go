package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/npukit/npukit/internal/conformance"
)

// A FIFO named *.neff beside a capture (the NEFF that inspect looks for
// there) must not block inspect: a plain open of a FIFO waits for a
// writer forever. Found by the hostile harness, where it hung the run.
func TestInspectCaptureBesideAFIFO(t *testing.T) {
	caps := conformance.Files(t, conformance.Shared(t, "corpus3/ntff"), "*.ntff")
	if len(caps) == 0 {
		t.Skip("no capture")
	}
	dir := t.TempDir()
	data, err := os.ReadFile(caps[0])
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, "run.ntff")
	if err := os.WriteFile(capture, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "profiled.neff"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A guard, not a timing assertion: a blocked open would otherwise hang
	// the test binary until go test's own timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "inspect", capture)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatal("inspect blocked on the FIFO beside the capture")
	}
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
}
