// Command gen writes the demo examples with npukit's own writers. Each
// format adds a generator in a file of its own (register in init).
package main

import (
	"fmt"
	"sort"
)

// Generator makes one example file.
type Generator struct {
	Name string // file name inside the examples directory
	Make func() ([]byte, error)
}

var generators []Generator

// Register adds a generator.
func Register(g Generator) { generators = append(generators, g) }

// All returns the generators sorted by name; duplicate names are an error.
func All() ([]Generator, error) {
	gs := append([]Generator(nil), generators...)
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	for i := 1; i < len(gs); i++ {
		if gs[i].Name == gs[i-1].Name {
			return nil, fmt.Errorf("two generators write %s", gs[i].Name)
		}
	}
	return gs, nil
}
