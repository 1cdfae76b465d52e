package fbs

import (
	"errors"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// sample builds {0: int32 7, 1: string "hi", 2: [ubyte]{1,2,3}, 3: sub-table
// {0: uint64}, 4: [string], 5: [table], 6-7 union (tag 2)}.
func sample() []byte {
	b := flatbuffers.NewBuilder(0)
	s := b.CreateString("hi")
	bytes := b.CreateByteVector([]byte{1, 2, 3})
	b.StartObject(1)
	b.PrependUint64Slot(0, 0xfeedfacecafebeef, 0)
	sub := b.EndObject()
	s1, s2 := b.CreateString("a"), b.CreateString("bc")
	b.StartVector(4, 2, 4)
	b.PrependUOffsetT(s2)
	b.PrependUOffsetT(s1)
	strs := b.EndVector(2)
	b.StartObject(1)
	b.PrependInt16Slot(0, -5, 0)
	e0 := b.EndObject()
	b.StartVector(4, 1, 4)
	b.PrependUOffsetT(e0)
	tabs := b.EndVector(1)
	b.StartObject(8)
	b.PrependInt32Slot(0, 7, 0)
	b.PrependUOffsetTSlot(1, s, 0)
	b.PrependUOffsetTSlot(2, bytes, 0)
	b.PrependUOffsetTSlot(3, sub, 0)
	b.PrependUOffsetTSlot(4, strs, 0)
	b.PrependUOffsetTSlot(5, tabs, 0)
	b.PrependByteSlot(6, 2, 0)
	b.PrependUOffsetTSlot(7, sub, 0)
	root := b.EndObject()
	b.FinishWithFileIdentifier(root, []byte("TEST"))
	return b.FinishedBytes()
}

func TestReadBack(t *testing.T) {
	buf := sample()
	if Identifier(buf) != "TEST" {
		t.Fatalf("identifier %q", Identifier(buf))
	}
	r, err := Root(buf, "Root")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := r.Int(0, 4, "a", 0); err != nil || v != 7 {
		t.Fatalf("a = %d, %v", v, err)
	}
	if v, err := r.Int(20, 4, "absent", 42); err != nil || v != 42 {
		t.Fatalf("absent = %d, %v", v, err)
	}
	if s, ok, err := r.String(1, "s"); err != nil || !ok || s != "hi" {
		t.Fatalf("s = %q %v %v", s, ok, err)
	}
	b, off, ok, err := r.Bytes(2, "b")
	if err != nil || !ok || string(b) != "\x01\x02\x03" || string(buf[off:off+3]) != "\x01\x02\x03" {
		t.Fatalf("bytes = %v %d %v %v", b, off, ok, err)
	}
	sub, ok, err := r.Table(3, "sub")
	if err != nil || !ok {
		t.Fatal(err)
	}
	if v, err := sub.Uint(0, 8, "u", 0); err != nil || v != 0xfeedfacecafebeef {
		t.Fatalf("u = %x, %v", v, err)
	}
	strs, ok, err := r.Vector(4, 4, "strs")
	if err != nil || !ok || strs.Len() != 2 {
		t.Fatal(err)
	}
	if s, err := strs.String(1); err != nil || s != "bc" {
		t.Fatalf("strs[1] = %q, %v", s, err)
	}
	tabs, _, _ := r.Vector(5, 4, "tabs")
	e, err := tabs.Table(0)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := e.Int(0, 2, "x", 0); v != -5 {
		t.Fatalf("tabs[0].x = %d", v)
	}
	tag, u, err := r.Union(6, "u")
	if err != nil || tag != 2 || u.Pos() != sub.Pos() {
		t.Fatalf("union %d %v", tag, err)
	}
	if tag, u, ok, err := r.UnionValue(6, "u"); err != nil || !ok || tag != 2 || u.Pos() != sub.Pos() {
		t.Fatalf("union value %d %v %v", tag, ok, err)
	}
	if got := r.Slots(); len(got) != 8 {
		t.Fatalf("slots %v", got)
	}
}

// Every truncation and every single-byte corruption must yield a value or
// an *Error, never a panic.
func TestMalformedNeverPanics(t *testing.T) {
	buf := sample()
	for n := 0; n < len(buf); n++ {
		readAll(buf[:n])
	}
	for i := range buf {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			c := append([]byte(nil), buf...)
			c[i] = v
			readAll(c)
		}
	}
}

func TestErrorNamesPathAndOffset(t *testing.T) {
	buf := sample()
	r, _ := Root(buf, "Root")
	// Point the string field's offset far away.
	p, _ := r.field(1, 4, "s")
	c := append([]byte(nil), buf...)
	c[p], c[p+1], c[p+2], c[p+3] = 0xff, 0xff, 0xff, 0x0f
	r, _ = Root(c, "Root")
	_, _, err := r.String(1, "s")
	var fe *Error
	if !errors.As(err, &fe) || fe.Path != "Root.s" || fe.Offset != int64(p) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "Root.s at offset") {
		t.Fatalf("message %q", err)
	}
}

func readAll(buf []byte) {
	r, err := Root(buf, "Root")
	if err != nil {
		return
	}
	r.Int(0, 4, "a", 0)
	r.String(1, "s")
	r.Bytes(2, "b")
	if sub, ok, err := r.Table(3, "sub"); err == nil && ok {
		sub.Uint(0, 8, "u", 0)
	}
	if v, ok, err := r.Vector(4, 4, "strs"); err == nil && ok {
		for i := 0; i < v.Len(); i++ {
			v.String(i)
		}
	}
	if v, ok, err := r.Vector(5, 4, "tabs"); err == nil && ok {
		for i := 0; i < v.Len(); i++ {
			if e, err := v.Table(i); err == nil {
				e.Int(0, 2, "x", 0)
			}
		}
	}
	r.Union(6, "u")
	r.Slots()
}

func FuzzTable(f *testing.F) {
	f.Add(sample())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) { readAll(b) })
}

// A union tag without its value (an empty member table left out) is read
// by UnionValue as the tag alone; Union calls it an error.
func TestUnionTagWithoutValue(t *testing.T) {
	b := flatbuffers.NewBuilder(64)
	b.StartObject(2)
	b.PrependByteSlot(0, 3, 0)
	b.Finish(b.EndObject())
	r, err := Root(b.FinishedBytes(), "T")
	if err != nil {
		t.Fatal(err)
	}
	if tag, _, ok, err := r.UnionValue(0, "u"); err != nil || ok || tag != 3 {
		t.Fatalf("UnionValue: tag %d ok %v err %v", tag, ok, err)
	}
	if _, _, err := r.Union(0, "u"); err == nil {
		t.Fatal("Union accepted a tag without a value")
	}
}
