// Package tflite reads TFLite models (FlatBuffers with identifier TFL3):
// operator codes with their names (the BuiltinOperator table of the public
// schema), subgraphs with tensors (shape, shape signature, type,
// quantization) and operators (inputs, outputs, builtin options read on
// demand, custom options), buffer sizes and metadata. Package edgetpu builds
// on it for compiled Edge TPU models.
//
// Reading is zero-copy and bounds-checked through internal/fbs: malformed
// input yields an error naming the byte offset and the structure path, and
// the structures built are bounded by the input size.
//
// Schema slots (tensorflow/lite/schema/schema.fbs): Model{0 version,
// 1 operator_codes, 2 subgraphs, 3 description, 4 buffers, 6 metadata};
// OperatorCode{0 deprecated_builtin_code, 1 custom_code, 2 version,
// 3 builtin_code}; SubGraph{0 tensors, 1 inputs, 2 outputs, 3 operators,
// 4 name}; Tensor{0 shape, 1 type, 2 buffer, 3 name, 4 quantization,
// 5 is_variable, 7 shape_signature}; QuantizationParameters{2 scale,
// 3 zero_point, 6 quantized_dimension}; Operator{0 opcode_index, 1 inputs,
// 2 outputs, 3 builtin_options_type, 4 builtin_options, 5 custom_options,
// 6 custom_options_format, 9/10 large custom options}; Buffer{0 data,
// 1 offset, 2 size}.
package tflite

import (
	"errors"
	"fmt"

	"github.com/npukit/npukit/internal/fbs"
	"github.com/npukit/npukit/internal/inputfile"
)

// Identifier is the TFLite file identifier.
const Identifier = "TFL3"

// budgetSlack is the memory, beyond the input size, that the structures
// built by one Read may use.
const budgetSlack = 64 << 10

// Read parses a TFLite model. The model keeps sub-slices of data.
func Read(data []byte) (*Model, error) {
	return Decode(data, fbs.InputBudget(int64(len(data)), budgetSlack))
}

// ReadFile reads a TFLite model from a file.
func ReadFile(path string) (*Model, error) {
	data, err := inputfile.ReadFileMax(path, fbs.MaxSize)
	if err != nil {
		return nil, err
	}
	return Read(data)
}

// Decode parses a TFLite model, charging what it builds to b (a caller
// reading more from the same bytes shares one budget).
func Decode(data []byte, b *fbs.Budget) (*Model, error) {
	if fbs.Identifier(data) != Identifier {
		return nil, errors.New("not a TFLite model (no TFL3 identifier at bytes 4..8)")
	}
	root, err := fbs.Root(data, "Model")
	if err != nil {
		return nil, err
	}
	t := &Model{Identifier: fbs.Identifier(data)}
	v, err := root.Uint(0, 4, "version", 0)
	t.Version = uint32(v)
	t.Description = str(root, 3, "description", &err)
	if err != nil {
		return nil, err
	}
	codes, _, err := root.Vector(1, 4, "operator_codes")
	if err != nil {
		return nil, err
	}
	if err := fbs.Charge[OperatorCode](b, codes.Len(), codes.Path, codes.Start()); err != nil {
		return nil, err
	}
	t.OperatorCodes = make([]OperatorCode, codes.Len())
	for i := range t.OperatorCodes {
		c, err := codes.Table(i)
		if err != nil {
			return nil, err
		}
		oc := &t.OperatorCodes[i]
		dep, err := c.Int(0, 1, "deprecated_builtin_code", 0)
		oc.DeprecatedBuiltinCode = int8(dep)
		oc.CustomCode = str(c, 1, "custom_code", &err)
		oc.Version = i32(c, 2, "version", 1, &err)
		oc.BuiltinCode = i32(c, 3, "builtin_code", 0, &err)
		if err != nil {
			return nil, err
		}
	}
	buffers, _, err := root.Vector(4, 4, "buffers")
	if err != nil {
		return nil, err
	}
	t.NumBuffers = buffers.Len()
	if err := bufferSizes(t, buffers, b); err != nil {
		return nil, err
	}
	if err := metadata(t, root, buffers, b); err != nil {
		return nil, err
	}
	sgs, _, err := root.Vector(2, 4, "subgraphs")
	if err != nil {
		return nil, err
	}
	if err := fbs.Charge[Subgraph](b, sgs.Len(), sgs.Path, sgs.Start()); err != nil {
		return nil, err
	}
	t.Subgraphs = make([]Subgraph, sgs.Len())
	for i := range t.Subgraphs {
		st, err := sgs.Table(i)
		if err != nil {
			return nil, err
		}
		if err := subgraph(&t.Subgraphs[i], st, b); err != nil {
			return nil, err
		}
	}
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		for oi := range sg.Operators {
			if idx := sg.Operators[oi].OpcodeIndex; int(idx) >= len(t.OperatorCodes) {
				return nil, fmt.Errorf("Model.subgraphs[%d].operators[%d].opcode_index %d: only %d operator codes", si, oi, idx, len(t.OperatorCodes))
			}
		}
	}
	return t, nil
}

// bufferSizes records each buffer's data size: the data vector, or the
// size field of a model over 2 GiB that keeps its data after the
// FlatBuffer.
func bufferSizes(t *Model, buffers fbs.Vector, b *fbs.Budget) error {
	if err := fbs.Charge[[]byte](b, buffers.Len()+buffers.Len()/3+1, buffers.Path, buffers.Start()); err != nil {
		return err
	}
	t.BufferSizes = make([]int64, buffers.Len())
	t.BufferData = make([][]byte, buffers.Len())
	for i := range t.BufferSizes {
		bt, err := buffers.Table(i)
		if err != nil {
			return err
		}
		data, _, ok, err := bt.Bytes(0, "data")
		if err != nil {
			return err
		}
		if ok {
			t.BufferSizes[i], t.BufferData[i] = int64(len(data)), data
			continue
		}
		size, err := bt.Uint(2, 8, "size", 0)
		if err != nil {
			return err
		}
		if size > 1<<50 {
			return &fbs.Error{Offset: int64(bt.Pos()), Path: bt.Path + ".size", Msg: fmt.Sprintf("buffer size %d is implausible", size)}
		}
		t.BufferSizes[i] = int64(size)
	}
	return nil
}

func metadata(t *Model, root fbs.Table, buffers fbs.Vector, b *fbs.Budget) error {
	md, ok, err := root.Vector(6, 4, "metadata")
	if err != nil || !ok {
		return err
	}
	if err := fbs.Charge[Metadata](b, md.Len(), md.Path, md.Start()); err != nil {
		return err
	}
	for i := 0; i < md.Len(); i++ {
		e, err := md.Table(i)
		if err != nil {
			return err
		}
		var m Metadata
		m.Name = str(e, 0, "name", &err)
		bu, e2 := e.Uint(1, 4, "buffer", 0)
		if err == nil {
			err = e2
		}
		if err != nil {
			return err
		}
		m.Buffer = uint32(bu)
		if int(m.Buffer) < len(t.BufferSizes) {
			m.BufferSize = int(t.BufferSizes[m.Buffer])
		}
		t.Metadata = append(t.Metadata, m)
	}
	return nil
}

func subgraph(sg *Subgraph, st fbs.Table, b *fbs.Budget) error {
	var err error
	sg.Name = str(st, 4, "name", &err)
	if err != nil {
		return err
	}
	if sg.Inputs, _, err = ints32(b, st, 1, "inputs"); err != nil {
		return err
	}
	if sg.Outputs, _, err = ints32(b, st, 2, "outputs"); err != nil {
		return err
	}
	tv, _, err := st.Vector(0, 4, "tensors")
	if err != nil {
		return err
	}
	if err := fbs.Charge[Tensor](b, tv.Len(), tv.Path, tv.Start()); err != nil {
		return err
	}
	sg.Tensors = make([]Tensor, tv.Len())
	for i := range sg.Tensors {
		tt, err := tv.Table(i)
		if err != nil {
			return err
		}
		if err := tensor(&sg.Tensors[i], tt, b); err != nil {
			return err
		}
	}
	ov, _, err := st.Vector(3, 4, "operators")
	if err != nil {
		return err
	}
	if err := fbs.Charge[Operator](b, ov.Len(), ov.Path, ov.Start()); err != nil {
		return err
	}
	sg.Operators = make([]Operator, ov.Len())
	for i := range sg.Operators {
		ot, err := ov.Table(i)
		if err != nil {
			return err
		}
		if err := operator(&sg.Operators[i], ot, b); err != nil {
			return err
		}
	}
	return nil
}

func tensor(ten *Tensor, tt fbs.Table, b *fbs.Budget) error {
	var err error
	if ten.Shape, _, err = ints32(b, tt, 0, "shape"); err != nil {
		return err
	}
	if ten.ShapeSignature, _, err = ints32(b, tt, 7, "shape_signature"); err != nil {
		return err
	}
	typ, err := tt.Int(1, 1, "type", 0)
	ten.Type = TensorType(typ)
	buf, e2 := tt.Uint(2, 4, "buffer", 0)
	if err == nil {
		err = e2
	}
	ten.Buffer = uint32(buf)
	ten.Name = str(tt, 3, "name", &err)
	if err != nil {
		return err
	}
	if ten.IsVariable, err = tt.Bool(5, "is_variable", false); err != nil {
		return err
	}
	q, ok, err := tt.Table(4, "quantization")
	if err != nil || !ok {
		return err
	}
	sv, _, err := q.Vector(2, 4, "scale")
	if err != nil {
		return err
	}
	zv, _, err := q.Vector(3, 8, "zero_point")
	if err != nil {
		return err
	}
	if err := fbs.Charge[int64](b, sv.Len()+2*zv.Len(), q.Path, q.Pos()); err != nil {
		return err
	}
	if sv.Len() > 0 {
		ten.Scale = make([]float32, sv.Len())
		for j := range ten.Scale {
			ten.Scale[j] = sv.Float32(j)
		}
	}
	if zv.Len() > 0 {
		ten.ZeroPoint = make([]int64, zv.Len())
		for j := range ten.ZeroPoint {
			ten.ZeroPoint[j] = zv.Int(j)
		}
	}
	qd := i32(q, 6, "quantized_dimension", 0, &err)
	ten.QuantizedDimension = qd
	return err
}

func operator(op *Operator, ot fbs.Table, b *fbs.Budget) error {
	idx, err := ot.Uint(0, 4, "opcode_index", 0)
	if err != nil {
		return err
	}
	op.OpcodeIndex = uint32(idx)
	if op.Inputs, _, err = ints32(b, ot, 1, "inputs"); err != nil {
		return err
	}
	if op.Outputs, _, err = ints32(b, ot, 2, "outputs"); err != nil {
		return err
	}
	tag, err := ot.Uint(3, 1, "builtin_options_type", 0)
	if err != nil {
		return err
	}
	op.BuiltinOptionsType = uint8(tag)
	if tag != 0 {
		if op.Options, op.HasOptions, err = ot.Table(4, "builtin_options"); err != nil {
			return err
		}
	}
	opts, off, ok, err := ot.Bytes(5, "custom_options")
	if err != nil {
		return err
	}
	if ok {
		op.CustomOptions, op.CustomOptionsOffset = opts, off
	} else if err := largeOptions(ot, op); err != nil {
		return err
	}
	f, err := ot.Int(6, 1, "custom_options_format", 0)
	if err != nil {
		return err
	}
	op.CustomOptionsFormat = int8(f)
	return nil
}

// largeOptions reads Operator.large_custom_options_offset/size (slots 9 and
// 10), which models over 2 GiB use instead of custom_options: an absolute
// file offset.
func largeOptions(ot fbs.Table, op *Operator) error {
	off, err := ot.Uint(9, 8, "large_custom_options_offset", 0)
	if err != nil {
		return err
	}
	size, err := ot.Uint(10, 8, "large_custom_options_size", 0)
	if err != nil || size == 0 {
		return err
	}
	buf := ot.Buf()
	if off > uint64(len(buf)) || size > uint64(len(buf))-off {
		return &fbs.Error{Offset: int64(ot.Pos()), Path: ot.Path + ".large_custom_options_offset", Msg: fmt.Sprintf("options [%d, +%d) outside the %d-byte file", off, size, len(buf))}
	}
	op.CustomOptions, op.CustomOptionsOffset = buf[off:off+size:off+size], int(off)
	return nil
}

func ints32(b *fbs.Budget, t fbs.Table, slot int, name string) ([]int32, bool, error) {
	v, ok, err := t.Vector(slot, 4, name)
	if err != nil || !ok {
		return nil, ok, err
	}
	if err := fbs.Charge[int32](b, v.Len(), v.Path, v.Start()); err != nil {
		return nil, false, err
	}
	out := make([]int32, v.Len())
	for i := range out {
		out[i] = int32(v.Int(i))
	}
	return out, true, nil
}

func i32(t fbs.Table, slot int, name string, def int32, err *error) int32 {
	if *err != nil {
		return def
	}
	v, e := t.Int(slot, 4, name, int64(def))
	*err = e
	return int32(v)
}

func str(t fbs.Table, slot int, name string, err *error) string {
	if *err != nil {
		return ""
	}
	s, _, e := t.String(slot, name)
	*err = e
	return s
}
