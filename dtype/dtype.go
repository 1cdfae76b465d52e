// Package dtype is npukit's one table of element types: names as NEFF
// files spell them, sizes, and bit-exact conversions between them.
//
// Encodings and rounding (stated once, used by every converter):
//   - float32, float32r: IEEE-754 binary32, little-endian. float32r is the
//     NeuronCore's "fp32 round" performance mode of the PE array; in memory
//     it is an ordinary float32, so it converts exactly like float32.
//   - float16: IEEE-754 binary16; bfloat16: the top 16 bits of binary32.
//   - float8e3 (1 sign, 3 exponent, 4 mantissa bits, bias 3), float8e4
//     (1-4-3, bias 7) and float8e5 (1-5-2, bias 15): IEEE-style minifloats
//     with subnormals, infinities and NaNs (exponent all ones). Neuron lists
//     float8_e4m3 separately from float8_e4m3fn (NKI nki.language dtypes),
//     so e4 is the IEEE-style variant (largest finite 240), not OCP's FN.
//   - Float to narrower float: round to nearest, ties to even; values past
//     the largest finite number become infinity; NaN stays NaN (quiet).
//   - Float to integer: round to nearest, ties to even, then saturate to
//     the integer's range; NaN becomes 0. Integer to integer: saturate.
//   - Integer to float: rounded like any other value of that magnitude.
package dtype

import (
	"encoding/binary"
	"fmt"
	"math"
)

// T is an element type.
type T uint8

// Element types. The zero value is invalid.
const (
	Invalid T = iota
	Float8E3
	Float8E4
	Float8E5
	Float16
	BFloat16
	Float32
	Float32R
	Uint8
	Uint16
	Uint32
	Uint64
	Int8
	Int16
	Int32
	Int64
)

var names = [...]string{
	Invalid: "invalid", Float8E3: "float8e3", Float8E4: "float8e4", Float8E5: "float8e5",
	Float16: "float16", BFloat16: "bfloat16", Float32: "float32", Float32R: "float32r",
	Uint8: "uint8", Uint16: "uint16", Uint32: "uint32", Uint64: "uint64",
	Int8: "int8", Int16: "int16", Int32: "int32", Int64: "int64",
}

var sizes = [...]int{
	Float8E3: 1, Float8E4: 1, Float8E5: 1, Float16: 2, BFloat16: 2, Float32: 4, Float32R: 4,
	Uint8: 1, Uint16: 2, Uint32: 4, Uint64: 8, Int8: 1, Int16: 2, Int32: 4, Int64: 8,
}

// aliases are other spellings met in NEFF signatures and numpy.
var aliases = map[string]T{
	"fp8_e3": Float8E3, "float8_e3m4": Float8E3, "fp8_e4": Float8E4, "float8_e4m3": Float8E4,
	"fp8_e5": Float8E5, "float8_e5m2": Float8E5, "fp16": Float16, "half": Float16,
	"bf16": BFloat16, "fp32": Float32, "float": Float32, "fp32r": Float32R,
}

// All lists every valid type.
func All() []T {
	out := make([]T, 0, len(names)-1)
	for t := Float8E3; t <= Int64; t++ {
		out = append(out, t)
	}
	return out
}

// Parse reads a type name (NEFF spelling or a common alias).
func Parse(name string) (T, error) {
	for t := Float8E3; t <= Int64; t++ {
		if names[t] == name {
			return t, nil
		}
	}
	if t, ok := aliases[name]; ok {
		return t, nil
	}
	return Invalid, fmt.Errorf("unknown dtype %q", name)
}

// String is the NEFF spelling.
func (t T) String() string {
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("dtype(%d)", t)
}

// Size is the element size in bytes (0 for Invalid).
func (t T) Size() int {
	if int(t) < len(sizes) {
		return sizes[t]
	}
	return 0
}

// IsFloat reports whether t is a floating-point type.
func (t T) IsFloat() bool { return t >= Float8E3 && t <= Float32R }

// IsSigned reports whether t is a signed integer type.
func (t T) IsSigned() bool { return t >= Int8 && t <= Int64 }

// Value is one element, held exactly: floats as float64 (every supported
// float is exactly representable), integers as int64/uint64.
type Value struct {
	F     float64
	I     int64
	U     uint64
	Float bool
	Neg   bool // for integers: the value is I (negative); else U
}

// Decode reads one element of type t from b (little-endian).
func Decode(t T, b []byte) Value {
	switch t {
	case Float8E3, Float8E4, Float8E5:
		return Value{F: minifloats[t].decode(b[0]), Float: true}
	case Float16:
		return Value{F: minifloats[t].decode16(binary.LittleEndian.Uint16(b)), Float: true}
	case BFloat16:
		return Value{F: float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16)), Float: true}
	case Float32, Float32R:
		return Value{F: float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), Float: true}
	case Uint8:
		return Value{U: uint64(b[0])}
	case Uint16:
		return Value{U: uint64(binary.LittleEndian.Uint16(b))}
	case Uint32:
		return Value{U: uint64(binary.LittleEndian.Uint32(b))}
	case Uint64:
		return Value{U: binary.LittleEndian.Uint64(b)}
	case Int8:
		return intValue(int64(int8(b[0])))
	case Int16:
		return intValue(int64(int16(binary.LittleEndian.Uint16(b))))
	case Int32:
		return intValue(int64(int32(binary.LittleEndian.Uint32(b))))
	case Int64:
		return intValue(int64(binary.LittleEndian.Uint64(b)))
	}
	return Value{}
}

func intValue(i int64) Value {
	if i < 0 {
		return Value{I: i, Neg: true}
	}
	return Value{U: uint64(i)}
}

// Float64 returns the value as a float64 (integers rounded if huge).
func (v Value) Float64() float64 {
	switch {
	case v.Float:
		return v.F
	case v.Neg:
		return float64(v.I)
	}
	return float64(v.U)
}

// FloatValue wraps a float.
func FloatValue(f float64) Value { return Value{F: f, Float: true} }

// Encode writes v as type t into b (len(b) >= t.Size()), rounding and
// saturating as the package documentation states.
func Encode(t T, v Value, b []byte) {
	switch t {
	case Float8E3, Float8E4, Float8E5:
		b[0] = uint8(minifloats[t].encode(v.Float64()))
	case Float16:
		binary.LittleEndian.PutUint16(b, uint16(minifloats[t].encode(v.Float64())))
	case BFloat16:
		binary.LittleEndian.PutUint16(b, bfloat16(v.Float64()))
	case Float32, Float32R:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v.Float64())))
	case Uint8:
		b[0] = uint8(toUnsigned(v, math.MaxUint8))
	case Uint16:
		binary.LittleEndian.PutUint16(b, uint16(toUnsigned(v, math.MaxUint16)))
	case Uint32:
		binary.LittleEndian.PutUint32(b, uint32(toUnsigned(v, math.MaxUint32)))
	case Uint64:
		binary.LittleEndian.PutUint64(b, toUnsigned(v, math.MaxUint64))
	case Int8:
		b[0] = uint8(toSigned(v, math.MinInt8, math.MaxInt8))
	case Int16:
		binary.LittleEndian.PutUint16(b, uint16(toSigned(v, math.MinInt16, math.MaxInt16)))
	case Int32:
		binary.LittleEndian.PutUint32(b, uint32(toSigned(v, math.MinInt32, math.MaxInt32)))
	case Int64:
		binary.LittleEndian.PutUint64(b, uint64(toSigned(v, math.MinInt64, math.MaxInt64)))
	}
}

// Convert converts one element from type `from` in src to type `to` in dst.
func Convert(to T, dst []byte, from T, src []byte) {
	Encode(to, Decode(from, src), dst)
}

func toUnsigned(v Value, max uint64) uint64 {
	if v.Float {
		f := math.RoundToEven(v.F)
		switch {
		case math.IsNaN(f) || f <= 0:
			return 0
		case f >= float64(max):
			return max
		}
		return uint64(f)
	}
	if v.Neg {
		return 0
	}
	return min(v.U, max)
}

func toSigned(v Value, lo, hi int64) int64 {
	if v.Float {
		f := math.RoundToEven(v.F)
		switch {
		case math.IsNaN(f):
			return 0
		case f <= float64(lo):
			return lo
		case f >= float64(hi):
			return hi
		}
		return int64(f)
	}
	if v.Neg {
		return max(v.I, lo)
	}
	if v.U > uint64(hi) {
		return hi
	}
	return int64(v.U)
}

// bfloat16 rounds a float32 to its top 16 bits, ties to even.
func bfloat16(f float64) uint16 {
	bits := math.Float32bits(float32(f))
	if math.IsNaN(f) {
		return uint16(bits>>16) | 0x40
	}
	round := uint32(0x7fff) + (bits>>16)&1
	return uint16((bits + round) >> 16)
}
