package dtype

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
)

func TestParseNamesSizes(t *testing.T) {
	for _, ty := range All() {
		back, err := Parse(ty.String())
		if err != nil || back != ty || ty.Size() == 0 {
			t.Errorf("%v: %v %v size %d", ty, back, err, ty.Size())
		}
	}
	if len(All()) != 15 {
		t.Fatalf("%d types, the NEFF spec lists 15", len(All()))
	}
	if _, err := Parse("float128"); err == nil {
		t.Fatal("accepted float128")
	}
	if ty, _ := Parse("bf16"); ty != BFloat16 {
		t.Fatal("alias")
	}
}

// Hand-computed encodings.
func TestMinifloatKnownValues(t *testing.T) {
	cases := []struct {
		ty   T
		v    float64
		bits uint16
	}{
		{Float16, 1, 0x3c00}, {Float16, -2, 0xc000}, {Float16, 65504, 0x7bff}, {Float16, 65520, 0x7c00}, // rounds to inf
		{Float16, 5.960464477539063e-08, 0x0001}, {Float16, 0.1, 0x2e66},
		{Float8E4, 1, 0x38}, {Float8E4, 240, 0x77}, {Float8E4, 248, 0x78}, // 248 is a tie above max: to inf (even)
		{Float8E4, 0.015625, 0x08}, {Float8E4, 0.001953125, 0x01}, {Float8E4, -1.5, 0xbc},
		{Float8E5, 1, 0x3c}, {Float8E5, 57344, 0x7b}, {Float8E5, 1.5e-5, 0x01}, {Float8E5, 7e-6, 0x00}, {Float8E5, 0.25, 0x34},
		{Float8E3, 1, 0x30}, {Float8E3, 15.5, 0x6f}, {Float8E3, 0.0078125, 0x00}, {Float8E3, 0.015625, 0x01}, {Float8E3, 1.03125, 0x30}, // tie to even
		{Float8E3, 1.09375, 0x32},
	}
	for _, c := range cases {
		got := minifloats[c.ty].encode(c.v)
		if got != c.bits {
			t.Errorf("%v encode(%v)=%#x want %#x", c.ty, c.v, got, c.bits)
		}
	}
	// Decode of every code round-trips through encode (except NaNs).
	for _, ty := range []T{Float8E3, Float8E4, Float8E5} {
		f := minifloats[ty]
		for code := 0; code < 256; code++ {
			v := f.decode(uint8(code))
			if math.IsNaN(v) {
				continue
			}
			if back := f.encode(v); back != uint16(code) {
				t.Errorf("%v: code %#x -> %v -> %#x", ty, code, v, back)
			}
		}
	}
}

// float16 must agree with the hardware-independent reference: every
// float16 code decodes to a float32 that re-encodes to the same code.
func TestFloat16AllCodes(t *testing.T) {
	f := minifloats[Float16]
	for code := 0; code < 1<<16; code++ {
		v := f.decode16(uint16(code))
		if math.IsNaN(v) {
			continue
		}
		if back := f.encode(v); back != uint16(code) {
			t.Fatalf("code %#x -> %v -> %#x", code, v, back)
		}
	}
}

func TestBFloat16(t *testing.T) {
	for _, c := range []struct {
		v    float64
		bits uint16
	}{{1, 0x3f80}, {-2, 0xc000}, {1.00390625, 0x3f80}, {1.01171875, 0x3f82}, {3.0e38, 0x7f62}} {
		if got := bfloat16(c.v); got != c.bits {
			t.Errorf("bf16(%v)=%#x want %#x", c.v, got, c.bits)
		}
	}
}

func TestConvertIntegers(t *testing.T) {
	b := make([]byte, 8)
	src := make([]byte, 8)
	cases := []struct {
		from T
		in   func([]byte)
		to   T
		want int64
	}{
		{Float32, func(b []byte) { binary.LittleEndian.PutUint32(b, math.Float32bits(2.5)) }, Int8, 2},     // ties to even
		{Float32, func(b []byte) { binary.LittleEndian.PutUint32(b, math.Float32bits(3.5)) }, Int8, 4},     // ties to even
		{Float32, func(b []byte) { binary.LittleEndian.PutUint32(b, math.Float32bits(-300)) }, Int8, -128}, // saturate
		{Float32, func(b []byte) { binary.LittleEndian.PutUint32(b, math.Float32bits(-3)) }, Uint8, 0},
		{Int16, func(b []byte) { binary.LittleEndian.PutUint16(b, uint16(0xff00)) }, Uint8, 0}, // -256 -> 0
		{Uint32, func(b []byte) { binary.LittleEndian.PutUint32(b, 70000) }, Int16, 32767},
		{Int64, func(b []byte) { binary.LittleEndian.PutUint64(b, uint64(0xffffffffffffffff)) }, Int32, -1},
	}
	for _, c := range cases {
		clear(src)
		c.in(src)
		clear(b)
		Convert(c.to, b, c.from, src)
		got := Decode(c.to, b)
		var v int64
		if got.Neg {
			v = got.I
		} else {
			v = int64(got.U)
		}
		if v != c.want {
			t.Errorf("%v->%v: got %d want %d", c.from, c.to, v, c.want)
		}
	}
}

func TestFloat32ToFloat16MatchesRoundingRule(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	f := minifloats[Float16]
	for range 200000 {
		x := float64(math.Float32frombits(rng.Uint32()))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		code := f.encode(x)
		got := f.decode16(code)
		if math.IsInf(got, 0) {
			if math.Abs(x) < 65520 {
				t.Fatalf("%v overflowed", x)
			}
			continue
		}
		// No representable float16 is closer than the chosen one.
		for _, n := range []uint16{code - 1, code + 1} {
			other := f.decode16(n)
			if math.IsNaN(other) || math.IsInf(other, 0) || math.Signbit(other) != math.Signbit(got) && other != 0 {
				continue
			}
			if math.Abs(other-x) < math.Abs(got-x) {
				t.Fatalf("%v -> %v but %v is closer", x, got, other)
			}
		}
	}
}
