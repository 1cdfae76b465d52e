package neff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// Npy describes a .npy constant.
type Npy struct {
	Descr     string `json:"descr"`
	Shape     []int  `json:"shape"`
	Fortran   bool   `json:"fortran_order,omitempty"`
	ItemSize  int64  `json:"item_size"`  // 0 when the descr has no fixed size npukit knows (structured)
	DataBytes int64  `json:"data_bytes"` // bytes after the header
	// ArrayBytes is what the shape declares (elements x item size), the
	// bytes a loader copies; -1 when the item size is unknown.
	ArrayBytes int64 `json:"array_bytes"`
}

// npyMagic starts every .npy file (numpy's NEP 1 format description).
const npyMagic = "\x93NUMPY"

// NpyInfo parses a .npy header and checks that the data the shape
// declares is present.
//
// The header is read by github.com/sbinet/npyio, the .npy library the
// project uses for writing too, after the framing is checked here (magic,
// version, header length within the file: npyio allocates the declared
// length unchecked) and with its panics turned into errors: npyio v0.6.0
// panics on a header whose keys are not in numpy's order or that lacks the
// closing newline, and constants come from untrusted NEFFs. A header npyio
// refuses (those, format 3.0, a structured descr) is read by
// parseNpyHeader, a reader of the dict literal numpy's NEP 1 describes
// ('descr', 'fortran_order', 'shape'), so a valid constant from another
// writer is not called unreadable.
func NpyInfo(b []byte) (Npy, error) {
	if len(b) < 10 || string(b[:6]) != npyMagic {
		return Npy{}, errors.New("not a .npy file (bad magic)")
	}
	var hlen, start uint64
	switch b[6] {
	case 1:
		hlen, start = uint64(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return Npy{}, errors.New(".npy header truncated")
		}
		hlen, start = uint64(binary.LittleEndian.Uint32(b[8:])), 12
	default:
		return Npy{}, fmt.Errorf(".npy format version %d.%d is not 1, 2 or 3", b[6], b[7])
	}
	if hlen > uint64(len(b))-start {
		return Npy{}, fmt.Errorf(".npy header of %d bytes at offset %d overruns the %d-byte file", hlen, start, len(b))
	}
	hdr := string(b[start : start+hlen])
	n, err := npyioHeader(b)
	// npyio reads a shape without the trailing ", " before "}" ("(2,)}")
	// as a scalar: a scalar's header says "()".
	if err == nil && len(n.Shape) == 0 && !strings.Contains(hdr, "()") {
		err = errors.New("shape misread")
	}
	if err != nil {
		if n, err = parseNpyHeader(hdr); err != nil {
			return n, fmt.Errorf(".npy header at offset %d: %w", start, err)
		}
	}
	n.DataBytes = int64(uint64(len(b)) - start - hlen)
	n.ArrayBytes = -1
	if n.ItemSize == 0 {
		return n, nil
	}
	want := uint64(n.ItemSize)
	for _, d := range n.Shape {
		hi, lo := bits.Mul64(want, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return n, fmt.Errorf("shape %v overflows", n.Shape)
		}
		want = lo
	}
	if uint64(n.DataBytes) < want {
		return n, fmt.Errorf("shape %v of %s needs %d data bytes, have %d", n.Shape, n.Descr, want, n.DataBytes)
	}
	n.ArrayBytes = int64(want)
	return n, nil
}

// npyioHeader reads the header with npyio, a panic becoming an error.
func npyioHeader(b []byte) (n Npy, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = Npy{}, fmt.Errorf("malformed .npy header (%v)", r)
		}
	}()
	rd, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		return Npy{}, err
	}
	h := rd.Header.Descr
	n = Npy{Descr: h.Type, Shape: h.Shape, Fortran: h.Fortran, ItemSize: npyItemSize(h.Type)}
	if n.ItemSize == 0 {
		return Npy{}, fmt.Errorf("descr %q has no item size", h.Type)
	}
	return n, nil
}

// parseNpyHeader reads the dict literal. Keys may come in any order;
// descr may be a string or (structured dtype) a list, whose size is not
// derived (ItemSize 0).
func parseNpyHeader(h string) (Npy, error) {
	var n Npy
	p := &pyLit{s: h}
	p.ws()
	if !p.eat('{') {
		return n, errors.New("header is not a dict literal")
	}
	seen := map[string]bool{}
	for {
		p.ws()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok {
			return n, fmt.Errorf("byte %d: expected a quoted key", p.i)
		}
		p.ws()
		if !p.eat(':') {
			return n, fmt.Errorf("byte %d: expected ':' after %q", p.i, key)
		}
		p.ws()
		switch key {
		case "descr":
			if s, ok := p.str(); ok {
				n.Descr = s
			} else if raw, ok := p.skip(); ok {
				n.Descr = raw
			} else {
				return n, fmt.Errorf("byte %d: unreadable descr", p.i)
			}
		case "fortran_order":
			switch {
			case strings.HasPrefix(h[p.i:], "True"):
				n.Fortran, p.i = true, p.i+4
			case strings.HasPrefix(h[p.i:], "False"):
				p.i += 5
			default:
				return n, fmt.Errorf("byte %d: fortran_order is not True or False", p.i)
			}
		case "shape":
			shape, err := p.tuple()
			if err != nil {
				return n, err
			}
			n.Shape = shape
		default:
			if _, ok := p.str(); !ok {
				if _, ok := p.skip(); !ok {
					return n, fmt.Errorf("byte %d: unreadable value of %q", p.i, key)
				}
			}
		}
		seen[key] = true
		p.ws()
		if p.eat(',') {
			continue
		}
		p.ws()
		if !p.eat('}') {
			return n, fmt.Errorf("byte %d: expected ',' or '}'", p.i)
		}
		break
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return n, fmt.Errorf("no %q key", k)
		}
	}
	n.ItemSize = npyItemSize(n.Descr)
	return n, nil
}

// npyItemSize is the element size of a simple descr like "<f4", "|b1",
// "<U10" (4 bytes per character) or "<M8[ns]"; 0 when not derivable.
func npyItemSize(d string) int64 {
	if len(d) < 3 || !strings.ContainsRune("<>|=", rune(d[0])) {
		return 0
	}
	digits := d[2:]
	if i := strings.IndexByte(digits, '['); i >= 0 {
		digits = digits[:i]
	}
	size, err := strconv.ParseInt(digits, 10, 32)
	if err != nil || size <= 0 {
		return 0
	}
	if d[1] == 'U' {
		size *= 4
	}
	return size
}

// pyLit scans the small Python literal subset .npy headers use.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyLit) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a quoted string without escapes (none occur in .npy keys or
// simple descrs).
func (p *pyLit) str() (string, bool) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	s := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return s, true
}

// tuple reads "(d0, d1, ...)" of non-negative integers (Python 2 writers
// add an "L" suffix).
func (p *pyLit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("byte %d: shape is not a tuple", p.i)
	}
	var shape []int
	for {
		p.ws()
		if p.eat(')') {
			return shape, nil
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		d, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || d > 1<<62 {
			return nil, fmt.Errorf("byte %d: shape dimension is not a non-negative integer", p.i)
		}
		shape = append(shape, int(d))
		p.i = j
		p.eat('L')
		p.ws()
		if !p.eat(',') {
			p.ws()
			if !p.eat(')') {
				return nil, fmt.Errorf("byte %d: expected ',' or ')' in shape", p.i)
			}
			return shape, nil
		}
	}
}

// skip passes over a balanced list/tuple/dict or a bare word and returns
// its text.
func (p *pyLit) skip() (string, bool) {
	start, depth := p.i, 0
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			if depth == 0 {
				return p.s[start:p.i], p.i > start
			}
			depth--
		case '\'', '"':
			if _, ok := p.str(); !ok {
				return "", false
			}
			continue
		case ',':
			if depth == 0 {
				return p.s[start:p.i], p.i > start
			}
		}
		p.i++
	}
	return "", false
}

// DType names the npukit element type of a little-endian (or byte-sized)
// descr, "" when npukit has no such type.
func (n Npy) DType() string {
	d := n.Descr
	if len(d) < 3 || (d[0] != '<' && d[0] != '|') {
		return ""
	}
	switch d[1:] {
	case "f2":
		return "float16"
	case "f4":
		return "float32"
	case "i1":
		return "int8"
	case "i2":
		return "int16"
	case "i4":
		return "int32"
	case "i8":
		return "int64"
	case "u1":
		return "uint8"
	case "u2":
		return "uint16"
	case "u4":
		return "uint32"
	case "u8":
		return "uint64"
	}
	return ""
}
