package outputcheck

import (
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/nki"
	"github.com/spf13/pflag"
)

// FileOutputFlags name a single file a command writes.
var FileOutputFlags = []string{"output", "trace", "emit-plan", "rewrite"}

// InputFlags name files a command reads besides its arguments (relayout
// --in, neff dma --input NAME=x.npy, alloc --from, sim --zebu, the nki
// commands' --manifest).
var InputFlags = []string{"in", "input", "from", "zebu", "manifest"}

// FromFlags gathers what a command given args and the flags fs writes
// (the FileOutputFlags given; isDir says which name a directory) and
// reads: its arguments ("-" aside), the files of its InputFlags (--input
// NAME=PATH gives PATH), the kernels and modules a --manifest names and
// the helper modules a kernel argument (.py) imports. Without an output
// there is nothing to compare, and no input is gathered.
func FromFlags(fs *pflag.FlagSet, args []string, isDir func(flag string) bool) (outs []Output, inputs []string) {
	for _, name := range FileOutputFlags {
		if f := fs.Lookup(name); f != nil && f.Changed && f.Value.String() != "" {
			outs = append(outs, Output{Flag: name, Path: f.Value.String(), Dir: isDir(name)})
		}
	}
	if len(outs) == 0 {
		return nil, nil // (and no manifest to read)
	}
	for _, a := range args {
		if a != "-" {
			inputs = append(inputs, a)
		}
	}
	for _, name := range InputFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		for _, v := range values(f) {
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
	return outs, inputs
}

// values is a flag's value, or each element of a list flag.
func values(f *pflag.Flag) []string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
}
