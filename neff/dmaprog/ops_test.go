package dmaprog

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neff"
)

func le(vals ...any) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

// Every op through the whole path (builder JSON -> reader -> dmaprog ->
// executor), with hand-computed expected bytes: this checks that the
// op fields (from_arr, dtypes, scale, constant and its dtype,
// transpose_shape, transpose_element_size) reach the executor.
func TestOpsThroughNEFF(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	num := func(s string) *json.Number { n := json.Number(s); return &n }
	flat := func(n int64) ([]int64, []int64) { return []int64{n}, []int64{1} }
	src := func(v string, n int64, dt string) *neff.Source {
		sz, st := flat(n)
		return &neff.Source{From: str(v), FromOff: i64(0), FromSizes: sz, FromSteps: st, FromDType: str(dt)}
	}
	desc := func(op string, from []*neff.Source, to string, n int64, dt string) *neff.Desc {
		sz, st := flat(n)
		d := &neff.Desc{Op: str(op), To: str(to), ToOff: i64(0), ToSizes: sz, ToSteps: st, ToDType: str(dt)}
		if len(from) == 1 {
			d.From, d.FromOff, d.FromSizes, d.FromSteps, d.FromDType = from[0].From, from[0].FromOff, from[0].FromSizes, from[0].FromSteps, from[0].FromDType
		} else {
			d.FromArr = from
		}
		return d
	}
	inputs := map[string][]byte{
		"a":  le(float32(1), float32(2)),
		"b":  le(float32(3), float32(5)),
		"c":  le(float32(1.5), float32(-2), float32(300)),
		"ci": le(int32(1), int32(5)),
		"t":  le(int32(0), int32(1), int32(2), int32(3), int32(4), int32(5)),
	}
	type op struct {
		out  string
		size int64
		d    *neff.Desc
		want []byte
	}
	ops := []op{
		{"copy", 8, desc("copy", []*neff.Source{src("a", 8, "float32")}, "copy", 8, "float32"), le(float32(1), float32(2))},
		{"f16", 6, desc("cast", []*neff.Source{src("c", 12, "float32")}, "f16", 6, "float16"), le(uint16(0x3e00), uint16(0xc000), uint16(0x5cb0))},
		{"bf16", 6, desc("cast", []*neff.Source{src("c", 12, "float32")}, "bf16", 6, "bfloat16"), le(uint16(0x3fc0), uint16(0xc000), uint16(0x4396))},
		// float8 e4 (1-4-3, bias 7): 1.5 = 0x3c, -2 = 0xc0, 300 overflows to +inf 0x78.
		{"f8", 3, desc("cast", []*neff.Source{src("c", 12, "float32")}, "f8", 3, "float8e4"), []byte{0x3c, 0xc0, 0x78}},
		// Round half to even, then saturate.
		{"i8", 3, desc("cast", []*neff.Source{src("c", 12, "float32")}, "i8", 3, "int8"), []byte{2, 0xfe, 127}},
		{"u8", 3, desc("cast", []*neff.Source{src("c", 12, "float32")}, "u8", 3, "uint8"), []byte{2, 0, 255}},
		{"i2f", 8, desc("cast", []*neff.Source{src("ci", 8, "int32")}, "i2f", 8, "float32"), le(float32(1), float32(5))},
		{"add", 8, desc("add", []*neff.Source{src("a", 8, "float32"), src("b", 8, "float32")}, "add", 8, "float32"), le(float32(4), float32(7))},
		{"fma", 8, func() *neff.Desc {
			d := desc("fma", []*neff.Source{src("a", 8, "float32"), src("b", 8, "float32")}, "fma", 8, "float32")
			d.Scale, d.ScaleDType = func() *float64 { v := 0.5; return &v }(), str("float32")
			return d
		}(), le(float32(2), float32(3.5))},
		{"max", 8, func() *neff.Desc {
			d := desc("max", []*neff.Source{src("a", 8, "float32")}, "max", 8, "float32")
			d.Constant, d.ConstantDType = num("1.5"), str("float32")
			return d
		}(), le(float32(1.5), float32(2))},
		{"min", 8, func() *neff.Desc {
			d := desc("min", []*neff.Source{src("ci", 8, "int32")}, "min", 8, "int32")
			d.Constant, d.ConstantDType = num("3"), str("int32")
			return d
		}(), le(int32(1), int32(3))},
		// Source row-major [3][2] (transpose_shape reversed), destination [2][3].
		{"tr", 24, func() *neff.Desc {
			d := desc("transpose", []*neff.Source{src("t", 24, "int32")}, "tr", 24, "int32")
			d.TransposeShape, d.TransposeElementSize = []int64{1, 1, 2, 3}, i64(4)
			return d
		}(), le(int32(0), int32(2), int32(4), int32(1), int32(3), int32(5))},
	}
	b := neff.NewBuilder("ops.neff")
	sg := b.Subgraph("sg00")
	for _, n := range []string{"a", "b", "c", "ci", "t"} {
		sg.AddVar(n, "input", int64(len(inputs[n])))
	}
	sg.AddQueue("q", "data", 1, "sp")
	sp := sg.Engine("sp", "SP")
	for _, o := range ops {
		sg.AddVar(o.out, "output", o.size)
		sp.AddDMA("q", o.out, o.d)
	}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep := neff.Check(m, neff.DefaultRuntime); rep.HasErrors() {
		t.Fatalf("ops NEFF does not check: %v", rep)
	}
	p := FromModel(m)[0]
	if len(p.Problems) > 0 {
		t.Fatal(p.Problems)
	}
	mem := p.NewMemory(0)
	for n, v := range inputs {
		if err := mem.SetInput(n, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Execute(mem); err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		got, _ := mem.Bytes(o.out)
		if !bytes.Equal(got, o.want) {
			t.Errorf("%s: got % x, want % x", o.out, got, o.want)
		}
	}
}

// neuronx-cc 2.21 (trn2) marks DMA transposes with transpose_op and no op
// key (corpus2's conv2d_1 carries 36 of them: "WZXY", [1 1 128 128],
// 2-byte elements). They were taken for copies: the bytes arrived
// untransposed. Here a NEFF built with such descriptors is executed and
// every moved element is checked against the permutation, for the real
// marker and for an order that is not its own inverse.
func TestTransposeOpThroughNEFF(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	const W, Z, Y, X = 2, 3, 4, 5 // source extents, outermost first
	const n = W * Z * Y * X
	src := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(src[2*i:], uint16(i))
	}
	cases := []struct {
		op   string
		perm [4]int // result axis i = source axis perm[i]
	}{{"WZXY", [4]int{0, 1, 3, 2}}, {"XWZY", [4]int{3, 0, 1, 2}}, {"wzyx", [4]int{0, 1, 2, 3}}}
	srcExt := [4]int64{W, Z, Y, X}
	b := neff.NewBuilder("transpose.neff")
	b.Target = "cayman"
	sg := b.Subgraph("sg00")
	sg.AddVar("in", "input", int64(len(src)))
	sg.AddQueue("q", "data", 1, "sp")
	sp := sg.Engine("sp", "SP")
	for k, c := range cases {
		var shape []int64
		for _, a := range c.perm {
			shape = append(shape, srcExt[a])
		}
		out := fmt.Sprintf("out%d", k)
		sg.AddVar(out, "output", int64(len(src)))
		d := &neff.Desc{From: str("in"), FromOff: i64(0), FromSizes: []int64{int64(len(src))}, FromSteps: []int64{1}, FromDType: str("bfloat16"),
			To: str(out), ToOff: i64(0), ToSizes: []int64{int64(len(src))}, ToSteps: []int64{1}, ToDType: str("bfloat16"),
			TransposeOp: str(c.op), TransposeShape: shape, TransposeElementSize: i64(2)}
		sp.AddDMA("q", out, d)
	}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep := neff.Check(m, neff.DefaultRuntime); rep.HasErrors() || rep.Count(diag.Warning) > 0 {
		t.Fatalf("transpose_op NEFF has findings: %v", rep)
	}
	p := FromModel(m)[0]
	if len(p.Problems) > 0 {
		t.Fatal(p.Problems)
	}
	mem := p.NewMemory(0)
	if err := mem.SetInput("in", src); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Execute(mem); err != nil {
		t.Fatal(err)
	}
	for k, c := range cases {
		got, _ := mem.Bytes(fmt.Sprintf("out%d", k))
		var ext [4]int64
		for i, a := range c.perm {
			ext[i] = srcExt[a]
		}
		o := 0
		var idx [4]int64 // result index
		for idx[0] = 0; idx[0] < ext[0]; idx[0]++ {
			for idx[1] = 0; idx[1] < ext[1]; idx[1]++ {
				for idx[2] = 0; idx[2] < ext[2]; idx[2]++ {
					for idx[3] = 0; idx[3] < ext[3]; idx[3]++ {
						var s [4]int64
						for i, a := range c.perm {
							s[a] = idx[i]
						}
						want := uint16(((s[0]*Z+s[1])*Y+s[2])*X + s[3])
						if g := binary.LittleEndian.Uint16(got[2*o:]); g != want {
							t.Fatalf("%s: result element %v is %d, want source element %d", c.op, idx, g, want)
						}
						o++
					}
				}
			}
		}
	}
}
