package cli

import (
	"os"
	"path/filepath"
	"strings"

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

// documentOutputs states the rule in the help of every output flag.
func documentOutputs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		documentOutputs(sub)
	}
	for _, name := range fileOutputFlags {
		// before the command runs, Flags holds only the flags the command
		// declares itself (LocalNonPersistentFlags builds a new set per
		// call, which for every command at start-up cost milliseconds)
		f := c.Flags().Lookup(name)
		if f == nil || strings.HasSuffix(f.Usage, replacedNote) || strings.HasSuffix(f.Usage, forceNote) {
			continue
		}
		if dirOutput(c, name) {
			f.Usage += forceNote
		} else {
			f.Usage += replacedNote
		}
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
				// onto the entry's own kernel would replace it), and so
				// are its modules.
				if m, err := nki.ReadManifest(v); err == nil {
					for _, e := range m.Entries {
						inputs = append(inputs, filepath.Join(m.Dir(), e.File))
						inputs = append(inputs, nki.ImportedFiles(m.Dir(), e.File, m.Modules)...)
					}
					for _, f := range m.Modules {
						inputs = append(inputs, filepath.Join(m.Dir(), f))
					}
				}
			}
		}
	}
	// a kernel's helper modules are inputs as much as the kernel
	for _, a := range args {
		if strings.HasSuffix(a, ".py") {
			inputs = append(inputs, nki.ImportedFiles(filepath.Dir(a), filepath.Base(a), nil)...)
		}
	}
	named := map[string]string{} // cleaned path -> flag
	for _, name := range fileOutputFlags {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed || f.Value.String() == "" {
			continue
		}
		path := f.Value.String()
		if dirOutput(cmd, name) {
			// a directory output replaces what it holds (with --force):
			// an input inside it would be deleted
			for _, in := range inputs {
				if within(in, path) {
					return usageErr("--%s %s holds the input %s: write the output elsewhere (replacing the directory would delete its own input)", name, path, in)
				}
			}
			continue
		}
		// a file written into a directory the command reads would be
		// read as an input the next time (neff pack d -o d/x.neff)
		for _, in := range inputs {
			if st, err := os.Stat(in); err == nil && st.IsDir() && within(path, in) {
				return usageErr("--%s %s is inside the input directory %s: write the output elsewhere", name, path, in)
			}
		}
		if prev, ok := named[filepath.Clean(path)]; ok {
			return usageErr("--%s and --%s name one file, %s: give each its own", prev, name, path)
		}
		named[filepath.Clean(path)] = name
		st, err := os.Stat(path)
		if err != nil {
			continue // a new file (or an unwritable place, reported when written)
		}
		if st.IsDir() {
			return usageErr("--%s %s: is a directory; name a file", name, path)
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return usageErr("--%s %s is the input %s: write the output elsewhere (it would replace its own input)", name, path, in)
			}
		}
	}
	return nil
}

// within reports whether path is dir or lies inside it, symbolic links
// resolved where the paths exist.
func within(path, dir string) bool {
	p, d := realPath(path), realPath(dir)
	if p == "" || d == "" {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// realPath is path made absolute, with the symbolic links of its longest
// existing prefix resolved.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
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
