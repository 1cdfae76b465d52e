package relayout

import (
	"bytes"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// The schema's example: 2x2 tiles, 4x5x32 output (y/x/z), int8.
func schemaExample() Output {
	return Output{Y: 4, X: 5, Z: 32, ElemSize: 1, SizeBytes: 640, Layout: &Layout{
		YTile: []int32{0, 0, 2, 2}, XTile: []int32{0, 0, 0, 1, 1},
		TileOffset: []int32{0, 192, 320, 512},
		XLocal:     []int32{0, 32, 64, 0, 32},
		YLocal:     []int32{0, 1, 0, 1},
		RowSize:    []int32{96, 96, 96, 64, 64},
	}}
}

func TestSchemaExample(t *testing.T) {
	o := schemaExample()
	for _, c := range []struct {
		y, x, z int
		want    int64
	}{
		{0, 0, 0, 0}, {0, 1, 5, 37}, {1, 0, 0, 96}, {0, 3, 0, 192}, {1, 4, 31, 192 + 64 + 32 + 31},
		{2, 0, 0, 320}, {3, 2, 1, 320 + 96 + 64 + 1}, {3, 4, 31, 639},
	} {
		got, err := o.Layout.DeviceIndex(c.y, c.x, c.z)
		if err != nil || got != c.want {
			t.Errorf("(%d,%d,%d) -> %d, %v; want %d", c.y, c.x, c.z, got, err, c.want)
		}
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, o, 2)
}

func roundTrip(t *testing.T, o Output, batch int) {
	t.Helper()
	n, err := o.PlainElements()
	if err != nil {
		t.Fatal(err)
	}
	plain := make([]byte, int64(batch*o.execs())*n*int64(o.ElemSize))
	rand.New(rand.NewSource(1)).Read(plain)
	dev, err := o.ToDevice(plain, batch)
	if err != nil {
		t.Fatal(err)
	}
	back, err := o.ToPlain(dev, batch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, plain) {
		t.Fatal("relayout(toDevice(x)) != x")
	}
}

// Hand-checked bytes: a 1-D signed 16-bit output, two executions padded to
// 8 bytes each: plain int16 values {1, -2, 3} per execution.
func TestSigned16ExecCount(t *testing.T) {
	o := Output{Y: 1, X: 1, Z: 3, ElemSize: 2, SizeBytes: 8, ExecCount: 2, Signed: true}
	plain := []byte{0x01, 0x00, 0xfe, 0xff, 0x03, 0x00, 0x05, 0x00, 0xfb, 0xff, 0x07, 0x00}
	dev, err := o.ToDevice(plain, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x01, 0x80, 0xfe, 0x7f, 0x03, 0x80, 0, 0, // execution 0, offset-binary, 2 bytes padding
		0x05, 0x80, 0xfb, 0x7f, 0x07, 0x80, 0, 0, // execution 1
	}
	if !bytes.Equal(dev, want) {
		t.Fatalf("% x\n% x", dev, want)
	}
	back, _ := o.ToPlain(dev, 1)
	if !bytes.Equal(back, plain) {
		t.Fatalf("% x", back)
	}
}

// Hand-checked bytes: a 2x3 output (shape [0..1, 0..2]) streamed as two
// slices: row 0 at byte 0 with x stride 1, row 1 at byte 8 with x stride 2.
func TestShapeInfoSlices(t *testing.T) {
	o := Output{ElemSize: 1, SizeBytes: 16, Shape: []Range{{0, 1}, {0, 2}}, Slices: []Slice{
		{Dims: []Range{{0, 0}, {0, 2}}, Stride: []int32{3, 1}, Offset: 0},
		{Dims: []Range{{1, 1}, {0, 2}}, Stride: []int32{3, 2}, Offset: 8},
	}}
	dev := []byte{10, 11, 12, 0, 0, 0, 0, 0, 20, 0, 21, 0, 22, 0, 0, 0}
	plain, err := o.ToPlain(dev, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, []byte{10, 11, 12, 20, 21, 22}) {
		t.Fatalf("% x", plain)
	}
	roundTrip(t, o, 3)
}

func TestValidateRejects(t *testing.T) {
	bad := schemaExample()
	bad.SizeBytes = 600
	if bad.Validate() == nil {
		t.Error("element past size_bytes accepted")
	}
	bad = schemaExample()
	bad.Layout.XTile = bad.Layout.XTile[:4]
	if bad.Validate() == nil {
		t.Error("short map accepted")
	}
	bad = schemaExample()
	bad.Layout.YTile[3] = 9
	if bad.Validate() == nil {
		t.Error("tile out of range accepted")
	}
	if (Output{Y: 2, X: 2, Z: 1, ElemSize: 1, SizeBytes: 4}).Validate() == nil {
		t.Error("3-D output without layout accepted")
	}
	if (Output{Y: 1, X: 1, Z: 1, ElemSize: 3, SizeBytes: 4}).Validate() == nil {
		t.Error("element size 3 accepted")
	}
	if _, err := schemaExample().ToPlain(make([]byte, 10), 1); err == nil {
		t.Error("short input accepted")
	}
}

func FuzzToPlain(f *testing.F) {
	f.Add(int32(0), int32(96), int32(4), uint8(1))
	f.Fuzz(func(t *testing.T, tileOff, rowSize, z int32, es uint8) {
		o := schemaExample()
		o.Layout.TileOffset[1] = tileOff
		o.Layout.RowSize[0] = rowSize
		o.Z = int(z % 64)
		o.ElemSize = int(es%4) + 1
		if o.Validate() != nil {
			return
		}
		if _, err := o.ToPlain(make([]byte, o.SizeBytes), 1); err != nil {
			t.Fatal(err)
		}
	})
}

// A huge batch overflowed batch x executions x size (exit 3 on a corpus
// model), and a layer declaring 16 GiB made the converter allocate its
// tables before looking at the 1 KB input.
func TestRelayoutSizesChecked(t *testing.T) {
	o := schemaExample()
	if _, err := o.ToPlain(make([]byte, 1024), math.MaxInt/2); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("huge batch: %v", err)
	}
	big := schemaExample()
	big.Y, big.X, big.SizeBytes = 1<<15, 1<<15, 1<<34
	big.Layout.YTile = make([]int32, 1) // too short: must not matter before the size check
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := big.ToPlain(make([]byte, 1024), 1); err == nil || !strings.Contains(err.Error(), "want 17179869184") {
		t.Errorf("16 GiB layer, 1 KB input: %v", err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes before refusing the input", got)
	}
}

// FuzzRelayoutSizes: any declared sizes, batch and input length either
// convert or fail, without panicking or allocating beyond the input's
// proportion (the fuzzer's memory limit catches that).
func FuzzRelayoutSizes(f *testing.F) {
	f.Add(int64(96), int32(1), int32(3), int32(4), uint8(1), int32(1), int64(1), uint16(96))
	f.Add(int64(1<<34), int32(1<<15), int32(1<<15), int32(1), uint8(0), int32(1), int64(1), uint16(1024))
	f.Add(int64(1<<40), int32(1), int32(1), int32(8), uint8(3), int32(1<<20), int64(math.MaxInt32), uint16(8))
	f.Fuzz(func(t *testing.T, size int64, y, x, z int32, es uint8, execs int32, batch int64, n uint16) {
		o := schemaExample()
		o.SizeBytes, o.Y, o.X, o.Z = size, int(y), int(x), int(z)
		o.ElemSize, o.ExecCount = int(es%4)+1, int(execs)
		in := make([]byte, n)
		o.ToPlain(in, int(batch))
		o.ToDevice(in, int(batch))
		o.DeviceBytes(int(batch))
		o.PlainBytes(int(batch))
	})
}
