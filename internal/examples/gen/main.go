package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/npukit/npukit/internal/atomicfile"
)

func main() {
	out := flag.String("o", "data", "directory to write the examples into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	gs, err := All()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, g := range gs {
		b, err := g.Make()
		if err != nil {
			return fmt.Errorf("%s: %w", g.Name, err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, g.Name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
