package inputfile

import (
	"os"
	"path/filepath"
	"testing"
)

// The memory a process may use is its own control group's limit (or a
// limit above it), not the root group's: under systemd, Slurm or a CI
// runner a job's group is nested, and only the root group's files were
// read. An address-space limit counts too.
func TestMemoryLimitsNestedGroups(t *testing.T) {
	const gib = 1 << 30
	write := func(root, p, s string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meminfo := "MemTotal:       33554432 kB\nMemFree: 1 kB\n" // 32 GiB

	t.Run("cgroup v2", func(t *testing.T) {
		root := t.TempDir()
		write(root, "/proc/meminfo", meminfo)
		write(root, "/proc/self/cgroup", "0::/system.slice/job.scope\n")
		write(root, "/proc/self/mountinfo", "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n")
		write(root, "/sys/fs/cgroup/memory.max", "max\n")
		write(root, "/sys/fs/cgroup/system.slice/memory.max", "max\n")
		write(root, "/sys/fs/cgroup/system.slice/job.scope/memory.max", "1073741824\n")
		if got := memoryLimits(root, 0, 0); got != gib {
			t.Fatalf("got %d, want the job's 1 GiB", got)
		}
		// a limit on a group above binds as well
		write(root, "/sys/fs/cgroup/system.slice/memory.max", "536870912\n")
		if got := memoryLimits(root, 0, 0); got != gib/2 {
			t.Fatalf("got %d, want the slice's 512 MiB", got)
		}
	})
	t.Run("cgroup v1 in a container", func(t *testing.T) {
		root := t.TempDir()
		write(root, "/proc/meminfo", meminfo)
		write(root, "/proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/runner/job7\n0::/\n")
		// the container sees the hierarchy from /runner down
		write(root, "/proc/self/mountinfo", "35 31 0:32 /runner /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")
		write(root, "/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
		write(root, "/sys/fs/cgroup/memory/job7/memory.limit_in_bytes", "2147483648\n")
		if got := memoryLimits(root, 0, 0); got != 2*gib {
			t.Fatalf("got %d, want the job's 2 GiB", got)
		}
	})
	t.Run("address space", func(t *testing.T) {
		root := t.TempDir()
		write(root, "/proc/meminfo", meminfo)
		if got := memoryLimits(root, 2*gib, gib/2); got != gib+gib/2 {
			t.Fatalf("got %d, want the 1.5 GiB an address-space limit of 2 GiB leaves", got)
		}
	})
}
