package edgetpu

import (
	"encoding/binary"
	"testing"

	"github.com/npukit/npukit/tflite"
)

// graph builds small uncompiled TFLite models with npukit's writer for the
// mapping tests: tensors (activations or constants) and builtin operators.
type graph struct {
	codes map[int32]uint32
	m     tflite.Model
	sg    tflite.Subgraph
}

func newGraph() *graph {
	return &graph{codes: map[int32]uint32{}, m: tflite.Model{Version: 3, NumBuffers: 1, BufferData: [][]byte{nil}}}
}

// act adds an activation tensor.
func (g *graph) act(name string, typ tflite.TensorType, shape ...int32) int32 {
	g.sg.Tensors = append(g.sg.Tensors, tflite.Tensor{Name: name, Type: typ, Shape: shape, Scale: []float32{0.1}, ZeroPoint: []int64{0}})
	return int32(len(g.sg.Tensors) - 1)
}

// constant adds a constant tensor holding data.
func (g *graph) constant(name string, typ tflite.TensorType, data []byte, shape ...int32) int32 {
	g.m.BufferData = append(g.m.BufferData, data)
	g.m.NumBuffers++
	g.sg.Tensors = append(g.sg.Tensors, tflite.Tensor{Name: name, Type: typ, Shape: shape, Buffer: uint32(g.m.NumBuffers - 1)})
	return int32(len(g.sg.Tensors) - 1)
}

// ints adds a constant INT32 tensor of the values (a shape, permutation,
// multiples, axes).
func (g *graph) ints(name string, v ...int32) int32 {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return g.constant(name, tflite.TensorInt32, b, int32(len(v)))
}

// op adds a builtin operator.
func (g *graph) op(code int32, in []int32, out ...int32) {
	idx, ok := g.codes[code]
	if !ok {
		idx = uint32(len(g.m.OperatorCodes))
		g.codes[code] = idx
		dep := int8(min(code, 127))
		g.m.OperatorCodes = append(g.m.OperatorCodes, tflite.OperatorCode{DeprecatedBuiltinCode: dep, BuiltinCode: code, Version: 1})
	}
	g.sg.Operators = append(g.sg.Operators, tflite.Operator{OpcodeIndex: idx, Inputs: in, Outputs: out})
}

// build writes the model (inputs and outputs as given) and reads it back.
func (g *graph) build(t *testing.T, inputs, outputs []int32) *tflite.Model {
	t.Helper()
	g.sg.Inputs, g.sg.Outputs = inputs, outputs
	m := g.m
	m.Subgraphs = []tflite.Subgraph{g.sg}
	b, err := Write(&Model{TFLite: &m})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tflite.Read(b)
	if err != nil {
		t.Fatalf("reading the written model: %v", err)
	}
	return r
}

// TFLite builtin codes used by the tests (schema BuiltinOperator).
const (
	opAdd       = 0
	opConv2D    = 3
	opReshape   = 22
	opSoftmax   = 25
	opTranspose = 39
	opTile      = 69
	opLSTM      = 44
	opResizeBil = 23
)

// A valid model whose operator and tensor tables share vtables (what every
// FlatBuffers builder does: a chain of identical ADDs) reads, however long
// the chain: the structures of such a file are several times its size, and
// refusing it as "overlapping or repeated offsets" was a false refusal.
func TestReadSharedVtablesLongChain(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 4)
	in := x
	for i := range 502 {
		y := g.act("", tflite.TensorInt8, 1, 4)
		g.op(opAdd, []int32{x, in}, y)
		x = y
		_ = i
	}
	m := g.build(t, []int32{in}, []int32{x})
	if n := len(m.Subgraphs[0].Operators); n != 502 {
		t.Fatalf("%d operators read, want 502", n)
	}
	p := PlanModel(m, PlanOptions{})
	if p.TPU != 502 {
		t.Errorf("%d of 502 ADDs mapped", p.TPU)
	}
}
