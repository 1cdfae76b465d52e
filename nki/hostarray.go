package nki

import (
	"github.com/npukit/npukit/nki/python"
)

// IntArray is a one-dimensional integer host array made by numpy.arange.
// Kernels compute compile-time index tables with it: nki-samples' adaptive
// average pooling (reference/vision.py at b3c5c8d) derives each output's
// pooling window from (np.arange(OH) * H) // OH and indexes the table with
// static loop counters. It supports what such tables need: element-wise
// + - * // % with an integer or an array of the same length, indexing and
// slicing, len, iteration, .max(), .min() and .tolist(). Anything else on it
// is refused like any other unmodelled operation.
type IntArray struct {
	Vals  []int64
	DType DType // numpy's dtype= ("" is int64)
}

func (a *IntArray) dtype() DType {
	if a.DType == "" {
		return "int64"
	}
	return a.DType
}

// numpyArange is numpy.arange([start,] stop[, step][, dtype]) with integer
// bounds; float bounds are refused (the table would be a float array).
func numpyArange(c *callCtx) Value {
	start, stop := int64(0), c.int(0, "start")
	if c.has(1, "stop") && c.arg(1, "stop", nil) != nil {
		start, stop = stop, c.int(1, "stop")
	}
	step := int64(1)
	if c.has(2, "step") {
		step = c.int(2, "step")
	}
	r := &RangeVal{Kind: "range", Start: start, Stop: stop, Step: step}
	if step == 0 {
		c.in.raise(c.pos, "ValueError", "arange step must not be zero")
	}
	n := r.Len()
	if n > MaxElements {
		c.fail("%d elements over the %d bound", n, MaxElements)
	}
	a := &IntArray{Vals: make([]int64, 0, n)}
	if c.arg(3, "dtype", nil) != nil {
		a.DType = c.numpyDType(3, "dtype", "int64")
	}
	for i := int64(0); i < n; i++ {
		a.Vals = append(a.Vals, start+i*step)
	}
	return a
}

// intArrayOp applies op element-wise when either operand is an IntArray;
// ok is false when neither is.
func (in *interp) intArrayOp(op string, l, r Value, pos python.Pos) (Value, bool) {
	la, lok := l.(*IntArray)
	ra, rok := r.(*IntArray)
	if !lok && !rok {
		return nil, false
	}
	for _, v := range []Value{l, r} {
		switch v.(type) {
		case float64, *NDArray:
			return nil, false // a float result: host array arithmetic (ndArrayOp)
		}
	}
	switch op {
	case "/", "**":
		return nil, false
	case "+", "-", "*", "//", "%":
	default:
		in.fail(pos, "numpy array "+op, "only %s of integer index tables are modelled", "+ - * // %")
	}
	n := 0
	if lok {
		n = len(la.Vals)
	}
	if rok {
		if lok && len(ra.Vals) != n {
			in.raise(pos, "ValueError", "operands could not be broadcast together with shapes (%d,) (%d,)", n, len(ra.Vals))
		}
		n = len(ra.Vals)
	}
	elem := func(a *IntArray, v Value, i int) int64 {
		if a != nil {
			return a.Vals[i]
		}
		x, ok := asInt(v)
		if !ok {
			in.fail(pos, "numpy array "+op+" "+typeName(v), "only integer operands are modelled")
		}
		return x
	}
	out := &IntArray{Vals: make([]int64, n)}
	if lok {
		out.DType = la.DType
	} else {
		out.DType = ra.DType
	}
	for i := range out.Vals {
		v, err := intBinOp(op, elem(la, l, i), elem(ra, r, i))
		if err != nil {
			in.raise(pos, "ArithmeticError", "%v", err)
		}
		out.Vals[i] = v
	}
	return out, true
}

func (a *IntArray) items() []Value {
	out := make([]Value, len(a.Vals))
	for i, v := range a.Vals {
		out[i] = v
	}
	return out
}

// intArrayMethod returns .max(), .min() and .tolist() of an IntArray.
func intArrayMethod(a *IntArray, name string, m func(f func(c *callCtx) Value) (Value, bool)) (Value, bool) {
	pick := func(less bool) func(c *callCtx) Value {
		return func(c *callCtx) Value {
			if len(a.Vals) == 0 {
				c.in.raise(c.pos, "ValueError", "zero-size array to reduction operation")
			}
			best := a.Vals[0]
			for _, v := range a.Vals[1:] {
				if (v < best) == less && v != best {
					best = v
				}
			}
			return best
		}
	}
	switch name {
	case "max":
		return m(pick(false))
	case "min":
		return m(pick(true))
	case "tolist":
		return m(func(c *callCtx) Value { return &List{Items: a.items()} })
	}
	return nil, false
}
