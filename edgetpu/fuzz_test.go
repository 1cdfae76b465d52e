package edgetpu

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// fuzzSeeds are the small synthetic models of the writer tests (a few KiB,
// so that the fuzzer runs thousands of executions per second); the real
// files are covered by the conformance tests. With NPUKIT_FUZZ_CORPUS=1 the
// smallest corpus model is added.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := syntheticSeeds()
	if dir := conformance.SharedDir(); dir != "" && os.Getenv("NPUKIT_FUZZ_CORPUS") == "1" {
		if b, err := os.ReadFile(filepath.Join(dir, "corpus", "edgetpu", "tools__split_concat_edgetpu.tflite")); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
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
