package conformance

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// AbsentNote is the line the tests print once when the corpus is absent.
const AbsentNote = "npukit tests: no corpus at ../shared or $NPUKIT_SHARED: the real-file tests skip " +
	"(set NPUKIT_SHARED=DIR to run them; NPUKIT_REQUIRE_SHARED=1 makes a missing corpus fail)"

var absentOnce sync.Once

// noteAbsent says once that the corpus is absent, where the user sees it.
// go test shows nothing a passing package prints, stdout or stderr, unless
// -v is given (cmd/go buffers the test binary's output and prints only the
// "ok" line): under -v the line goes to stderr with the rest of the output;
// otherwise it goes to the terminal (/dev/tty) when there is one, once per
// go test run across all the packages it tests (a marker named after the
// go command's process), so `go test ./...` prints it once, not once per
// package. Without a terminal (CI) it is silent; CI sets
// NPUKIT_REQUIRE_SHARED=1 instead.
func noteAbsent() {
	absentOnce.Do(func() {
		if verbose() {
			fmt.Fprintln(os.Stderr, AbsentNote)
			return
		}
		tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer tty.Close()
		writeAbsentOnce(tty, os.TempDir(), os.Getppid())
	})
}

// verbose reports whether go test was given -v. A package's variables may
// look for the corpus before the test flags are parsed (testing.Verbose
// panics then): the arguments are read instead.
func verbose() bool {
	if !testing.Testing() {
		return false
	}
	if flag.Parsed() {
		return testing.Verbose()
	}
	for _, a := range os.Args[1:] {
		a = strings.TrimLeft(a, "-")
		if a == "test.v" || strings.HasPrefix(a, "test.v=") && a != "test.v=false" {
			return true
		}
	}
	return false
}

// writeAbsentOnce writes AbsentNote to w unless another test binary of the
// same go test run (a child of the process parent) already did, as a
// marker file in dir records; markers of runs that ended are removed.
func writeAbsentOnce(w io.Writer, dir string, parent int) bool {
	key := runKey(parent)
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		old, _ := filepath.Glob(filepath.Join(dir, "npukit-no-corpus-*"))
		for _, m := range old {
			name := strings.TrimPrefix(filepath.Base(m), "npukit-no-corpus-")
			pid, _, _ := strings.Cut(name, "-")
			p, err := strconv.Atoi(pid)
			if err != nil || name == key {
				continue
			}
			if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", p)); err != nil || runKey(p) != name {
				os.Remove(m) // that run has ended
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "npukit-no-corpus-"+key), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil && os.IsExist(err) {
		return false
	}
	if f != nil {
		f.Close()
	}
	fmt.Fprintln(w, AbsentNote)
	return true
}

// runKey names a process by its id and start time (Linux's
// /proc/PID/stat field 22), so that a reused id is another run.
func runKey(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return strconv.Itoa(pid)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 19 {
			return strconv.Itoa(pid) + "-" + f[19]
		}
	}
	return strconv.Itoa(pid)
}
