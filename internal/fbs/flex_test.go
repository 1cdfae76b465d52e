package fbs

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/internal/hostile"
)

func sampleFlex() []byte {
	return EncodeFlexMap(map[string]FlexValue{
		"1": {Type: FlexInt, Int: 0},
		"4": {Type: FlexString, Bytes: []byte("package")},
		"5": {Type: FlexInt, Int: -1},
		"6": {Type: FlexVector, Ints: []int64{17, 18}},
		"7": {Type: FlexVectorString, Strings: [][]byte{[]byte("extra")}},
		"b": {Type: FlexBlob, Bytes: []byte{0, 1, 2}},
		"w": {Type: FlexInt, Int: 1 << 40},
	})
}

func TestFlexMapRoundTrip(t *testing.T) {
	buf := sampleFlex()
	root, err := FlexRoot(buf, "opts")
	if err != nil {
		t.Fatal(err)
	}
	if root.Type() != FlexMap {
		t.Fatalf("root type %v", root.Type())
	}
	m, err := root.Map()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := 0; i < m.Len(); i++ {
		k, err := m.Key(i)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if got := len(keys); got != 7 || keys[0] != "1" || keys[6] != "w" {
		t.Fatalf("keys %v", keys)
	}
	get := func(k string) FlexRef {
		v, ok, err := m.Lookup(k)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", k, ok, err)
		}
		return v
	}
	if v, err := get("5").Int(); err != nil || v != -1 {
		t.Fatalf("5 = %d %v", v, err)
	}
	if v, err := get("w").Int(); err != nil || v != 1<<40 {
		t.Fatalf("w = %d %v", v, err)
	}
	s, off, err := get("4").Bytes()
	if err != nil || string(s) != "package" || !bytes.Equal(buf[off:off+7], s) {
		t.Fatalf("4 = %q %v", s, err)
	}
	if get("4").Type() != FlexString || get("b").Type() != FlexBlob {
		t.Fatal("types")
	}
	vec, err := get("6").Vector()
	if err != nil || vec.Len() != 2 {
		t.Fatal(err)
	}
	if x, _ := vec.At(1).Int(); x != 18 {
		t.Fatalf("6[1] = %d", x)
	}
	sv, err := get("7").Vector()
	if err != nil || sv.Len() != 1 {
		t.Fatal(err)
	}
	if b, _, err := sv.At(0).Bytes(); err != nil || string(b) != "extra" {
		t.Fatalf("7[0] = %q %v", b, err)
	}
	if _, ok, _ := m.Lookup("nope"); ok {
		t.Fatal("found a missing key")
	}
	n := 0
	if err := Walk(root, 8, func(FlexRef) error { n++; return nil }); err != nil || n != 11 {
		t.Fatalf("walk %d %v", n, err)
	}
}

// A hand-assembled FlexBuffer (byte width 1) as the reference encoder lays
// it out: map {"a": 7}.
func TestFlexHandBuilt(t *testing.T) {
	// Key "a\0" at 0; keys vec len at 2, elem at 3 (=3);
	// map: keys offset at 4 (4-3 = 1), keys width at 5 (1), len at 6 (1),
	// value at 7 (7), type at 8 (INT<<2|0); root: offset at 9 (9-7 = 2),
	// packed MAP<<2|0, width 1.
	buf := []byte{'a', 0, 1, 3, 1, 1, 1, 7, byte(FlexInt << 2), 2, byte(FlexMap << 2), 1}
	root, err := FlexRoot(buf, "r")
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.Map()
	if err != nil {
		t.Fatal(err)
	}
	v, ok, err := m.Lookup("a")
	if err != nil || !ok {
		t.Fatal(err)
	}
	if x, _ := v.Int(); x != 7 {
		t.Fatalf("a = %d", x)
	}
}

func readFlex(b []byte) {
	root, err := FlexRoot(b, "r")
	if err != nil {
		return
	}
	Walk(root, 16, func(r FlexRef) error {
		r.Int()
		r.Bytes()
		if m, err := r.Map(); err == nil {
			for i := 0; i < m.Len(); i++ {
				m.Key(i)
			}
		}
		return nil
	})
}

func TestFlexMalformedNeverPanics(t *testing.T) {
	buf := sampleFlex()
	for n := 0; n < len(buf); n++ {
		readFlex(buf[len(buf)-n:])
		readFlex(buf[:n])
	}
	for i := range buf {
		for _, v := range []byte{0, 1, 0x7f, 0xff} {
			c := append([]byte(nil), buf...)
			c[i] = v
			readFlex(c)
		}
	}
}

func FuzzFlex(f *testing.F) {
	f.Add(sampleFlex())
	f.Add([]byte{'a', 0, 1, 3, 1, 1, 1, 7, 4, 2, 36, 1})
	f.Add(hostile.FlexSharedKeys(64, 512)) // entries sharing one key
	f.Fuzz(func(t *testing.T, b []byte) { readFlex(b) })
}
