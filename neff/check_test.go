package neff

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/sbinet/npyio/npy"
)

// baseBuilder is a small valid NEFF: input -> SB -> output, a constant.
func baseBuilder(t testing.TB) *Builder {
	b := NewBuilder("t.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", 4096)
	sg.AddVar("out", "output", 4096)
	var npyBuf bytes.Buffer
	if err := npy.Write(&npyBuf, make([]float32, 16)); err != nil {
		t.Fatal(err)
	}
	sg.AddConstant("w", "w.npy", 64, npyBuf.Bytes())
	sg.AddQueue("qIn", "in", 16, "sp")
	sg.AddQueue("qOut", "out", 16, "pool")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qIn", "load", Copy("in", 0, []int64{32, 128}, []int64{1, 32}, "SB", 0, []int64{32, 128}, []int64{1, SBPartitionStride}))
	pool := sg.Engine("pool", "Pool")
	pool.AddDMA("qOut", "store", Copy("SB", 0, []int64{32, 128}, []int64{1, SBPartitionStride}, "out", 0, []int64{32, 128}, []int64{1, 32}))
	b.Signature.Inputs["in"] = SigTensor{ID: 0, DType: "float32", Shape: []int64{1024}}
	b.Signature.Outputs["out"] = SigTensor{ID: 0, DType: "float32", Shape: []int64{1024}}
	return b
}

func checkBuilder(t *testing.T, b *Builder) diag.Report {
	t.Helper()
	raw, err := b.Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := CheckBytes(raw, DefaultLimits(), DefaultRuntime)
	return rep
}

func TestBaseIsClean(t *testing.T) {
	if rep := checkBuilder(t, baseBuilder(t)); len(rep) != 0 {
		t.Fatalf("base NEFF has findings:\n%v", rep)
	}
}

func sg0(b *Builder) *SubgraphBuilder { return b.Subgraphs[0] }
func desc0(b *Builder, engine int) *Desc {
	return sg0(b).Engines[engine].JSON.DMA[0].Desc[0]
}

// TestRules: each case violates exactly one rule.
func TestRules(t *testing.T) {
	cases := []struct {
		rule string
		mod  func(b *Builder)
	}{
		{RuleVersionTooNew, func(b *Builder) { b.Header.NeffVersionMajor = 3 }},
		{RuleNewerFeatures, func(b *Builder) { b.Header.NeffVersionMajor, b.Header.FeatureBits = 2, 0x100 }},
		{RuleNoKelf, func(b *Builder) { b.Files["kelf-0.json"] = nil }},
		{RuleJSONSyntax, func(b *Builder) { b.Files["sg00/SP.json"] = []byte(`{"dma":[{"id":"zero"}]}`) }},
		{RuleMetadataJSON, func(b *Builder) { b.Files["sg00/tensor_map.json"] = []byte("{") }},
		{RuleMissingMember, func(b *Builder) { sg0(b).Def.Var["w"].FileName = ptr("absent.npy") }},
		{RuleUnknownTarget, func(b *Builder) { b.Target = "pluto" }},
		{RuleQueueType, func(b *Builder) { sg0(b).Def.DMAQueue["qIn"].Type = ptr("sideways") }},
		{RuleNumQueues, func(b *Builder) { sg0(b).Def.DMAQueue["qIn"].NumQueues = ptr(int64(17)) }},
		{RuleFabricPath, func(b *Builder) { sg0(b).Def.DMAQueue["qIn"].FabricPath = ptr("scenic") }},
		{RuleArchField, func(b *Builder) { sg0(b).Engines[0].JSON.DMA[0].RemoteSemaphores = []int64{1} }},
		{RuleVarRequired, func(b *Builder) { sg0(b).Def.Var["in"].Size = nil }},
		{RuleVarType, func(b *Builder) { sg0(b).Def.Var["in"].Type = ptr("register") }},
		{RuleVarIDDuplicate, func(b *Builder) {
			// a duplicate that leaves the ids dense: 0,1,2,3 -> 0,1,1,2 plus a new 3
			sg0(b).Def.Var["out"].VarID = ptr(int64(1))
			sg0(b).Def.Var["w"].VarID = ptr(int64(2))
			sg0(b).AddVar("extra", "tmp-buf", 64).VarID = ptr(int64(3))
		}},
		{RuleVarIDDense, func(b *Builder) { sg0(b).Def.Var["w"].VarID = ptr(int64(7)) }},
		{RuleAlignment, func(b *Builder) { sg0(b).Def.Var["w"].Alignment = ptr(int64(48)) }},
		{RuleVarField, func(b *Builder) { sg0(b).Def.Var["in"].BackingVariableOff = ptr(int64(0)) }},
		{RuleVarRef, func(b *Builder) { sg0(b).AddVar("p", "pointer", 8).ReferencedVarID = ptr(int64(99)) }},
		{RuleNoOutput, func(b *Builder) { sg0(b).Def.Var["out"].Type = ptr("tmp-buf") }},
		{RuleDescRequired, func(b *Builder) { desc0(b, 0).ToOff = nil }},
		{RuleDescQueue, func(b *Builder) { sg0(b).Engines[0].JSON.DMA[0].Queue = ptr("qNowhere") }},
		{RuleDescVar, func(b *Builder) { desc0(b, 0).From = ptr("ghost") }},
		{RulePatternShape, func(b *Builder) { desc0(b, 0).FromSteps = []int64{1, 32, 4096} }},
		{RuleDType, func(b *Builder) { desc0(b, 0).FromDType = ptr("float128") }},
		{RuleOp, func(b *Builder) { desc0(b, 0).Op = ptr("xor") }},
		{RuleFromArr, func(b *Builder) {
			d := desc0(b, 0)
			for i := 0; i < 17; i++ {
				d.FromArr = append(d.FromArr, &Source{From: d.From, FromOff: d.FromOff, FromSteps: d.FromSteps, FromSizes: d.FromSizes})
			}
			d.From, d.FromOff, d.FromSteps, d.FromSizes, d.Op = nil, nil, nil, nil, ptr("add")
		}},
		{RuleOpField, func(b *Builder) { desc0(b, 0).Scale = ptr(2.0) }},
		{RuleConstantNull, func(b *Builder) { d := desc0(b, 0); d.Op, d.ConstantDType = ptr("max"), ptr("float32") }},
		{RulePatternBounds, func(b *Builder) { desc0(b, 0).FromOff = ptr(int64(64)) }},
		{RuleBinSize, func(b *Builder) { sg0(b).Engines[0].Instr = make([]byte, 65) }},
		{RuleConstantSize, func(b *Builder) { sg0(b).Def.Var["w"].Size = ptr(int64(32)) }},
		{RuleSignatureMissing, func(b *Builder) { b.Signature.Inputs["phantom"] = SigTensor{} }},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			b := baseBuilder(t)
			c.mod(b)
			rep := checkBuilder(t, b)
			if len(rep) == 0 {
				t.Fatalf("no finding")
			}
			for _, d := range rep {
				if d.Rule != c.rule {
					t.Errorf("unexpected %v", d)
				}
			}
			if _, ok := diag.Lookup(c.rule); !ok {
				t.Errorf("rule %s not registered", c.rule)
			}
		})
	}
}

// TestFeatureBitsNamedRuntime: against a runtime the user names, feature
// bits it does not support are an error (the default runtime only warns).
func TestFeatureBitsNamedRuntime(t *testing.T) {
	b := baseBuilder(t)
	b.Header.NeffVersionMajor, b.Header.FeatureBits = 2, 0x100
	raw, err := b.Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt := DefaultRuntime
	rt.Assumed = false
	rep, _ := CheckBytes(raw, DefaultLimits(), rt)
	if len(rep) != 1 || rep[0].Rule != RuleFeatureBits || rep[0].Severity != diag.Error {
		t.Fatalf("%v", rep)
	}
	rt.Features |= 0x100
	if rep, _ := CheckBytes(raw, DefaultLimits(), rt); len(rep) != 0 {
		t.Fatalf("supported: %v", rep)
	}
}

// TestStateBufferBounds: a run past the partition's capacity is caught even
// though it stays below the 262144-byte stride.
func TestStateBufferBounds(t *testing.T) {
	b := baseBuilder(t)
	d := desc0(b, 0)
	d.ToOff = ptr(SBPartitionBytes(ArchTrn1) - 16) // 32-byte runs overflow by 16
	rep := checkBuilder(t, b)
	if len(rep) != 1 || rep[0].Rule != RulePatternBounds || !strings.Contains(rep[0].Message, "partition 0") {
		t.Fatalf("%v", rep)
	}
	b = baseBuilder(t)
	b.Target = "cayman" // 224 KiB partitions on trn2
	desc0(b, 0).ToOff = ptr(SBPartitionBytes(ArchTrn1) - 16)
	if rep := checkBuilder(t, b); len(rep) != 0 {
		t.Fatalf("trn2: %v", rep)
	}
}

// TestStateBufferBoundsHuge: patterns declaring billions of runs are
// bounded arithmetically or left alone, never walked run by run.
func TestStateBufferBoundsHuge(t *testing.T) {
	for _, c := range []struct {
		sizes, steps []int64
		err          bool
	}{
		{[]int64{1, 1000, 1000, 1000}, []int64{1, 2, 0, 0}, false},          // 10^9 runs inside partition 0
		{[]int64{1, 1 << 20, 1 << 20, 1 << 10}, []int64{1, 0, 0, 0}, false}, // 2^50 runs, one byte
		{[]int64{1, 1 << 20, 1 << 20, 1 << 10}, []int64{1, 1, 0, 0}, false}, // too many to walk: no claim
		{[]int64{64, 128, 1 << 20}, []int64{1, SBPartitionStride, 0}, false},
		{[]int64{64, 4, 1 << 10}, []int64{1, 196600, 0}, true}, // walked: crosses partition 0's end
	} {
		b := baseBuilder(t)
		d := desc0(b, 0)
		d.ToSizes, d.ToSteps = c.sizes, c.steps
		d.From = ptr("SB")
		d.FromSizes, d.FromSteps = []int64{1}, []int64{1}
		d.To = ptr("SB")
		rep := checkBuilder(t, b)
		if got := hasRule(rep, RulePatternBounds); got != c.err {
			t.Errorf("%v/%v: %v", c.sizes, c.steps, rep)
		}
	}
}

// TestContainerRulesInCheck: read failures become diagnostics.
func TestContainerRulesInCheck(t *testing.T) {
	raw, _ := baseBuilder(t).Bytes(PackOptions{})
	bad := append([]byte(nil), raw...)
	bad[offHash] ^= 1
	rep, _ := CheckBytes(bad, DefaultLimits(), DefaultRuntime)
	if len(rep) != 1 || rep[0].Rule != RuleHashMismatch {
		t.Fatalf("hash: %v", rep)
	}
	bad = append(append([]byte(nil), raw...), 0)
	rep, _ = CheckBytes(bad, DefaultLimits(), DefaultRuntime)
	if len(rep) != 1 || rep[0].Rule != RuleTrailingBytes {
		t.Fatalf("trailing: %v", rep)
	}
	bad = append([]byte(nil), raw...)
	bad[len(bad)-1] = 1
	rep, _ = CheckBytes(bad, DefaultLimits(), DefaultRuntime)
	if !hasRule(rep, RulePaddingNonZero) {
		t.Fatalf("padding: %v", rep)
	}
	bad = append([]byte(nil), raw...)
	bad[0] = 9
	rep, _ = CheckBytes(bad, DefaultLimits(), DefaultRuntime)
	if len(rep) != 1 || rep[0].Rule != RulePkgVersion {
		t.Fatalf("pkg: %v", rep)
	}
}

func hasRule(rep diag.Report, id string) bool {
	for _, d := range rep {
		if d.Rule == id {
			return true
		}
	}
	return false
}

// TestDescObjectForm: the spec's single-object desc reads like an array.
func TestDescObjectForm(t *testing.T) {
	in := `{"id":1,"queue":"q","desc":{"from":"a","to":"b","op":"cast","x_future":7},"y_future":[1]}`
	var e DMAEntry
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Desc) != 1 || !e.DescObject || e.Desc[0].OpName() != "cast" {
		t.Fatalf("%+v", e)
	}
	out, _ := json.Marshal(e)
	if !jsonEqual(t, []byte(in), out) {
		t.Fatalf("round trip:\n%s\n%s", in, out)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestDescribeFeatures(t *testing.T) {
	for bits, want := range map[uint64]string{
		0x300:            "0x300 (0x100 neff_feature_indirect_memcpy_bound_check, 0x200 neff_feature_DMA_desc_higher_dim)",
		1<<63 | 1<<40:    "0x8000010000000000 (0x10000000000, 0x8000000000000000)",
		0x400 | 0x800000: "0x800400 (0x400 neff_feature_vnc, 0x800000)",
	} {
		if got := DescribeFeatures(bits); got != want {
			t.Errorf("%#x: %q, want %q", bits, got, want)
		}
	}
}

// A trn2 NEFF of neuronx-cc 2.21 (NEFF 2.0, bits 0xc00, target cayman,
// LNC 2) is loaded by its own SDK's runtime: with the compiler named in
// info.json the bits beyond the oldest described runtime are an info that
// names that release, not a warning every such file carries. Without a
// compiler they stay a warning; against a named runtime an error.
func TestFeatureBitsOwnRelease(t *testing.T) {
	trn2 := func(info bool) *Builder {
		b := baseBuilder(t)
		b.Target = "cayman"
		b.Header.NeffVersionMajor, b.Header.FeatureBits, b.Header.LNCSize = 2, 0xc00, 2
		if info {
			b.Files["info.json"] = []byte(`{"tool_version": "2.21.18209.0+043b1bf7", "num_tpb": 1}`)
		}
		return b
	}
	rep := checkBuilder(t, trn2(true))
	if len(rep) != 1 || rep[0].Rule != RuleFeaturesRuntime || rep[0].Severity != diag.Info ||
		!strings.Contains(rep[0].Message, "Neuron SDK 2.26") || !strings.Contains(rep[0].Message, "neff_feature_vnc") {
		t.Fatalf("with the compiler named: %v", rep)
	}
	if rep := checkBuilder(t, trn2(false)); len(rep) != 1 || rep[0].Rule != RuleNewerFeatures {
		t.Fatalf("without the compiler: %v", rep)
	}
	raw, err := trn2(true).Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt := DefaultRuntime
	rt.Assumed = false
	if rep, _ := CheckBytes(raw, DefaultLimits(), rt); len(rep) != 1 || rep[0].Rule != RuleFeatureBits {
		t.Fatalf("named runtime: %v", rep)
	}
	m, err := OpenBytes(raw, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	hw := HardwareOf(m)
	if hw.Version != 3 || hw.LNC != 2 || hw.PhysicalCores != 2 || !slices.Contains(hw.Families, "trn2") || !strings.Contains(hw.Runtime, "2.26") {
		t.Fatalf("hardware %+v", hw)
	}
}
