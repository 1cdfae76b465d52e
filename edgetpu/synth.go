package edgetpu

import (
	"fmt"
	"math/rand/v2"
)

// Spec describes a synthetic compiled model for tests and the demo: what a
// compile of a small network looks like (two executables sharing a caching
// token, tiled outputs, relocations at bit offsets 70 mod 128, DMA hints).
type Spec struct {
	Name           string
	Token          uint64
	CachedParams   int   // bytes of the PARAMETER_CACHING executable
	StreamedParams int   // bytes streamed by the EXECUTION_ONLY executable
	Scratch        int32 // scratch bytes
	Inputs         []LayerSpec
	Outputs        []LayerSpec
	Seed           uint64 // fills bitstreams and parameters
}

// LayerSpec is an input or output of a synthetic model.
type LayerSpec struct {
	Name     string
	Y, X, Z  int32
	DataType DataType
	Scale    float32
	// ZeroPoint is the TFLite zero point (the layer's DarwiNN zero point is
	// shifted for signed types).
	ZeroPoint int32
}

// DemoSpec is the spec of the generated demo model.
func DemoSpec() Spec {
	return Spec{
		Name: "demo", Token: 0x5eed0f00dcafe123, CachedParams: 24 << 10, StreamedParams: 8 << 10, Scratch: 4096,
		Inputs:  []LayerSpec{{Name: "input", Y: 16, X: 16, Z: 3, DataType: FixedPoint8, Scale: 1.0 / 128, ZeroPoint: 128}},
		Outputs: []LayerSpec{{Name: "features", Y: 8, X: 8, Z: 6, DataType: FixedPoint8, Scale: 0.05, ZeroPoint: 3}, {Name: "logits", Y: 1, X: 1, Z: 10, DataType: SignedFixedPoint8, Scale: 0.1, ZeroPoint: -4}},
		Seed:    1,
	}
}

// darwinnZeroPoint converts a TFLite zero point to the DarwiNN one
// (offset-binary signed types: +128 or +32768).
func darwinnZeroPoint(dt DataType, zp int32) int32 {
	switch dt {
	case SignedFixedPoint8:
		return zp + 128
	case SignedFixedPoint16:
		return zp + 32768
	}
	return zp
}

// TensorTypeOf is the TFLite type the runtime pairs with a layer data type.
func TensorTypeOf(dt DataType) TensorType {
	switch dt {
	case FixedPoint8:
		return TensorUint8
	case SignedFixedPoint8:
		return TensorInt8
	case FixedPoint16, SignedFixedPoint16:
		return TensorInt16
	case SignedFixedPoint32:
		return TensorInt32
	case Single:
		return TensorFloat32
	case Half:
		return TensorFloat16
	case BFloat:
		return TensorBFloat16
	}
	return TensorFloat32
}

// TiledLayout builds the OutputLayout of a y*x*z output split into up to
// ty*tx tiles (rows and columns as even as possible, larger first), with z
// padded to a multiple of 4 bytes per x position; it returns the layout and
// size_bytes (a multiple of 8).
func TiledLayout(y, x, z int32, elemSize int, ty, tx int32) (*OutputLayout, int32) {
	ty, tx = min(ty, y), min(tx, x)
	zpad := z
	for (int(zpad)*elemSize)%4 != 0 {
		zpad++
	}
	split := func(n, parts int32) []int32 { // sizes of parts
		s := make([]int32, parts)
		for i := range s {
			s[i] = n / parts
			if int32(i) < n%parts {
				s[i]++
			}
		}
		return s
	}
	hs, ws := split(y, ty), split(x, tx)
	l := &OutputLayout{}
	for r, h := range hs {
		for i := int32(0); i < h; i++ {
			l.YTile = append(l.YTile, int32(r)*tx)
			l.YLocal = append(l.YLocal, i)
		}
	}
	for c, w := range ws {
		for i := int32(0); i < w; i++ {
			l.XTile = append(l.XTile, int32(c))
			l.XLocal = append(l.XLocal, i*zpad)
			l.RowSize = append(l.RowSize, w*zpad)
		}
	}
	off := int32(0)
	for _, h := range hs {
		for _, w := range ws {
			l.TileOffset = append(l.TileOffset, off)
			off += h * w * zpad
		}
	}
	size := off * int32(elemSize)
	for size%8 != 0 {
		size++
	}
	return l, size
}

func synthLayer(s LayerSpec, out bool) *Layer {
	es := s.DataType.Size()
	l := &Layer{Name: s.Name, Y: s.Y, X: s.X, Z: s.Z, DataType: s.DataType, ExecutionCount: 1,
		Numerics: &Numerics{ZeroPoint: darwinnZeroPoint(s.DataType, s.ZeroPoint), DequantizationFactor: s.Scale}}
	size := s.Y * s.X * s.Z * int32(es)
	if out {
		l.Kind = LayerOutput
		l.Output = &OutputLayer{DataType: s.DataType}
		if s.Y > 1 || s.X > 1 {
			l.Output.Layout, size = TiledLayout(s.Y, s.X, s.Z, es, 2, 2)
		} else {
			l.Output.Layout, _ = TiledLayout(1, 1, s.Z, es, 1, 1)
			for size%8 != 0 {
				size++
			}
		}
	} else {
		l.Kind = LayerInput
	}
	l.SizeBytes = size
	l.HasShape = true
	l.Shape = []Range{{0, 0}, {0, s.Y - 1}, {0, s.X - 1}, {0, s.Z - 1}}
	return l
}

func synthExecutable(s Spec, typ ExecutableType, rng *rand.Rand) *Executable {
	e := &Executable{Name: "model", BatchSize: 1, Chip: "beagle", Type: typ, HasType: true, Token: s.Token,
		NarrowMemPerTile: 4096, HasInputLayersVec: true, HasOutputLayersVec: true}
	var relocs []FieldOffset
	bit := int32(70)
	add := func(desc Description, name string) {
		for _, pos := range []Position{Lower32, Upper32} {
			relocs = append(relocs, FieldOffset{Meta: Meta{Desc: desc, Name: name, Position: pos}, OffsetBit: bit})
			bit += 128
		}
	}
	params := s.StreamedParams
	if typ == ParameterCaching {
		e.Name = "Unknown"
		params = s.CachedParams
	}
	if params > 0 {
		e.Parameters = make([]byte, params)
		for i := range e.Parameters {
			e.Parameters[i] = byte(rng.Uint32())
		}
		add(ParameterBase, "")
	}
	if typ != ParameterCaching {
		e.ScratchSizeBytes = s.Scratch
		if s.Scratch > 0 {
			add(ScratchBase, "")
		}
		for _, in := range s.Inputs {
			e.InputLayers = append(e.InputLayers, synthLayer(in, false))
			add(InputActivation, in.Name)
		}
		for _, out := range s.Outputs {
			e.OutputLayers = append(e.OutputLayers, synthLayer(out, true))
			add(OutputActivation, out.Name)
		}
	} else {
		e.HasInputLayersVec, e.HasOutputLayersVec = false, false
	}
	chunk := make([]byte, int(bit)/8+256)
	for i := range chunk {
		chunk[i] = byte(rng.Uint32())
	}
	// Relocation fields are zero in compiled files (pre-filled values 0).
	for _, r := range relocs {
		for b := int(r.OffsetBit); b < int(r.OffsetBit)+32; b++ {
			chunk[b/8] &^= 1 << (b % 8)
		}
	}
	e.Bitstreams = []Bitstream{{Data: chunk, FieldOffsets: relocs}}
	h := &DMAHints{FullyDeterministic: true}
	h.Hints = append(h.Hints, DMAHint{Kind: HintInstruction, Direction: Infeed, Chunk: 0})
	if params > 0 {
		h.Hints = append(h.Hints, DMAHint{Kind: HintDescriptor, Direction: Infeed, Meta: Meta{Desc: ParameterBase}, SizeInBytes: int32(params)})
	}
	for _, l := range e.InputLayers {
		h.Hints = append(h.Hints, DMAHint{Kind: HintDescriptor, Direction: Infeed, Meta: Meta{Desc: InputActivation, Name: l.Name}, SizeInBytes: l.SizeBytes})
	}
	h.Hints = append(h.Hints, DMAHint{Kind: HintInterrupt, Direction: Outfeed})
	for _, l := range e.OutputLayers {
		h.Hints = append(h.Hints, DMAHint{Kind: HintDescriptor, Direction: Outfeed, Meta: Meta{Desc: OutputActivation, Name: l.Name}, SizeInBytes: l.SizeBytes})
	}
	e.DMAHints, e.HasDMAHints = h, true
	return e
}

// SynthPackage builds the package of a spec: EXECUTION_ONLY then
// PARAMETER_CACHING, as the compiler orders them.
func SynthPackage(s Spec) *Package {
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	return &Package{Identifier: PackageIdentifier, MinRuntimeVersion: 13, CompilerVersion: "cl/npukit-synthetic",
		Executables: []*Executable{
			synthExecutable(s, ExecutionOnly, rng),
			synthExecutable(s, ParameterCaching, rng),
		}}
}

// Synthetic builds a TFLite model holding one Edge TPU op with the spec's
// package; model inputs and outputs are the op's.
func Synthetic(s Spec) *Model {
	p := SynthPackage(s)
	sg := Subgraph{Name: s.Name}
	op := Operator{OpcodeIndex: 0}
	addTensor := func(l LayerSpec) int32 {
		sg.Tensors = append(sg.Tensors, Tensor{Name: l.Name, Shape: []int32{1, l.Y, l.X, l.Z},
			Type: TensorTypeOf(l.DataType), Scale: []float32{l.Scale}, ZeroPoint: []int64{int64(l.ZeroPoint)}})
		return int32(len(sg.Tensors) - 1)
	}
	for _, in := range s.Inputs {
		i := addTensor(in)
		sg.Inputs, op.Inputs = append(sg.Inputs, i), append(op.Inputs, i)
	}
	for _, out := range s.Outputs {
		i := addTensor(out)
		sg.Outputs, op.Outputs = append(sg.Outputs, i), append(op.Outputs, i)
	}
	sg.Operators = []Operator{op}
	return &Model{
		TFLite: &TFLite{Identifier: "TFL3", Version: 3, Description: fmt.Sprintf("npukit synthetic %s", s.Name),
			OperatorCodes: []OperatorCode{{CustomCode: CustomCode, Version: 1, BuiltinCode: BuiltinCustom, DeprecatedBuiltinCode: int8(BuiltinCustom)}},
			Subgraphs:     []Subgraph{sg}, NumBuffers: 1},
		Ops: []*CustomOp{{Subgraph: 0, Operator: 0, Options: CustomOptions{Version: 0, ExecutionPreference: -1}, Packages: []*Package{p}}},
	}
}
