//go:build unix

package atomicfile

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// readUmask reads the umask from /proc/self/status (Linux 4.7+) without
// changing it; elsewhere it sets and restores it, once, at first use.
func readUmask() os.FileMode {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(n) & os.ModePerm
				}
			}
		}
	}
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return os.FileMode(m) & os.ModePerm
}
