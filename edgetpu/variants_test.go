package edgetpu

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/fbs"
)

// Valid variations real compiles can show (other compiler versions, other
// models) that the corpus may lack. Each is written, read back, checked
// (no error may be reported) and run through the analyses the commands
// use (summary text, memory, link, relayout validation, DMA plan).

func mainExe(m *Model) *Executable { return m.Ops[0].Packages[0].Main() }

func outputNamed(e *Executable, name string) *Layer {
	for _, l := range e.OutputLayers {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// setLayout gives an output layer a tiled layout of ty x tx tiles.
func setLayout(l *Layer, ty, tx int32) {
	lay, size := TiledLayout(l.Y, l.X, l.Z, l.ElemSize(), ty, tx)
	l.Output.Layout, l.SizeBytes = lay, size
}

// fixHints makes the descriptor hints of a layer cover its size.
func fixHints(e *Executable) {
	if e.DMAHints == nil {
		return
	}
	for i := range e.DMAHints.Hints {
		h := &e.DMAHints.Hints[i]
		if h.Kind != HintDescriptor {
			continue
		}
		for _, l := range append(append([]*Layer{}, e.InputLayers...), e.OutputLayers...) {
			if l.Name == h.Meta.Name && (h.Meta.Desc == InputActivation || h.Meta.Desc == OutputActivation) {
				h.SizeInBytes = l.SizeBytes
			}
		}
	}
}

// withSpec builds the demo with a modified spec.
func withSpec(f func(s *Spec)) *Model {
	s := DemoSpec()
	f(&s)
	return Synthetic(s)
}

// appendOp adds a second Edge TPU op (own tensors, own package) after a
// builtin CPU op to subgraph si of m.
func appendOp(m *Model, si int, s Spec) {
	t := m.TFLite
	softmax := int32(len(t.OperatorCodes))
	t.OperatorCodes = append(t.OperatorCodes, OperatorCode{DeprecatedBuiltinCode: 25, BuiltinCode: 25, Version: 1})
	sg := &t.Subgraphs[si]
	sg.Operators = append(sg.Operators, Operator{OpcodeIndex: uint32(softmax), Inputs: []int32{sg.Outputs[len(sg.Outputs)-1]}, Outputs: []int32{int32(len(sg.Tensors))}})
	sg.Tensors = append(sg.Tensors, Tensor{Name: "softmax", Shape: []int32{1, 10}, Type: TensorUint8})
	op := Operator{OpcodeIndex: 0}
	for _, l := range append(append([]LayerSpec{}, s.Inputs...), s.Outputs...) {
		sg.Tensors = append(sg.Tensors, Tensor{Name: l.Name + "_2", Shape: []int32{1, l.Y, l.X, l.Z}, Type: TensorTypeOf(l.DataType),
			Scale: []float32{l.Scale}, ZeroPoint: []int64{int64(l.ZeroPoint)}})
	}
	base := int32(len(sg.Tensors) - len(s.Inputs) - len(s.Outputs))
	for i := range s.Inputs {
		op.Inputs = append(op.Inputs, base+int32(i))
	}
	for i := range s.Outputs {
		op.Outputs = append(op.Outputs, base+int32(len(s.Inputs)+i))
	}
	sg.Operators = append(sg.Operators, op)
	m.Ops = append(m.Ops, &CustomOp{Subgraph: si, Operator: len(sg.Operators) - 1, Options: CustomOptions{Version: 0, ExecutionPreference: -1},
		Packages: []*Package{SynthPackage(s)}})
}

// rawOptions makes m's single Edge TPU op carry the given FlexBuffer map
// verbatim (key "4" is the op's package).
func rawOptions(t *testing.T, m *Model, build func(pkg []byte) map[string]fbs.FlexValue) []byte {
	t.Helper()
	pkg, err := WritePackage(m.Ops[0].Packages[0])
	if err != nil {
		t.Fatal(err)
	}
	op := &m.TFLite.Subgraphs[0].Operators[0]
	op.CustomOptions = fbs.EncodeFlexMap(build(pkg))
	m.Ops = nil
	b, err := Write(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func validVariants(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	add := func(name string, m *Model) {
		b, err := Write(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	for v := int32(10); v <= MaxRuntimeVersion; v++ {
		m := Synthetic(DemoSpec())
		m.Ops[0].Packages[0].MinRuntimeVersion = v
		add("runtime_version_"+string(rune('0'+v/10))+string(rune('0'+v%10)), m)
	}

	// Optional package fields absent.
	m := Synthetic(DemoSpec())
	p := m.Ops[0].Packages[0]
	p.CompilerVersion, p.Signature, p.ModelIdentifier = "", nil, ""
	p.KeypairVersion, p.CompilerVersion = 2, "16.0.384591198"
	add("package_fields", m)

	// A single STAND_ALONE executable, with and without a type field and
	// a token; one with no DMA hints (the PCIe driver ignores them).
	for _, c := range []struct {
		name    string
		hasType bool
		token   uint64
		hints   bool
	}{{"stand_alone_typed", true, 0, true}, {"stand_alone_untyped", false, 0, true}, {"stand_alone_token", false, 7, true}, {"stand_alone_no_hints", true, 0, false}} {
		m := withSpec(func(s *Spec) { s.StreamedParams = 32 << 10 })
		p := m.Ops[0].Packages[0]
		e := p.Executables[0]
		p.Executables = p.Executables[:1]
		e.Type, e.HasType, e.Token = StandAlone, c.hasType, c.token
		if !c.hints {
			e.DMAHints, e.HasDMAHints = nil, false
		}
		add(c.name, m)
	}

	// Three executables (STAND_ALONE runs), caching token 0 on a 3-set.
	m = Synthetic(DemoSpec())
	p = m.Ops[0].Packages[0]
	st := SynthPackage(DemoSpec()).Executables[0]
	st.Type, st.Token = StandAlone, 0
	p.Executables = append([]*Executable{st}, p.Executables...)
	add("three_executables_standalone_first", m)

	// Everything cached (nothing streamed), no scratch.
	add("all_cached_no_scratch", withSpec(func(s *Spec) { s.StreamedParams, s.Scratch = 0, 0 }))
	// Nothing cached: a caching executable without parameters would not
	// be emitted; a big model streaming everything is a stand-alone one.
	add("big_cached", withSpec(func(s *Spec) { s.CachedParams = 9 << 20 }))

	// Layers without numerics or shape; 1-D output without OutputLayer
	// or with an empty layout table; an output of one row (y > 1, x == 1).
	m = Synthetic(DemoSpec())
	e := mainExe(m)
	for _, l := range append(append([]*Layer{}, e.InputLayers...), e.OutputLayers...) {
		l.Numerics, l.Shape, l.HasShape = nil, nil, false
	}
	outputNamed(e, "logits").Output.Layout = &OutputLayout{}
	add("no_numerics_no_shape_empty_1d_layout", m)

	m = Synthetic(DemoSpec())
	l := outputNamed(mainExe(m), "logits")
	l.Output, l.Kind = nil, LayerNone
	add("1d_output_without_output_layer", m)

	m = withSpec(func(s *Spec) { s.Outputs[0].Y, s.Outputs[0].X, s.Outputs[0].Z = 12, 1, 7 })
	add("column_output", m)

	for _, tiles := range [][2]int32{{1, 1}, {2, 3}, {4, 4}, {8, 8}} {
		m := withSpec(func(s *Spec) { s.Outputs[0].Y, s.Outputs[0].X, s.Outputs[0].Z = 9, 11, 5 })
		setLayout(outputNamed(mainExe(m), "features"), tiles[0], tiles[1])
		fixHints(mainExe(m))
		add("tiles_"+string(rune('0'+tiles[0]))+"x"+string(rune('0'+tiles[1])), m)
	}

	// Layout maps longer than the dimensions (only [0, y) and [0, x) are
	// read).
	m = Synthetic(DemoSpec())
	lay := outputNamed(mainExe(m), "features").Output.Layout
	lay.YTile, lay.YLocal = append(lay.YTile, 0, 0), append(lay.YLocal, 0, 0)
	lay.XTile, lay.XLocal, lay.RowSize = append(lay.XTile, 0), append(lay.XLocal, 0), append(lay.RowSize, 0)
	add("layout_maps_longer", m)

	// Data types: 16-bit, signed 32-bit and float outputs, int8 host
	// tensors, HALF with FLOAT16 tensors.
	add("int16_io", withSpec(func(s *Spec) {
		s.Inputs[0].DataType, s.Outputs[0].DataType, s.Outputs[1].DataType = FixedPoint16, FixedPoint16, SignedFixedPoint16
	}))
	add("int32_output", withSpec(func(s *Spec) { s.Outputs[1].DataType = SignedFixedPoint32 }))
	add("float_output", withSpec(func(s *Spec) { s.Outputs[1].DataType = Single }))
	add("half_output", withSpec(func(s *Spec) { s.Outputs[1].DataType = Half }))
	add("int8_io", withSpec(func(s *Spec) {
		s.Inputs[0].DataType, s.Outputs[0].DataType = SignedFixedPoint8, SignedFixedPoint8
		s.Inputs[0].ZeroPoint = 0
	}))
	m = Synthetic(DemoSpec())
	m.TFLite.Subgraphs[0].Tensors[0].Type = TensorInt8
	add("uint8_layer_int8_tensor", m)

	// Classifier outputs of older compiles: a 1-D SINGLE or FIXED_POINT16
	// layer behind a UINT8 tensor; the oldest set only the deprecated
	// OutputLayer.data_type.
	for _, dt := range []DataType{Single, FixedPoint16} {
		m := withSpec(func(s *Spec) { s.Outputs[1].DataType = dt })
		m.TFLite.Subgraphs[0].Tensors[2].Type = TensorUint8
		add("classifier_uint8_"+dt.String(), m)
	}
	m = withSpec(func(s *Spec) { s.Outputs[1].DataType = Single })
	m.TFLite.Subgraphs[0].Tensors[2].Type = TensorUint8
	l = outputNamed(mainExe(m), "logits")
	l.DataType, l.Output.DataType = FixedPoint8, Single // Layer.data_type absent
	add("classifier_old_output_data_type", m)

	// Batches: TFLite tensors with a leading batch of 4; an executable
	// with batch_size 2 and relocations per batch element.
	m = Synthetic(DemoSpec())
	for i := range m.TFLite.Subgraphs[0].Tensors {
		m.TFLite.Subgraphs[0].Tensors[i].Shape[0] = 4
	}
	add("tflite_batch_4", m)
	m = Synthetic(DemoSpec())
	e = mainExe(m)
	e.BatchSize = 2
	b := &e.Bitstreams[0]
	bit := int32(len(b.Data)*8 - 700)
	for _, f := range append([]FieldOffset{}, b.FieldOffsets...) {
		if f.Meta.Desc == InputActivation || f.Meta.Desc == OutputActivation {
			f.Meta.Batch, f.OffsetBit = 1, bit
			b.FieldOffsets = append(b.FieldOffsets, f)
			bit += 96
		}
	}
	add("batch_size_2", m)
	// Tensors without a batch dimension, and unknown (-1) dimensions.
	m = Synthetic(DemoSpec())
	m.TFLite.Subgraphs[0].Tensors[2].Shape = []int32{10}
	m.TFLite.Subgraphs[0].Tensors[0].Shape = []int32{-1, 16, 16, 3}
	add("tensor_shapes", m)

	// An output whose name ends in _variable_output without a matching
	// input is an ordinary output.
	m = Synthetic(DemoSpec())
	l = outputNamed(mainExe(m), "logits")
	l.Name = "state" + VariableOutputSuffix
	for i := range mainExe(m).Bitstreams[0].FieldOffsets {
		if f := &mainExe(m).Bitstreams[0].FieldOffsets[i]; f.Meta.Name == "logits" {
			f.Meta.Name = l.Name
		}
	}
	for i := range mainExe(m).DMAHints.Hints {
		if h := &mainExe(m).DMAHints.Hints[i]; h.Meta.Name == "logits" {
			h.Meta.Name = l.Name
		}
	}
	add("variable_output_suffix_without_input", m)

	// Execution count > 1 with the tensor holding every execution.
	m = Synthetic(DemoSpec())
	l = outputNamed(mainExe(m), "logits")
	l.ExecutionCount = 3
	m.TFLite.Subgraphs[0].Tensors[2].Shape = []int32{1, 30}
	add("execution_count_3", m)

	// Instruction chunks: an empty extra chunk, several chunks, a caching
	// executable without instructions.
	m = Synthetic(DemoSpec())
	e = mainExe(m)
	e.Bitstreams = append(e.Bitstreams, Bitstream{}, Bitstream{Data: bytes.Repeat([]byte{0xa5}, 4096)})
	e.DMAHints.Hints = append(e.DMAHints.Hints, DMAHint{Kind: HintInstruction, Chunk: 2}, DMAHint{Kind: HintFence})
	add("several_chunks", m)
	m = Synthetic(DemoSpec())
	c := m.Ops[0].Packages[0].Caching()
	c.Bitstreams = nil
	c.DMAHints.Hints = c.DMAHints.Hints[1:]
	add("caching_without_instructions", m)

	// Chips: another chip name (its tiles are not beagle's), no name.
	m = Synthetic(DemoSpec())
	for _, e := range m.Ops[0].Packages[0].Executables {
		e.Chip, e.NarrowMemPerTile = "some_future_chip", NarrowMemoryPerTile*2
	}
	add("other_chip", m)
	m = Synthetic(DemoSpec())
	for _, e := range m.Ops[0].Packages[0].Executables {
		e.Chip, e.NarrowMemPerTile = "", NarrowMemoryPerTile
	}
	add("no_chip_full_narrow_memory", m)

	// Not fully deterministic hints, scratch spill hints, interrupts.
	m = withSpec(func(s *Spec) { s.Scratch = 1 << 20 })
	e = mainExe(m)
	e.DMAHints.FullyDeterministic = false
	e.DMAHints.Hints = append(e.DMAHints.Hints,
		DMAHint{Kind: HintDescriptor, Direction: Outfeed, Meta: Meta{Desc: ScratchBase}, OffsetInBytes: 4096, SizeInBytes: 65536},
		DMAHint{Kind: HintFence},
		DMAHint{Kind: HintDescriptor, Direction: Infeed, Meta: Meta{Desc: ScratchBase}, OffsetInBytes: 4096, SizeInBytes: 65536},
		DMAHint{Kind: HintInterrupt, Interrupt: 3})
	add("scratch_spill", m)

	// Models: two Edge TPU ops with a CPU op between, an op in a second
	// subgraph, CPU-only custom ops with their own options, a newer
	// custom op version.
	m = Synthetic(DemoSpec())
	s2 := DemoSpec()
	s2.Seed, s2.Token = 2, 0x1234
	appendOp(m, 0, s2)
	add("two_edgetpu_ops", m)

	m = Synthetic(DemoSpec())
	sg := m.TFLite.Subgraphs[0]
	sg.Name = "second"
	sg.Tensors = append([]Tensor{}, sg.Tensors...)
	sg.Operators = append([]Operator{}, sg.Operators...)
	m.TFLite.Subgraphs = append(m.TFLite.Subgraphs, sg)
	m.Ops = append(m.Ops, &CustomOp{Subgraph: 1, Operator: 0, Options: CustomOptions{Version: 0, ExecutionPreference: -1}, Packages: []*Package{SynthPackage(DemoSpec())}})
	add("two_subgraphs", m)

	m = Synthetic(DemoSpec())
	m.TFLite.OperatorCodes = append(m.TFLite.OperatorCodes, OperatorCode{CustomCode: "TFLite_Detection_PostProcess", Version: 1, BuiltinCode: BuiltinCustom, DeprecatedBuiltinCode: int8(BuiltinCustom)})
	sg0 := &m.TFLite.Subgraphs[0]
	sg0.Operators = append(sg0.Operators,
		Operator{OpcodeIndex: 1, Inputs: []int32{2}, Outputs: []int32{2}, CustomOptions: []byte("not a flexbuffer at all")},
		Operator{OpcodeIndex: 1, Inputs: []int32{2}, Outputs: []int32{2}, CustomOptions: fbs.EncodeFlexMap(map[string]fbs.FlexValue{"max_detections": {Type: fbs.FlexInt, Int: 10}})})
	m.TFLite.OperatorCodes[0].Version = 2
	add("cpu_custom_ops", m)

	// Custom options as other serialisers wrote them.
	key4 := func(t fbs.FlexType) func([]byte) map[string]fbs.FlexValue {
		return func(pkg []byte) map[string]fbs.FlexValue {
			return map[string]fbs.FlexValue{"1": {Type: fbs.FlexInt}, "4": {Type: t, Bytes: pkg}}
		}
	}
	out["options_old_no_chips_string"] = rawOptions(t, Synthetic(DemoSpec()), key4(fbs.FlexString))
	out["options_old_no_chips_blob"] = rawOptions(t, Synthetic(DemoSpec()), key4(fbs.FlexBlob))
	out["options_deprecated_keys"] = rawOptions(t, Synthetic(DemoSpec()), func(pkg []byte) map[string]fbs.FlexValue {
		return map[string]fbs.FlexValue{"1": {Type: fbs.FlexInt, Int: 1}, "2": {Type: fbs.FlexString, Bytes: []byte("beagle")},
			"3": {Type: fbs.FlexString, Bytes: []byte("old caching executable")}, "4": {Type: fbs.FlexString, Bytes: pkg},
			"5": {Type: fbs.FlexInt, Int: 1}, "6": {Type: fbs.FlexVector, Ints: []int64{17}}, "9": {Type: fbs.FlexString, Bytes: []byte("future")}}
	})
	out["options_chips_without_key7"] = rawOptions(t, Synthetic(DemoSpec()), func(pkg []byte) map[string]fbs.FlexValue {
		return map[string]fbs.FlexValue{"1": {Type: fbs.FlexInt}, "4": {Type: fbs.FlexString, Bytes: pkg}, "5": {Type: fbs.FlexInt, Int: -1},
			"6": {Type: fbs.FlexVector, Ints: []int64{18}}}
	})
	out["options_key7_without_key6"] = rawOptions(t, Synthetic(DemoSpec()), func(pkg []byte) map[string]fbs.FlexValue {
		return map[string]fbs.FlexValue{"1": {Type: fbs.FlexInt}, "4": {Type: fbs.FlexString, Bytes: pkg},
			"7": {Type: fbs.FlexVectorString, Strings: [][]byte{pkg}}}
	})
	out["options_odd_value_types"] = rawOptions(t, Synthetic(DemoSpec()), func(pkg []byte) map[string]fbs.FlexValue {
		return map[string]fbs.FlexValue{"1": {Type: fbs.FlexString, Bytes: []byte("0")}, "2": {Type: fbs.FlexInt, Int: 3},
			"4": {Type: fbs.FlexString, Bytes: pkg}, "5": {Type: fbs.FlexBlob, Bytes: []byte{1}}}
	})

	// A raw package file, and one without the DWN1 identifier (warning).
	pb, err := WritePackage(SynthPackage(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	out["raw_package"] = pb
	return out
}

func TestValidVariants(t *testing.T) {
	for name, data := range validVariants(t) {
		t.Run(name, func(t *testing.T) {
			m, err := Read(data)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(m.Ops) == 0 || len(m.Packages()) == 0 {
				t.Fatal("no Edge TPU op read")
			}
			for _, d := range Check(m) {
				if d.Severity == diag.Error {
					t.Errorf("false positive: %v", d)
				}
			}
			var buf bytes.Buffer
			if err := Summarize(m).WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Packages() {
				MemoryOf(p)
				if _, err := dmaplan.Build(PlanInput(p), dmaplan.DefaultLinks()); err != nil {
					t.Errorf("dma plan: %v", err)
				}
				for _, e := range p.Executables {
					li := e.LinkInput()
					pa, sa := uint64(0x1000), uint64(0x2000)
					a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}, Parameters: &pa, Scratch: &sa}
					for i, n := range li.Inputs {
						for b := 0; b < li.BatchSize; b++ {
							a.Inputs[n] = append(a.Inputs[n], uint64(0x10000*(i+1)+b))
						}
					}
					for i, n := range li.Outputs {
						for b := 0; b < li.BatchSize; b++ {
							a.Outputs[n] = append(a.Outputs[n], uint64(0x100000*(i+1)+b))
						}
					}
					if _, _, err := link.Link(li, a); err != nil {
						t.Errorf("link %s: %v", e.Name, err)
					}
					for _, l := range e.OutputLayers {
						if err := l.RelayoutOutput().Validate(); err != nil {
							t.Errorf("relayout %s: %v", l.Name, err)
						}
					}
				}
			}
		})
	}
}

// The oldest compiles carry an output's type only in OutputLayer.data_type;
// the reader takes it from there, as the runtime does.
func TestOldOutputDataType(t *testing.T) {
	m, err := Read(validVariants(t)["classifier_old_output_data_type"])
	if err != nil {
		t.Fatal(err)
	}
	if l := outputNamed(mainExe(m), "logits"); l.DataType != Single || l.ElemSize() != 4 {
		t.Fatalf("data type %s, want SINGLE from OutputLayer.data_type", l.DataType)
	}
	// A present Layer.data_type wins over the deprecated one.
	m = Synthetic(DemoSpec())
	l := outputNamed(mainExe(m), "logits")
	l.DataType, l.Output.DataType = SignedFixedPoint8, Single
	b, err := Write(m)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = Read(b); err != nil {
		t.Fatal(err)
	}
	if l := outputNamed(mainExe(m), "logits"); l.DataType != SignedFixedPoint8 {
		t.Fatalf("data type %s, want SIGNED_FIXED_POINT8", l.DataType)
	}
}
