package edgetpu

import (
	"encoding/binary"
	"slices"
	"strings"
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
	opLogistic  = 14
	opReshape   = 22
	opResizeBil = 23
	opSoftmax   = 25
	opTranspose = 39
	opLSTM      = 44
	opTile      = 69
)

// custom adds a custom operator (runs on the CPU).
func (g *graph) custom(code string, in []int32, out ...int32) {
	g.m.OperatorCodes = append(g.m.OperatorCodes, tflite.OperatorCode{DeprecatedBuiltinCode: 32, BuiltinCode: 32, CustomCode: code, Version: 1})
	g.sg.Operators = append(g.sg.Operators, tflite.Operator{OpcodeIndex: uint32(len(g.m.OperatorCodes) - 1), Inputs: in, Outputs: out})
}

// conv adds a 1x1 CONV_2D from x (channels cin) to a new tensor of cout
// channels and the given spatial size.
func (g *graph) conv(x int32, h, w, cin, cout int32) int32 {
	f := g.constant("w", tflite.TensorInt8, make([]byte, cin*cout), cout, 1, 1, cin)
	b := g.constant("b", tflite.TensorInt32, make([]byte, 4*cout), cout)
	y := g.act("conv", tflite.TensorInt8, 1, h, w, cout)
	g.op(opConv2D, []int32{x, f, b}, y)
	return y
}

// only plans a model of one operator and returns that operator's plan.
func only(t *testing.T, g *graph, in, out int32, opt PlanOptions) OpPlan {
	t.Helper()
	p := PlanModel(g.build(t, []int32{in}, []int32{out}), opt)
	return p.Ops[len(p.Ops)-1]
}

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

// Class 1: size limits beyond TRANSPOSE and SOFTMAX, each with an
// uncertainty band.
func TestPlanSizeLimits(t *testing.T) {
	i8 := tflite.TensorInt8
	cases := []struct {
		name      string
		build     func(g *graph) (in, out int32)
		place     string
		uncertain bool
	}{
		{"element-wise on a tensor whose two innermost dimensions hold 705,600 elements", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 84, 8400), g.act("y", i8, 1, 84, 8400)
			g.op(opAdd, []int32{x, x}, y)
			return x, y
		}, "CPU", false},
		{"element-wise at 168,000: mapped, near the limit", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 80, 2100), g.act("y", i8, 1, 80, 2100)
			g.op(opLogistic, []int32{x}, y)
			return x, y
		}, "TPU", true},
		{"transpose keeping the innermost dimension, 134,400 elements", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 4, 16, 2100), g.act("y", i8, 1, 16, 4, 2100)
			g.op(opTranspose, []int32{x, g.ints("perm", 0, 2, 1, 3)}, y)
			return x, y
		}, "CPU", true},
		{"reshape of 1.6 M elements", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 1536, 1024), g.act("y", i8, 1, 1024, 1536)
			g.op(opReshape, []int32{x, g.ints("shape", 1, 1024, 1536)}, y)
			return x, y
		}, "CPU", true},
		{"resize by a whole factor to 4.2 M outputs", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 256, 256, 16), g.act("y", i8, 1, 512, 512, 16)
			g.op(opResizeBil, []int32{x, g.ints("size", 512, 512)}, y)
			return x, y
		}, "CPU", false},
		{"softmax over a 16-element axis of a 134,400-element tensor", func(g *graph) (int32, int32) {
			x, y := g.act("x", i8, 1, 4, 2100, 16), g.act("y", i8, 1, 4, 2100, 16)
			g.op(opSoftmax, []int32{x}, y)
			return x, y
		}, "TPU", false},
	}
	for _, c := range cases {
		g := newGraph()
		in, out := c.build(g)
		o := only(t, g, in, out, PlanOptions{})
		if o.Placement != c.place || (c.place == "CPU" && o.Status != StatusUnspecified) {
			t.Errorf("%s: %s (%s: %s), want %s", c.name, o.Placement, o.Status, o.Reason, c.place)
		}
		if (o.Uncertain != "") != c.uncertain {
			t.Errorf("%s: uncertain %q, want flagged %v", c.name, o.Uncertain, c.uncertain)
		}
	}
}

// Class 2: TILE maps on 8-bit tensors when it replicates along height and
// width only.
func TestPlanTile(t *testing.T) {
	for _, c := range []struct {
		mult  []int32
		place string
	}{{[]int32{1, 2, 3, 1}, "TPU"}, {[]int32{1, 1, 1, 2}, "CPU"}} {
		g := newGraph()
		x := g.act("x", tflite.TensorInt8, 1, 8, 8, 16)
		y := g.act("y", tflite.TensorInt8, 1, 8*c.mult[1], 8*c.mult[2], 16*c.mult[3])
		g.op(opTile, []int32{x, g.ints("multiples", c.mult...)}, y)
		if o := only(t, g, x, y, PlanOptions{}); o.Placement != c.place {
			t.Errorf("TILE %v: %s (%s: %s), want %s", c.mult, o.Placement, o.Status, o.Reason, c.place)
		}
	}
}

// lstmGraph is TFLite's int8 UNIDIRECTIONAL_SEQUENCE_LSTM: int8 input,
// weights and output, int32 biases, an int8 output state and an int16 cell
// state (both variable tensors).
func lstmGraph() (*graph, int32, int32) {
	g := newGraph()
	const steps, in, cell = 10, 8, 16
	x := g.act("x", tflite.TensorInt8, 1, steps, in)
	w := func(n string, r, c int32) int32 { return g.constant(n, tflite.TensorInt8, make([]byte, r*c), r, c) }
	b := func(n string) int32 { return g.constant(n, tflite.TensorInt32, make([]byte, 4*cell), cell) }
	outState := g.act("output_state", tflite.TensorInt8, 1, cell)
	cellState := g.act("cell_state", tflite.TensorInt16, 1, cell)
	g.sg.Tensors[outState].IsVariable = true
	g.sg.Tensors[cellState].IsVariable = true
	y := g.act("y", tflite.TensorInt8, 1, steps, cell)
	inputs := []int32{x, w("wi", cell, in), w("wf", cell, in), w("wc", cell, in), w("wo", cell, in),
		w("ri", cell, cell), w("rf", cell, cell), w("rc", cell, cell), w("ro", cell, cell),
		-1, -1, -1, b("bi"), b("bf"), b("bc"), b("bo"), -1, -1, outState, cellState, -1, -1, -1, -1}
	g.op(opLSTM, inputs, y)
	return g, x, y
}

// Classes 3 and 4: compiler 16 maps TFLite's int8 LSTM (its int16 cell
// state is state, not an activation); --compiler 15 does not map the op.
func TestPlanLSTMByCompiler(t *testing.T) {
	g, x, y := lstmGraph()
	if o := only(t, g, x, y, PlanOptions{Compiler: 16}); o.Placement != "TPU" {
		t.Errorf("compiler 16: %s (%s: %s)", o.Placement, o.Status, o.Reason)
	}
	g, x, y = lstmGraph()
	if o := only(t, g, x, y, PlanOptions{Compiler: 15}); o.Placement != "CPU" || o.Status != StatusNotSupported {
		t.Errorf("compiler 15: %s (%s: %s)", o.Placement, o.Status, o.Reason)
	}
}

// Class 5: -a (--enable_multiple_subgraphs) maps the convolution after a
// CPU operator in a second Edge TPU subgraph; -i ends the segment at the
// named tensor.
func TestPlanCompilerFlags(t *testing.T) {
	build := func() (*graph, int32, int32) {
		g := newGraph()
		x := g.act("x", tflite.TensorInt8, 1, 8, 8, 4)
		a := g.conv(x, 8, 8, 4, 8)
		c := g.act("custom_out", tflite.TensorInt8, 1, 8, 8, 8)
		g.custom("MyOp", []int32{a}, c)
		y := g.conv(c, 8, 8, 8, 8)
		return g, x, y
	}
	places := func(p *Plan) string {
		var s []byte
		for _, o := range p.Ops {
			s = append(s, o.Placement[0])
		}
		return string(s)
	}
	g, x, y := build()
	m := g.build(t, []int32{x}, []int32{y})
	if p := PlanModel(m, PlanOptions{}); places(p) != "TCC" || p.Segments != 1 {
		t.Errorf("default: %s, %d segments", places(p), p.Segments)
	}
	if p := PlanModel(m, PlanOptions{MultipleSubgraphs: true}); places(p) != "TCT" || p.Segments != 2 {
		t.Errorf("-a: %s, %d segments", places(p), p.Segments)
	}
	if p := PlanModel(m, PlanOptions{SearchDelegate: true}); places(p) != "TCT" || p.Segments != 2 {
		t.Errorf("-d: %s, %d segments", places(p), p.Segments)
	}
	if p := PlanModel(m, PlanOptions{MultipleSubgraphs: true, IntermediateTensors: []string{"custom_out"}}); places(p) != "TCC" {
		t.Errorf("-a -i custom_out: %s", places(p))
	}
}

// The compiler's status words follow its own order of checks: a custom
// operator with float tensors is reported by its data type, and a tensor
// of four dimensions larger than 1 by its rank even when it is float.
func TestPlanStatusOrder(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 10, 4)
	y := g.act("y", tflite.TensorFloat32, 1, 10, 4)
	g.custom("TFLite_Detection_PostProcess", []int32{x}, y)
	if o := only(t, g, x, y, PlanOptions{}); o.Status != StatusDataType {
		t.Errorf("custom op with a float output: %q", o.Status)
	}
	g = newGraph()
	w := g.constant("w16", tflite.TensorFloat16, make([]byte, 2*64*3*3*32), 64, 3, 3, 32)
	d := g.act("w32", tflite.TensorFloat32, 64, 3, 3, 32)
	g.op(6 /* DEQUANTIZE */, []int32{w}, d)
	if o := only(t, g, w, d, PlanOptions{}); o.Status != StatusRank {
		t.Errorf("DEQUANTIZE to a 4-D float tensor: %q", o.Status)
	}
}

// PAD and the reductions follow Coral's operations table: no padding or
// reduction in the batch dimension, a MEAN or SUM over channels only of a
// multiple of 4 channels; compilers 14 and older are predicted by the
// table's earliest text (x and y only), flagged uncertain.
func TestPlanPadAndReduceAxes(t *testing.T) {
	const opPad, opMean, opReduceMax = 34, 40, 82
	i8 := tflite.TensorInt8
	pad := func(pads []int32, compiler int) OpPlan {
		g := newGraph()
		x := g.act("x", i8, 1, 16, 1, 42) // width 1: a padded batch keeps 3 dimensions larger than 1
		y := g.act("y", i8, 1+pads[0]+pads[1], 16+pads[2]+pads[3], 1+pads[4]+pads[5], 42+pads[6]+pads[7])
		g.op(opPad, []int32{x, g.constant("paddings", tflite.TensorInt32, int32s(pads), 4, 2)}, y)
		return only(t, g, x, y, PlanOptions{Compiler: compiler})
	}
	reduce := func(code int32, channels int32, axes []int32, compiler int) OpPlan {
		g := newGraph()
		x := g.act("x", i8, 1, 8, 8, channels)
		y := g.act("y", i8, 1, 8, 8, 1)
		g.op(code, []int32{x, g.ints("axes", axes...)}, y)
		return only(t, g, x, y, PlanOptions{Compiler: compiler})
	}
	for _, c := range []struct {
		name      string
		o         OpPlan
		place     string
		uncertain bool
	}{
		{"PAD of channels", pad([]int32{0, 0, 0, 0, 0, 0, 0, 6}, 16), "TPU", false},
		{"PAD of height and width", pad([]int32{0, 0, 1, 1, 1, 1, 0, 0}, 16), "TPU", false},
		{"PAD of the batch", pad([]int32{1, 0, 0, 0, 0, 0, 0, 0}, 16), "CPU (rank)", false},
		{"PAD of channels, compiler 14", pad([]int32{0, 0, 0, 0, 0, 0, 0, 6}, 14), "CPU", true},
		{"PAD of height and width, compiler 14", pad([]int32{0, 0, 1, 1, 1, 1, 0, 0}, 14), "TPU", false},
		{"MEAN over 32 channels", reduce(opMean, 32, []int32{3}, 16), "TPU", false},
		{"MEAN over 30 channels", reduce(opMean, 30, []int32{-1}, 16), "CPU", false},
		{"MEAN over the batch", reduce(opMean, 32, []int32{0, 1, 2}, 16), "CPU", false},
		{"MEAN over height and width", reduce(opMean, 30, []int32{1, 2}, 16), "TPU", false},
		{"REDUCE_MAX over 30 channels", reduce(opReduceMax, 30, []int32{3}, 16), "TPU", false},
		{"MEAN over 32 channels, compiler 14", reduce(opMean, 32, []int32{3}, 14), "CPU", true},
	} {
		want := map[string]string{"CPU": StatusUnspecified, "CPU (rank)": StatusRank}[c.place]
		if got := c.o.Placement; got != strings.Fields(c.place)[0] || (want != "" && c.o.Status != want) {
			t.Errorf("%s: %s (%s: %s), want %s", c.name, got, c.o.Status, c.o.Reason, c.place)
		}
		if (c.o.Uncertain != "") != c.uncertain {
			t.Errorf("%s: uncertain %q, want flagged %v", c.name, c.o.Uncertain, c.uncertain)
		}
	}
}

// int32s encodes values as a little-endian INT32 buffer.
func int32s(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// The rank rule is Coral's "only the 3 innermost dimensions may be larger
// than 1": a float16 model's 1x1 weight DEQUANTIZE ([64, 1, 1, 32], two
// dimensions larger than 1) breaks it, and a convolution whose filter is
// such a DEQUANTIZE's output is worded by its data type, not its rank.
func TestPlanRankInnermostThree(t *testing.T) {
	const opDequantize = 6
	g := newGraph()
	x := g.act("x", tflite.TensorFloat32, 1, 8, 8, 32)
	w16 := g.constant("w16", tflite.TensorFloat16, make([]byte, 2*64*32), 64, 1, 1, 32)
	w := g.act("w", tflite.TensorFloat32, 64, 1, 1, 32)
	b := g.constant("b", tflite.TensorFloat32, make([]byte, 4*64), 64)
	y := g.act("y", tflite.TensorFloat32, 1, 8, 8, 64)
	g.op(opDequantize, []int32{w16}, w)
	g.op(opConv2D, []int32{x, w, b}, y)
	p := PlanModel(g.build(t, []int32{x}, []int32{y}), PlanOptions{})
	if o := p.Ops[0]; o.Status != StatusRank {
		t.Errorf("DEQUANTIZE to [64 1 1 32]: %q (%s), want %q", o.Status, o.Reason, StatusRank)
	}
	if o := p.Ops[1]; o.Status != StatusDataType {
		t.Errorf("float CONV_2D with a [64 1 1 32] filter: %q (%s), want %q", o.Status, o.Reason, StatusDataType)
	}
	g = newGraph()
	a := g.act("a", tflite.TensorInt8, 1, 8, 8, 32)
	r := g.act("r", tflite.TensorInt8, 1, 256, 1, 8)
	g.op(opReshape, []int32{a, g.ints("shape", 1, 256, 1, 8)}, r)
	if o := only(t, g, a, r, PlanOptions{}); o.Placement != "TPU" {
		t.Errorf("RESHAPE to [1 256 1 8]: %s (%s: %s), want TPU", o.Placement, o.Status, o.Reason)
	}
}

// The compiler's Operator / Count / Status table names every custom
// operator CUSTOM (its logs, releases 1 to 16), not by its custom code.
func TestPlanCompilerFormNamesCustomOps(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 8, 8, 4)
	y := g.act("y", tflite.TensorFloat32, 1, 10, 4)
	g.custom("TFLite_Detection_PostProcess", []int32{x}, y)
	var sb strings.Builder
	if err := PlanModel(g.build(t, []int32{x}, []int32{y}), PlanOptions{}).CompilerForm(&sb, "m.tflite", 1); err != nil {
		t.Fatal(err)
	}
	rows := compilerTable(sb.String())
	if want := "CUSTOM 1 " + StatusDataType; len(rows) != 1 || rows[0] != want {
		t.Errorf("table %q, want [%q]", rows, want)
	}
}

// SPLIT along axis 0 of a 3-D tensor larger than 1 there stays on the CPU
// (compiled models: inside a segment and opening an -a subgraph, 2 to 128
// parts), flagged uncertain; splits along other axes, or of an outermost
// dimension of 1, map. Under -a the operators reading the parts map in a
// new Edge TPU subgraph, as the compiled random-forest models show.
func TestPlanSplitOuterAxis(t *testing.T) {
	const opSplit = 49
	split := func(axis int32, shape ...int32) OpPlan {
		g := newGraph()
		x := g.act("x", tflite.TensorInt8, shape...)
		part := slices.Clone(shape)
		a := axis
		if a < 0 {
			a += int32(len(shape))
		}
		part[a] = 1
		var outs []int32
		for range shape[a] {
			outs = append(outs, g.act("part", tflite.TensorInt8, part...))
		}
		g.op(opSplit, []int32{g.ints("axis", axis), x}, outs...)
		return only(t, g, x, outs[0], PlanOptions{})
	}
	for _, c := range []struct {
		axis  int32
		shape []int32
		place string
	}{
		{0, []int32{2, 64, 32}, "CPU"},
		{-3, []int32{32, 15, 1}, "CPU"},
		{0, []int32{128, 1, 1}, "CPU"},
		{0, []int32{1, 64, 32}, "TPU"},
		{1, []int32{2, 64, 32}, "TPU"},
		{3, []int32{1, 8, 8, 6}, "TPU"},
		{0, []int32{1, 96, 64, 1}, "TPU"},
	} {
		o := split(c.axis, c.shape...)
		if o.Placement != c.place || (c.place == "CPU" && (o.Status != StatusUnspecified || o.Uncertain == "" || o.Fix == "")) {
			t.Errorf("SPLIT %v along %d: %s (%s: %s; uncertain %q), want %s", c.shape, c.axis, o.Placement, o.Status, o.Reason, o.Uncertain, c.place)
		}
	}

	// The random-forest pattern under -a: a CPU op, then a split of
	// [8, 4, 1] into 8 parts, each reshaped.
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 8, 4, 1)
	c := g.act("custom_out", tflite.TensorInt8, 8, 4, 1)
	g.custom("MyOp", []int32{x}, c)
	var parts, outs []int32
	for range 8 {
		parts = append(parts, g.act("part", tflite.TensorInt8, 1, 4, 1))
	}
	g.op(opSplit, []int32{g.ints("axis", 0), c}, parts...)
	for _, p := range parts {
		y := g.act("flat", tflite.TensorInt8, 1, 4)
		g.op(opReshape, []int32{p, g.ints("shape", 1, 4)}, y)
		outs = append(outs, y)
	}
	p := PlanModel(g.build(t, []int32{x}, outs), PlanOptions{MultipleSubgraphs: true})
	var got []byte
	for _, o := range p.Ops {
		got = append(got, o.Placement[0])
	}
	if string(got) != "CCTTTTTTTT" || p.Segments != 1 {
		t.Errorf("-a: %s, %d Edge TPU subgraphs, want CCTTTTTTTT and 1", got, p.Segments)
	}
}
