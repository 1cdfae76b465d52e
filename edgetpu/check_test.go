package edgetpu

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// Every corpus model passes check without errors; the only warning real
// files draw is keras_lstm's non-deterministic DMA hints (notes, "Corpus facts").
func TestCheckCorpus(t *testing.T) {
	for _, path := range conformance.CorpusFiles(t, "edgetpu", "*.tflite") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range Check(m) {
			if d.Severity == diag.Error || d.Rule != RuleNotDeterministic && d.Rule != RuleNoEdgeTPUOp && !slices.Contains(PerformanceRules, d.Rule) {
				t.Errorf("%s: %v", filepath.Base(path), d)
			}
		}
	}
}

func exe0(m *Model) *Executable { return m.Ops[0].Packages[0].Executables[0] }

func relocsOf(e *Executable) []FieldOffset { return e.Bitstreams[0].FieldOffsets }

// Each rule: a synthetic model violating exactly it, written and read back.
func TestCheckRules(t *testing.T) {
	cases := []struct {
		rule   string
		base   string // synthetic case to start from
		mutate func(m *Model)
	}{
		{RuleMissingIdentifier, "demo", func(m *Model) { m.Ops[0].Packages[0].Identifier = "" }},
		{RuleRuntimeTooNew, "demo", func(m *Model) { m.Ops[0].Packages[0].MinRuntimeVersion = 15 }},
		{RuleRuntimeOld, "demo", func(m *Model) { m.Ops[0].Packages[0].MinRuntimeVersion = 9 }},
		{RuleMultiChip, "demo", func(m *Model) { m.Ops[0].Packages[0].VirtualChipID = -1 }},
		{RuleNoExecutables, "demo", func(m *Model) { m.Ops[0].Packages[0].Executables = nil }},
		{RuleNoExecutables, "demo", func(m *Model) { m.Ops[0].Packages = nil }},
		{RuleBatchSize, "demo", func(m *Model) { exe0(m).BatchSize = 0 }},
		{RuleExecutableTypes, "demo", func(m *Model) { m.Ops[0].Packages[0].Executables[1].Type = ExecutionOnly }},
		{RuleCachingTokenZero, "demo", func(m *Model) {
			for _, e := range m.Ops[0].Packages[0].Executables {
				e.Token = 0
			}
		}},
		{RuleTokenMismatch, "demo", func(m *Model) { exe0(m).Token = 1 }},
		{RulePackagesPerOp, "two_packages", func(m *Model) {}},
		{RuleFlexChips, "demo", func(m *Model) {
			m.Ops[0].Options.Chips, m.Ops[0].Options.HasExtra = []int64{17, 18}, true
		}},
		{RuleRelocOutside, "demo", func(m *Model) {
			e := exe0(m)
			relocsOf(e)[0].OffsetBit = int32(len(e.Bitstreams[0].Data)*8 - 16)
		}},
		{RuleRelocUnpaired, "demo", func(m *Model) {
			b := &exe0(m).Bitstreams[0]
			b.FieldOffsets = b.FieldOffsets[:len(b.FieldOffsets)-1]
		}},
		{RuleRelocUnknownLayer, "demo", func(m *Model) {
			for i := range relocsOf(exe0(m)) {
				if f := &relocsOf(exe0(m))[i]; f.Meta.Desc == InputActivation {
					f.Meta.Name = "nope"
				}
			}
		}},
		{RuleRelocBatch, "demo", func(m *Model) {
			for i := range relocsOf(exe0(m)) {
				if f := &relocsOf(exe0(m))[i]; f.Meta.Desc == InputActivation {
					f.Meta.Batch = 1
				}
			}
		}},
		{RuleHintRange, "demo", func(m *Model) {
			for i := range exe0(m).DMAHints.Hints {
				if h := &exe0(m).DMAHints.Hints[i]; h.Meta.Desc == InputActivation && h.Kind == HintDescriptor {
					h.SizeInBytes += 1000
				}
			}
		}},
		{RuleHintChunk, "demo", func(m *Model) { exe0(m).DMAHints.Hints[0].Chunk = 5 }},
		{RuleNotDeterministic, "demo", func(m *Model) { exe0(m).DMAHints.FullyDeterministic = false }},
		{RuleOutputLayout, "demo", func(m *Model) {
			lay := exe0(m).OutputLayers[0].Output.Layout
			lay.TileOffset[len(lay.TileOffset)-1] += 1000
		}},
		{RuleShapeInfo, "shape_info", func(m *Model) {
			exe0(m).OutputLayers[0].Output.ShapeInfo.Slices[1].Shape[1].End = 99
		}},
		{RuleNarrowMemory, "demo", func(m *Model) { exe0(m).NarrowMemPerTile = NarrowMemoryPerTile + 1 }},
		{RuleLayerSize, "demo", func(m *Model) {
			e := exe0(m)
			e.InputLayers[0].SizeBytes = 10
			for i := range e.DMAHints.Hints {
				if h := &e.DMAHints.Hints[i]; h.Meta.Desc == InputActivation {
					h.SizeInBytes = 10
				}
			}
		}},
		{RuleDataType, "demo", func(m *Model) { exe0(m).InputLayers[0].DataType = 6 }},
		{RuleTensorMismatch, "demo", func(m *Model) { m.TFLite.Subgraphs[0].Tensors[0].Type = TensorFloat32 }},
		{RuleZeroPointMismatch, "demo", func(m *Model) { m.TFLite.Subgraphs[0].Tensors[0].ZeroPoint[0] = 5 }},
		{RuleVariableOutput, "demo", func(m *Model) {
			e := exe0(m)
			e.OutputLayers = append(e.OutputLayers, synthLayer(LayerSpec{Name: "input" + VariableOutputSuffix, Y: 1, X: 1, Z: 4, DataType: FixedPoint8, Scale: 1}, true))
		}},
		{RuleExecutionCount, "demo", func(m *Model) { exe0(m).OutputLayers[1].ExecutionCount = 0 }},
		{RuleNoEdgeTPUOp, "demo", func(m *Model) {
			// The edgetpu-custom-op code stays listed (detection sees an
			// Edge TPU model), but no operator uses it.
			m.TFLite.OperatorCodes = append(m.TFLite.OperatorCodes, OperatorCode{DeprecatedBuiltinCode: 25, BuiltinCode: 25, Version: 1})
			m.TFLite.Subgraphs[0].Operators[0].OpcodeIndex = 1
			m.Ops = nil
		}},
		// The demo streams 8 KiB of its 32 KiB of parameters, and its
		// tiled outputs are re-laid out on the CPU.
		{RuleStreamedParams, "demo", func(m *Model) {}},
		{RuleOutputRelayout, "demo", func(m *Model) {}},
		{RuleScratchHost, "demo", func(m *Model) {
			e := exe0(m)
			e.DMAHints.Hints = append(e.DMAHints.Hints, DMAHint{Kind: HintDescriptor, Direction: Infeed, Meta: Meta{Desc: ScratchBase}, SizeInBytes: int32(e.ScratchSizeBytes)})
		}},
		{RuleCPURoundTrip, "demo", func(m *Model) {
			// A CPU operator between two uses of the Edge TPU op.
			t := m.TFLite
			t.OperatorCodes = append(t.OperatorCodes, OperatorCode{DeprecatedBuiltinCode: 25, BuiltinCode: 25, Version: 1})
			sg := &t.Subgraphs[0]
			tpu := sg.Operators[0]
			cpu := Operator{OpcodeIndex: uint32(len(t.OperatorCodes) - 1), Inputs: tpu.Outputs[:1], Outputs: tpu.Outputs[:1]}
			sg.Operators = []Operator{tpu, cpu, tpu}
			second := *m.Ops[0]
			second.Operator = 2
			m.Ops = append(m.Ops, &second)
		}},
		{RuleLegacyExecutable, "demo", func(m *Model) {
			// Compiler 1.x: key "4" holds the bare executable.
			exe, err := WriteExecutable(exe0(m))
			if err != nil {
				t.Fatal(err)
			}
			m.TFLite.Subgraphs[0].Operators[0].CustomOptions = EncodeOptions(CustomOptions{Version: 0, ChipName: "beagle", ExecutionPreference: -1}, [][]byte{exe})
			m.Ops = nil
		}},
		{RuleDuplicateLayerName, "demo", func(m *Model) {
			c := m.Ops[0].Packages[0].Executables[1]
			l := synthLayer(DemoSpec().Inputs[0], false)
			c.InputLayers, c.HasInputLayersVec = []*Layer{l, l}, true
		}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.rule] = true
		t.Run(c.rule, func(t *testing.T) {
			m := syntheticCases()[c.base]
			c.mutate(m)
			b, err := Write(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(b)
			if err != nil {
				t.Fatal(err)
			}
			rep := Check(got)
			if _, ok := finding(rep, c.rule); !ok {
				t.Fatalf("%s not reported: %v", c.rule, rep)
			}
			for _, d := range rep {
				if d.Rule != c.rule && !slices.Contains(PerformanceRules, d.Rule) {
					t.Errorf("unexpected %v", d)
				}
			}
		})
	}
	for _, r := range diag.Rules() {
		if len(r.ID) > 8 && r.ID[:8] == "edgetpu/" && !covered[r.ID] {
			t.Errorf("rule %s has no test", r.ID)
		}
	}
}

func TestSyntheticCasesClean(t *testing.T) {
	for name, m := range syntheticCases() {
		for _, d := range Check(m) {
			switch {
			case slices.Contains(PerformanceRules, d.Rule),
				name == "no_identifier" && d.Rule == RuleMissingIdentifier,
				name == "two_packages" && d.Rule == RulePackagesPerOp,
				name == "multi_chip_package" && d.Rule == RuleMissingIdentifier:
			default:
				t.Errorf("%s: %v", name, d)
			}
		}
	}
}
