//go:build unix

package inputfile

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

const (
	nonBlock = syscall.O_NONBLOCK
	noFollow = syscall.O_NOFOLLOW
)

// clearNonBlock puts a regular file back into blocking mode (O_NONBLOCK
// has no effect on regular files on Linux, but the flag is not left set).
func clearNonBlock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

func totalMemory() int64 {
	var asLimit, asUsed int64
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur < 1<<62 {
		asLimit = int64(rl.Cur)
		asUsed = addressSpaceUsed()
	}
	return memoryLimits("/", asLimit, asUsed)
}

// addressSpaceUsed is the process's virtual size (VmSize), what an
// address-space limit already counts.
func addressSpaceUsed() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
