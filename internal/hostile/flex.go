// Package hostile generates crafted inputs for tests and the
// bounded-resource harness (scripts/hostile.sh): small files whose
// declared structure would make a careless reader use memory or time far
// out of proportion to their size. Nothing here is read by npukit itself.
package hostile

import (
	"encoding/binary"
	"encoding/json"
	"strings"
)

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

// JSONLongNames rewrites a JSON document: every string value of a key
// ending in "name" gets a terminal escape sequence and a newline appended,
// and the smallest such value (all its occurrences, so references by name
// still match) extra bytes besides: one huge name among ordinary ones.
// Key order is lost; the document stays valid JSON.
func JSONLongNames(doc []byte, extra int) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	evil := "\x1b[2J\x1b]0;owned\x07\n"
	long := strings.Repeat("N", extra)
	smallest, found := "", false
	var walk func(x any, rewrite bool) any
	walk = func(x any, rewrite bool) any {
		switch t := x.(type) {
		case map[string]any:
			for k, e := range t {
				if s, ok := e.(string); ok && strings.HasSuffix(k, "name") {
					if !rewrite {
						if !found || s < smallest {
							smallest, found = s, true
						}
						continue
					}
					if s == smallest {
						t[k] = s + evil + long
					} else {
						t[k] = s + evil
					}
				} else {
					t[k] = walk(e, rewrite)
				}
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i], rewrite)
			}
		}
		return x
	}
	walk(v, false)
	return json.Marshal(walk(v, true))
}
