// Package fbs reads untrusted FlatBuffers and FlexBuffers without trusting a
// single offset: every table, vtable, field, vector and string is checked
// against the buffer before it is touched, so malformed input yields an
// *Error naming the byte offset and the structure path, never a panic and
// never an allocation driven by a declared length.
//
// Reading is zero-copy: byte vectors and strings are sub-slices of the input.
// Layout facts follow the FlatBuffers binary format documentation
// (flatbuffers.dev, "Internals"): a buffer starts with a uoffset to the root
// table; a table starts with a soffset to its vtable (vtable = table - soffset);
// a vtable holds its own size, the table's inline size and one uint16 field
// offset per slot (0 = absent); vectors and strings are a uint32 length
// followed by the elements (strings are NUL-terminated).
package fbs

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Error is a malformed-input error with the byte offset (relative to the
// buffer being read) and the structure path where it was found.
type Error struct {
	Offset int64
	Path   string
	Msg    string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s at offset %d: %s", e.Path, e.Offset, e.Msg)
}

func errAt(off int, path, format string, args ...any) error {
	return &Error{Offset: int64(off), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// MaxSize is the largest buffer accepted (FlatBuffers offsets are 32-bit).
const MaxSize = math.MaxInt32

// Table is a verified view of one table.
type Table struct {
	buf   []byte
	pos   int // table start
	vt    int // vtable start
	vtLen int // vtable size in bytes
	size  int // table inline size in bytes
	Path  string
}

// Root returns the root table of a buffer. path names it in errors.
func Root(buf []byte, path string) (Table, error) {
	if len(buf) > MaxSize {
		return Table{}, errAt(0, path, "buffer of %d bytes exceeds the FlatBuffers limit", len(buf))
	}
	if len(buf) < 8 {
		return Table{}, errAt(0, path, "buffer of %d bytes is too short for a FlatBuffer", len(buf))
	}
	root := int(binary.LittleEndian.Uint32(buf))
	return tableAt(buf, root, path)
}

// Identifier returns bytes 4..8 of a buffer (the optional file identifier),
// or "" when the buffer is too short.
func Identifier(buf []byte) string {
	if len(buf) < 8 {
		return ""
	}
	return string(buf[4:8])
}

func tableAt(buf []byte, pos int, path string) (Table, error) {
	if pos < 0 || pos > len(buf)-4 {
		return Table{}, errAt(pos, path, "table offset outside the %d-byte buffer", len(buf))
	}
	soff := int(int32(binary.LittleEndian.Uint32(buf[pos:])))
	vt := pos - soff
	if vt < 0 || vt > len(buf)-4 {
		return Table{}, errAt(pos, path, "vtable offset %d outside the buffer", vt)
	}
	vtLen := int(binary.LittleEndian.Uint16(buf[vt:]))
	size := int(binary.LittleEndian.Uint16(buf[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 || vt+vtLen > len(buf) {
		return Table{}, errAt(vt, path, "vtable size %d invalid", vtLen)
	}
	if size < 4 || pos+size > len(buf) {
		return Table{}, errAt(pos, path, "table size %d runs past the buffer", size)
	}
	return Table{buf: buf, pos: pos, vt: vt, vtLen: vtLen, size: size, Path: path}, nil
}

// Pos is the table's offset in the buffer.
func (t Table) Pos() int { return t.pos }

// Buf is the buffer the table lives in.
func (t Table) Buf() []byte { return t.buf }

// NumSlots is the number of slots the vtable describes.
func (t Table) NumSlots() int { return (t.vtLen - 4) / 2 }

// Present reports whether slot holds a value.
func (t Table) Present(slot int) bool { return t.fieldOff(slot) != 0 }

// Slots lists the present slots in order.
func (t Table) Slots() []int {
	var s []int
	for i := 0; i < t.NumSlots(); i++ {
		if t.Present(i) {
			s = append(s, i)
		}
	}
	return s
}

func (t Table) fieldOff(slot int) int {
	if t.buf == nil || slot < 0 || 4+2*slot+2 > t.vtLen {
		return 0
	}
	return int(binary.LittleEndian.Uint16(t.buf[t.vt+4+2*slot:]))
}

func (t Table) sub(name string) string { return t.Path + "." + name }

// field returns the absolute position of an inline field of the given width,
// or -1 when absent.
func (t Table) field(slot, width int, name string) (int, error) {
	fo := t.fieldOff(slot)
	if fo == 0 {
		return -1, nil
	}
	if fo+width > t.size {
		return 0, errAt(t.pos+fo, t.sub(name), "field of %d bytes runs past its %d-byte table", width, t.size)
	}
	return t.pos + fo, nil
}

// Uint returns an unsigned scalar of width 1, 2, 4 or 8 bytes.
func (t Table) Uint(slot, width int, name string, def uint64) (uint64, error) {
	p, err := t.field(slot, width, name)
	if err != nil || p < 0 {
		return def, err
	}
	return readUint(t.buf[p:], width), nil
}

// Int returns a signed scalar of width 1, 2, 4 or 8 bytes.
func (t Table) Int(slot, width int, name string, def int64) (int64, error) {
	p, err := t.field(slot, width, name)
	if err != nil || p < 0 {
		return def, err
	}
	return readInt(t.buf[p:], width), nil
}

// Float32 returns a float scalar.
func (t Table) Float32(slot int, name string, def float32) (float32, error) {
	p, err := t.field(slot, 4, name)
	if err != nil || p < 0 {
		return def, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(t.buf[p:])), nil
}

// Bool returns a bool scalar.
func (t Table) Bool(slot int, name string, def bool) (bool, error) {
	p, err := t.field(slot, 1, name)
	if err != nil || p < 0 {
		return def, err
	}
	return t.buf[p] != 0, nil
}

// Struct returns the bytes of an inline struct of the given size.
func (t Table) Struct(slot, size int, name string) ([]byte, bool, error) {
	p, err := t.field(slot, size, name)
	if err != nil || p < 0 {
		return nil, false, err
	}
	return t.buf[p : p+size : p+size], true, nil
}

// indirect follows the uoffset field of a slot; -1 when absent.
func (t Table) indirect(slot int, name string) (int, error) {
	p, err := t.field(slot, 4, name)
	if err != nil || p < 0 {
		return -1, err
	}
	target := p + int(binary.LittleEndian.Uint32(t.buf[p:]))
	if target > len(t.buf)-4 || target < p {
		return 0, errAt(p, t.sub(name), "offset to %d outside the %d-byte buffer", target, len(t.buf))
	}
	return target, nil
}

// Table returns the sub-table in slot.
func (t Table) Table(slot int, name string) (Table, bool, error) {
	p, err := t.indirect(slot, name)
	if err != nil || p < 0 {
		return Table{}, false, err
	}
	sub, err := tableAt(t.buf, p, t.sub(name))
	return sub, err == nil, err
}

// Vector returns the vector in slot with elements of elemSize bytes
// (4 for vectors of tables and strings).
func (t Table) Vector(slot, elemSize int, name string) (Vector, bool, error) {
	p, err := t.indirect(slot, name)
	if err != nil || p < 0 {
		return Vector{}, false, err
	}
	v, err := vectorAt(t.buf, p, elemSize, t.sub(name))
	return v, err == nil, err
}

// Bytes returns a [ubyte] vector (or a string without its terminator) as a
// sub-slice of the buffer, with the offset of its first byte.
func (t Table) Bytes(slot int, name string) (b []byte, off int, ok bool, err error) {
	v, ok, err := t.Vector(slot, 1, name)
	if err != nil || !ok {
		return nil, 0, ok, err
	}
	return v.Raw(), v.start, true, nil
}

// String returns a string field ("" when absent).
func (t Table) String(slot int, name string) (string, bool, error) {
	b, _, ok, err := t.Bytes(slot, name)
	return string(b), ok, err
}

// Union returns the type tag (in slot) and the table (in slot+1) of a union
// field; tag 0 means NONE.
func (t Table) Union(slot int, name string) (uint8, Table, error) {
	tag, err := t.Uint(slot, 1, name+"_type", 0)
	if err != nil || tag == 0 {
		return 0, Table{}, err
	}
	sub, ok, err := t.Table(slot+1, name)
	if err != nil {
		return 0, Table{}, err
	}
	if !ok {
		p, _ := t.field(slot, 1, name)
		return 0, Table{}, errAt(p, t.sub(name), "union tag %d without a value", tag)
	}
	return uint8(tag), sub, nil
}

// UnionValue is Union for unions whose members may be empty tables: a tag
// without a value is not an error (the FlatBuffers verifier accepts a
// missing union value) and is reported with ok false.
func (t Table) UnionValue(slot int, name string) (tag uint8, sub Table, ok bool, err error) {
	v, err := t.Uint(slot, 1, name+"_type", 0)
	if err != nil || v == 0 {
		return 0, Table{}, false, err
	}
	sub, ok, err = t.Table(slot+1, name)
	if err != nil {
		return 0, Table{}, false, err
	}
	return uint8(v), sub, ok, nil
}

// Vector is a verified view of a vector.
type Vector struct {
	buf   []byte
	start int // first element
	n     int
	elem  int
	Path  string
}

func vectorAt(buf []byte, p, elem int, path string) (Vector, error) {
	if p < 0 || p > len(buf)-4 {
		return Vector{}, errAt(p, path, "vector offset outside the %d-byte buffer", len(buf))
	}
	n := int(binary.LittleEndian.Uint32(buf[p:]))
	start := p + 4
	if elem <= 0 || n > (len(buf)-start)/elem {
		return Vector{}, errAt(p, path, "vector of %d elements of %d bytes runs past the %d-byte buffer", n, elem, len(buf))
	}
	return Vector{buf: buf, start: start, n: n, elem: elem, Path: path}, nil
}

// Len is the number of elements.
func (v Vector) Len() int { return v.n }

// Start is the offset of the first element.
func (v Vector) Start() int { return v.start }

// Raw returns the element bytes as a sub-slice of the buffer.
func (v Vector) Raw() []byte { return v.buf[v.start : v.start+v.n*v.elem : v.start+v.n*v.elem] }

// ElemPath names element i.
func (v Vector) ElemPath(i int) string { return fmt.Sprintf("%s[%d]", v.Path, i) }

// Uint returns element i as an unsigned integer (elemSize 1, 2, 4 or 8).
func (v Vector) Uint(i int) uint64 { return readUint(v.buf[v.start+i*v.elem:], v.elem) }

// Int returns element i as a signed integer.
func (v Vector) Int(i int) int64 { return readInt(v.buf[v.start+i*v.elem:], v.elem) }

// Float32 returns element i as a float.
func (v Vector) Float32(i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(v.buf[v.start+i*v.elem:]))
}

// Elem returns the bytes of element i (for vectors of structs).
func (v Vector) Elem(i int) []byte {
	p := v.start + i*v.elem
	return v.buf[p : p+v.elem : p+v.elem]
}

func (v Vector) target(i int) (int, error) {
	if v.elem != 4 {
		return 0, errAt(v.start, v.Path, "vector of %d-byte elements holds no offsets", v.elem)
	}
	p := v.start + 4*i
	target := p + int(binary.LittleEndian.Uint32(v.buf[p:]))
	if target > len(v.buf)-4 || target < p {
		return 0, errAt(p, v.ElemPath(i), "offset to %d outside the %d-byte buffer", target, len(v.buf))
	}
	return target, nil
}

// Table returns element i of a vector of tables.
func (v Vector) Table(i int) (Table, error) {
	p, err := v.target(i)
	if err != nil {
		return Table{}, err
	}
	return tableAt(v.buf, p, v.ElemPath(i))
}

// Bytes returns element i of a vector of strings (or of [ubyte] tables'
// equivalent: a vector of byte vectors) as a sub-slice, with its offset.
func (v Vector) Bytes(i int) ([]byte, int, error) {
	p, err := v.target(i)
	if err != nil {
		return nil, 0, err
	}
	s, err := vectorAt(v.buf, p, 1, v.ElemPath(i))
	if err != nil {
		return nil, 0, err
	}
	return s.Raw(), s.start, nil
}

// String returns element i of a vector of strings.
func (v Vector) String(i int) (string, error) {
	b, _, err := v.Bytes(i)
	return string(b), err
}

func readUint(b []byte, width int) uint64 {
	switch width {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	default:
		return binary.LittleEndian.Uint64(b)
	}
}

func readInt(b []byte, width int) int64 {
	switch width {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	default:
		return int64(binary.LittleEndian.Uint64(b))
	}
}
