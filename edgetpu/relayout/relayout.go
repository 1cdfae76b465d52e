// Package relayout converts Edge TPU output activations between the
// device's tiled layout and plain row-major order, both ways, as the
// runtime does (../shared/notes/edgetpu.md, "Output re-layout"):
//
//   - 1-D outputs (y == x == 1) are copied linearly;
//   - 3-D outputs go through the OutputLayout maps: the element (y, x, z)
//     lives at device element index
//     tile_offset[ymap[y]+xmap[x]] + ylocal[y]*rowsize[x] + xlocal[x] + z
//     (the maps count elements, whatever their names say);
//   - outputs with OutputShapeInfo are a list of slices, each a tensor
//     layout (inclusive ranges, element strides) at a byte offset, packed
//     into the row-major order of the layer's shape;
//   - execution_count_per_inference > 1 repeats the layer, iterations
//     spaced size_bytes apart on the device and packed in plain order;
//   - batches follow each other, one padded device buffer each;
//   - signed types are offset-binary on the device: the most significant
//     byte of each element is XORed with 0x80.
//
// The package works on plain values (no FlatBuffer types) so tests and
// other tools can build layouts directly.
package relayout

import (
	"errors"
	"fmt"
	"math"
)

// Layout is an OutputLayout (all values count elements).
type Layout struct {
	YTile      []int32 // y_coordinate_to_linear_tile_id_map
	XTile      []int32 // x_coordinate_to_linear_tile_id_map
	TileOffset []int32 // linearized_tile_byte_offset
	XLocal     []int32 // x_coordinate_to_local_byte_offset
	YLocal     []int32 // y_coordinate_to_local_y_offset
	RowSize    []int32 // x_coordinate_to_local_y_row_size
}

// Range is an inclusive index range.
type Range struct{ Start, End int32 }

// Slice is one TensorLayout of an OutputShapeInfo.
type Slice struct {
	Dims   []Range // per dimension of the layer shape, inclusive
	Stride []int32 // elements between neighbours in each dimension
	Offset int64   // byte offset of the slice's first element
}

// Output describes one output layer.
type Output struct {
	Y, X, Z   int
	ElemSize  int   // bytes per element (1, 2 or 4)
	SizeBytes int64 // padded device bytes of one execution
	ExecCount int   // execution_count_per_inference (0 means 1)
	Signed    bool  // SIGNED_FIXED_POINT8/16: offset-binary on the device
	Layout    *Layout
	Shape     []Range // Layer.shape (required with Slices)
	Slices    []Slice // OutputShapeInfo
}

func (o Output) execs() int {
	if o.ExecCount < 1 {
		return 1
	}
	return o.ExecCount
}

// PlainElements is the number of elements of one execution in plain order.
func (o Output) PlainElements() (int64, error) {
	if len(o.Slices) > 0 {
		if len(o.Shape) == 0 {
			return 0, errors.New("shape_info slices without a layer shape")
		}
		n := int64(1)
		for i, r := range o.Shape {
			if r.End < r.Start {
				return 0, fmt.Errorf("shape dimension %d: range [%d, %d] is empty", i, r.Start, r.End)
			}
			k := int64(r.End) - int64(r.Start) + 1
			if n > (1<<40)/k {
				return 0, errors.New("shape too large")
			}
			n *= k
		}
		return n, nil
	}
	if o.Y < 1 || o.X < 1 || o.Z < 1 {
		return 0, fmt.Errorf("dimensions %dx%dx%d must be positive", o.Y, o.X, o.Z)
	}
	if int64(o.Y) > (1<<40)/int64(o.X) || int64(o.Y)*int64(o.X) > (1<<40)/int64(o.Z) {
		return 0, fmt.Errorf("dimensions %dx%dx%d too large", o.Y, o.X, o.Z)
	}
	return int64(o.Y) * int64(o.X) * int64(o.Z), nil
}

// Validate checks the description: element size, map lengths, and that
// every element's device bytes lie inside SizeBytes.
func (o Output) Validate() error {
	if o.ElemSize != 1 && o.ElemSize != 2 && o.ElemSize != 4 {
		return fmt.Errorf("element size %d (want 1, 2 or 4)", o.ElemSize)
	}
	n, err := o.PlainElements()
	if err != nil {
		return err
	}
	if o.SizeBytes < 0 {
		return fmt.Errorf("size_bytes %d is negative", o.SizeBytes)
	}
	// Every element has its own device position inside size_bytes, so more
	// plain bytes than size_bytes cannot be valid; checking it first bounds
	// the work below by size_bytes.
	if n > o.SizeBytes/int64(o.ElemSize) {
		return fmt.Errorf("%d elements of %d bytes do not fit size_bytes %d", n, o.ElemSize, o.SizeBytes)
	}
	if len(o.Slices) == 0 && (o.Y > 1 || o.X > 1) {
		l := o.Layout
		if l == nil {
			return fmt.Errorf("a %dx%dx%d output needs an OutputLayout", o.Y, o.X, o.Z)
		}
		for name, c := range map[string]struct{ got, want int }{
			"y_coordinate_to_linear_tile_id_map": {len(l.YTile), o.Y}, "y_coordinate_to_local_y_offset": {len(l.YLocal), o.Y},
			"x_coordinate_to_linear_tile_id_map": {len(l.XTile), o.X}, "x_coordinate_to_local_byte_offset": {len(l.XLocal), o.X},
			"x_coordinate_to_local_y_row_size": {len(l.RowSize), o.X},
		} {
			// Only entries [0, y) and [0, x) are read (runtime:
			// api/layer_information.cc, GetBufferIndex); longer maps are valid.
			if c.got < c.want {
				return fmt.Errorf("%s has %d entries, want at least %d", name, c.got, c.want)
			}
		}
	}
	var bad error
	o.each(func(plain, dev int64) bool {
		if dev < 0 || (dev+1)*int64(o.ElemSize) > o.SizeBytes {
			bad = fmt.Errorf("plain element %d maps to device bytes [%d, %d), outside size_bytes %d", plain, dev*int64(o.ElemSize), (dev+1)*int64(o.ElemSize), o.SizeBytes)
			return false
		}
		return true
	})
	if bad != nil {
		return bad
	}
	if n*int64(o.ElemSize) > o.SizeBytes && len(o.Slices) == 0 && o.Y == 1 && o.X == 1 {
		return fmt.Errorf("%d elements do not fit size_bytes %d", n, o.SizeBytes)
	}
	return nil
}

// DeviceIndex returns the device element index of plain (y, x, z) through
// the OutputLayout.
func (l *Layout) DeviceIndex(y, x, z int) (int64, error) {
	if y < 0 || y >= len(l.YTile) || y >= len(l.YLocal) || x < 0 || x >= len(l.XTile) || x >= len(l.XLocal) || x >= len(l.RowSize) {
		return 0, fmt.Errorf("(y=%d, x=%d) outside the layout maps", y, x)
	}
	tile := int(l.YTile[y]) + int(l.XTile[x])
	if tile < 0 || tile >= len(l.TileOffset) {
		return 0, fmt.Errorf("(y=%d, x=%d): tile %d outside linearized_tile_byte_offset (%d tiles)", y, x, tile, len(l.TileOffset))
	}
	return int64(l.TileOffset[tile]) + int64(l.YLocal[y])*int64(l.RowSize[x]) + int64(l.XLocal[x]) + int64(z), nil
}

// each calls f for every element of one execution with its plain and
// device element index, in plain order. A malformed layout reports -1.
func (o Output) each(f func(plain, dev int64) bool) {
	switch {
	case len(o.Slices) > 0:
		o.eachSlice(f)
	case o.Y == 1 && o.X == 1:
		for z := int64(0); z < int64(o.Z); z++ {
			if !f(z, z) {
				return
			}
		}
	default:
		if o.Layout == nil {
			f(0, -1)
			return
		}
		p := int64(0)
		for y := 0; y < o.Y; y++ {
			for x := 0; x < o.X; x++ {
				base, err := o.Layout.DeviceIndex(y, x, 0)
				if err != nil {
					f(p, -1)
					return
				}
				for z := int64(0); z < int64(o.Z); z++ {
					if !f(p, base+z) {
						return
					}
					p++
				}
			}
		}
	}
}

func (o Output) eachSlice(f func(plain, dev int64) bool) {
	nd := len(o.Shape)
	// Row-major strides of the plain (packed) layer shape.
	pstride := make([]int64, nd)
	acc := int64(1)
	for d := nd - 1; d >= 0; d-- {
		pstride[d] = acc
		acc *= int64(o.Shape[d].End) - int64(o.Shape[d].Start) + 1
	}
	es := int64(o.ElemSize)
	for _, s := range o.Slices {
		if len(s.Dims) != nd || len(s.Stride) != nd || s.Offset%es != 0 {
			f(0, -1)
			return
		}
		idx := make([]int32, nd)
		for d := range idx {
			if s.Dims[d].End < s.Dims[d].Start || s.Dims[d].Start < o.Shape[d].Start || s.Dims[d].End > o.Shape[d].End {
				f(0, -1)
				return
			}
			idx[d] = s.Dims[d].Start
		}
		for {
			plain, dev := int64(0), s.Offset/es
			for d := range idx {
				plain += (int64(idx[d]) - int64(o.Shape[d].Start)) * pstride[d]
				dev += (int64(idx[d]) - int64(s.Dims[d].Start)) * int64(s.Stride[d])
			}
			if !f(plain, dev) {
				return
			}
			d := nd - 1
			for ; d >= 0; d-- {
				if idx[d] < s.Dims[d].End {
					idx[d]++
					break
				}
				idx[d] = s.Dims[d].Start
			}
			if d < 0 {
				break
			}
		}
	}
}

// Sizes of whole buffers for a batch.
func (o Output) deviceBytes(batch int) int64 { return int64(batch) * int64(o.execs()) * o.SizeBytes }

func (o Output) plainBytes(batch int) (int64, error) {
	n, err := o.PlainElements()
	return int64(batch) * int64(o.execs()) * n * int64(o.ElemSize), err
}

// DeviceBytes is the size of batch device buffers (batch x execution
// count x size_bytes), an error when it does not fit in int64 (a huge
// --batch wrapped around and crashed).
func (o Output) DeviceBytes(batch int) (int64, error) {
	if o.SizeBytes < 0 {
		return 0, fmt.Errorf("size_bytes %d is negative", o.SizeBytes)
	}
	if batch < 1 {
		return 0, fmt.Errorf("batch %d must be at least 1", batch)
	}
	n, ok := mul(int64(batch), int64(o.execs()))
	if ok {
		n, ok = mul(n, o.SizeBytes)
	}
	if !ok {
		return 0, fmt.Errorf("batch %d x %d executions x %d bytes overflows", batch, o.execs(), o.SizeBytes)
	}
	return n, nil
}

// PlainBytes is the size of batch buffers in plain order, overflow
// checked like DeviceBytes.
func (o Output) PlainBytes(batch int) (int64, error) {
	n, err := o.PlainElements()
	if err != nil {
		return 0, err
	}
	if batch < 1 {
		return 0, fmt.Errorf("batch %d must be at least 1", batch)
	}
	total, ok := mul(int64(batch), int64(o.execs()))
	for _, f := range []int64{n, int64(o.ElemSize)} {
		if ok {
			total, ok = mul(total, f)
		}
	}
	if !ok || total < 0 {
		return 0, fmt.Errorf("batch %d x %d executions x %d elements x %d bytes overflows", batch, o.execs(), n, o.ElemSize)
	}
	return total, nil
}

// mul multiplies non-negative a and b, reporting overflow.
func mul(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// ToPlain converts batch device buffers (each execs*SizeBytes bytes, one
// after the other) into plain order.
func (o Output) ToPlain(device []byte, batch int) ([]byte, error) {
	return o.convert(device, batch, true)
}

// ToDevice is the inverse: plain order into padded device buffers (the
// padding is zero).
func (o Output) ToDevice(plain []byte, batch int) ([]byte, error) {
	return o.convert(plain, batch, false)
}

func (o Output) convert(in []byte, batch int, toPlain bool) ([]byte, error) {
	if batch < 1 {
		return nil, fmt.Errorf("batch %d must be at least 1", batch)
	}
	// The input's size is checked before anything is allocated: what
	// follows allocates in proportion to it (an 896-byte model asked for
	// 16 GiB of layout tables before the input was looked at).
	db, err := o.DeviceBytes(batch)
	if err != nil {
		return nil, err
	}
	if toPlain && int64(len(in)) != db {
		return nil, fmt.Errorf("input has %d bytes, want %d", len(in), db)
	}
	if !toPlain {
		pb, err := o.PlainBytes(batch)
		if err != nil {
			return nil, err
		}
		if int64(len(in)) != pb {
			return nil, fmt.Errorf("input has %d bytes, want %d", len(in), pb)
		}
	}
	if len(o.Slices) == 0 && (o.Y > 1 || o.X > 1) && o.Layout != nil {
		return o.convertRuns(in, batch, toPlain)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pb, _ := o.plainBytes(batch)
	db = o.deviceBytes(batch)
	want, outLen := db, pb
	if !toPlain {
		want, outLen = pb, db
	}
	if int64(len(in)) != want {
		return nil, fmt.Errorf("input has %d bytes, want %d", len(in), want)
	}
	out := make([]byte, outLen)
	es := int64(o.ElemSize)
	n, _ := o.PlainElements()
	// Precompute the element map of one execution once.
	devIdx := make([]int64, n)
	o.each(func(plain, dev int64) bool { devIdx[plain] = dev; return true })
	linear := len(o.Slices) == 0 && o.Y == 1 && o.X == 1
	for b := 0; b < batch; b++ {
		for e := 0; e < o.execs(); e++ {
			dbase := (int64(b)*int64(o.execs()) + int64(e)) * o.SizeBytes
			pbase := (int64(b)*int64(o.execs()) + int64(e)) * n * es
			if linear {
				if toPlain {
					copy(out[pbase:pbase+n*es], in[dbase:dbase+n*es])
				} else {
					copy(out[dbase:dbase+n*es], in[pbase:pbase+n*es])
				}
				continue
			}
			for p, d := range devIdx {
				po, do := pbase+int64(p)*es, dbase+d*es
				if toPlain {
					copy(out[po:po+es], in[do:do+es])
				} else {
					copy(out[do:do+es], in[po:po+es])
				}
			}
		}
	}
	if o.Signed {
		flipSign(out, o.ElemSize, toPlain, o, batch)
	}
	return out, nil
}

// convertRuns converts a tiled 3-D output run by run: the z elements of one
// (y, x) position are contiguous on both sides, so each position is one copy
// of z elements. Bounds are checked per run before any copying.
func (o Output) convertRuns(in []byte, batch int, toPlain bool) ([]byte, error) {
	if o.ElemSize != 1 && o.ElemSize != 2 && o.ElemSize != 4 {
		return nil, fmt.Errorf("element size %d (want 1, 2 or 4)", o.ElemSize)
	}
	if o.Y < 1 || o.X < 1 || o.Z < 1 {
		return nil, fmt.Errorf("dimensions %dx%dx%d must be positive", o.Y, o.X, o.Z)
	}
	if o.SizeBytes < 0 {
		return nil, fmt.Errorf("size_bytes %d is negative", o.SizeBytes)
	}
	es, z := int64(o.ElemSize), int64(o.Z)
	run := z * es
	if int64(o.Y)*int64(o.X) > o.SizeBytes/run {
		return nil, fmt.Errorf("%dx%dx%d elements of %d bytes do not fit size_bytes %d", o.Y, o.X, o.Z, es, o.SizeBytes)
	}
	bases := make([]int64, 0, o.Y*o.X)
	for y := 0; y < o.Y; y++ {
		for x := 0; x < o.X; x++ {
			d, err := o.Layout.DeviceIndex(y, x, 0)
			if err != nil {
				return nil, err
			}
			if d < 0 || d*es+run > o.SizeBytes {
				return nil, fmt.Errorf("plain (y=%d, x=%d) maps to device bytes [%d, %d), outside size_bytes %d", y, x, d*es, d*es+run, o.SizeBytes)
			}
			bases = append(bases, d*es)
		}
	}
	n := int64(o.Y) * int64(o.X) * z
	execs := int64(o.execs())
	pb, db := int64(batch)*execs*n*es, o.deviceBytes(batch)
	want, outLen := db, pb
	if !toPlain {
		want, outLen = pb, db
	}
	if int64(len(in)) != want {
		return nil, fmt.Errorf("input has %d bytes, want %d", len(in), want)
	}
	out := make([]byte, outLen)
	for k := int64(0); k < int64(batch)*execs; k++ {
		dbase, pbase := k*o.SizeBytes, k*n*es
		for i, b := range bases {
			po, do := pbase+int64(i)*run, dbase+b
			if toPlain {
				copy(out[po:po+run], in[do:do+run])
			} else {
				copy(out[do:do+run], in[po:po+run])
			}
		}
	}
	if o.Signed {
		if toPlain {
			for i := es - 1; i < int64(len(out)); i += es {
				out[i] ^= 0x80
			}
		} else {
			for k := int64(0); k < int64(batch)*execs; k++ {
				for _, b := range bases {
					start := k*o.SizeBytes + b
					for i := start + es - 1; i < start+run; i += es {
						out[i] ^= 0x80
					}
				}
			}
		}
	}
	return out, nil
}

// flipSign XORs 0x80 into the most significant (last, little-endian)
// byte of every element. On the device side only real elements are
// flipped, never padding.
func flipSign(out []byte, es int, toPlain bool, o Output, batch int) {
	if toPlain {
		for i := es - 1; i < len(out); i += es {
			out[i] ^= 0x80
		}
		return
	}
	n, _ := o.PlainElements()
	devIdx := make([]int64, 0, n)
	o.each(func(_, dev int64) bool { devIdx = append(devIdx, dev); return true })
	for b := 0; b < batch*o.execs(); b++ {
		base := int64(b) * o.SizeBytes
		for _, d := range devIdx {
			out[base+d*int64(es)+int64(es)-1] ^= 0x80
		}
	}
}
