// Package examples holds the example artifacts `npukit demo` runs on. They
// are produced by npukit's own writers (never copied from real corpora):
// run `go generate ./internal/examples` after changing a generator; the
// test in this package fails when the embedded files are stale.
package examples

//go:generate go run ./gen -o data

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed data
var data embed.FS

// FS returns the examples as a flat file system.
func FS() fs.FS {
	sub, err := fs.Sub(data, "data")
	if err != nil {
		panic(err) // cannot happen: "data" is embedded
	}
	return sub
}

// Names lists the example file names, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(FS(), ".")
	var out []string
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "README.md" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
