package neff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The engine JSONs of a real NEFF hold thousands of DMA entries; decoding
// them through encoding/json with per-type UnmarshalJSON methods (needed to
// keep unknown fields) scanned every byte once per nesting level and ran
// at a few MB/s. Instead each member is parsed once into a plain tree
// (treeObject, []any, string, json.Number, bool, nil) by the strict
// RFC 8259 parser below and converted to the typed model by fromTree.
// encoding/json remains the reference: a document this parser refuses is
// handed to it for the error message, and FuzzJSONTree checks that both
// accept the same documents.

// treeObject is a JSON object as its members in document order (cheaper
// than a map for the small objects of a NEFF; a repeated key's last
// value wins when converted, as in encoding/json).
type treeObject []treeKV

type treeKV struct {
	K string
	V any
}

// MarshalJSON writes the object (for Extra and untyped values).
func (o treeObject) MarshalJSON() ([]byte, error) {
	return json.Marshal(o.toMap())
}

// toMap converts to the map encoding/json would have produced.
func (o treeObject) toMap() map[string]any {
	m := make(map[string]any, len(o))
	for _, kv := range o {
		switch x := kv.V.(type) {
		case treeObject:
			m[kv.K] = x.toMap()
		case []any:
			m[kv.K] = untree(x)
		default:
			m[kv.K] = x
		}
	}
	return m
}

// untree converts a tree value to encoding/json's untyped form.
func untree(v any) any {
	switch x := v.(type) {
	case treeObject:
		return x.toMap()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = untree(e)
		}
		return out
	}
	return v
}

// maxJSONDepth bounds nesting like encoding/json does.
const maxJSONDepth = 10000

type treeParser struct {
	b     []byte
	i     int
	depth int
	// keys interns object keys and vals short scalar values (boxed, so
	// that a repeated number or string costs no allocation): a NEFF
	// repeats the same few keys and values thousands of times.
	keys map[string]string
	nums map[string]any
	strs map[string]any
	// Elements of the arrays and objects being parsed; each is copied
	// out at its exact length when it closes.
	elems   []any
	members []treeKV
	dups    []DuplicateKey
	// left counts down the values the document may still hold.
	left, max int64
}

// DuplicateKey is a key that appears more than once in one JSON object:
// parsers disagree on which value counts (this one keeps the last, as
// encoding/json does).
type DuplicateKey struct {
	Offset int // byte offset of the object
	Key    string
}

// maxDuplicates bounds the duplicates remembered per document.
const maxDuplicates = 16

// noteDuplicates records the keys of m that appear twice.
func (p *treeParser) noteDuplicates(m treeObject, at int) {
	if len(p.dups) >= maxDuplicates || len(m) < 2 {
		return
	}
	if len(m) <= 16 {
		for i := 1; i < len(m); i++ {
			for j := 0; j < i; j++ {
				if m[i].K == m[j].K {
					p.dups = append(p.dups, DuplicateKey{at, m[i].K})
					break
				}
			}
		}
	} else {
		seen := make(map[string]bool, len(m))
		for _, kv := range m {
			if seen[kv.K] {
				p.dups = append(p.dups, DuplicateKey{at, kv.K})
			}
			seen[kv.K] = true
		}
	}
	p.dups = p.dups[:min(len(p.dups), maxDuplicates)]
}

// treeLimitError says a JSON document holds more values than allowed.
type treeLimitError struct {
	Offset int
	Max    int64
}

func (e *treeLimitError) Error() string {
	return fmt.Sprintf("byte %d: more than %d JSON values; the limit is one value per 64 bytes of the decompressed-bytes limit (the npukit command's NPUKIT_NEFF_MAX_BYTES raises it)", e.Offset, e.Max)
}

const maxInterned = 4096

type treeSyntaxError struct {
	Offset int
	Msg    string
}

func (e *treeSyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// parseTree parses one JSON document (surrounded by optional whitespace).
func parseTree(b []byte, maxValues int64) (any, error) {
	t, _, err := parseTreeDups(b, maxValues)
	return t, err
}

// parseTreeDups is parseTree that also returns the duplicate keys found.
func parseTreeDups(b []byte, maxValues int64) (any, []DuplicateKey, error) {
	p := &treeParser{b: b, keys: map[string]string{}, nums: map[string]any{}, strs: map[string]any{}, left: maxValues, max: maxValues}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, nil, p.fail("data after the top-level value")
	}
	return v, p.dups, nil
}

func (p *treeParser) fail(msg string) error { return &treeSyntaxError{Offset: p.i, Msg: msg} }

func (p *treeParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value() (any, error) {
	if p.left--; p.left < 0 {
		return nil, &treeLimitError{Offset: p.i, Max: p.max}
	}
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.i + 1
		for j := start; j < len(p.b); j++ {
			c := p.b[j]
			if c == '"' {
				p.i = j + 1
				return p.intern(p.b[start:j], false), nil
			}
			if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
		}
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.lit("true"):
		return true, nil
	case p.lit("false"):
		return false, nil
	case p.lit("null"):
		return nil, nil
	}
	return nil, p.fail("invalid character")
}

func (p *treeParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *treeParser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.fail("nesting too deep")
	}
	p.i++
	p.ws()
	return nil
}

func (p *treeParser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	base := len(p.members)
	start := p.i - 1
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return treeObject(nil), nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("expected a string key")
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.members = appendDoubling(p.members, treeKV{k, v})
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.fail("unexpected end of input in object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			p.depth--
			m := make(treeObject, len(p.members)-base)
			copy(m, p.members[base:])
			clear(p.members[base:])
			p.members = p.members[:base]
			p.noteDuplicates(m, start)
			return m, nil
		default:
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

func (p *treeParser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	base := len(p.elems)
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		return []any{}, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.elems = appendDoubling(p.elems, v)
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.fail("unexpected end of input in array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			p.depth--
			a := make([]any, len(p.elems)-base)
			copy(a, p.elems[base:])
			clear(p.elems[base:])
			p.elems = p.elems[:base]
			return a, nil
		default:
			return nil, p.fail("expected ',' or ']'")
		}
	}
}

// appendDoubling appends like append but doubles a full slice: append
// grows large slices by a quarter, so a member of tens of millions of
// values was copied about twenty times over (most of inspect's time on a
// 256 MB JSON member, with the collector's write barriers on every copy).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) && cap(s) >= 1024 {
		grown := make([]T, len(s), 2*cap(s))
		copy(grown, s)
		s = grown
	}
	return append(s, v)
}

func (p *treeParser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number")
		}
	}
	return p.intern(p.b[start:p.i], true), nil
}

// intern returns the boxed json.Number (number) or string of b, shared
// between repeats of short values.
func (p *treeParser) intern(b []byte, number bool) any {
	if len(b) > 32 {
		if number {
			return json.Number(b)
		}
		return string(b)
	}
	m := p.strs
	if number {
		m = p.nums
	}
	if v, ok := m[string(b)]; ok { // no allocation in a map lookup
		return v
	}
	var v any
	if number {
		v = json.Number(b)
	} else {
		v = string(b)
	}
	if len(m) < maxInterned {
		m[string(b)] = v
	}
	return v
}

// key parses an object key, interned when it has no escapes.
func (p *treeParser) key() (string, error) {
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			if k, ok := p.keys[string(p.b[start:j])]; ok {
				p.i = j + 1
				return k, nil
			}
			k := string(p.b[start:j])
			if len(p.keys) < maxInterned {
				p.keys[k] = k
			}
			p.i = j + 1
			return k, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return p.str()
}

// str parses a string at p.i (which holds '"'), decoding escapes and
// replacing invalid UTF-8 with U+FFFD as encoding/json does.
func (p *treeParser) str() (string, error) {
	p.i++
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			p.i++
			return string(s), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	// Slow path: escapes or non-ASCII.
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", p.fail("unexpected end of input in string")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(utf8.RuneError)
					if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						lo, ok := p.hex4()
						if !ok {
							return "", p.fail("invalid \\u escape")
						}
						if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
							r2 = d
						} else {
							p.i = save // the second escape stands alone
						}
					}
					r = r2
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", p.fail("invalid escape in string")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			out = utf8.AppendRune(out, r) // RuneError for invalid bytes
			p.i += n
		}
	}
	return "", p.fail("unexpected end of input in string")
}

func (p *treeParser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}
