package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	err := Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
	if err := WriteFile(p, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "ok" {
		t.Fatal(string(b))
	}
}

func TestDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	if err := Dir(dir, false, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "a"), nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	if err := Dir(dir, false, func(string) error { return nil }); err == nil {
		t.Fatal("replaced non-empty dir without replace")
	}
	if err := Dir(dir, true, func(string) error { return errors.New("fail") }); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Fatal("failed replace destroyed old content")
	}
	if err := Dir(dir, true, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "b"), nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
}

func TestJoinRefusesEscapes(t *testing.T) {
	for _, bad := range []string{"", "/etc/passwd", "..", "../x", "a/../../x", "./../x"} {
		if _, err := Join("/root", bad); err == nil {
			t.Errorf("Join accepted %q", bad)
		}
	}
	for name, want := range map[string]string{"a/b": "/root/a/b", "./a": "/root/a", "a/../b": "/root/b", "..a": "/root/..a"} {
		got, err := Join("/root", name)
		if err != nil || got != want {
			t.Errorf("Join(%q)=%q,%v want %q", name, got, err, want)
		}
	}
}

// A directory that appears (non-empty) while fill runs is not replaced
// without replace; the earlier code checked only before fill.
func TestDirAppearingDuringFillIsKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	err := Dir(dir, false, func(tmp string) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "user-file"), []byte("keep"), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "a"), nil, 0o644)
	})
	if err == nil {
		t.Fatal("replaced a directory that appeared during the write")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "user-file")); err != nil || string(b) != "keep" {
		t.Fatalf("user file lost: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Fatalf("temporary left: %v", entries)
	}
}

func TestWriteThroughSymlinkKeepsLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	os.WriteFile(target, []byte("old"), 0o600)
	if err := os.Symlink("target.json", link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	if string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Fatalf("existing file's mode changed to %v", st.Mode().Perm())
	}
	// A dangling link is refused, not replaced by a regular file.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("nowhere/x", dangling)
	if err := WriteFile(dangling, []byte("x"), 0o644); err == nil {
		t.Fatal("wrote over a dangling link")
	}
	if st, _ := os.Lstat(dangling); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("dangling link replaced")
	}
}

func TestWriteThroughDeviceAndFIFO(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v", os.DevNull, err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Fatalf("reader got %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("FIFO replaced by a regular file")
	}
	if err := WriteFile(t.TempDir(), []byte("x"), 0o644); err == nil {
		t.Fatal("wrote over a directory")
	}
}

func TestRemoveTempsDuringWrite(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "out"), 0o644, func(w io.Writer) error {
		if n := RemoveTemps(); n != 1 {
			t.Errorf("RemoveTemps removed %d", n)
		}
		return errors.New("interrupted")
	})
	if err == nil {
		t.Fatal("no error")
	}
	Dir(filepath.Join(dir, "d"), false, func(tmp string) error {
		if n := RemoveTemps(); n != 1 {
			t.Errorf("RemoveTemps removed %d dirs", n)
		}
		return errors.New("interrupted")
	})
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// An interruption never finds the old directory moved aside and the new
// one not yet in place (Ctrl-C between the two renames of a --force
// replacement deleted both): the renames hold the lock RemoveTemps takes.
func TestInterruptBetweenRenamesKeepsOne(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(out, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	held := false
	testBetweenRenames = func() {
		if tempsMu.TryLock() {
			tempsMu.Unlock()
			return
		}
		held = true
	}
	defer func() { testBetweenRenames = nil }()
	err := Dir(out, true, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "new"), []byte("x"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !held {
		t.Fatal("a signal's cleanup could run between the renames")
	}
	if _, err := os.Stat(filepath.Join(out, "new")); err != nil {
		t.Fatal(err)
	}
}

// After Interrupt, a write that finishes puts nothing in place and leaves
// no temporary: the signal's cleanup and the writer do not race to leave a
// half-written directory under the target's name.
func TestInterruptStopsCommits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	err := Dir(out, false, func(tmp string) error {
		Interrupt()
		tempsMu.Unlock() // the test goes on; a program exits here
		// the writer goes on writing into its temporary folder
		os.MkdirAll(filepath.Join(tmp, "sub"), 0o755)
		return os.WriteFile(filepath.Join(tmp, "sub", "late"), []byte("x"), 0o644)
	})
	defer func() {
		tempsMu.Lock()
		interrupted = false
		tempsMu.Unlock()
	}()
	if err == nil {
		t.Fatal("the result was put in place after the interruption")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err == nil {
		t.Fatal("a file was put in place after the interruption")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// An error about the temporary names the output (a full disk's message
// named a hidden .NAME.tmp-* path).
func TestErrorNamesTheOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	err := Dir(out, false, func(tmp string) error {
		return &fs.PathError{Op: "write", Path: filepath.Join(tmp, "x.bin"), Err: syscall.ENOSPC}
	})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(out, "x.bin")) || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("got %v", err)
	}
}

// An output in a directory that does not exist is named in the error, not
// its temporary ("open /d/.x.html.tmp-123: no such file or directory").
func TestMissingDirectoryNamesTheOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "missing", "x.html")
	err := Write(out, 0o644, func(w io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), out) || strings.Contains(err.Error(), ".tmp-") || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v", err)
	}
}
