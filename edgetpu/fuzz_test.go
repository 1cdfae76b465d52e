package edgetpu

import (
	"runtime"

	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/fbs"
	"github.com/npukit/npukit/internal/hostile"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
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

// exercise runs everything the CLI does with a model.
func exercise(m *Model) {
	Check(m)
	Summarize(m).WriteText(io.Discard)
	BuildMemoryReport([]NamedModel{{Path: "x", Model: m}}).WriteText(io.Discard)
	Diff(m, m)
	Extract(m)
	for _, p := range m.Packages() {
		dmaplan.Build(PlanInput(p), dmaplan.DefaultLinks())
		for _, e := range p.Executables {
			a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}}
			for _, l := range e.InputLayers {
				a.Inputs[l.Name] = []uint64{1}
			}
			for _, l := range e.OutputLayers {
				a.Outputs[l.Name] = []uint64{2}
			}
			var x uint64 = 3
			a.Parameters, a.Scratch = &x, &x
			link.Link(e.LinkInput(), a)
			for _, l := range e.OutputLayers {
				if l.Output != nil && l.Output.Layout != nil {
					l.LayoutStats()
				}
				o := l.RelayoutOutput()
				if o.SizeBytes <= 1<<16 && o.ExecCount <= 4 && o.Validate() == nil {
					dev := make([]byte, int(o.SizeBytes)*max(o.ExecCount, 1))
					if plain, err := o.ToPlain(dev, 1); err == nil {
						o.ToDevice(plain, 1)
					}
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
	f.Add(hostile.FlexSharedKeys(64, 512)) // key sharing
	f.Fuzz(func(t *testing.T, b []byte) {
		d := &decoder{budget: fbs.NewBudget(int64(len(b)) + budgetSlack)}
		d.customOp(&Operator{CustomOptions: b}, "custom_options")
	})
}

// Custom options whose entries share one long key string: each entry
// copied the key (three times), 2.4 GB for a 1 MB file. Now one copy of
// at most maxKeyKept bytes per key string.
func TestCustomOptionsSharedKey(t *testing.T) {
	const n, keyLen = 4000, 64 << 10
	b := hostile.FlexSharedKeys(n, keyLen)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := &decoder{budget: fbs.NewBudget(int64(len(b)) + budgetSlack)}
	c, err := d.customOp(&Operator{CustomOptions: b}, "custom_options")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Options.Keys) != n || len(c.Options.Keys[0]) > maxKeyKept+32 {
		t.Fatalf("%d keys, first of %d bytes", len(c.Options.Keys), len(c.Options.Keys[0]))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("%d-byte options allocated %d bytes", len(b), got)
	}
}
