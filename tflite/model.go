package tflite

import (
	"encoding/binary"
	"fmt"

	"github.com/npukit/npukit/internal/fbs"
)

// Model is a TFLite model: the FlatBuffer's operator codes, subgraphs
// (tensors and operators), buffers and metadata.
type Model struct {
	Identifier    string         `json:"file_identifier"`
	Version       uint32         `json:"schema_version"`
	Description   string         `json:"description"`
	OperatorCodes []OperatorCode `json:"operator_codes"`
	Subgraphs     []Subgraph     `json:"subgraphs"`
	NumBuffers    int            `json:"buffers"`
	Metadata      []Metadata     `json:"metadata,omitempty"`
	// BufferSizes are the data sizes of the buffers in bytes (0 for a
	// buffer without data: activations, or a tensor filled at run time).
	BufferSizes []int64 `json:"-"`
	// BufferData are the buffers' bytes when they are inside the
	// FlatBuffer (sub-slices of the input; nil otherwise).
	BufferData [][]byte `json:"-"`
}

// Constant returns the data of a tensor whose buffer holds data (weights,
// biases, shapes, axes), or nil.
func (m *Model) Constant(t *Tensor) []byte {
	if int(t.Buffer) < len(m.BufferData) {
		return m.BufferData[t.Buffer]
	}
	return nil
}

// IsConstant reports whether a tensor's buffer holds data.
func (m *Model) IsConstant(t *Tensor) bool {
	return int(t.Buffer) < len(m.BufferSizes) && m.BufferSizes[t.Buffer] > 0
}

// Ints returns a constant INT32 or INT64 tensor's values (shapes, axes,
// permutations, paddings); ok is false for other tensors.
func (m *Model) Ints(t *Tensor) ([]int64, bool) {
	d := m.Constant(t)
	var w int
	switch t.Type {
	case TensorInt32:
		w = 4
	case TensorInt64:
		w = 8
	default:
		return nil, false
	}
	if d == nil || len(d)%w != 0 || len(d)/w > 1<<16 {
		return nil, false
	}
	out := make([]int64, len(d)/w)
	for i := range out {
		if w == 4 {
			out[i] = int64(int32(binary.LittleEndian.Uint32(d[i*4:])))
		} else {
			out[i] = int64(binary.LittleEndian.Uint64(d[i*8:]))
		}
	}
	return out, true
}

// NumOperators counts the operators of every subgraph.
func (m *Model) NumOperators() int {
	n := 0
	for _, sg := range m.Subgraphs {
		n += len(sg.Operators)
	}
	return n
}

// OperatorCode is one TFLite operator code.
type OperatorCode struct {
	DeprecatedBuiltinCode int8   `json:"deprecated_builtin_code"`
	CustomCode            string `json:"custom_code,omitempty"`
	Version               int32  `json:"version"`
	BuiltinCode           int32  `json:"builtin_code"`
}

// BuiltinCustom is the TFLite builtin code of custom operators.
const BuiltinCustom = 32

// Code is the effective builtin code (the larger of the two fields, as the
// TFLite schema's compatibility rule says).
func (c OperatorCode) Code() int32 { return max(int32(c.DeprecatedBuiltinCode), c.BuiltinCode) }

// Custom reports whether the code is a custom operator.
func (c OperatorCode) Custom() bool { return c.Code() == BuiltinCustom || c.CustomCode != "" }

// Name is the operator's name: the builtin's ("CONV_2D") or the custom
// code ("edgetpu-custom-op").
func (c OperatorCode) Name() string {
	if c.Custom() {
		return c.CustomCode
	}
	return BuiltinName(c.Code())
}

// Label is "custom:<code>" for a custom operator, else the builtin's name.
func (c OperatorCode) Label() string {
	if c.Custom() {
		return "custom:" + c.CustomCode
	}
	return BuiltinName(c.Code())
}

// Subgraph is one TFLite subgraph.
type Subgraph struct {
	Name      string     `json:"name,omitempty"`
	Tensors   []Tensor   `json:"tensors"`
	Inputs    []int32    `json:"inputs"`
	Outputs   []int32    `json:"outputs"`
	Operators []Operator `json:"operators"`
}

// Tensor is one TFLite tensor.
type Tensor struct {
	Name      string     `json:"name"`
	Shape     []int32    `json:"shape"`
	Type      TensorType `json:"type"`
	Buffer    uint32     `json:"buffer"`
	Scale     []float32  `json:"scale,omitempty"`
	ZeroPoint []int64    `json:"zero_point,omitempty"`
	// QuantizedDimension is the axis of per-channel scales.
	QuantizedDimension int32 `json:"quantized_dimension,omitempty"`
	// ShapeSignature has -1 for the dimensions that are dynamic (absent
	// when every dimension is static).
	ShapeSignature []int32 `json:"shape_signature,omitempty"`
	IsVariable     bool    `json:"is_variable,omitempty"`
}

// Dynamic reports whether the tensor has a dynamic dimension (-1 in its
// shape or shape signature).
func (t *Tensor) Dynamic() bool {
	for _, d := range t.ShapeSignature {
		if d < 0 {
			return true
		}
	}
	for _, d := range t.Shape {
		if d < 0 {
			return true
		}
	}
	return false
}

// Elements is the product of the shape (-1 when a dimension is dynamic or
// the product overflows).
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		if d < 0 || d > 0 && n > (1<<62)/int64(d) {
			return -1
		}
		n *= int64(d)
	}
	return n
}

// Quantized reports whether the tensor carries quantization scales.
func (t *Tensor) Quantized() bool { return len(t.Scale) > 0 }

// Operator is one TFLite operator.
type Operator struct {
	OpcodeIndex         uint32  `json:"opcode_index"`
	Inputs              []int32 `json:"inputs"`
	Outputs             []int32 `json:"outputs"`
	CustomOptions       []byte  `json:"-"`
	CustomOptionsOffset int     `json:"custom_options_offset,omitempty"`
	CustomOptionsFormat int8    `json:"custom_options_format"`
	// BuiltinOptionsType is the BuiltinOptions union tag (0: none);
	// Options the table, read on demand (OptionInt and friends).
	BuiltinOptionsType uint8     `json:"builtin_options_type,omitempty"`
	Options            fbs.Table `json:"-"`
	HasOptions         bool      `json:"-"`
}

// OptionInt reads an integer field of the operator's builtin options table
// (slot and width as the schema's options table declares them); def when
// the operator has no options or the field is absent or unreadable.
func (op *Operator) OptionInt(slot, width int, def int64) int64 {
	if !op.HasOptions {
		return def
	}
	v, err := op.Options.Int(slot, width, "option", def)
	if err != nil {
		return def
	}
	return v
}

// OptionBool reads a boolean field of the builtin options table.
func (op *Operator) OptionBool(slot int) bool {
	return op.OptionInt(slot, 1, 0) != 0
}

// Metadata is one TFLite metadata entry.
type Metadata struct {
	Name       string `json:"name"`
	Buffer     uint32 `json:"buffer"`
	BufferSize int    `json:"buffer_size"`
}

// TensorType is a TFLite tensor type.
type TensorType int8

var tensorTypeNames = []string{"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL",
	"INT16", "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
	"UINT32", "UINT16", "INT4", "BFLOAT16"}

func (t TensorType) String() string {
	if t >= 0 && int(t) < len(tensorTypeNames) {
		return tensorTypeNames[t]
	}
	return fmt.Sprintf("TYPE_%d", int8(t))
}

// MarshalText names the type.
func (t TensorType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// TFLite tensor types npukit refers to by name.
const (
	TensorFloat32  TensorType = 0
	TensorFloat16  TensorType = 1
	TensorInt32    TensorType = 2
	TensorUint8    TensorType = 3
	TensorInt64    TensorType = 4
	TensorBool     TensorType = 6
	TensorInt16    TensorType = 7
	TensorInt8     TensorType = 9
	TensorBFloat16 TensorType = 18
)

// ElemSize is the element size in bytes (0 when unknown or variable).
func (t TensorType) ElemSize() int {
	switch t {
	case 0, 2, 15:
		return 4
	case 1, 7, 16, 18:
		return 2
	case 3, 6, 9:
		return 1
	case 4, 8, 10, 12:
		return 8
	case 11:
		return 16
	}
	return 0
}
