// Package npyarray writes raw little-endian tensor elements as standard
// NumPy .npy files, so every command that writes tensors shares one
// mapping from npukit's element types to .npy types (float16 kept as
// '<f2'; bfloat16, float8 and float32r, which NumPy has no type for,
// widened exactly to float32).
package npyarray

import (
	"github.com/npukit/npukit/dtype"
)

// Widen returns elements .npy cannot hold — float16,
// bfloat16, float8 variants, float32r — converted to float32, which holds
// each of them exactly, with the type now held; other types come back
// unchanged.
func Widen(t dtype.T, b []byte) (dtype.T, []byte) {
	switch t {
	case dtype.Float8E3, dtype.Float8E4, dtype.Float8E5, dtype.Float16, dtype.BFloat16, dtype.Float32R:
	default:
		return t, b
	}
	n := len(b) / t.Size()
	w := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		dtype.Convert(dtype.Float32, w[4*i:], t, b[i*t.Size():])
	}
	return dtype.Float32, w
}
