package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
