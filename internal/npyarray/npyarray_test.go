package npyarray

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/npukit/npukit/dtype"
	"github.com/sbinet/npyio/npy"
)

func TestRoundTripThroughNpy(t *testing.T) {
	// int16 values 1..6 little-endian, shape 2x3.
	b := []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xfa, 0xff}
	v, err := Of(dtype.Int16, []int64{2, 3}, b)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := npy.Write(&buf, v); err != nil {
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
	if _, err := Of(dtype.Int32, []int64{3}, make([]byte, 8)); err == nil {
		t.Error("8 bytes accepted as 3 int32")
	}
	if _, err := Of(dtype.BFloat16, []int64{2}, make([]byte, 4)); err == nil || Supported(dtype.BFloat16) {
		t.Error("bfloat16 has no .npy type and must be refused")
	}
	if _, err := Of(dtype.Uint8, []int64{1 << 40, 1 << 40}, make([]byte, 4)); err == nil {
		t.Error("an overflowing shape was accepted")
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
	v, err := Of(wt, []int64{3}, w)
	if err != nil {
		t.Fatal(err)
	}
	got := v.([]float32)
	if got[0] != 1 || got[1] != -2 || !(got[2] > 3.4e38) {
		t.Fatalf("widened values %v", got)
	}
	if wt, w := Widen(dtype.Int8, []byte{1, 2}); wt != dtype.Int8 || len(w) != 2 {
		t.Fatalf("Widen(int8) changed the data: %v %v", wt, w)
	}
}
