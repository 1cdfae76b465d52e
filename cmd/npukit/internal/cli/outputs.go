package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/internal/outputcheck"
	"github.com/npukit/npukit/nki"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// fileOutputFlags name a single file a command writes.
var fileOutputFlags = []string{"output", "trace", "emit-plan", "rewrite"}

// inputFlags name files a command reads besides its arguments (relayout
// --in, neff dma --input NAME=x.npy, alloc --from, sim --zebu, the nki
// commands' --manifest).
var inputFlags = []string{"in", "input", "from", "zebu", "manifest"}

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
	for _, name := range fileOutputFlags {
		// before the command runs, Flags holds only the flags the command
		// declares itself (LocalNonPersistentFlags builds a new set per
		// call, which for every command at start-up cost milliseconds)
		f := c.Flags().Lookup(name)
		if f == nil {
			continue
		}
		named = append(named, "--"+name)
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
	writes := false
	for _, name := range fileOutputFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() != "" {
			writes = true
		}
	}
	if !writes {
		return nil // nothing to compare (and no manifest to read)
	}
	var inputs []string
	for _, a := range args {
		if a != "-" {
			inputs = append(inputs, a)
		}
	}
	for _, name := range inputFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		for _, v := range flagValues(f) {
			if _, path, ok := strings.Cut(v, "="); ok && name == "input" {
				v = path
			}
			inputs = append(inputs, v)
			if name == "manifest" {
				// The kernels a manifest names are read too (nki place -o
				// onto the entry's own kernel would replace it).
				inputs = append(inputs, nki.ManifestInputs(v)...)
			}
		}
	}
	// a kernel's helper modules are inputs as much as the kernel
	for _, a := range args {
		if strings.HasSuffix(a, ".py") {
			inputs = append(inputs, nki.ImportedFiles(filepath.Dir(a), filepath.Base(a), nil)...)
		}
	}
	var outs []outputcheck.Output
	for _, name := range fileOutputFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed && f.Value.String() != "" {
			outs = append(outs, outputcheck.Output{Flag: name, Path: f.Value.String(), Dir: dirOutput(cmd, name)})
		}
	}
	if err := outputcheck.Check(outs, inputs); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// flagValues is a flag's value, or each element of a list flag.
func flagValues(f *pflag.Flag) []string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
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
