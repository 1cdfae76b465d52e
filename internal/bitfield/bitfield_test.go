package bitfield

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestKnownLayout(t *testing.T) {
	// 0xA5 at bit 4 lands in the high nibble of byte 0 and the low nibble of byte 1.
	b := []byte{0x0f, 0xf0}
	if err := Write(b, 4, 8, 0xa5); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, []byte{0x5f, 0xfa}) {
		t.Fatalf("% x", b)
	}
	// A 32-bit field at bit 70 (the offset real relocations use mod 128).
	b = make([]byte, 16)
	Write(b, 70, 32, 0x12345678)
	// 0x12345678 << 6 = 0x48d159e00, little-endian from byte 8.
	want := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x9e, 0x15, 0x8d, 0x04, 0, 0, 0}
	if !bytes.Equal(b, want) {
		t.Fatalf("% x\n% x", b, want)
	}
}

func TestRoundTripPreservesOtherBits(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 20000 {
		n := 1 + rng.Intn(24)
		orig := make([]byte, n)
		rng.Read(orig)
		width := uint(1 + rng.Intn(min(64, n*8)))
		off := int64(rng.Intn(n*8 - int(width) + 1))
		v := rng.Uint64()
		b := append([]byte(nil), orig...)
		if err := Write(b, off, width, v); err != nil {
			t.Fatal(err)
		}
		got, _ := Read(b, off, width)
		mask := uint64(1)<<width - 1
		if width == 64 {
			mask = ^uint64(0)
		}
		if got != v&mask {
			t.Fatalf("read %x want %x", got, v&mask)
		}
		for bit := int64(0); bit < int64(n*8); bit++ {
			if bit >= off && bit < off+int64(width) {
				continue
			}
			if (b[bit/8]>>(bit%8))&1 != (orig[bit/8]>>(bit%8))&1 {
				t.Fatalf("bit %d changed (field [%d,%d))", bit, off, off+int64(width))
			}
		}
	}
}

func TestBounds(t *testing.T) {
	b := make([]byte, 4)
	for _, c := range []struct {
		off   int64
		width uint
	}{{-1, 8}, {1, 32}, {0, 0}, {0, 65}, {31, 2}} {
		if Write(b, c.off, c.width, 1) == nil {
			t.Errorf("Write(%d,%d) accepted", c.off, c.width)
		}
		if _, err := Read(b, c.off, c.width); err == nil {
			t.Errorf("Read(%d,%d) accepted", c.off, c.width)
		}
	}
}
