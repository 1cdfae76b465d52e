package isa

import (
	"encoding/binary"
	"testing"
)

// The fields the package comment documents decode from a hand-made word.
func TestDecodeFields(t *testing.T) {
	w := make([]byte, 2*Size+7) // two words and a partial third
	m := w[:Size]
	m[0], m[1] = 0x02, 0x10 // MATMUL
	m[4], m[5] = WaitGE, 9
	binary.LittleEndian.PutUint32(m[8:], 16)
	m[6], m[7] = UpdateInc, 5
	binary.LittleEndian.PutUint16(m[26:], 512)
	binary.LittleEndian.PutUint16(m[28:], 1)
	binary.LittleEndian.PutUint16(m[30:], 2)
	m[32], m[33] = 0x0A, 3 // float32, LOW_HIGH pass
	d := w[Size : 2*Size]
	d[0], d[1] = 0xD4, 0x10 // DMA_DIRECT2D
	d[13], d[14] = 40, 16
	binary.LittleEndian.PutUint16(d[32:], 2)
	binary.LittleEndian.PutUint16(d[34:], 128)
	binary.LittleEndian.PutUint16(d[36:], 2048)
	in := Decode(w)
	if len(in) != 2 {
		t.Fatalf("%d instructions", len(in))
	}
	mm := in[0]
	if mm.Name() != "MATMUL" || mm.WaitCond != WaitGE || mm.WaitSem != 9 || mm.WaitValue != 16 || mm.UpdSem != 5 ||
		mm.Elems != 1024 || !mm.Float32 || !mm.FP32Pass || mm.Partitions != 128 {
		t.Errorf("matmul %+v", mm)
	}
	dg := in[1]
	if dg.Op.Class != DMADirect || dg.DMABytes != 2*128*2048 || dg.DMARows != 256 || dg.DMASem != 40 || dg.DMAInc != 16 {
		t.Errorf("dma %+v", dg)
	}
	if u := Decode([]byte{0x77, 0x10, 1, 2, 3}); len(u) != 0 {
		t.Errorf("partial word decoded: %+v", u)
	}
	x := make([]byte, Size)
	x[0] = 0x77
	if u := Decode(x)[0]; u.Op.Class != Unknown || u.Name() != "OP_0x77" {
		t.Errorf("unknown opcode %+v", u)
	}
}

// Any bytes decode without panicking, one instruction per whole word.
func FuzzDecode(f *testing.F) {
	f.Add(make([]byte, Size))
	f.Add([]byte{0xC1, 0x10, 0, 0, 5, 6})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got := Decode(b); len(got) != len(b)/Size {
			t.Fatalf("%d instructions from %d bytes", len(got), len(b))
		}
	})
}
