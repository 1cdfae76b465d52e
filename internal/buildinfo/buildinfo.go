// Package buildinfo says which npukit is running: its version, the Go
// release that built it and the VCS commit, from the values stamped at
// link time and from the build information Go records in the binary.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Info is the version of the running binary.
type Info struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Read returns the build information: version and commit are the values
// stamped at link time ("" when none); the module version and the
// stamped vcs.revision of Go's build information win when present, and a
// binary without a version is "devel".
func Read(version, commit string) Info {
	v := Info{Version: version, Go: runtime.Version(), Commit: commit}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "devel"
	}
	return v
}

// WriteText writes "npukit VERSION (GO, commit C, modified)".
func (v Info) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "npukit %s (%s", v.Version, v.Go)
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		fmt.Fprintf(w, ", commit %s", c)
		if v.Modified {
			fmt.Fprint(w, ", modified")
		}
	}
	_, err := fmt.Fprintln(w, ")")
	return err
}
