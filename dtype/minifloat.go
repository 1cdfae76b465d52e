package dtype

import "math"

// minifloat is an IEEE-style binary format with e exponent and m mantissa
// bits: bias 2^(e-1)-1, subnormals, all-ones exponent for inf/NaN.
type minifloat struct{ e, m uint }

var minifloats = map[T]minifloat{
	Float8E3: {3, 4},
	Float8E4: {4, 3},
	Float8E5: {5, 2},
	Float16:  {5, 10},
}

func (f minifloat) bias() int { return 1<<(f.e-1) - 1 }

func (f minifloat) decode(b uint8) float64 { return f.decode16(uint16(b)) }

func (f minifloat) decode16(bits uint16) float64 {
	sign := 1.0
	if bits>>(f.e+f.m)&1 == 1 {
		sign = -1
	}
	exp := int(bits>>f.m) & (1<<f.e - 1)
	man := float64(bits & (1<<f.m - 1))
	switch exp {
	case 1<<f.e - 1:
		if man != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	case 0:
		return sign * math.Ldexp(man, 1-f.bias()-int(f.m))
	}
	return sign * math.Ldexp(1+man/float64(uint(1)<<f.m), exp-f.bias())
}

// encode rounds x to the nearest representable value, ties to even.
func (f minifloat) encode(x float64) uint16 {
	signBit := uint16(0)
	if math.Signbit(x) {
		signBit = 1 << (f.e + f.m)
		x = -x
	}
	expMax := uint16(1<<f.e - 1)
	switch {
	case math.IsNaN(x):
		return expMax<<f.m | 1<<(f.m-1) // quiet NaN, sign dropped
	case math.IsInf(x, 0):
		return signBit | expMax<<f.m
	case x == 0:
		return signBit
	}
	// Scale so that the quantum (smallest step at this magnitude) is 1.
	_, e2 := math.Frexp(x) // x = frac * 2^e2, frac in [0.5, 1)
	exp := e2 - 1          // x in [2^exp, 2^(exp+1))
	minExp := 1 - f.bias()
	if exp < minExp {
		exp = minExp // subnormal range: fixed quantum
	}
	q := math.RoundToEven(math.Ldexp(x, int(f.m)-exp)) // mantissa with implicit bit
	if q >= float64(uint(1)<<(f.m+1)) {                // rounding carried into the next binade
		q /= 2
		exp++
	}
	if q < float64(uint(1)<<f.m) { // subnormal (or rounded to zero)
		return signBit | uint16(q)
	}
	biased := exp + f.bias()
	if biased >= int(expMax) {
		return signBit | expMax<<f.m // overflow: infinity
	}
	return signBit | uint16(biased)<<f.m | uint16(q)&(1<<f.m-1)
}
