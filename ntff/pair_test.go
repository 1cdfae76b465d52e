package ntff

import (
	"encoding/binary"
	"testing"
)

func instrRec(pc uint16, code byte, t int64) []byte {
	r := make([]byte, RecordSize)
	binary.LittleEndian.PutUint16(r[0:2], pc)
	r[2], r[3] = 0x01, code
	binary.LittleEndian.PutUint64(r[8:16], uint64(t))
	return r
}

// An end event goes to the open start of its PC, not to the oldest open
// one: the Tensor engine records a later instruction's end first.
func TestInstrEndsPairedByPC(t *testing.T) {
	var recs []byte
	for _, r := range [][]byte{
		instrRec(0x10, 0x84, 100), // Tensor pc 0x10 starts
		instrRec(0x11, 0x84, 150), // pc 0x11 starts
		instrRec(0x11, 0x85, 200), // pc 0x11 ends first
		instrRec(0x10, 0x85, 400),
		instrRec(0x12, 0x88, 500), // Scalar: an end with no open start of its PC
		instrRec(0x13, 0x89, 520), // goes to the oldest open one
	} {
		recs = append(recs, r...)
	}
	c := &Core{}
	c.decodeInstrs(recs)
	want := [][2]int64{{100, 400}, {150, 200}, {500, 520}}
	if len(c.Instrs) != len(want) {
		t.Fatalf("%d instructions, want %d", len(c.Instrs), len(want))
	}
	for i, w := range want {
		if got := [2]int64{c.Instrs[i].Start, c.Instrs[i].End}; got != w {
			t.Errorf("instruction %d: [%d, %d], want %v", i, got[0], got[1], w)
		}
	}
}
