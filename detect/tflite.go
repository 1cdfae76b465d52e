package detect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// EdgeTPUCustomCode is the custom_code of the operator that carries a
// DarwiNN package inside a TFLite model.
const EdgeTPUCustomCode = "edgetpu-custom-op"

// maxOpcodes bounds the operator-code walk; real models have a few dozen.
const maxOpcodes = 4096

// hasEdgeTPUOp walks Model.operator_codes[*].custom_code with small
// bounds-checked reads (schema: tensorflow/lite/schema/schema.fbs; Model
// field 1 is operator_codes, OperatorCode field 1 is custom_code).
func hasEdgeTPUOp(r io.ReaderAt, size int64) (bool, error) {
	fr := fbReader{r: r, size: size}
	root, err := fr.u32(0)
	if err != nil {
		return false, err
	}
	codes, ok, err := fr.field(int64(root), 1)
	if err != nil || !ok {
		return false, err
	}
	n, err := fr.u32(codes)
	if err != nil {
		return false, err
	}
	if n > maxOpcodes || int64(n)*4 > size {
		return false, fmt.Errorf("operator_codes length %d out of range", n)
	}
	for i := int64(0); i < int64(n); i++ {
		elem := codes + 4 + 4*i
		off, err := fr.u32(elem)
		if err != nil {
			return false, err
		}
		tbl := elem + int64(off)
		s, ok, err := fr.field(tbl, 1)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		l, err := fr.u32(s)
		if err != nil {
			return false, err
		}
		if l != uint32(len(EdgeTPUCustomCode)) {
			continue
		}
		buf := make([]byte, l)
		if err := fr.read(buf, s+4); err != nil {
			return false, err
		}
		if string(buf) == EdgeTPUCustomCode {
			return true, nil
		}
	}
	return false, nil
}

type fbReader struct {
	r    io.ReaderAt
	size int64
}

var errOutOfRange = errors.New("offset out of range")

func (f fbReader) read(b []byte, off int64) error {
	if off < 0 || off+int64(len(b)) > f.size {
		return fmt.Errorf("%w: %d", errOutOfRange, off)
	}
	_, err := f.r.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return err
}

func (f fbReader) u32(off int64) (uint32, error) {
	var b [4]byte
	if err := f.read(b[:], off); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

func (f fbReader) u16(off int64) (uint16, error) {
	var b [2]byte
	if err := f.read(b[:], off); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b[:]), nil
}

// field returns the absolute position of the target of an offset field
// (vector, string or table) of the table at tbl.
func (f fbReader) field(tbl int64, index int) (int64, bool, error) {
	soff, err := f.u32(tbl)
	if err != nil {
		return 0, false, err
	}
	vt := tbl - int64(int32(soff))
	vtLen, err := f.u16(vt)
	if err != nil {
		return 0, false, err
	}
	slot := int64(4 + 2*index)
	if slot+2 > int64(vtLen) {
		return 0, false, nil
	}
	fo, err := f.u16(vt + slot)
	if err != nil || fo == 0 {
		return 0, false, err
	}
	at := tbl + int64(fo)
	rel, err := f.u32(at)
	if err != nil {
		return 0, false, err
	}
	return at + int64(rel), true, nil
}
