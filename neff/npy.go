package neff

import (
	"bytes"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/sbinet/npyio/npy"
)

// Npy describes a .npy constant (the header is parsed by npyio).
type Npy struct {
	Descr     string `json:"descr"`
	Shape     []int  `json:"shape"`
	Fortran   bool   `json:"fortran_order,omitempty"`
	ItemSize  int64  `json:"item_size"`
	DataBytes int64  `json:"data_bytes"` // bytes after the header
}

// NpyInfo parses a .npy header and checks that the data the shape
// declares is present.
func NpyInfo(b []byte) (Npy, error) {
	r := bytes.NewReader(b)
	rd, err := npy.NewReader(r)
	if err != nil {
		return Npy{}, err
	}
	h := rd.Header
	n := Npy{Descr: h.Descr.Type, Shape: h.Descr.Shape, Fortran: h.Descr.Fortran, DataBytes: int64(r.Len())}
	if len(n.Descr) < 3 {
		return n, fmt.Errorf("descr %q is not a numeric dtype", n.Descr)
	}
	size, err := strconv.ParseInt(n.Descr[2:], 10, 64)
	if err != nil || size <= 0 {
		return n, fmt.Errorf("descr %q has no item size", n.Descr)
	}
	n.ItemSize = size
	want := uint64(size)
	for _, d := range n.Shape {
		if d < 0 {
			return n, fmt.Errorf("negative dimension in shape %v", n.Shape)
		}
		hi, lo := bits.Mul64(want, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return n, fmt.Errorf("shape %v overflows", n.Shape)
		}
		want = lo
	}
	if uint64(n.DataBytes) < want {
		return n, fmt.Errorf("shape %v of %s needs %d data bytes, have %d", n.Shape, n.Descr, want, n.DataBytes)
	}
	return n, nil
}

// DType names the npukit element type of a little-endian (or byte-sized)
// descr, "" when npukit has no such type.
func (n Npy) DType() string {
	d := n.Descr
	if len(d) < 3 || (d[0] != '<' && d[0] != '|') {
		return ""
	}
	switch d[1:] {
	case "f2":
		return "float16"
	case "f4":
		return "float32"
	case "i1":
		return "int8"
	case "i2":
		return "int16"
	case "i4":
		return "int32"
	case "i8":
		return "int64"
	case "u1":
		return "uint8"
	case "u2":
		return "uint16"
	case "u4":
		return "uint32"
	case "u8":
		return "uint64"
	}
	return ""
}
