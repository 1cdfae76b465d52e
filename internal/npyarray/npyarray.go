// Package npyarray turns raw little-endian element bytes into the Go values
// the .npy writer (github.com/sbinet/npyio) records as arrays of a given
// element type and shape, so every command that writes tensors as .npy
// shares one mapping from npukit's element types to .npy types.
package npyarray

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"

	"github.com/npukit/npukit/dtype"
)

// elem is the Go element type npyio writes for t (nil: .npy has no type
// npyio can write for it; float16/bfloat16/float8 must be widened first).
func elem(t dtype.T) reflect.Type {
	switch t {
	case dtype.Float32:
		return reflect.TypeOf(float32(0))
	case dtype.Uint8:
		return reflect.TypeOf(uint8(0))
	case dtype.Uint16:
		return reflect.TypeOf(uint16(0))
	case dtype.Uint32:
		return reflect.TypeOf(uint32(0))
	case dtype.Uint64:
		return reflect.TypeOf(uint64(0))
	case dtype.Int8:
		return reflect.TypeOf(int8(0))
	case dtype.Int16:
		return reflect.TypeOf(int16(0))
	case dtype.Int32:
		return reflect.TypeOf(int32(0))
	case dtype.Int64:
		return reflect.TypeOf(int64(0))
	}
	return nil
}

// Supported says whether Of accepts elements of t.
func Supported(t dtype.T) bool { return elem(t) != nil }

// Of decodes b (little-endian elements of t) into a value of the given
// shape for npy.Write: a flat slice for 1-D data, nested fixed-size arrays
// otherwise (npyio records their N-D shape). b must hold exactly the
// shape's elements.
func Of(t dtype.T, shape []int64, b []byte) (any, error) {
	et := elem(t)
	if et == nil {
		return nil, fmt.Errorf("no .npy type for %s", t)
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > int64(len(b))/d) {
			return nil, fmt.Errorf("%d bytes do not hold shape %v of %s", len(b), shape, t)
		}
		n *= d
	}
	if n*int64(et.Size()) != int64(len(b)) {
		return nil, fmt.Errorf("%d bytes do not hold shape %v of %s", len(b), shape, t)
	}
	if len(shape) == 1 {
		v := reflect.MakeSlice(reflect.SliceOf(et), int(n), int(n))
		if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, v.Interface()); err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}
	at := et
	for i := len(shape) - 1; i >= 0; i-- {
		at = reflect.ArrayOf(int(shape[i]), at)
	}
	ptr := reflect.New(at)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, ptr.Interface()); err != nil {
		return nil, err
	}
	return ptr.Elem().Interface(), nil
}

// Widen returns elements .npy (as npyio writes it) cannot hold — float16,
// bfloat16, float8 variants, float32r — converted to float32, which holds
// each of them exactly, with the type now held; other types come back
// unchanged.
func Widen(t dtype.T, b []byte) (dtype.T, []byte) {
	switch t {
	case dtype.Float8E3, dtype.Float8E4, dtype.Float8E5, dtype.Float16, dtype.BFloat16, dtype.Float32R:
	default:
		return t, b
	}
	n := len(b) / t.Size()
	w := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		dtype.Convert(dtype.Float32, w[4*i:], t, b[i*t.Size():])
	}
	return dtype.Float32, w
}
