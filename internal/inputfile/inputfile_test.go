package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO without a writer, /dev/zero and a directory are refused at once
// (the FIFO hung, /dev/zero exhausted memory).
func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(dir, "zero-link")
	os.Symlink("/dev/zero", link)
	for _, p := range []string{fifo, "/dev/zero", link, dir} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(p)
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) {
				t.Errorf("%s: %v, want NotRegularError", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: read hangs", p)
		}
	}
	if _, err := Stat(fifo); err == nil {
		t.Error("Stat accepted a FIFO")
	}
	if st, err := Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("Stat(dir): %v", err)
	}
}

func TestLimitAndNoFollow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, make([]byte, 100), 0o644)
	if b, err := ReadFileMax(p, 100); err != nil || len(b) != 100 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	var tl *TooLargeError
	if _, err := ReadFileMax(p, 99); !errors.As(err, &tl) || tl.Size != 100 {
		t.Fatalf("over the limit: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	if _, err := ReadFileNoFollow(link, 1000); err == nil {
		t.Error("ReadFileNoFollow followed a link")
	}
	if _, err := ReadFileNoFollow(p, 1000); err != nil {
		t.Error(err)
	}
}

func TestStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	go func() {
		w.Write([]byte("from a pipe"))
		w.Close()
	}()
	for range 2 {
		b, err := ReadFile(Stdin)
		if err != nil || string(b) != "from a pipe" {
			t.Fatalf("%q, %v", b, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"100": 100, "4K": 4 << 10, "2MiB": 2 << 20, "1g": 1 << 30, "3GB": 3 << 30} {
		if got, ok := ParseSize(s); !ok || got != want {
			t.Errorf("%q: %d %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "x", "-1", "99999999999T"} {
		if _, ok := ParseSize(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
	if DefaultLimit() < 64<<20 {
		t.Error(DefaultLimit())
	}
}
