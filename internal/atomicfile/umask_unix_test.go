//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }

// Outputs were always 0644/0755 whatever the umask.
func TestUmaskRespected(t *testing.T) {
	old := syscall.Umask(0o027)
	defer func() {
		syscall.Umask(old)
		umaskOnce = sync.Once{}
	}()
	umaskOnce = sync.Once{}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("file mode %v, want 0640", st.Mode().Perm())
	}
	d := filepath.Join(dir, "d")
	if err := Dir(d, false, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(d); st.Mode().Perm() != 0o750 {
		t.Errorf("dir mode %v, want 0750", st.Mode().Perm())
	}
}
