package neuroncore

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/dtype"
)

func TestGeometry(t *testing.T) {
	if V2.SBUFUsableBytes != 180224 {
		t.Errorf("v2 usable SBUF = %d, want 180224 ((192-16)*1024)", V2.SBUFUsableBytes)
	}
	if V2.PSUMBankBytes() != 2048 {
		t.Errorf("PSUM bank = %d, want 2048 (512 fp32)", V2.PSUMBankBytes())
	}
	if V3.SBUFPartitionBytes != 224*1024 || V3.SBUFUsableBytes != 212984 {
		t.Errorf("v3 SBUF = %d/%d", V3.SBUFPartitionBytes, V3.SBUFUsableBytes)
	}
	if V2.SBUFPartitionBytes != 192*1024 {
		t.Errorf("V3 construction changed V2: %d", V2.SBUFPartitionBytes)
	}
	for _, n := range []string{"v2", "trn1", "v3", "trn2"} {
		if _, err := ArchByName(n); err != nil {
			t.Errorf("ArchByName(%q): %v", n, err)
		}
	}
	if _, err := ArchByName("v9"); err == nil {
		t.Error("ArchByName(v9) succeeded")
	}
}

func TestCostFormulas(t *testing.T) {
	a := &V2
	cases := []struct {
		name      string
		got, want int64
	}{
		{"bf16 matmul N=512", a.MatmulCycles(dtype.BFloat16, 512), 512},
		{"fp32 matmul N=512 costs 4x", a.MatmulCycles(dtype.Float32, 512), 2048},
		{"bf16 matmul N=32 hits MM_INIT_LATENCY", a.MatmulCycles(dtype.BFloat16, 32), 64},
		{"fp8 matmul N=128", a.MatmulCycles(dtype.Float8E4, 128), 128},
		{"PE transpose 128x512", a.TransposeCycles(128, 512), 128},
		{"PE transpose 32x512", a.TransposeCycles(32, 512), 64},
		{"PE transpose 16x8", a.TransposeCycles(16, 8), 16},
		{"tensor_scalar N=512", a.VectorCycles(1, 512, false), 512},
		{"tensor_tensor N=512", a.VectorCycles(2, 512, false), 1024},
		{"tensor_scalar tiny", a.VectorCycles(1, 8, false), 64},
		{"dependent tensor_scalar", a.VectorCycles(1, 512, true), 612},
		{"activation N=512", a.ActivationCycles(512), 512},
		{"activation N=16", a.ActivationCycles(16), 64},
		{"iota N=512", a.GpSimdCycles(512), 662},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d cycles, want %d", c.name, c.got, c.want)
		}
	}
	// 512 PE cycles at 2.8 GHz = 182.857 ns -> 182,858 ps (rounded up).
	if ps := a.CyclesToPs(TensorE, 512); ps != 182858 {
		t.Errorf("512 TensorE cycles = %d ps", ps)
	}
	// 512 ScalarE cycles at 1.4 GHz = 365.714 ns.
	if ps := a.CyclesToPs(ScalarE, 512); ps != 365715 {
		t.Errorf("512 ScalarE cycles = %d ps", ps)
	}
	// 17 B/ns (NKI DMA bandwidth guide, Trn1): 8 KiB on one engine =
	// 1300 + 481.9 ns.
	if ps := a.DMAPs(8192); ps < 1781000 || ps > 1783000 {
		t.Errorf("DMA of 8 KiB = %d ps", ps)
	}
	if a.DMATransfers(128) != 16 || a.DMATransfers(4) != 4 {
		t.Errorf("DMATransfers: %d %d", a.DMATransfers(128), a.DMATransfers(4))
	}
}

// The generation table: every version has its architecture, the
// documented SBUF sizes (28 MiB on v3, 32 MiB on v4), 16 DMA engines per
// core, v4's faster DMA engines, and LNC=2 only from v3 on.
func TestGenerations(t *testing.T) {
	for i, g := range Generations {
		if g.Version != i+1 || GenerationOf(g.Version) != g || g.Arch == nil || len(g.Families) == 0 {
			t.Fatalf("generation %d: %+v", i, g)
		}
		if g.Arch.DMAEngines != 16 {
			t.Errorf("%s: %d DMA engines", g.Name, g.Arch.DMAEngines)
		}
		if g.SupportsLNC(2) != (g.Version >= 3) || !g.SupportsLNC(1) {
			t.Errorf("%s: LNC sizes %v", g.Name, g.LNCSizes)
		}
	}
	if GenerationOf(0) != nil || GenerationOf(5) != nil {
		t.Error("out-of-range versions")
	}
	if total := int64(V3.Partitions) * V3.SBUFPartitionBytes; total != 28<<20 {
		t.Errorf("v3 SBUF %d", total)
	}
	if total := int64(V4.Partitions) * V4.SBUFPartitionBytes; total != 32<<20 {
		t.Errorf("v4 SBUF %d", total)
	}
	if V2.DMABytesPerNs != 17 || V3.DMABytesPerNs != 23 || V4.DMABytesPerNs != 33 {
		t.Errorf("DMA bandwidth per engine %v/%v/%v B/ns, want the NKI DMA bandwidth guide's 17/23/33", V2.DMABytesPerNs, V3.DMABytesPerNs, V4.DMABytesPerNs)
	}
	for _, n := range []string{"v4", "trn3", "gen4"} {
		if a, err := ArchByName(n); err != nil || a.Name != "v4" {
			t.Errorf("%s: %v %v", n, a, err)
		}
	}
}

// On NeuronCore-v3 VectorE streams a two-input instruction at one element
// per cycle (the Trainium2 captures' TENSOR_TENSOR: N cycles plus the
// instruction overhead); NeuronCore-v2 keeps the architecture guide's
// roughly 2N.
func TestVectorTwoInputsCycles(t *testing.T) {
	if got := V3.VectorCycles(2, 1000, false); got != 1000 {
		t.Errorf("v3 tensor_tensor of 1000 elements: %d cycles, want 1000", got)
	}
	if got := V2.VectorCycles(2, 1000, false); got != 2000 {
		t.Errorf("v2 tensor_tensor of 1000 elements: %d cycles, want 2000", got)
	}
	if got := V3.VectorCycles(1, 1000, false); got != 1000 {
		t.Errorf("v3 one-input op of 1000 elements: %d cycles, want 1000", got)
	}
}

// nki sim says it prices one physical core where the instances default
// to two per logical core (Trn2, Trn3: LNC=2) and says nothing of it on
// NeuronCore-v2.
func TestModelNotesLNC(t *testing.T) {
	for _, c := range []struct {
		arch Arch
		want bool
	}{{V2, false}, {V3, true}, {V4, true}} {
		a := c.arch
		got := strings.Contains(strings.Join(ModelNotes(&Plan{Arch: &a}), "\n"), "LNC=2")
		if got != c.want {
			t.Errorf("%s: notes mention LNC=2: %v, want %v", a.Name, got, c.want)
		}
	}
}
