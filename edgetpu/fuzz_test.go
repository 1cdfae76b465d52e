package edgetpu

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// fuzzSeeds returns the smallest corpus model (when the corpus is present)
// and the synthetic models of the writer tests.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	if dir := conformance.SharedDir(); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "corpus", "edgetpu", "tools__split_concat_edgetpu.tflite")); err == nil {
			seeds = append(seeds, b)
		}
	}
	return append(seeds, syntheticSeeds()...)
}

// exercise runs everything that reads a model, as the CLI would.
func exercise(m *Model) {
	for _, p := range m.Packages() {
		for _, e := range p.Executables {
			for _, l := range e.OutputLayers {
				if l.Output != nil && l.Output.Layout != nil {
					l.LayoutStats()
				}
			}
		}
	}
}

func FuzzTFLite(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := Read(b); err == nil {
			exercise(m)
		}
	})
}

func FuzzPackage(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if m, err := Read(s); err == nil {
			for _, p := range m.Packages() {
				f.Add(p.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := Read(b); err == nil {
			exercise(m)
		}
	})
}

func FuzzCustomOptions(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if m, err := Read(s); err == nil && m.TFLite != nil {
			for _, op := range m.Ops {
				f.Add(m.TFLite.Subgraphs[op.Subgraph].Operators[op.Operator].CustomOptions)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := &decoder{budget: int64(len(b)) + budgetSlack}
		d.customOp(&Operator{CustomOptions: b}, "custom_options")
	})
}
