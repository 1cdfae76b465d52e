package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGeneratorsDeterministic(t *testing.T) {
	gs, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		a, err := g.Make()
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		b, _ := g.Make()
		if string(a) != string(b) {
			t.Errorf("%s: generator is not deterministic", g.Name)
		}
	}
}

// The embedded examples must be what the generators produce today.
func TestEmbeddedExamplesFresh(t *testing.T) {
	gs, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		want, err := g.Make()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "data", g.Name))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./internal/examples)", g.Name, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./internal/examples", g.Name)
		}
	}
}
