// Package outputcheck refuses, before a command does any work, outputs
// that would destroy its inputs or each other: an output file that is one
// of the inputs (gcc's "input file is the same as output file"), a
// directory, inside an input directory, or named twice; a directory
// output that holds an input (replacing it would delete the input).
package outputcheck

import (
	"fmt"
	"os"
	"path/filepath"
)

// Output is a file or directory a command writes, as its flag names it.
type Output struct {
	Flag string // without the dashes: "output", "trace"
	Path string
	Dir  bool // a directory the command replaces or fills
}

// Check returns the first conflict between outputs and inputs (the files
// and directories the command reads), as an error naming the flag.
func Check(outputs []Output, inputs []string) error {
	named := map[string]string{} // cleaned path -> flag
	for _, o := range outputs {
		name, path := o.Flag, o.Path
		if o.Dir {
			for _, in := range inputs {
				if Within(in, path) {
					return fmt.Errorf("--%s %s holds the input %s: write the output elsewhere (replacing the directory would delete its own input)", name, path, in)
				}
			}
			continue
		}
		// a file written into a directory the command reads would be
		// read as an input the next time (neff pack d -o d/x.neff)
		for _, in := range inputs {
			if st, err := os.Stat(in); err == nil && st.IsDir() && Within(path, in) {
				return fmt.Errorf("--%s %s is inside the input directory %s: write the output elsewhere", name, path, in)
			}
		}
		if prev, ok := named[filepath.Clean(path)]; ok {
			return fmt.Errorf("--%s and --%s name one file, %s: give each its own", prev, name, path)
		}
		named[filepath.Clean(path)] = name
		st, err := os.Stat(path)
		if err != nil {
			continue // a new file (or an unwritable place, reported when written)
		}
		if st.IsDir() {
			return fmt.Errorf("--%s %s: is a directory; name a file", name, path)
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return fmt.Errorf("--%s %s is the input %s: write the output elsewhere (it would replace its own input)", name, path, in)
			}
		}
	}
	return nil
}

// Within reports whether path is dir or lies inside it, symbolic links
// resolved where the paths exist.
func Within(path, dir string) bool {
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
