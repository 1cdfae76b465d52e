package neff

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/sbinet/npyio/npy"
)

func npyRaw(major byte, hdr string, data int) []byte {
	b := []byte(npyMagic)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(hdr)))
	}
	b = append(b, hdr...)
	return append(b, make([]byte, data)...)
}

// TestNpyInfoVariants: headers other writers produce (key order, no
// trailing comma, no newline, format 2 and 3, Python 2 longs, structured
// and datetime descrs) are read, and malformed ones are errors, not panics.
func TestNpyInfoVariants(t *testing.T) {
	ok := []struct {
		major byte
		hdr   string
		data  int
		descr string
		shape []int
		item  int64
	}{
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 8, "<f4", []int{2}, 4},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", 8, "<f4", []int{2}, 4},
		{1, "{'shape': (2, 3), 'fortran_order': True, 'descr': '<f2'}\n", 12, "<f2", []int{2, 3}, 2},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8, "<f4", []int{2}, 4},
		{1, "{'descr':'<i8','fortran_order':False,'shape':(1,)}", 8, "<i8", []int{1}, 8},
		{1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }\n", 1, "|b1", nil, 1},
		{1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }\n", 8, "<M8[ns]", []int{1}, 8},
		{1, "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }\n", 24, "<U3", []int{2}, 12},
		{1, "{'descr': '|V2', 'fortran_order': False, 'shape': (4,), }\n", 8, "|V2", []int{4}, 2},
		{1, "{'descr': [('a', '<f4'), ('b', '<i2')], 'fortran_order': False, 'shape': (3,), }\n", 18, "[('a', '<f4'), ('b', '<i2')]", []int{3}, 0},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 1L), }\n", 8, "<f4", []int{2, 1}, 4},
		{2, "{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }\n", 0, "<u2", []int{0}, 2},
		{3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", 4, "<f4", []int{1}, 4},
	}
	for _, c := range ok {
		n, err := NpyInfo(npyRaw(c.major, c.hdr, c.data))
		if err != nil {
			t.Errorf("%q: %v", c.hdr, err)
			continue
		}
		if n.Descr != c.descr || !reflect.DeepEqual(n.Shape, c.shape) || n.ItemSize != c.item || n.DataBytes != int64(c.data) {
			t.Errorf("%q: got %+v", c.hdr, n)
		}
	}
	bad := [][]byte{
		nil, []byte("\x93NUMPY"), npyRaw(1, "{'descr': '<f4'}\n", 0),
		npyRaw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n", 8), // data short
		npyRaw(4, "{}", 0),
		npyRaw(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", 4),
		npyRaw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 4),
		npyRaw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,", 4),
		npyRaw(1, "{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", 4),
		append([]byte(npyMagic), 2, 0, 0xff, 0xff, 0xff, 0xff), // header length beyond the file
	}
	for _, b := range bad {
		if _, err := NpyInfo(b); err == nil {
			t.Errorf("%q: accepted", b)
		}
	}
	// What npyio writes.
	var buf bytes.Buffer
	if err := npy.Write(&buf, []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if n, err := NpyInfo(buf.Bytes()); err != nil || n.Descr != "<f4" || !reflect.DeepEqual(n.Shape, []int{3}) || n.DataBytes != 12 {
		t.Errorf("npyio file: %+v %v", n, err)
	}
}

func FuzzNpyInfo(f *testing.F) {
	f.Add(npyRaw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 8))
	f.Add(npyRaw(2, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n", 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := NpyInfo(b)
		if err == nil && n.DataBytes > int64(len(b)) {
			t.Fatal("data beyond the file")
		}
	})
}
