// Package edgetpu reads, checks and writes Coral Edge TPU models: TFLite
// FlatBuffers whose `edgetpu-custom-op` operators carry a DarwiNN package
// (the compiled executables), and raw DarwiNN packages (identifier DWN1).
//
// Reading is zero-copy: instruction bitstreams, parameters and packages are
// sub-slices of the input. Every offset is verified through internal/fbs, so
// malformed input yields an error naming the byte offset and the structure
// path; the structures built while reading are bounded by the input size.
//
// Schema facts: ../shared/spec/003_fbfb9e504ba6008f.txt (DarwiNN executable
// schema) and ../shared/notes/edgetpu.md (TFLite slots, FlexBuffer keys,
// runtime checks).
package edgetpu

import (
	"fmt"
	"math"

	"github.com/npukit/npukit/tflite"
)

// Hardware and runtime constants (../shared/notes/edgetpu.md).
const (
	// CustomCode is the custom_code of the Edge TPU operator.
	CustomCode = "edgetpu-custom-op"
	// PackageIdentifier is the DarwiNN Package file identifier.
	PackageIdentifier = "DWN1"
	// MaxRuntimeVersion is the newest runtime version of the public runtime.
	MaxRuntimeVersion = 14
	// MinSupportedRuntimeVersion: older packages load with a warning.
	MinSupportedRuntimeVersion = 10
	// NarrowMemoryPerTile is the narrow memory of one beagle tile, in bytes.
	NarrowMemoryPerTile = 196608
	// BeagleChip is Executable.chip of the Coral Edge TPU.
	BeagleChip = "beagle"
	// ParameterSRAM is the on-chip parameter cache, in bytes.
	ParameterSRAM = 8 << 20
)

// Model is a read Edge TPU model or raw package.
type Model struct {
	Data   []byte      `json:"-"`
	TFLite *TFLite     `json:"tflite,omitempty"` // nil for a raw package
	Ops    []*CustomOp `json:"edgetpu_ops"`
}

// The TFLite level of a model is package tflite's; these names keep
// edgetpu's API whole.
type (
	// TFLite is the TFLite model around the Edge TPU ops.
	TFLite = tflite.Model
	// OperatorCode is one TFLite operator code.
	OperatorCode = tflite.OperatorCode
	// Subgraph is one TFLite subgraph.
	Subgraph = tflite.Subgraph
	// Tensor is one TFLite tensor.
	Tensor = tflite.Tensor
	// Operator is one TFLite operator.
	Operator = tflite.Operator
	// Metadata is one TFLite metadata entry.
	Metadata = tflite.Metadata
	// TensorType is a TFLite tensor type.
	TensorType = tflite.TensorType
)

// BuiltinCustom is the TFLite builtin code of custom operators.
const BuiltinCustom = tflite.OpCustom

// TFLite tensor types used by Edge TPU models.
const (
	TensorFloat32  = tflite.TensorFloat32
	TensorFloat16  = tflite.TensorFloat16
	TensorInt32    = tflite.TensorInt32
	TensorUint8    = tflite.TensorUint8
	TensorInt16    = tflite.TensorInt16
	TensorInt8     = tflite.TensorInt8
	TensorBFloat16 = tflite.TensorBFloat16
)

// CustomOp is one edgetpu-custom-op with its options and packages. For a raw
// package file, Subgraph and Operator are -1.
type CustomOp struct {
	Subgraph int           `json:"subgraph"`
	Operator int           `json:"operator"`
	Options  CustomOptions `json:"options"`
	// Packages: key "4" first, then the entries of key "7".
	Packages []*Package `json:"packages"`
}

// CustomOptions is the FlexBuffer map of the custom op.
type CustomOptions struct {
	Offset   int      `json:"offset"` // of the FlexBuffer in the file
	Size     int      `json:"size"`
	Keys     []string `json:"keys"`
	KeyTypes []string `json:"key_types"` // "key:TYPE"
	// Version is key "1" (absent: -1).
	Version int64 `json:"version"`
	// ChipName is the deprecated key "2".
	ChipName string `json:"chip_name,omitempty"`
	// HasCachingExecutable: the deprecated key "3" is present.
	HasCachingExecutable bool `json:"deprecated_caching_executable"`
	// LegacyExecutable is the size of the bare Executable key "4" holds in
	// the Edge TPU compiler 1.x serialisation (no DWN1 Package around it;
	// current runtimes refuse it); 0 otherwise.
	LegacyExecutable int `json:"legacy_executable_bytes,omitempty"`
	// ExecutionPreference is key "5" (default -1).
	ExecutionPreference int64 `json:"execution_preference"`
	// Chips is key "6": one chip value per package.
	Chips    []int64 `json:"chips,omitempty"`
	HasChips bool    `json:"-"`
	// Extra is the length of key "7" (extra packages); HasExtra says the key is present.
	Extra    int  `json:"extra_packages"`
	HasExtra bool `json:"-"`
}

// Package is a DarwiNN package.
type Package struct {
	Data       []byte `json:"-"`
	FileOffset int    `json:"file_offset"` // -1 when nested in another package
	Source     string `json:"source"`      // where it came from: flex key "4", key "7"[i], file, multi_chip_package[i]
	Identifier string `json:"file_identifier"`
	Slots      []int  `json:"present_field_slots"`

	MinRuntimeVersion     int32  `json:"min_runtime_version"`
	MultiExecutable       []byte `json:"-"`
	MultiExecutableOffset int    `json:"multi_executable_offset"` // in the package
	Signature             []byte `json:"-"`
	KeypairVersion        int32  `json:"keypair_version"`
	CompilerVersion       string `json:"compiler_version"`
	VirtualChipID         int32  `json:"virtual_chip_id"`
	// MultiChip are the nested packages (multi_chip_package).
	MultiChip       []*Package    `json:"multi_chip_packages,omitempty"`
	ModelIdentifier string        `json:"model_identifier"`
	Executables     []*Executable `json:"executables"`
}

// Executable is one DarwiNN executable.
type Executable struct {
	Data       []byte `json:"-"`
	Offset     int    `json:"offset_in_package"`
	Identifier string `json:"-"`
	Slots      []int  `json:"present_field_slots"`

	Version            int32          `json:"version"`
	Name               string         `json:"name"`
	SerializedModel    []byte         `json:"-"`
	BatchSize          int32          `json:"batch_size"`
	ScratchSizeBytes   int32          `json:"scratch_size_bytes"`
	Bitstreams         []Bitstream    `json:"instruction_bitstreams"`
	Parameters         []byte         `json:"-"`
	ParametersOffset   int            `json:"parameters_offset"` // in the executable; -1 when absent
	DMAHints           *DMAHints      `json:"dma_hints,omitempty"`
	InputLayers        []*Layer       `json:"input_layers"`
	OutputLayers       []*Layer       `json:"output_layers"`
	Chip               string         `json:"chip"`
	EstimatedCycles    int32          `json:"estimated_cycles"`
	NarrowMemPerTile   int32          `json:"used_narrow_memory_bytes_per_tile"`
	Type               ExecutableType `json:"type"`
	HasType            bool           `json:"type_present"`
	Token              uint64         `json:"parameter_caching_token"`
	UseTPUDRAM         bool           `json:"use_tpu_dram_for_parameters"`
	EstimatedCycles64  int64          `json:"estimated_cycles_64bit"`
	HasDMAHints        bool           `json:"-"`
	HasInputLayersVec  bool           `json:"-"`
	HasOutputLayersVec bool           `json:"-"`
}

// Bitstream is one instruction chunk.
type Bitstream struct {
	Data         []byte        `json:"-"`
	Offset       int           `json:"offset"` // in the executable
	FieldOffsets []FieldOffset `json:"field_offsets"`
}

// FieldOffset is one relocation.
type FieldOffset struct {
	Meta      Meta  `json:"meta"`
	OffsetBit int32 `json:"offset_bit"`
}

// Meta is linker metadata.
type Meta struct {
	Desc     Description `json:"desc"`
	Batch    int32       `json:"batch"`
	Name     string      `json:"name,omitempty"`
	Position Position    `json:"position"`
}

// DMAHints are the executable's DMA hints.
type DMAHints struct {
	Hints              []DMAHint `json:"hints"`
	FullyDeterministic bool      `json:"fully_deterministic"`
}

// DMAHint is one hint.
type DMAHint struct {
	Kind      HintKind  `json:"kind"`
	Direction Direction `json:"direction"`
	// DmaDescriptorHint
	Meta          Meta  `json:"meta"`
	OffsetInBytes int32 `json:"offset_in_bytes,omitempty"`
	SizeInBytes   int32 `json:"size_in_bytes,omitempty"`
	// InstructionHint
	Chunk int32 `json:"instruction_chunk_index,omitempty"`
	// InterruptHint
	Interrupt int16 `json:"interrupt_type,omitempty"`
}

// Layer is an input or output layer.
type Layer struct {
	Name           string       `json:"name"`
	SizeBytes      int32        `json:"size_bytes"`
	Y              int32        `json:"y_dim"`
	X              int32        `json:"x_dim"`
	Z              int32        `json:"z_dim"`
	Numerics       *Numerics    `json:"numerics,omitempty"`
	DataType       DataType     `json:"data_type"`
	Kind           LayerKind    `json:"any_layer_type"`
	Output         *OutputLayer `json:"output,omitempty"`
	ExecutionCount int32        `json:"execution_count_per_inference"`
	CacheOnDRAM    bool         `json:"cache_on_dram"`
	Shape          []Range      `json:"shape,omitempty"`
	HasShape       bool         `json:"-"`
}

// Numerics are the quantization constants.
type Numerics struct {
	ZeroPoint            int32   `json:"zero_point"`
	DequantizationFactor float32 `json:"dequantization_factor"`
}

// OutputLayer is the output-specific part of a layer.
type OutputLayer struct {
	Layout    *OutputLayout    `json:"layout,omitempty"`
	DataType  DataType         `json:"data_type"`
	ShapeInfo *OutputShapeInfo `json:"shape_info,omitempty"`
}

// OutputLayout maps plain (y, x) to device tiles (all values count elements).
type OutputLayout struct {
	YTile      []int32 `json:"y_coordinate_to_linear_tile_id_map"`
	XTile      []int32 `json:"x_coordinate_to_linear_tile_id_map"`
	TileOffset []int32 `json:"linearized_tile_byte_offset"`
	XLocal     []int32 `json:"x_coordinate_to_local_byte_offset"`
	YLocal     []int32 `json:"y_coordinate_to_local_y_offset"`
	RowSize    []int32 `json:"x_coordinate_to_local_y_row_size"`
}

// OutputShapeInfo lists the slices an output is streamed in.
type OutputShapeInfo struct {
	Slices  []TensorLayout `json:"slice_layout"`
	Offsets []int32        `json:"slice_offset"`
}

// TensorLayout is one slice: inclusive ranges and element strides.
type TensorLayout struct {
	Shape  []Range `json:"shape"`
	Stride []int32 `json:"stride"`
}

// Range is an inclusive range.
type Range struct {
	Start int32 `json:"start"`
	End   int32 `json:"end"`
}

// Enumerations of the schema.
type (
	Description    int16
	Position       int16
	Direction      int16
	HintKind       uint8
	DataType       int16
	LayerKind      uint8
	ExecutableType int16
)

// Enumeration values, as numbered in the schema.
const (
	OutputActivation Description = 0
	InputActivation  Description = 1
	ParameterBase    Description = 2
	ScratchBase      Description = 3

	Lower32 Position = 0
	Upper32 Position = 1

	Infeed  Direction = 0
	Outfeed Direction = 1

	HintNone        HintKind = 0
	HintDescriptor  HintKind = 1
	HintInstruction HintKind = 2
	HintInterrupt   HintKind = 3
	HintFence       HintKind = 4

	FixedPoint8        DataType = 0
	FixedPoint16       DataType = 1
	SignedFixedPoint32 DataType = 2
	BFloat             DataType = 3
	Half               DataType = 4
	Single             DataType = 5
	SignedFixedPoint8  DataType = 8
	SignedFixedPoint16 DataType = 9

	LayerNone   LayerKind = 0
	LayerOutput LayerKind = 1
	LayerInput  LayerKind = 2

	StandAlone       ExecutableType = 0
	ParameterCaching ExecutableType = 1
	ExecutionOnly    ExecutableType = 2
)

func name(names map[int]string, v int, kind string) string {
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf("%s_%d", kind, v)
}

var (
	descNames = map[int]string{0: "BASE_ADDRESS_OUTPUT_ACTIVATION", 1: "BASE_ADDRESS_INPUT_ACTIVATION",
		2: "BASE_ADDRESS_PARAMETER", 3: "BASE_ADDRESS_SCRATCH"}
	posNames  = map[int]string{0: "LOWER_32BIT", 1: "UPPER_32BIT"}
	dirNames  = map[int]string{0: "INFEED", 1: "OUTFEED"}
	hintNames = map[int]string{0: "NONE", 1: "DmaDescriptorHint", 2: "InstructionHint", 3: "InterruptHint", 4: "FenceHint"}
	dtNames   = map[int]string{0: "FIXED_POINT8", 1: "FIXED_POINT16", 2: "SIGNED_FIXED_POINT32", 3: "BFLOAT",
		4: "HALF", 5: "SINGLE", 8: "SIGNED_FIXED_POINT8", 9: "SIGNED_FIXED_POINT16"}
	layerNames = map[int]string{0: "NONE", 1: "OutputLayer", 2: "InputLayer"}
	typeNames  = map[int]string{0: "STAND_ALONE", 1: "PARAMETER_CACHING", 2: "EXECUTION_ONLY"}
)

func (v Description) String() string    { return name(descNames, int(v), "DESCRIPTION") }
func (v Position) String() string       { return name(posNames, int(v), "POSITION") }
func (v Direction) String() string      { return name(dirNames, int(v), "DIRECTION") }
func (v HintKind) String() string       { return name(hintNames, int(v), "HINT") }
func (v DataType) String() string       { return name(dtNames, int(v), "DATA_TYPE") }
func (v LayerKind) String() string      { return name(layerNames, int(v), "LAYER") }
func (v ExecutableType) String() string { return name(typeNames, int(v), "TYPE") }

// MarshalText methods name the values in JSON.
func (v Description) MarshalText() ([]byte, error)    { return []byte(v.String()), nil }
func (v Position) MarshalText() ([]byte, error)       { return []byte(v.String()), nil }
func (v Direction) MarshalText() ([]byte, error)      { return []byte(v.String()), nil }
func (v HintKind) MarshalText() ([]byte, error)       { return []byte(v.String()), nil }
func (v DataType) MarshalText() ([]byte, error)       { return []byte(v.String()), nil }
func (v LayerKind) MarshalText() ([]byte, error)      { return []byte(v.String()), nil }
func (v ExecutableType) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Size is the element size in bytes (0 for unknown types).
func (d DataType) Size() int {
	switch d {
	case FixedPoint8, SignedFixedPoint8:
		return 1
	case FixedPoint16, BFloat, Half, SignedFixedPoint16:
		return 2
	case SignedFixedPoint32, Single:
		return 4
	}
	return 0
}

// Signed reports the offset-binary signed types.
func (d DataType) Signed() bool { return d == SignedFixedPoint8 || d == SignedFixedPoint16 }

// ElemSize is the layer's element size.
func (l *Layer) ElemSize() int { return l.DataType.Size() }

// Elements is y*x*z (0 when a dimension is not positive, saturated at
// MaxInt64 so that malformed dimensions cannot wrap around).
func (l *Layer) Elements() int64 {
	y, x, z := int64(l.Y), int64(l.X), int64(l.Z)
	if y <= 0 || x <= 0 || z <= 0 {
		return 0
	}
	if y > math.MaxInt64/x || y*x > math.MaxInt64/z {
		return math.MaxInt64
	}
	return y * x * z
}

// Main returns the executable that runs inferences: the only one,
// EXECUTION_ONLY of two, STAND_ALONE of three (notes, "What the runtime
// checks"); nil when none fits.
func (p *Package) Main() *Executable {
	if len(p.Executables) == 1 {
		return p.Executables[0]
	}
	want := ExecutionOnly
	if len(p.Executables) == 3 {
		want = StandAlone
	}
	for _, e := range p.Executables {
		if e.Type == want {
			return e
		}
	}
	return nil
}

// Caching returns the PARAMETER_CACHING executable, or nil.
func (p *Package) Caching() *Executable {
	for _, e := range p.Executables {
		if e.Type == ParameterCaching {
			return e
		}
	}
	return nil
}

// Packages lists every top-level package of the model in order.
func (m *Model) Packages() []*Package {
	var ps []*Package
	for _, op := range m.Ops {
		ps = append(ps, op.Packages...)
	}
	return ps
}

// PickExecutable returns executable n of the first package of Edge TPU
// operator op (with the operator and the executable's index), or that
// package's main executable when n < 0.
func (m *Model) PickExecutable(op, n int) (*CustomOp, *Executable, int, error) {
	if op < 0 || op >= len(m.Ops) {
		return nil, nil, 0, fmt.Errorf("Edge TPU operator %d: the file has %d", op, len(m.Ops))
	}
	o := m.Ops[op]
	if len(o.Packages) == 0 {
		return nil, nil, 0, fmt.Errorf("Edge TPU operator %d carries no package", op)
	}
	p := o.Packages[0]
	if n < 0 {
		main := p.Main()
		if main == nil {
			return nil, nil, 0, fmt.Errorf("the package of Edge TPU operator %d has no main executable; choose one by index", op)
		}
		for i, e := range p.Executables {
			if e == main {
				return o, e, i, nil
			}
		}
	}
	if n >= len(p.Executables) {
		return nil, nil, 0, fmt.Errorf("executable %d: the package has %d", n, len(p.Executables))
	}
	return o, p.Executables[n], n, nil
}
