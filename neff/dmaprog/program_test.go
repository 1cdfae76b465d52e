package dmaprog

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
)

// countDescs counts the desc objects of every engine JSON directly from
// the model, independently of the conversion.
func countDescs(m *neff.Model) int {
	n := 0
	for _, sg := range m.Subgraphs {
		for _, e := range sg.Engines {
			if e.JSON == nil {
				continue
			}
			for _, ent := range e.JSON.DMA {
				if ent != nil {
					n += len(ent.Desc)
				}
			}
		}
	}
	return n
}

func TestCorpus(t *testing.T) {
	for _, path := range conformance.CorpusFiles(t, "neff", "*.neff") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, err := neff.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			progs := FromModel(m)
			if len(progs) != len(m.Subgraphs) || len(progs) == 0 {
				t.Fatalf("%d programs for %d subgraphs", len(progs), len(m.Subgraphs))
			}
			total := 0
			for _, p := range progs {
				if len(p.Problems) > 0 {
					t.Errorf("%s: %v", p.Subgraph, p.Problems)
				}
				total += len(p.Descriptors)
				// A subgraph may move nothing (the second LNC=2 half of a
				// small trn2 kernel declares no queue set), but one that
				// moves data has queue sets.
				if len(p.Queues) == 0 && len(p.Descriptors) > 0 {
					t.Errorf("%s: descriptors but no queue sets", p.Subgraph)
				}
				if len(p.Layout.StateBuffers) != 1 {
					t.Errorf("%s: state buffers %v", p.Subgraph, p.Layout.StateBuffers)
				}
				// Addresses honour alignment and do not overlap.
				var end int64
				for _, v := range p.Vars {
					if v.Address < 0 {
						continue
					}
					if v.Address%v.Alignment != 0 || v.Address < end {
						t.Errorf("%s: var %s at %d (align %d) after end %d", p.Subgraph, v.Name, v.Address, v.Alignment, end)
					}
					end = v.Address + v.Size
				}
				// Every descriptor executes against zeroed inputs.
				mem := p.NewMemory(0)
				ex, err := p.Execute(mem)
				if err != nil {
					t.Fatal(err)
				}
				if ex.Descriptors != len(p.Descriptors) {
					t.Errorf("executed %d of %d", ex.Descriptors, len(p.Descriptors))
				}
				// File variables were loaded from their constants.
				for _, name := range mem.Allocated() {
					v, _ := p.Var(name)
					if v.Type != "file" {
						continue
					}
					data, err := p.constantData(v)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := mem.Bytes(name)
					if !bytes.Equal(b[:len(data)], data) && !written(p, name) {
						t.Errorf("constant %s not loaded", name)
					}
				}
				a := dma.Analyze(p.Descriptors, p.Layout)
				if a.Descriptors != len(p.Descriptors) {
					t.Errorf("analysis saw %d descriptors", a.Descriptors)
				}
				res, _, err := dma.Simulate(p.Descriptors, p.Queues, dma.DefaultSimParams())
				if err != nil {
					t.Fatal(err)
				}
				if res.Descriptors != len(p.Descriptors) || (len(p.Descriptors) > 0 && res.TotalNs <= 0) {
					t.Errorf("simulation: %+v", res)
				}
			}
			if want := countDescs(m); total != want {
				t.Errorf("%d descriptors converted, the engines hold %d", total, want)
			}
		})
	}
}

func written(p *Program, name string) bool {
	for _, d := range p.Descriptors {
		if d.Transfer.To.Var == name {
			return true
		}
	}
	return false
}

func f32s(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// build makes a NEFF with an input, a constant, and an output: the input
// is loaded into partitions 0..1 of the state buffer, the constant into
// partition 2, and both are stored to the output (input cast to float16
// would need an engine; the DMA program only moves bytes).
func build(t *testing.T) *neff.Model {
	t.Helper()
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 16)
	cst := f32s(7, 8)
	sg.AddConstant("w", "w.bin", 8, cst)
	sg.AddVar("out", "output", 24)
	sg.AddQueue("qSP", "in", 2, "sp")
	sg.AddQueue("qPool", "in", 1, "pool")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSP", "load-in", neff.Copy("in", 0, []int64{8, 2}, []int64{1, 8}, "SB", 0, []int64{8, 2}, []int64{1, neff.SBPartitionStride}))
	sp.AddDMA("qSP", "load-w", neff.Copy("w", 0, []int64{8}, []int64{1}, "SB", 2*neff.SBPartitionStride, []int64{8}, []int64{1}))
	pool := sg.Engine("pool", "Pool")
	// The store is listed first (Pool before SP): Order must still run it last.
	pool.AddDMA("qPool", "store", neff.Copy("SB", 0, []int64{8, 3}, []int64{1, neff.SBPartitionStride}, "out", 0, []int64{8, 3}, []int64{1, 8}))
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep := neff.Check(m, neff.DefaultRuntime); rep.HasErrors() {
		t.Fatalf("built NEFF does not check: %v", rep)
	}
	return m
}

func TestBuiltProgram(t *testing.T) {
	m := build(t)
	p := FromModel(m)[0]
	if len(p.Problems) > 0 || len(p.Descriptors) != 3 {
		t.Fatalf("descriptors %d, problems %v", len(p.Descriptors), p.Problems)
	}
	if want := []dma.QueueSet{{Name: "qPool", NumQueues: 1}, {Name: "qSP", NumQueues: 2}}; len(p.Queues) != 2 || p.Queues[0] != want[0] || p.Queues[1] != want[1] {
		t.Errorf("queues %v", p.Queues)
	}
	w, _ := p.Var("w")
	if w.Alignment != 64 || w.Address%64 != 0 || w.Address < 16 {
		t.Errorf("constant laid out at %d align %d", w.Address, w.Alignment)
	}
	sb, _ := p.Var("SB")
	if sb.Address != -1 || sb.Size != neff.SBPartitions*neff.SBPartitionStride {
		t.Errorf("state buffer %+v", sb)
	}
	if got := p.Order(); got[len(got)-1] != 0 {
		t.Errorf("order %v: the store (descriptor 0) must run last", got)
	}
	if o := p.Ordered(); len(o) != 3 || o[2].Comment != "store" || o[0].Comment != "load-in" {
		t.Errorf("ordered %v", o)
	}
	mem := p.NewMemory(0)
	in := f32s(1, 2, 3, 4)
	if err := mem.SetInput("in", in); err != nil {
		t.Fatal(err)
	}
	if err := mem.SetInput("nope", nil); err == nil {
		t.Error("unknown variable accepted")
	}
	if err := mem.SetInput("in", make([]byte, 17)); err == nil {
		t.Error("oversized input accepted")
	}
	ex, err := p.Execute(mem)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Descriptors != 3 || ex.Bytes != 16+8+24 {
		t.Errorf("executed %+v", ex)
	}
	out, _ := mem.Bytes("out")
	if want := f32s(1, 2, 3, 4, 7, 8); !bytes.Equal(out, want) {
		t.Errorf("out = %v, want %v", out, want)
	}
}

func TestBudget(t *testing.T) {
	p := FromModel(build(t))[0]
	mem := p.NewMemory(1 << 20) // smaller than the 32 MiB state buffer
	if _, err := p.Execute(mem); err == nil {
		t.Fatal("state buffer allocated past the budget")
	}
}

// Patterns that would run without bound are left out as problems.
func TestLimits(t *testing.T) {
	b := neff.NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 16)
	sg.AddVar("out", "output", 16)
	sg.AddQueue("q", "in", 1, "sp")
	sp := sg.Engine("sp", "SP")
	// Re-reads byte 0 2^40 times: within the variable, but 1 TiB moved.
	sp.AddDMA("q", "huge", neff.Copy("in", 0, []int64{1, 1 << 20, 1 << 20}, []int64{1, 0, 0}, "SB", 0, []int64{1, 1 << 20, 1 << 20}, []int64{1, 0, 0}))
	// 2^23 one-byte runs of 16 B... (steps[0] = 0 makes every byte a run).
	sp.AddDMA("q", "runs", neff.Copy("in", 0, []int64{1 << 23}, []int64{0}, "out", 0, []int64{1 << 23}, []int64{0}))
	sp.AddDMA("q", "ok", neff.Copy("in", 0, []int64{16}, []int64{1}, "out", 0, []int64{16}, []int64{1}))
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	p := FromModel(m)[0]
	if len(p.Descriptors) != 1 || len(p.Problems) != 2 {
		t.Fatalf("descriptors %d, problems %v", len(p.Descriptors), p.Problems)
	}
	for i, want := range []string{"bytes, over", "runs, over"} {
		if !strings.Contains(p.Problems[i].Message, want) {
			t.Errorf("problem %d: %s", i, p.Problems[i].Message)
		}
	}
}
