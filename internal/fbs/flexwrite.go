package fbs

import (
	"encoding/binary"
	"math"
	"sort"
)

// FlexValue is one value of a FlexBuffer map written by EncodeFlexMap:
// exactly one of the fields is used, chosen by Type (FlexInt, FlexString,
// FlexBlob, FlexVector of ints, or FlexVectorString meaning an untyped
// vector of strings).
type FlexValue struct {
	Type    FlexType
	Int     int64
	Bytes   []byte
	Ints    []int64
	Strings [][]byte
}

// EncodeFlexMap writes a FlexBuffer whose root is a map with the given
// string keys (the Go flatbuffers module has no FlexBuffers builder). All
// values use one byte width: 4, or 8 when an integer needs it.
func EncodeFlexMap(m map[string]FlexValue) []byte {
	w := 4
	for _, v := range m {
		for _, x := range append([]int64{v.Int}, v.Ints...) {
			if x < math.MinInt32 || x > math.MaxInt32 {
				w = 8
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	put := func(v uint64) {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], v)
		b = append(b, t[:w]...)
	}
	align := func() {
		for len(b)%w != 0 {
			b = append(b, 0)
		}
	}
	log2w := byte(2)
	if w == 8 {
		log2w = 3
	}
	packed := func(t FlexType) byte { return byte(t)<<2 | log2w }
	str := func(s []byte, nul bool) int {
		align()
		put(uint64(len(s)))
		at := len(b)
		b = append(b, s...)
		if nul {
			b = append(b, 0)
		}
		return at
	}
	keyPos := make([]int, len(keys))
	for i, k := range keys {
		keyPos[i] = len(b)
		b = append(b, k...)
		b = append(b, 0)
	}
	// Offset-stored values first (they must precede the map).
	valPos := make([]int, len(keys))
	for i, k := range keys {
		v := m[k]
		switch v.Type {
		case FlexString:
			valPos[i] = str(v.Bytes, true)
		case FlexBlob:
			valPos[i] = str(v.Bytes, false)
		case FlexVector:
			align()
			put(uint64(len(v.Ints)))
			valPos[i] = len(b)
			for _, x := range v.Ints {
				put(uint64(x))
			}
			for range v.Ints {
				b = append(b, packed(FlexInt))
			}
		case FlexVectorString:
			pos := make([]int, len(v.Strings))
			for j, s := range v.Strings {
				pos[j] = str(s, true)
			}
			align()
			put(uint64(len(v.Strings)))
			valPos[i] = len(b)
			for j := range v.Strings {
				put(uint64(len(b) - pos[j]))
			}
			for range v.Strings {
				b = append(b, packed(FlexString))
			}
		}
	}
	align()
	put(uint64(len(keys)))
	keysAt := len(b)
	for i := range keys {
		put(uint64(len(b) - keyPos[i]))
	}
	align()
	put(uint64(len(b) - keysAt)) // offset to the keys vector
	put(uint64(w))               // keys byte width
	put(uint64(len(keys)))
	mapAt := len(b)
	types := make([]byte, len(keys))
	for i, k := range keys {
		v := m[k]
		switch v.Type {
		case FlexInt:
			put(uint64(v.Int))
			types[i] = packed(FlexInt)
		case FlexString, FlexBlob:
			put(uint64(len(b) - valPos[i]))
			types[i] = packed(v.Type)
		case FlexVector, FlexVectorString:
			put(uint64(len(b) - valPos[i]))
			types[i] = packed(FlexVector)
		default:
			put(0)
			types[i] = packed(FlexNull)
		}
	}
	b = append(b, types...)
	align()
	put(uint64(len(b) - mapAt))
	b = append(b, packed(FlexMap), byte(w))
	return b
}
