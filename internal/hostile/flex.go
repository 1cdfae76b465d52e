// Package hostile generates crafted inputs for tests and the
// bounded-resource harness (scripts/hostile.sh): small files whose
// declared structure would make a careless reader use memory or time far
// out of proportion to their size. Nothing here is read by npukit itself.
package hostile

import "encoding/binary"

// FlexSharedKeys returns a FlexBuffer map of n entries (n >= 1) whose keys
// all point at one key string of keyLen bytes, each value the integer
// i. The map is not valid for a reader that checks key order (all keys
// are equal); a reader that copies each key copies keyLen*n bytes.
// Layout (byte width 4 throughout): key string, NUL, typed key vector
// (length, n offsets), map prefix (keys offset, keys width, length), n
// values, n type bytes, root (offset, packed type, width).
func FlexSharedKeys(n, keyLen int) []byte {
	const w = 4
	put := func(b []byte, v int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
	b := make([]byte, keyLen, keyLen+1+w*(2*n+6)+n+2)
	for i := range b {
		b[i] = 'k'
	}
	b = append(b, 0)
	for len(b)%w != 0 {
		b = append(b, 0)
	}
	b = put(b, n)
	keysAt := len(b)
	for range n {
		b = put(b, len(b)) // offset back to the key at 0
	}
	mapLen := len(b)
	b = put(b, mapLen-keysAt) // offset to the keys vector
	b = put(b, w)
	b = put(b, n)
	valuesAt := len(b)
	for i := range n {
		b = put(b, i)
	}
	for range n {
		b = append(b, 1<<2|2) // INT, 32-bit
	}
	rootAt := len(b)
	b = put(b, rootAt-valuesAt)
	return append(b, 9<<2|2, w) // MAP, 32-bit; root width 4
}
