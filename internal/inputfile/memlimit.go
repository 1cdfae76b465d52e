package inputfile

import (
	"os"
	"path"
	"strconv"
	"strings"
)

// memoryLimits is what bounds the memory of this process, read under root
// ("/" on the machine; a test's folder otherwise): physical memory
// (/proc/meminfo), the memory limits of the process's own control group
// and of every group above it, cgroup v2 (memory.max) or v1
// (memory.limit_in_bytes) as /proc/self/cgroup and /proc/self/mountinfo
// name them, and the address-space room asLimit leaves above the address
// space in use (asUsed). The smallest is returned, 0 when none is known.
//
// A process in a nested group (systemd, Slurm and CI runners put jobs in
// one) is killed at its group's limit whatever the root group allows, so
// the root's files alone are not enough; under an address-space limit
// (ulimit -v, prlimit --as) an allocation past the limit is a fatal error,
// not a refusal.
func memoryLimits(root string, asLimit, asUsed int64) int64 {
	read := func(p string) string {
		b, err := os.ReadFile(path.Join(root, p))
		if err != nil {
			return ""
		}
		return string(b)
	}
	var total int64
	lower := func(v int64) {
		if v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	for _, line := range strings.Split(read("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					lower(kb << 10)
				}
			}
		}
	}
	for _, g := range cgroupLimitFiles(read("/proc/self/cgroup"), read("/proc/self/mountinfo")) {
		if v, err := strconv.ParseInt(strings.TrimSpace(read(g)), 10, 64); err == nil {
			lower(v) // "max" (v2) does not parse: no limit
		}
	}
	// the root group's files where mountinfo is not readable
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if v, err := strconv.ParseInt(strings.TrimSpace(read(p)), 10, 64); err == nil {
			lower(v)
		}
	}
	if asLimit > 0 {
		lower(max(asLimit-asUsed, 1))
	}
	return total
}

// cgroupLimitFiles lists the memory limit files of the process's group and
// of each group above it, from the contents of /proc/self/cgroup and
// /proc/self/mountinfo.
func cgroupLimitFiles(cgroup, mountinfo string) []string {
	type mount struct{ root, dir string }
	var v2 *mount
	var v1 *mount
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 {
			continue
		}
		m := &mount{root: unescapeMount(f[3]), dir: unescapeMount(f[4])}
		switch {
		case g[0] == "cgroup2" && v2 == nil:
			v2 = m
		case g[0] == "cgroup" && v1 == nil && len(g) >= 3 && hasOption(g[2], "memory"):
			v1 = m
		}
	}
	var out []string
	walk := func(m *mount, group, file string) {
		if m == nil || !strings.HasPrefix(group, "/") {
			return
		}
		// the mount shows the hierarchy from m.root down (a container sees
		// its own group as the root)
		rel := group
		if m.root != "/" {
			if group != m.root && !strings.HasPrefix(group, m.root+"/") {
				return
			}
			rel = strings.TrimPrefix(group, m.root)
		}
		for d := path.Clean("/" + rel); ; d = path.Dir(d) {
			out = append(out, path.Join(m.dir, d, file))
			if d == "/" {
				break
			}
		}
	}
	for _, line := range strings.Split(cgroup, "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			walk(v2, parts[2], "memory.max")
		case hasOption(parts[1], "memory"):
			walk(v1, parts[2], "memory.limit_in_bytes")
		}
	}
	return out
}

func hasOption(list, name string) bool {
	for _, o := range strings.Split(list, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
