package cli

import (
	"github.com/npukit/npukit/internal/buildinfo"
	"github.com/spf13/cobra"
)

func init() { registerCommand(90, newVersionCmd) }

// Version is set at link time (-ldflags "-X github.com/npukit/npukit/cmd/npukit/internal/cli.Version=v1.2.3").
var Version = ""

// Commit is the VCS revision, set at link time by scripts/release.sh for
// builds where Go's own VCS stamping is unavailable (a git worktree, a source
// tarball); the stamped vcs.revision wins when present.
var Commit = ""

func buildVersion() buildinfo.Info { return buildinfo.Read(Version, Commit) }

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
	if env.JSON {
		return writeJSON(env.Stdout, buildVersion())
	}
	return buildVersion().WriteText(env.Stdout)
}
