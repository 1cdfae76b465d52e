package npyarray

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/npukit/npukit/dtype"
	"github.com/sbinet/npyio/npy"
)

// What Write writes reads back with an independent .npy reader
// (github.com/sbinet/npyio) with its type, shape and values.
func TestRoundTripThroughNpy(t *testing.T) {
	// int16 values 1..6 little-endian, shape 2x3.
	b := []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xfa, 0xff}
	var buf bytes.Buffer
	if _, err := Write(&buf, dtype.Int16, []int64{2, 3}, b); err != nil {
		t.Fatal(err)
	}
	r, err := npy.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Header.Descr.Shape, []int{2, 3}) || r.Header.Descr.Type != "<i2" {
		t.Fatalf("header %+v", r.Header.Descr)
	}
	var got []int16
	if err := r.Read(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []int16{1, 2, 3, 4, 5, -6}) {
		t.Fatalf("values %v", got)
	}
}

func TestRejects(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Write(&buf, dtype.Int32, []int64{3}, make([]byte, 8)); err == nil {
		t.Error("8 bytes accepted as 3 int32")
	}
	if _, err := Write(&buf, dtype.Uint8, []int64{1 << 40, 1 << 40}, make([]byte, 4)); err == nil {
		t.Error("an overflowing shape was accepted")
	}
	if Holds(dtype.BFloat16) || !Holds(dtype.Float16) {
		t.Error(".npy holds float16 and not bfloat16")
	}
}

// TestWiden: float16 elements come back as exactly equal float32 values;
// types .npy holds are returned as they are.
func TestWiden(t *testing.T) {
	h := []byte{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c} // 1, -2, +Inf as float16
	wt, w := Widen(dtype.Float16, h)
	if wt != dtype.Float32 || len(w) != 12 {
		t.Fatalf("Widen(float16) = %v, %d bytes", wt, len(w))
	}
	var got [3]float32
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(w[4*i:]))
	}
	if got[0] != 1 || got[1] != -2 || !(got[2] > 3.4e38) {
		t.Fatalf("widened values %v", got)
	}
	if wt, w := Widen(dtype.Int8, []byte{1, 2}); wt != dtype.Int8 || len(w) != 2 {
		t.Fatalf("Widen(int8) changed the data: %v %v", wt, w)
	}
}
