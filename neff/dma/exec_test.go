package dma

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/neff/accesspattern"
)

// enc holds hand-computed little-endian encodings of the integers 0..6
// in every dtype (IEEE-style minifloats: e3 = 1-3-4 bias 3, e4 = 1-4-3
// bias 7, e5 = 1-5-2 bias 15).
var enc = map[dtype.T][7]uint64{
	dtype.Float8E3: {0x00, 0x30, 0x40, 0x48, 0x50, 0x54, 0x58},
	dtype.Float8E4: {0x00, 0x38, 0x40, 0x44, 0x48, 0x4a, 0x4c},
	dtype.Float8E5: {0x00, 0x3c, 0x40, 0x42, 0x44, 0x45, 0x46},
	dtype.Float16:  {0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600},
	dtype.BFloat16: {0x0000, 0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0},
	dtype.Float32:  {0, 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000},
	dtype.Float32R: {0, 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000},
	dtype.Uint8:    {0, 1, 2, 3, 4, 5, 6}, dtype.Uint16: {0, 1, 2, 3, 4, 5, 6},
	dtype.Uint32: {0, 1, 2, 3, 4, 5, 6}, dtype.Uint64: {0, 1, 2, 3, 4, 5, 6},
	dtype.Int8: {0, 1, 2, 3, 4, 5, 6}, dtype.Int16: {0, 1, 2, 3, 4, 5, 6},
	dtype.Int32: {0, 1, 2, 3, 4, 5, 6}, dtype.Int64: {0, 1, 2, 3, 4, 5, 6},
}

// vec builds the bytes of the given small integers in type t.
func vec(t dtype.T, vals ...int) []byte {
	sz := t.Size()
	out := make([]byte, sz*len(vals))
	for i, v := range vals {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], enc[t][v])
		copy(out[i*sz:], b[:sz])
	}
	return out
}

// flat is a contiguous pattern over n bytes.
func flat(n int) accesspattern.Pattern {
	return accesspattern.Pattern{Sizes: []int64{int64(n)}, Steps: []int64{1}}
}

func side(name string, t dtype.T, n int) Side {
	return Side{Var: name, Pattern: flat(n * t.Size()), DType: t}
}

func run(t *testing.T, mem MapMemory, tr Transfer) {
	t.Helper()
	if err := Execute(mem, tr); err != nil {
		t.Fatal(err)
	}
}

func TestCopyEveryDtype(t *testing.T) {
	for _, ty := range dtype.All() {
		mem := MapMemory{"a": vec(ty, 1, 2, 3), "b": make([]byte, 3*ty.Size())}
		run(t, mem, Transfer{Op: OpCopy, From: []Side{side("a", ty, 3)}, To: side("b", ty, 3)})
		if !bytes.Equal(mem["b"], vec(ty, 1, 2, 3)) {
			t.Errorf("%v: % x", ty, mem["b"])
		}
	}
}

func TestCastEveryPair(t *testing.T) {
	for _, from := range dtype.All() {
		for _, to := range dtype.All() {
			mem := MapMemory{"a": vec(from, 1, 2, 3, 6), "b": make([]byte, 4*to.Size())}
			run(t, mem, Transfer{Op: OpCast, From: []Side{side("a", from, 4)}, To: side("b", to, 4)})
			if want := vec(to, 1, 2, 3, 6); !bytes.Equal(mem["b"], want) {
				t.Errorf("%v->%v: % x want % x", from, to, mem["b"], want)
			}
		}
	}
}

func TestArithmeticEveryDtype(t *testing.T) {
	two := dtype.FloatValue(2)
	for _, ty := range dtype.All() {
		cases := []struct {
			name string
			dst  []int
			srcs [][]int
			tr   Transfer
			want []int
		}{
			{"add from_arr", []int{0, 0, 0}, [][]int{{1, 2, 3}, {2, 2, 3}}, Transfer{Op: OpAdd}, []int{3, 4, 6}},
			{"add accumulate", []int{1, 1, 1}, [][]int{{1, 2, 3}}, Transfer{Op: OpAdd}, []int{2, 3, 4}},
			{"fma accumulate", []int{1, 1, 1}, [][]int{{1, 2, 2}}, Transfer{Op: OpFMA, Scale: 2}, []int{3, 5, 5}},
			{"fma from_arr", []int{6, 6, 6}, [][]int{{1, 1, 2}, {0, 1, 1}}, Transfer{Op: OpFMA, Scale: 2}, []int{2, 4, 6}},
			{"min constant", []int{0, 0, 0}, [][]int{{1, 3, 2}}, Transfer{Op: OpMin, Constant: &two}, []int{1, 2, 2}},
			{"max constant", []int{0, 0, 0}, [][]int{{1, 3, 2}}, Transfer{Op: OpMax, Constant: &two}, []int{2, 3, 2}},
			{"max from_arr", []int{0, 0, 0}, [][]int{{1, 5, 2}, {3, 2, 2}}, Transfer{Op: OpMax}, []int{3, 5, 2}},
			{"min from_arr", []int{0, 0, 0}, [][]int{{1, 5, 2}, {3, 2, 2}}, Transfer{Op: OpMin}, []int{1, 2, 2}},
			{"max accumulate", []int{4, 1, 1}, [][]int{{1, 3, 2}}, Transfer{Op: OpMax}, []int{4, 3, 2}},
			{"min accumulate", []int{4, 1, 1}, [][]int{{1, 3, 2}}, Transfer{Op: OpMin}, []int{1, 1, 1}},
		}
		for _, c := range cases {
			mem := MapMemory{"d": vec(ty, c.dst...)}
			tr := c.tr
			for i, s := range c.srcs {
				name := fmt.Sprintf("s%d", i)
				mem[name] = vec(ty, s...)
				tr.From = append(tr.From, side(name, ty, 3))
			}
			tr.To = side("d", ty, 3)
			run(t, mem, tr)
			if want := vec(ty, c.want...); !bytes.Equal(mem["d"], want) {
				t.Errorf("%v %s: % x want % x", ty, c.name, mem["d"], want)
			}
		}
	}
}

func TestTransposeEveryDtype(t *testing.T) {
	for _, ty := range dtype.All() {
		mem := MapMemory{"a": vec(ty, 1, 2, 3, 4, 5, 6), "b": make([]byte, 6*ty.Size())}
		run(t, mem, Transfer{Op: OpTranspose, From: []Side{side("a", ty, 6)}, To: side("b", ty, 6), TransposeShape: []int64{1, 1, 3, 2}})
		if want := vec(ty, 1, 4, 2, 5, 3, 6); !bytes.Equal(mem["b"], want) {
			t.Errorf("%v: % x want % x", ty, mem["b"], want)
		}
	}
	// An explicit element size moves pairs of bytes as one element.
	mem := MapMemory{"a": []byte{1, 2, 3, 4, 5, 6, 7, 8}, "b": make([]byte, 8)}
	run(t, mem, Transfer{Op: OpTranspose, From: []Side{{Var: "a", Pattern: flat(8)}}, To: Side{Var: "b", Pattern: flat(8)}, TransposeShape: []int64{1, 1, 2, 2}, TransposeElemSize: 2})
	if !bytes.Equal(mem["b"], []byte{1, 2, 5, 6, 3, 4, 7, 8}) {
		t.Fatalf("% x", mem["b"])
	}
}

// Patterns are honoured on both sides: gather every other float16 of a
// strided source into a contiguous destination, converting to float32.
func TestStridedCast(t *testing.T) {
	mem := MapMemory{"a": vec(dtype.Float16, 1, 0, 2, 0, 3, 0), "b": make([]byte, 12)}
	from := Side{Var: "a", DType: dtype.Float16, Pattern: accesspattern.Pattern{Sizes: []int64{2, 3}, Steps: []int64{1, 4}}}
	run(t, mem, Transfer{Op: OpCast, From: []Side{from}, To: side("b", dtype.Float32, 3)})
	if !bytes.Equal(mem["b"], vec(dtype.Float32, 1, 2, 3)) {
		t.Fatalf("% x", mem["b"])
	}
	// Copy into a partition-strided destination.
	mem = MapMemory{"a": []byte{1, 2, 3, 4}, "sb": make([]byte, 20)}
	to := Side{Var: "sb", Pattern: accesspattern.Pattern{Offset: 1, Sizes: []int64{2, 2}, Steps: []int64{1, 10}}}
	run(t, mem, Transfer{Op: OpCopy, From: []Side{{Var: "a", Pattern: flat(4)}}, To: to})
	if !bytes.Equal(mem["sb"], []byte{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0}) {
		t.Fatalf("% x", mem["sb"])
	}
}

func TestErrors(t *testing.T) {
	mem := MapMemory{"a": make([]byte, 8), "b": make([]byte, 4)}
	for name, tr := range map[string]Transfer{
		"out of bounds": {Op: OpCopy, From: []Side{{Var: "a", Pattern: flat(8)}}, To: Side{Var: "b", Pattern: flat(8)}},
		"size mismatch": {Op: OpCopy, From: []Side{{Var: "a", Pattern: flat(4)}}, To: Side{Var: "b", Pattern: flat(3)}},
		"unknown var":   {Op: OpCopy, From: []Side{{Var: "zz", Pattern: flat(4)}}, To: Side{Var: "b", Pattern: flat(4)}},
		"unknown op":    {Op: "xor", From: []Side{{Var: "a", Pattern: flat(4)}}, To: Side{Var: "b", Pattern: flat(4)}},
		"cast elements": {Op: OpCast, From: []Side{{Var: "a", Pattern: flat(8), DType: dtype.Float32}}, To: Side{Var: "b", Pattern: flat(4), DType: dtype.Float32}},
		"no source":     {Op: OpAdd, To: Side{Var: "b", Pattern: flat(4)}},
		"bad transpose": {Op: OpTranspose, From: []Side{{Var: "a", Pattern: flat(4)}}, To: Side{Var: "b", Pattern: flat(4)}, TransposeShape: []int64{1, 1, 3}},
	} {
		if err := Execute(mem, tr); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
