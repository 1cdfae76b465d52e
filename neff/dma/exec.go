// Package dma executes NEFF DMA descriptors functionally: it moves and
// transforms bytes between variable memories exactly as the descriptors
// say. Engine instructions are not executed.
//
// Every side (source or destination) is an access pattern over a named
// variable (package accesspattern). A transfer gathers each source in
// access order, applies the op element by element, and scatters the result
// through the destination pattern. Element types and their rounding are
// those of package dtype.
//
// Op semantics (the NEFF spec names the ops and their fields but not their
// arithmetic; these are the definitions npukit implements):
//   - copy: bytes are moved unchanged; source and destination must move the
//     same number of bytes (dtypes are not consulted).
//   - cast: each source element (from_dtype) is converted to to_dtype.
//   - add: dst = s0 + s1 + ... over the sources (from_arr); with a single
//     source the destination's current element is the other operand
//     (dst = dst + s0).
//   - fma: dst = scale * (s0 + s1 + ...), plus the destination's current
//     element when there is a single source (dst = dst + scale*s0).
//   - min / max: the running value starts at `constant` when constant_dtype
//     is set, otherwise at the destination's current element for a single
//     source, otherwise at s0; each source element is folded in.
//   - transpose: the destination receives the row-major array of shape
//     transpose_shape ("shape to transpose the data to", the spec) whose
//     axis i is axis perm[i] of the gathered source, itself a row-major
//     array (Transfer.TransposePerm; the spec's op "transpose" reverses
//     every axis, so a 2-D transpose for shapes [1, 1, R, C]; neuronx-cc
//     2.21 names the order with transpose_op, e.g. "WZXY" swapping the two
//     innermost axes). Elements are transpose_element_size bytes (default:
//     the dtype's size) and are moved unchanged.
//
// Arithmetic is done in float64, which is exact for every float type and
// for integers up to 2^53.
package dma

import (
	"fmt"
	"math"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/neff/accesspattern"
)

// Op is a DMA operation.
type Op string

// Ops of the NEFF spec.
const (
	OpCopy      Op = "copy"
	OpCast      Op = "cast"
	OpAdd       Op = "add"
	OpFMA       Op = "fma"
	OpMin       Op = "min"
	OpMax       Op = "max"
	OpTranspose Op = "transpose"
)

// Memory gives the bytes of a variable by name.
type Memory interface {
	Var(name string) ([]byte, error)
}

// MapMemory is a Memory backed by a map.
type MapMemory map[string][]byte

// Var implements Memory.
func (m MapMemory) Var(name string) ([]byte, error) {
	b, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("no variable %q", name)
	}
	return b, nil
}

// Side is one operand of a transfer.
type Side struct {
	Var     string
	Pattern accesspattern.Pattern
	DType   dtype.T // uint8 when the descriptor names none (the spec's default)
}

// Transfer is one descriptor, resolved.
type Transfer struct {
	Op       Op
	From     []Side // one, or up to 16 for from_arr
	To       Side
	Scale    float64      // fma; the spec's default is 1.0
	Constant *dtype.Value // min/max start value when constant_dtype is set
	// TransposeShape is the destination's shape, outermost first (4 dims).
	TransposeShape []int64
	// TransposePerm is the transpose's axis order: destination axis i is
	// source axis TransposePerm[i] (outermost first). nil reverses every
	// axis (the spec's op "transpose").
	TransposePerm []int
	// TransposeElemSize overrides the element size for transpose (0 = dtype size).
	TransposeElemSize int
}

// Execute runs one transfer against mem.
func Execute(mem Memory, t Transfer) error {
	if len(t.From) == 0 {
		return fmt.Errorf("%s: no source", t.Op)
	}
	if len(t.From) > 16 {
		return fmt.Errorf("%s: %d sources (at most 16)", t.Op, len(t.From))
	}
	dst, err := bind(mem, t.To)
	if err != nil {
		return fmt.Errorf("to: %w", err)
	}
	srcs := make([][]byte, len(t.From))
	for i, s := range t.From {
		b, err := bind(mem, s)
		if err != nil {
			return fmt.Errorf("from[%d]: %w", i, err)
		}
		srcs[i] = b
	}
	switch t.Op {
	case OpCopy, "":
		if len(t.From) != 1 {
			return fmt.Errorf("copy takes one source, got %d", len(t.From))
		}
		if n, m := t.From[0].Pattern.Bytes(), t.To.Pattern.Bytes(); n != m {
			return fmt.Errorf("copy moves %d bytes from but %d bytes to", n, m)
		}
		copyRuns(dst, t.To.Pattern, srcs[0], t.From[0].Pattern)
		return nil
	case OpTranspose:
		return transpose(t, dst, srcs[0])
	case OpCast, OpAdd, OpFMA, OpMin, OpMax:
		return elementwise(t, dst, srcs)
	}
	return fmt.Errorf("unknown op %q", t.Op)
}

// bind checks that a side's pattern lies inside its variable.
func bind(mem Memory, s Side) ([]byte, error) {
	b, err := mem.Var(s.Var)
	if err != nil {
		return nil, err
	}
	if err := s.Pattern.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Var, err)
	}
	lo, hi := s.Pattern.Bounds()
	if lo < 0 || hi > int64(len(b)) {
		return nil, fmt.Errorf("%s: access [%d, %d) outside the variable's %d bytes", s.Var, lo, hi, len(b))
	}
	return b, nil
}

// copyRuns streams bytes from the source runs into the destination runs.
func copyRuns(dst []byte, dp accesspattern.Pattern, src []byte, sp accesspattern.Pattern) {
	dc, sc := dp.Cursor(), sp.Cursor()
	var d accesspattern.Run
	for {
		s, ok := sc.Next()
		if !ok {
			return
		}
		for s.Len > 0 {
			if d.Len == 0 {
				if d, ok = dc.Next(); !ok {
					return
				}
			}
			n := min(s.Len, d.Len)
			copy(dst[d.Off:d.Off+n], src[s.Off:s.Off+n])
			s.Off, s.Len = s.Off+n, s.Len-n
			d.Off, d.Len = d.Off+n, d.Len-n
		}
	}
}

// gather copies a pattern's bytes into a contiguous buffer.
func gather(src []byte, p accesspattern.Pattern) []byte {
	out := make([]byte, 0, p.Bytes())
	for r := range p.Runs() {
		out = append(out, src[r.Off:r.End()]...)
	}
	return out
}

// scatter writes a contiguous buffer through a pattern.
func scatter(dst []byte, p accesspattern.Pattern, data []byte) {
	for r := range p.Runs() {
		copy(dst[r.Off:r.End()], data[:r.Len])
		data = data[r.Len:]
	}
}

func sideType(s Side) dtype.T {
	if s.DType == dtype.Invalid {
		return dtype.Uint8
	}
	return s.DType
}

// maxStaging bounds one descriptor's staging buffers (they are never
// larger than the variables they come from, which the caller allocated).
const maxStaging = 1 << 34

func elementwise(t Transfer, dst []byte, srcs [][]byte) error {
	tt := sideType(t.To)
	n := t.To.Pattern.Bytes() / int64(tt.Size())
	if t.To.Pattern.Bytes()%int64(tt.Size()) != 0 {
		return fmt.Errorf("%s: destination moves %d bytes, not a multiple of %s", t.Op, t.To.Pattern.Bytes(), tt)
	}
	ins := make([][]byte, len(t.From))
	types := make([]dtype.T, len(t.From))
	for i, s := range t.From {
		types[i] = sideType(s)
		if s.Pattern.Bytes() != n*int64(types[i].Size()) {
			return fmt.Errorf("%s: from[%d] moves %d bytes = %g %s elements, destination %d %s elements",
				t.Op, i, s.Pattern.Bytes(), float64(s.Pattern.Bytes())/float64(types[i].Size()), types[i], n, tt)
		}
		if s.Pattern.Bytes() > maxStaging {
			return fmt.Errorf("%s: transfer too large", t.Op)
		}
		ins[i] = gather(srcs[i], s.Pattern)
	}
	if t.Op == OpCast && len(t.From) != 1 {
		return fmt.Errorf("cast takes one source, got %d", len(t.From))
	}
	single := len(t.From) == 1
	var old []byte
	if single && t.Op != OpCast && (t.Op != OpMin && t.Op != OpMax || t.Constant == nil) {
		old = gather(dst, t.To.Pattern)
	}
	out := make([]byte, n*int64(tt.Size()))
	scale := t.Scale // the caller applies the spec's default of 1.0
	for e := int64(0); e < n; e++ {
		src := func(i int) float64 {
			sz := int64(types[i].Size())
			return dtype.Decode(types[i], ins[i][e*sz:]).Float64()
		}
		sz := int64(tt.Size())
		var v float64
		switch t.Op {
		case OpCast:
			dtype.Encode(tt, dtype.Decode(types[0], ins[0][e*int64(types[0].Size()):]), out[e*sz:])
			continue
		case OpAdd, OpFMA:
			for i := range ins {
				v += src(i)
			}
			if t.Op == OpFMA {
				v *= scale
			}
			if old != nil {
				v += dtype.Decode(tt, old[e*sz:]).Float64()
			}
		case OpMin, OpMax:
			first := 0
			switch {
			case t.Constant != nil:
				v = t.Constant.Float64()
			case old != nil:
				v = dtype.Decode(tt, old[e*sz:]).Float64()
			default:
				v, first = src(0), 1
			}
			for i := first; i < len(ins); i++ {
				if x := src(i); t.Op == OpMin && x < v || t.Op == OpMax && x > v {
					v = x
				}
			}
		}
		dtype.Encode(tt, dtype.FloatValue(v), out[e*sz:])
	}
	scatter(dst, t.To.Pattern, out)
	return nil
}

func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, a := range p {
		if a < 0 || a >= n || seen[a] {
			return false
		}
		seen[a] = true
	}
	return true
}

func transpose(t Transfer, dst, src []byte) error {
	if len(t.From) != 1 {
		return fmt.Errorf("transpose takes one source, got %d", len(t.From))
	}
	shape := t.TransposeShape
	if len(shape) != 4 {
		return fmt.Errorf("transpose_shape has %d dimensions, want 4", len(shape))
	}
	es := int64(t.TransposeElemSize)
	if es == 0 {
		es = int64(sideType(t.From[0]).Size())
	}
	count := int64(1)
	for _, d := range shape {
		if d <= 0 || count > math.MaxInt64/d {
			return fmt.Errorf("transpose_shape %v is not a positive shape", shape)
		}
		count *= d
	}
	nb := t.From[0].Pattern.Bytes()
	if nb != t.To.Pattern.Bytes() || count > nb || count*es != nb {
		return fmt.Errorf("transpose of shape %v x %d-byte elements needs %d bytes; from moves %d, to moves %d",
			shape, es, count*es, nb, t.To.Pattern.Bytes())
	}
	perm := t.TransposePerm
	if perm == nil {
		perm = []int{3, 2, 1, 0}
	}
	if !isPermutation(perm, len(shape)) {
		return fmt.Errorf("transpose axis order %v is not a permutation of %d axes", perm, len(shape))
	}
	// The source is the row-major array whose axis perm[i] has the
	// destination's extent shape[i]; srcStride[i] is the source stride,
	// in elements, of the destination's axis i.
	var srcShape [4]int64
	for i, a := range perm {
		srcShape[a] = shape[i]
	}
	var axisStride [4]int64
	st := int64(1)
	for a := 3; a >= 0; a-- {
		axisStride[a] = st
		st *= srcShape[a]
	}
	var srcStride [4]int64
	for i, a := range perm {
		srcStride[i] = axisStride[a]
	}
	in := gather(src, t.From[0].Pattern)
	out := make([]byte, len(in))
	o := int64(0)
	for a := int64(0); a < shape[0]; a++ {
		for b := int64(0); b < shape[1]; b++ {
			for c := int64(0); c < shape[2]; c++ {
				base := a*srcStride[0] + b*srcStride[1] + c*srcStride[2]
				for d := int64(0); d < shape[3]; d++ {
					i := base + d*srcStride[3]
					copy(out[o*es:(o+1)*es], in[i*es:(i+1)*es])
					o++
				}
			}
		}
	}
	scatter(dst, t.To.Pattern, out)
	return nil
}
