// Package bitfield reads and writes unsigned fields at arbitrary bit
// offsets of a byte slice, least significant bit first: bit b of the
// stream is bit b%8 of byte b/8. This is how the Edge TPU driver patches
// addresses into instruction bitstreams, whose fields are not byte aligned
// (../shared/notes/edgetpu.md, "Linking").
package bitfield

import "fmt"

// Check reports whether a width-bit field at bit offset off fits in n bytes.
func Check(n int, off int64, width uint) error {
	if width == 0 || width > 64 {
		return fmt.Errorf("field width %d out of range 1..64", width)
	}
	if off < 0 || off+int64(width) > int64(n)*8 {
		return fmt.Errorf("bits [%d, %d) outside %d bytes", off, off+int64(width), n)
	}
	return nil
}

// Write stores the low width bits of v at bit offset off, preserving every
// other bit.
func Write(b []byte, off int64, width uint, v uint64) error {
	if err := Check(len(b), off, width); err != nil {
		return err
	}
	for done := uint(0); done < width; {
		i, sh := off/8, uint(off%8)
		n := min(8-sh, width-done)
		mask := byte((1<<n - 1) << sh)
		b[i] = b[i]&^mask | byte(v>>done)<<sh&mask
		done += n
		off += int64(n)
	}
	return nil
}

// Read returns the width-bit field at bit offset off.
func Read(b []byte, off int64, width uint) (uint64, error) {
	if err := Check(len(b), off, width); err != nil {
		return 0, err
	}
	var v uint64
	for done := uint(0); done < width; {
		i, sh := off/8, uint(off%8)
		n := min(8-sh, width-done)
		v |= uint64(b[i]>>sh&byte(1<<n-1)) << done
		done += n
		off += int64(n)
	}
	return v, nil
}
