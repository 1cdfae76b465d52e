package ntff

import (
	"errors"
	"fmt"
)

// A schema-less protobuf reader: the capture's metadata is a protobuf
// message whose schema is not public, so fields are read by number and
// wire type only. Lengths are checked against what remains before any
// slice is taken; nothing is allocated from a declared length.

// Wire types of the protobuf encoding.
const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireI32    = 5
)

// maxDepth bounds the nesting walked (the capture nests five deep).
const maxDepth = 8

// field is one protobuf field: its number, wire type and value (Varint for
// wire types 0, 1 and 5; Bytes, a sub-slice of the input, for type 2).
type field struct {
	Num    uint64
	Wire   int
	Varint uint64
	Bytes  []byte
}

var errVarint = errors.New("malformed varint")

func uvarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errVarint
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errVarint
}

// walk calls fn for each field of the message b, in order; it stops at the
// first malformed field or when fn returns an error.
func walk(b []byte, fn func(f field) error) error {
	for off := 0; off < len(b); {
		key, n, err := uvarint(b[off:])
		if err != nil {
			return fmt.Errorf("offset %d: %w", off, err)
		}
		off += n
		f := field{Num: key >> 3, Wire: int(key & 7)}
		if f.Num == 0 {
			return fmt.Errorf("offset %d: field number 0", off-n)
		}
		switch f.Wire {
		case wireVarint:
			v, n, err := uvarint(b[off:])
			if err != nil {
				return fmt.Errorf("offset %d: %w", off, err)
			}
			f.Varint, off = v, off+n
		case wireI64:
			if len(b)-off < 8 {
				return fmt.Errorf("offset %d: truncated 64-bit field", off)
			}
			for i := 7; i >= 0; i-- {
				f.Varint = f.Varint<<8 | uint64(b[off+i])
			}
			off += 8
		case wireI32:
			if len(b)-off < 4 {
				return fmt.Errorf("offset %d: truncated 32-bit field", off)
			}
			for i := 3; i >= 0; i-- {
				f.Varint = f.Varint<<8 | uint64(b[off+i])
			}
			off += 4
		case wireLen:
			l, n, err := uvarint(b[off:])
			if err != nil {
				return fmt.Errorf("offset %d: %w", off, err)
			}
			off += n
			if l > uint64(len(b)-off) {
				return fmt.Errorf("offset %d: field %d declares %d bytes, %d remain", off, f.Num, l, len(b)-off)
			}
			f.Bytes, off = b[off:off+int(l)], off+int(l)
		default:
			return fmt.Errorf("offset %d: field %d has wire type %d (groups and unknown types are not used by captures)", off-n, f.Num, f.Wire)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// message is a decoded message: its fields in order.
type message []field

// parse decodes one level of b; depth counts the levels above it.
func parse(b []byte, depth int) (message, error) {
	if depth > maxDepth {
		return nil, errors.New("messages nest too deep")
	}
	var m message
	err := walk(b, func(f field) error { m = append(m, f); return nil })
	return m, err
}

// sub decodes the length-delimited field f as a message.
func (f field) sub(depth int) (message, error) {
	if f.Wire != wireLen {
		return nil, fmt.Errorf("field %d is not a message", f.Num)
	}
	return parse(f.Bytes, depth)
}

// uint returns the last varint value of field num (0 when absent).
func (m message) uint(num uint64) uint64 {
	var v uint64
	for _, f := range m {
		if f.Num == num && f.Wire != wireLen {
			v = f.Varint
		}
	}
	return v
}

// has reports whether field num is present.
func (m message) has(num uint64) bool {
	for _, f := range m {
		if f.Num == num {
			return true
		}
	}
	return false
}

// bytes returns the last length-delimited value of field num.
func (m message) bytes(num uint64) []byte {
	var v []byte
	for _, f := range m {
		if f.Num == num && f.Wire == wireLen {
			v = f.Bytes
		}
	}
	return v
}

// all returns the length-delimited values of field num in order.
func (m message) all(num uint64) [][]byte {
	var v [][]byte
	for _, f := range m {
		if f.Num == num && f.Wire == wireLen {
			v = append(v, f.Bytes)
		}
	}
	return v
}
