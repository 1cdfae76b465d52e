package npyarray

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/neff"
)

// float16 stays float16 ('<f2'); bfloat16 is written as float32 (exact)
// and the written type says so; the header parses as .npy and the data
// follows at a multiple of 64 bytes.
func TestWriteKeepsFloat16(t *testing.T) {
	h := []byte{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c, 0, 0, 0, 0, 0, 0} // 1, -2, +Inf, 0, 0, 0
	var buf bytes.Buffer
	wt, err := Write(&buf, dtype.Float16, []int64{2, 3}, h)
	if err != nil || wt != dtype.Float16 {
		t.Fatalf("wrote %v, %v", wt, err)
	}
	info, err := neff.NpyInfo(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if info.Descr != "<f2" || len(info.Shape) != 2 || info.Shape[0] != 2 || info.Shape[1] != 3 || info.Fortran {
		t.Fatalf("header %+v", info)
	}
	if (buf.Len()-len(h))%64 != 0 || !bytes.Equal(buf.Bytes()[buf.Len()-len(h):], h) {
		t.Fatalf("data not at a 64-byte boundary or changed (%d bytes)", buf.Len())
	}

	buf.Reset()
	bf := []byte{0x80, 0x3f, 0x00, 0xc0} // 1, -2 as bfloat16
	wt, err = Write(&buf, dtype.BFloat16, []int64{2}, bf)
	if err != nil || wt != dtype.Float32 {
		t.Fatalf("bfloat16 wrote %v, %v", wt, err)
	}
	info, err = neff.NpyInfo(buf.Bytes())
	if err != nil || info.Descr != "<f4" || info.Shape[0] != 2 {
		t.Fatalf("bfloat16 header %+v %v", info, err)
	}
	if _, err := Write(&buf, dtype.Float16, []int64{4}, h[:6]); err == nil {
		t.Error("a shape the bytes do not hold was written")
	}
}
