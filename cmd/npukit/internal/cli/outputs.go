package cli

import (
	"os"
	"strings"

	"github.com/npukit/npukit/internal/outputcheck"
	"github.com/spf13/cobra"
)

// What a command may replace, the one rule of every writing command (as
// cp, gcc -o and gh download do it):
//
//   - a file the user names with an output flag (-o FILE, --trace,
//     --emit-plan, --rewrite) is written, replacing what is there; the
//     flag's help says so. It is refused when it is one of the command's
//     inputs (gcc's "input file is the same as output file"), a directory,
//     or named by two output flags at once;
//   - a directory output (-o DIR of the commands with --force, demo --dir)
//     replaces or fills a non-empty directory only with --force;
//   - a name the command picks itself (report without -o) never replaces
//     an existing file without --force.
//
// atomicfile makes every write atomic and keeps it inside its directory.

const replacedNote = " (replaced if it exists)"
const forceNote = " (a non-empty one only with --force)"

// dirOutput reports whether cmd's flag names a directory: an -o whose
// help starts with "directory" (unpack, extract, link, neff dma).
func dirOutput(cmd *cobra.Command, flag string) bool {
	f := cmd.Flags().Lookup(flag)
	return flag == "output" && f != nil && strings.HasPrefix(f.Usage, "directory")
}

// documentOutputs states the rule in the help of every output flag, and
// gives every command that writes the same flags: one with a file output
// and no --force of its own takes --force too, which changes nothing (the
// file is replaced anyway), so that a script passing --force to every
// writing command is not refused by some (audit item 22: report -o x
// --force worked, sbuf place -o x --force was "unknown flag").
func documentOutputs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		documentOutputs(sub)
	}
	var named []string
	for _, name := range outputcheck.FileOutputFlags {
		// before the command runs, Flags holds only the flags the command
		// declares itself (LocalNonPersistentFlags builds a new set per
		// call, which for every command at start-up cost milliseconds)
		f := c.Flags().Lookup(name)
		if f == nil {
			continue
		}
		if name == "output" {
			named = append(named, "-o")
		} else {
			named = append(named, "--"+name)
		}
		if strings.HasSuffix(f.Usage, replacedNote) || strings.HasSuffix(f.Usage, forceNote) {
			continue
		}
		if dirOutput(c, name) {
			f.Usage += forceNote
		} else {
			f.Usage += replacedNote
		}
	}
	if len(named) > 0 && c.Flags().Lookup("force") == nil {
		c.Flags().Bool("force", false, "changes nothing here: the file "+strings.Join(named, " or ")+" names is replaced anyway (every command that writes takes --force)")
	}
}

// checkOutputs refuses, before any work, an output file that is one of
// the command's inputs or a directory, and one file named by two output
// flags.
func checkOutputs(cmd *cobra.Command, args []string) error {
	outs, inputs := outputcheck.FromFlags(cmd.Flags(), args, func(name string) bool { return dirOutput(cmd, name) })
	if err := outputcheck.Check(outs, inputs); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// refuseNonEmptyDir refuses writing into a non-empty directory without
// --force (a directory that does not exist yet, or is empty, is fine).
func refuseNonEmptyDir(flag, dir string, force bool) error {
	if force {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		return nil
	}
	return usageErr("%s %s: directory is not empty; pass --force to write into it (files of the same names are replaced)", flag, dir)
}
