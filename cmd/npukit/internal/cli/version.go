package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { registerCommand(90, newVersionCmd) }

// Version is set at link time (-ldflags "-X github.com/npukit/npukit/cmd/npukit/internal/cli.Version=v1.2.3").
var Version = ""

// Commit is the VCS revision, set at link time by scripts/release.sh for
// builds where Go's own VCS stamping is unavailable (a git worktree, a source
// tarball); the stamped vcs.revision wins when present.
var Commit = ""

type versionInfo struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: Version, Go: runtime.Version(), Commit: Commit}
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

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print npukit's version",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return printVersion(env) },
	}
}

// printVersion is `npukit version` (and `npukit --version`).
func printVersion(env *Env) error {
	{
		{
			v := buildVersion()
			if env.JSON {
				return writeJSON(env.Stdout, v)
			}
			fmt.Fprintf(env.Stdout, "npukit %s (%s", v.Version, v.Go)
			if v.Commit != "" {
				c := v.Commit
				if len(c) > 12 {
					c = c[:12]
				}
				fmt.Fprintf(env.Stdout, ", commit %s", c)
				if v.Modified {
					fmt.Fprint(env.Stdout, ", modified")
				}
			}
			fmt.Fprintln(env.Stdout, ")")
			return nil
		}
	}
}
