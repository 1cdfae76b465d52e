package nki

import (
	"fmt"
	"math"
	"slices"

	"github.com/npukit/npukit/nki/python"
)

// DType is an NKI / numpy element type name (float32, bfloat16, ...).
type DType string

// storage is a dtype of the same element size that plans name, for the
// MX types plans do not know.
func (d DType) storage() string {
	switch d {
	case "float8_e8m0fnu":
		return "uint8"
	case "float4_e2m1fn_x4":
		return "uint16"
	case "float8_e4m3fn_x4", "float8_e5m2_x4":
		return "uint32"
	}
	return string(d)
}

// Size is the element size in bytes (0 when unknown).
func (d DType) Size() int {
	switch d {
	case "float32", "int32", "uint32", "tfloat32", "float32r":
		return 4
	case "bfloat16", "float16", "int16", "uint16":
		return 2
	case "int8", "uint8", "bool", "bool_", "float8_e4m3", "float8_e5m2", "float8_e3m4", "float8_e4m3fn", "fp8_e4m3", "fp8_e5m2",
		"float8_e8m0fnu":
		return 1
	case "float4_e2m1fn_x4": // four 4-bit values (nki-library's sizeinbytes)
		return 2
	case "float8_e4m3fn_x4", "float8_e5m2_x4": // four 8-bit values
		return 4
	case "float64", "int64", "uint64":
		return 8
	}
	return 0
}

// Tensor is a declared tensor (kernel argument, HBM output, on-chip
// tensor or a bound Beta-1 instruction result).
type Tensor struct {
	Shape     []int64
	DType     DType
	Buffer    string // sbuf, psum, hbm, shared_hbm, private_hbm
	BlockDims int    // leading block dimensions (Beta 1, before par_dim)
	Rec       *TensorRec
	Arg       string
	inst      int64 // which execution of its declaration (program.go)
}

func (t *Tensor) onChip() bool { return t.Buffer == "sbuf" || t.Buffer == "psum" }

// View is an indexed tensor (t[...]); it names the tensor it reads/writes.
type View struct {
	T     *Tensor
	Shape []int64
	DType DType
	// Block is the logical tile the view selects (see blockIndex).
	Block []Value
	// Whole: the view selects every element of one logical tile (or of a
	// tensor without block dimensions).
	Whole bool
	// Index holds the on-chip tiles the view is indexed with (indirect
	// access: data[b, load_indices, i_f]); the instruction that reads or
	// writes the view reads them.
	Index []Value
	// Run is, for a view of an HBM tensor, the elements of one contiguous
	// run it selects (contiguousRun; 0 when not known): the HBM side of a
	// DMA reading or writing the view moves runs of this length.
	Run int64
}

// Tile is the result of a Beta-1 instruction before it is bound to a name
// (then it also gets a Rec: an implicit, compiler-allocated tile).
type Tile struct {
	Shape  []int64
	DType  DType
	Buffer string
	Fn     string
	Site   Site
	Rule   string
	Rec    *TensorRec
	call   *CallRec
	step   *PStep
	// T is the tensor this tile becomes once used (for later indexing).
	T *Tensor
	// bound: the result was assigned to a name (name is the first one).
	bound bool
	name  string
	// absorbed: written straight into a destination (t[...] = op(...),
	// t[...] += op(...)), so no tile of its own
	absorbed bool
}

// Grid is an index expression (nl.arange / nl.mgrid and arithmetic on it,
// masks included); only its shape matters for tracing.
type Grid struct {
	Shape []int64
}

// MGrid is nl.mgrid[...]: one grid per dimension, with .p and .x.
type MGrid struct{ Grids []*Grid }

// DSlice is nl.ds(start, size).
type DSlice struct {
	Start Value
	Size  int64
}

// ParDim marks the partition dimension (Beta 1).
type ParDim struct{ N int64 }

// BufferVal is a buffer argument: nl.sbuf etc., or a Beta-1 allocator.
type BufferVal struct {
	Kind  string // sbuf, psum, hbm, shared_hbm, private_hbm
	Alloc string // "", sbuf.alloc, sbuf.mod_alloc, psum.alloc, psum.mod_alloc
	Func  Value
	Args  map[string]Value
}

// RangeVal is range() or an nl.*_range.
type RangeVal struct {
	Kind              string
	Start, Stop, Step int64
	Symbolic          bool
	Precise           bool // precise_schedule=True (see RuleAffineCarriedPrecise)
}

// Len is the number of iterations (computed without overflow: range(-2**62,
// 2**62) has 2**63 of them, which saturates at the largest int64).
func (r *RangeVal) Len() int64 {
	var span, step uint64
	switch {
	case r.Step > 0 && r.Stop > r.Start:
		span, step = uint64(r.Stop)-uint64(r.Start), uint64(r.Step)
	case r.Step < 0 && r.Start > r.Stop:
		span, step = uint64(r.Start)-uint64(r.Stop), -uint64(r.Step)
	default:
		return 0
	}
	n := (span-1)/step + 1
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

func shapeOf(v Value) ([]int64, bool) {
	switch x := v.(type) {
	case *Tensor:
		return x.Shape, true
	case *View:
		return x.Shape, true
	case *Tile:
		return x.Shape, true
	case *Grid:
		return x.Shape, true
	case *NDArray:
		return x.Shape, true
	case *IntArray:
		return []int64{int64(len(x.Vals))}, true
	}
	return nil, false
}

func dtypeOf(v Value) DType {
	switch x := v.(type) {
	case *Tensor:
		return x.DType
	case *View:
		return x.DType
	case *Tile:
		return x.DType
	case *NDArray:
		return x.DType
	case *IntArray:
		return x.dtype()
	}
	return ""
}

func (t *tracer) length(v Value) (int64, bool) {
	switch x := v.(type) {
	case *MGrid:
		return int64(len(x.Grids)), true
	}
	if s, ok := shapeOf(v); ok && len(s) > 0 {
		return s[0], true
	}
	return 0, false
}

// broadcast is numpy's shape broadcasting: shapes aligned at their last
// dimension.
func broadcast(a, b []int64) ([]int64, bool) { return broadcastAligned(a, b, false) }

// broadcastAligned pads the shorter shape with 1s (on the left, numpy's
// alignment; on the right when atFirst, aligning the first dimensions),
// then each dimension must match or be 1.
func broadcastAligned(a, b []int64, atFirst bool) ([]int64, bool) {
	n := max(len(a), len(b))
	dim := func(s []int64, i int) int64 {
		if !atFirst {
			i -= n - len(s)
		}
		if i < 0 || i >= len(s) {
			return 1
		}
		return s[i]
	}
	out := make([]int64, n)
	for i := range out {
		x, y := dim(a, i), dim(b, i)
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, false
		}
	}
	return out, true
}

// ---- index expressions ----

func (in *interp) gridOp(op string, l, r Value, node python.Node) Value {
	ls, lok := shapeOf(l)
	rs, rok := shapeOf(r)
	switch {
	case lok && rok:
		s, ok := broadcast(ls, rs)
		if !ok {
			in.fail(node.At(), "index expression", "shapes %v and %v do not broadcast", ls, rs)
		}
		return &Grid{Shape: s}
	case lok:
		return &Grid{Shape: ls}
	case rok:
		return &Grid{Shape: rs}
	}
	in.fail(node.At(), "index expression", "operands %s and %s", typeName(l), typeName(r))
	return nil
}

// indexShape applies an index to a shape following numpy's rules (basic
// and advanced indexing); Beta-1 on-chip views keep two dimensions.
func (in *interp) indexShape(shape []int64, idx Value, node python.Node) []int64 {
	var items []Value
	if t, ok := idx.(Tuple); ok {
		items = t
	} else {
		items = []Value{idx}
	}
	// expand the ellipsis
	n, ell := 0, false
	for _, it := range items {
		switch {
		case it == Value(ellipsis):
			ell = true
		case it != nil:
			n++
		}
	}
	full := items
	if ell {
		full = make([]Value, 0, len(shape)+len(items))
		for _, it := range items {
			if it == Value(ellipsis) {
				for k := 0; k < len(shape)-n; k++ {
					full = append(full, &SliceVal{})
				}
				continue
			}
			full = append(full, it)
		}
	}
	// Each index becomes a part: the dimensions it leaves (one for a
	// slice, none for an integer, an index array's own shape), and
	// whether it is an advanced (integer or array) index. Single
	// dimensions are kept in ones (by position, so that it stays on the
	// stack): an ordinary index allocates nothing but its result.
	type part struct {
		arr []int64 // an index array's shape
		one int     // else: ones[one] if one > 0 is the part's only dimension
		adv bool
	}
	ones := make([]int64, 1, 16)
	single := func(d int64) int {
		ones = append(ones, d)
		return len(ones) - 1
	}
	dimsOf := func(p part) []int64 {
		if p.one > 0 {
			return ones[p.one : p.one+1]
		}
		return p.arr
	}
	parts := make([]part, 0, 16)
	dim := 0
	for _, it := range full {
		if it == nil { // None: new axis
			parts = append(parts, part{one: single(1)})
			continue
		}
		if dim >= len(shape) {
			in.fail(node.At(), "index "+in.src(node), "too many indices for a tensor of %d dimensions", len(shape))
		}
		size := shape[dim]
		dim++
		switch x := it.(type) {
		case int64, *Sym, bool:
			parts = append(parts, part{adv: true})
		case *SliceVal:
			parts = append(parts, part{one: single(in.sliceLen(x, size, node))})
		case *DSlice:
			parts = append(parts, part{one: single(x.Size)})
		case *Grid:
			parts = append(parts, part{arr: x.Shape, adv: true})
		case *Tensor, *View, *Tile:
			s, _ := shapeOf(x)
			parts = append(parts, part{arr: s, adv: true})
		default:
			in.fail(node.At(), "index "+in.src(node), "index of type %s", typeName(it))
		}
	}
	for ; dim < len(shape); dim++ {
		parts = append(parts, part{one: single(shape[dim])})
	}
	// advanced indices: do any arrays take part?
	hasArray := false
	rank := 0
	for _, p := range parts {
		if p.adv && len(dimsOf(p)) > 0 {
			hasArray = true
		}
		if !p.adv {
			rank += len(dimsOf(p))
		}
	}
	if !hasArray {
		out := make([]int64, 0, rank)
		for _, p := range parts {
			out = append(out, dimsOf(p)...)
		}
		return out
	}
	var adv []int64
	first, last, contiguous := -1, -1, true
	for i, p := range parts {
		if !p.adv {
			continue
		}
		if first < 0 {
			first = i
		} else if last != i-1 {
			contiguous = false
		}
		last = i
		b, ok := broadcast(adv, dimsOf(p))
		if !ok {
			in.fail(node.At(), "index "+in.src(node), "index arrays of shapes %s and %s do not broadcast", fmtShape(adv), fmtShape(slices.Clone(dimsOf(p))))
		}
		adv = b
	}
	out := make([]int64, 0, rank+len(adv))
	if !contiguous {
		out = append(out, adv...)
		for _, p := range parts {
			if !p.adv {
				out = append(out, dimsOf(p)...)
			}
		}
		return out
	}
	for i, p := range parts {
		if i == first {
			out = append(out, adv...)
		}
		if !p.adv {
			out = append(out, dimsOf(p)...)
		}
	}
	return out
}

// sliceLen is the length of a slice of a dimension; symbolic bounds must
// differ by a constant.
func (in *interp) sliceLen(s *SliceVal, size int64, node python.Node) int64 {
	step := int64(1)
	if s.Step != nil {
		st, ok := asInt(s.Step)
		if !ok || st == 0 {
			in.fail(node.At(), "slice step", "must be a non-zero integer known at trace time")
		}
		step = st
	}
	_, ls := s.Lower.(*Sym)
	_, us := s.Upper.(*Sym)
	if ls || us {
		lo, hi := s.Lower, s.Upper
		if lo == nil {
			lo = int64(0)
		}
		if hi == nil {
			hi = size
		}
		a, ok1 := toSym(lo)
		b, ok2 := toSym(hi)
		if !ok1 || !ok2 {
			in.fail(node.At(), "slice "+in.src(node), "bounds of type %s and %s", typeName(lo), typeName(hi))
		}
		d, err := symBin("-", b, a)
		if err != nil {
			in.fail(node.At(), "slice "+in.src(node), "%v", err)
		}
		n, ok := in.tr.constant(d)
		if !ok {
			in.fail(node.At(), "slice "+in.src(node), "its length depends on a symbolic loop index")
		}
		if step > 0 {
			return max(0, (n+step-1)/step)
		}
		return max(0, (-n-step-1)/(-step))
	}
	r := &SliceVal{Lower: s.Lower, Upper: s.Upper, Step: step}
	a, b, st := in.sliceBounds(r, int(size), node)
	if st > 0 {
		if b <= a {
			return 0
		}
		return int64((b - a + st - 1) / st)
	}
	if a <= b {
		return 0
	}
	return int64((a - b - st - 1) / (-st))
}

// constant evaluates a symbolic expression at the corners and the middle of
// its loops' ranges; it is a constant when all agree.
func (t *tracer) constant(s *Sym) (int64, bool) {
	if len(s.vars) == 0 {
		return s.Eval(nil), true
	}
	env := make([]int64, len(t.symLoops))
	var first int64
	for k := 0; k < 3; k++ {
		for _, v := range s.vars {
			l := t.symLoops[v]
			n := l.trip()
			if n == 0 {
				continue
			}
			i := [3]int64{0, n - 1, n / 2}[k]
			env[v] = l.start + i*l.step
		}
		val := s.Eval(env)
		if k == 0 {
			first = val
		} else if val != first {
			return 0, false
		}
	}
	return first, true
}

func (t *tracer) iterate(in *interp, v Value, node python.Node) ([]Value, bool) {
	switch x := v.(type) {
	case *MGrid:
		out := make([]Value, len(x.Grids))
		for i, g := range x.Grids {
			out[i] = g
		}
		return out, true
	}
	return nil, false
}

func (t *tracer) isInstance(v, cls Value) (bool, bool) {
	return false, false
}

func shapeTuple(s []int64) Tuple {
	out := make(Tuple, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func (in *interp) shapeArg(v Value, node python.Node, what string) ([]int64, int, bool) {
	var items []Value
	switch x := v.(type) {
	case Tuple:
		items = x
	case *List:
		items = x.Items
	case int64:
		items = []Value{x}
	default:
		in.fail(node.At(), what, "shape of type %s", typeName(v))
	}
	var shape []int64
	block, marked := 0, false
	for i, it := range items {
		switch x := it.(type) {
		case int64:
			if x < 0 {
				in.fail(node.At(), what, "negative dimension %d", x)
			}
			shape = append(shape, x)
		case *ParDim:
			if marked {
				in.fail(node.At(), what, "two par_dim dimensions")
			}
			marked = true
			block = i
			shape = append(shape, x.N)
		case float64:
			// A true division of ints (in_channels * out_channels / 128)
			// gives a float; NKI compiles a kernel whose dimension is one
			// with an integral value (a public kernel's NEFF and profile
			// show it), so it counts as that int. A fractional one stays
			// an error.
			if x < 0 || x != math.Trunc(x) || x > 1<<40 {
				in.fail(node.At(), what, "dimension %v is not a non-negative integer", x)
			}
			shape = append(shape, int64(x))
		case *Sym:
			in.fail(node.At(), what, "a dimension that depends on a symbolic loop index")
		default:
			in.fail(node.At(), what, "dimension of type %s", typeName(it))
		}
	}
	if prod(shape) > 1<<40 {
		in.fail(node.At(), what, "shape %v is too large", shape)
	}
	return shape, block, marked
}

func (in *interp) tileShape(v Value, node python.Node, what string) []int64 {
	s, ok := shapeOf(v)
	if !ok {
		in.fail(node.At(), what, "operand of type %s is not a tensor", typeName(v))
	}
	return s
}

func fmtShape(s []int64) string { return fmt.Sprint(s) }

// contiguousRun is how many elements of a row-major tensor of shape one
// contiguous run of the index holds: the innermost dimensions the index
// selects whole, times the extent of the first one it slices (a step-1
// slice) or 1 for an integer index there. W[:, :, h, w] of a
// [O, I, KH, KW] tensor runs one element at a time; a[:, 0:8] of a
// [128, 200] one 8 elements. 0 when it cannot tell (index arrays).
func (in *interp) contiguousRun(shape []int64, idx Value, node python.Node) int64 {
	var items []Value
	if t, ok := idx.(Tuple); ok {
		items = t
	} else {
		items = []Value{idx}
	}
	n := 0
	for _, it := range items {
		if it != nil && it != Value(ellipsis) {
			n++
		}
	}
	// sel[d]: the elements selected along dimension d, and whether they
	// are consecutive (a step-1 slice or the whole dimension)
	type sel struct {
		n      int64
		consec bool
	}
	sels := make([]sel, 0, len(shape))
	for _, it := range items {
		switch x := it.(type) {
		case nil: // None: a new axis selects nothing of the tensor
			continue
		case int64, *Sym, bool:
			sels = append(sels, sel{1, true})
		case *SliceVal:
			if len(sels) >= len(shape) {
				return 0
			}
			step := int64(1)
			if x.Step != nil {
				if v, ok := asInt(x.Step); ok {
					step = v
				}
			}
			sels = append(sels, sel{in.sliceLen(x, shape[len(sels)], node), step == 1})
		case *DSlice:
			sels = append(sels, sel{x.Size, true})
		default:
			if it == Value(ellipsis) {
				for k := 0; k < len(shape)-n; k++ {
					sels = append(sels, sel{shape[len(sels)], true})
				}
				continue
			}
			return 0 // index arrays
		}
	}
	if len(sels) > len(shape) {
		return 0
	}
	for len(sels) < len(shape) {
		sels = append(sels, sel{shape[len(sels)], true})
	}
	run := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		s := sels[d]
		if !s.consec {
			return run
		}
		run *= max(s.n, 1)
		if s.n < shape[d] {
			return run
		}
	}
	return run
}
