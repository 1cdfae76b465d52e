package npyarray

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/npukit/npukit/dtype"
)

// descr is the NumPy array-protocol type string of t ("" when NumPy has no
// standard type for it: bfloat16, the float8 variants, float32r).
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
func descr(t dtype.T) string {
	switch t {
	case dtype.Float16:
		return "<f2"
	case dtype.Float32:
		return "<f4"
	case dtype.Int8:
		return "|i1"
	case dtype.Uint8:
		return "|u1"
	case dtype.Int16:
		return "<i2"
	case dtype.Uint16:
		return "<u2"
	case dtype.Int32:
		return "<i4"
	case dtype.Uint32:
		return "<u4"
	case dtype.Int64:
		return "<i8"
	case dtype.Uint64:
		return "<u8"
	}
	return ""
}

// Holds says whether a .npy file can hold elements of t as they are.
func Holds(t dtype.T) bool { return descr(t) != "" }

// Write writes b (little-endian elements of t, shape's worth) as a .npy
// file (format 1.0, or 2.0 for a header over 64 KiB) and returns the
// element type written: t itself when .npy holds it (float16 included),
// else float32, which holds bfloat16, the float8 variants and float32r
// exactly (the caller should say so to the user).
func Write(w io.Writer, t dtype.T, shape []int64, b []byte) (dtype.T, error) {
	if !Holds(t) {
		switch t {
		case dtype.Float8E3, dtype.Float8E4, dtype.Float8E5, dtype.BFloat16, dtype.Float32R:
			t, b = Widen(t, b)
		default:
			return t, fmt.Errorf("no .npy type for %s", t)
		}
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > int64(len(b))/d) {
			return t, fmt.Errorf("%d bytes do not hold shape %v of %s", len(b), shape, t)
		}
		n *= d
	}
	if n*int64(t.Size()) != int64(len(b)) {
		return t, fmt.Errorf("%d bytes do not hold shape %v of %s", len(b), shape, t)
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.FormatInt(d, 10)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr(t), tuple)
	// The magic, version and length field, then the dictionary padded with
	// spaces and ended by a newline so that the data starts at a multiple
	// of 64 bytes.
	prefix, lenBytes := 8, 2
	if len(dict)+1+prefix+lenBytes > 65535 {
		lenBytes = 4
	}
	total := prefix + lenBytes + len(dict) + 1
	pad := (64 - total%64) % 64
	header := make([]byte, 0, total+pad)
	header = append(header, "\x93NUMPY"...)
	hlen := len(dict) + pad + 1
	if lenBytes == 2 {
		header = append(header, 1, 0)
		header = binary.LittleEndian.AppendUint16(header, uint16(hlen))
	} else {
		header = append(header, 2, 0)
		header = binary.LittleEndian.AppendUint32(header, uint32(hlen))
	}
	header = append(header, dict...)
	header = append(header, strings.Repeat(" ", pad)...)
	header = append(header, '\n')
	if _, err := w.Write(header); err != nil {
		return t, err
	}
	_, err := w.Write(b)
	return t, err
}
