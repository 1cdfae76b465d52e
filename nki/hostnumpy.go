package nki

import (
	"math"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Host numpy at trace time. Kernels compute constants with numpy before
// they issue instructions: a softmax scale np.float32(1.0 / np.sqrt(D)), a
// constant cast np.dtype(t.dtype).type(v), a mask built with np.zeros and
// item assignment then passed to nl.shared_constant. These run on the host
// when the kernel is traced, so they are evaluated here: numpy's ufuncs on
// Python numbers (and element-wise on host arrays), the scalar types, and
// NDArray, a host array with its shape, dtype and (when small) values.

// NDArray is a host numpy array: np.zeros, np.ones, np.full, np.empty,
// np.identity, np.eye, np.array of numbers. Vals holds the elements in
// row-major order when the array has at most maxHostValues of them;
// larger arrays keep their shape and dtype only, and reading one of their
// elements is refused.
type NDArray struct {
	Shape []int64
	DType DType
	Vals  []float64
}

// maxHostValues bounds the elements of one host array whose values npukit
// keeps (8 MiB of float64), maxHostTotal those of all host arrays one
// trace makes (32 MiB); past either an array keeps its shape and dtype
// only.
const (
	maxHostValues = 1 << 20
	maxHostTotal  = 1 << 22
)

// hostBudget counts the host array values a trace has allocated.
type hostBudget struct{ used int }

// alloc returns n values, or nil once the trace's budget would be passed.
func (h *hostBudget) alloc(n int) []float64 {
	if n > maxHostValues || h.used+n > maxHostTotal {
		return nil
	}
	h.used += n
	return make([]float64, n)
}

// clone copies v within the budget (nil when v is nil or over it).
func (h *hostBudget) clone(v []float64) []float64 {
	if v == nil {
		return nil
	}
	out := h.alloc(len(v))
	copy(out, v)
	return out
}

func (a *NDArray) size() int64 { return prod(a.Shape) }

// newNDArray is a host array of shape filled with fill (values kept when
// small enough).
func (in *interp) newNDArray(c *callCtx, shape []int64, dt DType, fill float64) *NDArray {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			c.in.raise(c.pos, "ValueError", "negative dimensions are not allowed")
		}
		if d > 0 && n > math.MaxInt64/d {
			c.fail("array of more than 2**63 elements")
		}
		n *= d
	}
	a := &NDArray{Shape: shape, DType: dt}
	if n <= maxHostValues {
		a.Vals = in.host.alloc(int(n))
		if fill != 0 {
			for i := range a.Vals {
				a.Vals[i] = fill
			}
		}
	}
	return a
}

// numpyShape reads numpy's shape argument: an int or a sequence of ints.
func (c *callCtx) numpyShape(i int, name string) []int64 {
	v := c.need(i, name)
	if n, ok := asInt(v); ok {
		return []int64{n}
	}
	var out []int64
	for _, x := range c.in.iterate(v, c.node) {
		n, ok := asInt(x)
		if !ok {
			c.fail("shape entry %s is not an integer known at trace time", typeName(x))
		}
		out = append(out, n)
	}
	return out
}

// numpyDType reads a dtype= argument (numpy's default is float64).
func (c *callCtx) numpyDType(i int, name string, def DType) DType {
	v := c.arg(i, name, nil)
	if v == nil {
		return def
	}
	switch x := v.(type) {
	case DType:
		return x
	case string:
		if d := DType(x); d.Size() > 0 {
			return d
		}
	case *typeVal:
		switch x.Name {
		case "float":
			return "float64"
		case "int":
			return "int64"
		case "bool":
			return "bool_"
		}
	}
	c.fail("dtype %s is not a numpy dtype npukit knows", typeName(v))
	return ""
}

// addNumpyArrays adds the host-array constructors to the numpy module.
func addNumpyArrays(m *Module) {
	filled := func(name string, fill float64, fillArg bool) *Builtin {
		return bi("numpy."+name, func(c *callCtx) Value {
			f, dtPos := fill, 1
			if fillArg {
				v, ok := num(c.need(1, "fill_value"))
				if !ok {
					c.fail("fill_value of %s", typeName(c.args[1]))
				}
				f, dtPos = v, 2
			}
			return c.in.newNDArray(c, c.numpyShape(0, "shape"), c.numpyDType(dtPos, "dtype", "float64"), f)
		})
	}
	m.Attrs["zeros"] = filled("zeros", 0, false)
	m.Attrs["empty"] = filled("empty", 0, false)
	m.Attrs["ones"] = filled("ones", 1, false)
	m.Attrs["full"] = filled("full", 0, true)
	eye := func(name string) *Builtin {
		return bi("numpy."+name, func(c *callCtx) Value {
			// identity(n, dtype=None), eye(N, M=None, k=0, dtype=float)
			var n int64
			cols, diag, dtPos := int64(-1), int64(0), 1
			if name == "eye" {
				n, dtPos = c.int(0, "N"), 3
				if v := c.arg(1, "M", nil); v != nil {
					m, ok := asInt(v)
					if !ok {
						c.fail("M of %s", typeName(v))
					}
					cols = m
				}
				if c.has(2, "k") {
					diag = c.int(2, "k")
				}
			} else {
				n = c.int(0, "n")
			}
			if cols < 0 {
				cols = n
			}
			a := c.in.newNDArray(c, []int64{n, cols}, c.numpyDType(dtPos, "dtype", "float64"), 0)
			if a.Vals != nil {
				for i := int64(0); i < n; i++ {
					if j := i + diag; j >= 0 && j < cols {
						a.Vals[i*cols+j] = 1
					}
				}
			}
			return a
		})
	}
	m.Attrs["identity"] = eye("identity")
	m.Attrs["eye"] = eye("eye")
	array := bi("numpy.array", func(c *callCtx) Value {
		var shape []int64
		var vals []float64
		isFloat := false
		var walk func(v Value, depth int)
		walk = func(v Value, depth int) {
			switch x := v.(type) {
			case Tuple, *List:
				items := c.in.iterate(x, c.node)
				if depth == len(shape) {
					shape = append(shape, int64(len(items)))
				} else if depth > len(shape) || shape[depth] != int64(len(items)) {
					c.fail("a ragged nested sequence")
				}
				for _, e := range items {
					walk(e, depth+1)
				}
				return
			case *NDArray:
				c.fail("np.array of a host array")
			}
			f, ok := num(v)
			if !ok {
				c.fail("np.array of %s (npukit models arrays of numbers)", typeName(v))
			}
			if depth != len(shape) {
				c.fail("a ragged nested sequence")
			}
			if _, fl := v.(float64); fl {
				isFloat = true
			}
			if len(vals) >= maxHostValues {
				c.fail("host array over %d elements", maxHostValues)
			}
			vals = append(vals, f)
		}
		walk(c.need(0, "object"), 0)
		def := DType("int64")
		if isFloat {
			def = "float64"
		}
		dt := c.numpyDType(1, "dtype", def)
		a := &NDArray{Shape: shape, DType: dt, Vals: c.in.host.clone(vals)}
		if len(vals) == 0 {
			a.Vals = []float64{}
		}
		a.cast()
		return a
	})
	m.Attrs["array"] = array
	m.Attrs["asarray"] = array
	m.Attrs["triu"] = bi("numpy.triu", numpyTri(true))
	m.Attrs["tril"] = bi("numpy.tril", numpyTri(false))
	m.Attrs["finfo"] = bi("numpy.finfo", numpyLimits(true))
	m.Attrs["iinfo"] = bi("numpy.iinfo", numpyLimits(false))
}

// cast rounds the values to the array's dtype (integers truncate, float32
// and float16 round to their precision).
func (a *NDArray) cast() {
	for i, v := range a.Vals {
		a.Vals[i] = castScalar(a.DType, v)
	}
}

func castScalar(d DType, v float64) float64 {
	switch {
	case strings.HasPrefix(string(d), "int") || strings.HasPrefix(string(d), "uint"):
		return math.Trunc(v)
	case d == "bool_" || d == "bool":
		if v != 0 {
			return 1
		}
		return 0
	case d == "float32":
		return float64(float32(v))
	case d == "float16":
		return float64(roundHalf(v))
	}
	return v
}

// roundHalf rounds to IEEE half precision (11 significant bits) by
// rounding to nearest even at the right binary exponent.
func roundHalf(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	if math.Abs(v) > 65504 {
		return math.Copysign(math.Inf(1), v)
	}
	_, e := math.Frexp(v)
	e = max(e, -13) // subnormal halves keep a fixed quantum of 2**-24
	q := math.Ldexp(1, e-11)
	return math.RoundToEven(v/q) * q
}

// numpyScalar converts v to a scalar of dtype d, as np.float32(v),
// np.int32(v) or np.dtype(d).type(v) do; the result is a Python number.
func (in *interp) numpyScalar(d DType, c *callCtx) Value {
	v := c.arg(0, "value", int64(0))
	if _, ok := v.(*Sym); ok {
		c.in.fail(c.pos, "numpy."+string(d)+"() of a symbolic loop index", "its value differs per iteration")
	}
	f, ok := num(v)
	if !ok {
		c.fail("%s() of %s (npukit converts numbers only)", d, typeName(v))
	}
	if d.Size() == 0 {
		c.fail("scalar type %s", d)
	}
	r := castScalar(d, f)
	if strings.Contains(string(d), "int") || d == "bool_" || d == "bool" {
		if math.Abs(r) > 9e18 {
			c.fail("%s() of %v", d, f)
		}
		return int64(r)
	}
	return r
}

// numpyUfuncs are numpy's element-wise functions of one argument npukit
// computes on the host, and numpyBinary those of two.
var numpyUfuncs = map[string]func(float64) float64{
	"sqrt": math.Sqrt, "exp": math.Exp, "log": math.Log, "log2": math.Log2, "log10": math.Log10,
	"abs": math.Abs, "absolute": math.Abs, "fabs": math.Abs, "floor": math.Floor, "ceil": math.Ceil,
	"trunc": math.Trunc, "tanh": math.Tanh, "sin": math.Sin, "cos": math.Cos,
	"square": func(x float64) float64 { return x * x }, "negative": func(x float64) float64 { return -x },
	"reciprocal": func(x float64) float64 { return 1 / x }, "rint": math.RoundToEven,
}

var numpyBinary = map[string]func(a, b float64) float64{
	"add": func(a, b float64) float64 { return a + b }, "subtract": func(a, b float64) float64 { return a - b },
	"multiply": func(a, b float64) float64 { return a * b }, "divide": func(a, b float64) float64 { return a / b },
	"true_divide": func(a, b float64) float64 { return a / b }, "power": math.Pow,
	"maximum": math.Max, "minimum": math.Min,
}

// numpyCall evaluates numpy.NAME(...) on the host, for the ufuncs above
// applied to numbers or host arrays with values; ok is false for any other
// call (refused by the caller as not modelled).
func (in *interp) numpyCall(name string, args []Value, kws []kwarg, pos python.Pos) (Value, bool) {
	if len(kws) > 0 {
		return nil, false
	}
	if len(args) == 1 {
		if v, ok := in.numpyReduce(name, args[0], pos); ok {
			return v, true
		}
	}
	if f := numpyUfuncs[name]; f != nil && len(args) == 1 {
		return in.elementwise(args, pos, func(x []float64) float64 { return f(x[0]) })
	}
	if f := numpyBinary[name]; f != nil && len(args) == 2 {
		return in.elementwise(args, pos, func(x []float64) float64 { return f(x[0], x[1]) })
	}
	return nil, false
}

// elementwise applies f to numbers (a float result, as numpy's float64
// scalars) or, element by element, to one host array with values and
// numbers.
func (in *interp) elementwise(args []Value, pos python.Pos, f func([]float64) float64) (Value, bool) {
	var arr *NDArray
	x := make([]float64, len(args))
	for i, a := range args {
		if nd, ok := a.(*NDArray); ok {
			if arr != nil || nd.Vals == nil {
				return nil, false
			}
			arr = nd
			continue
		}
		v, ok := num(a)
		if !ok {
			return nil, false
		}
		x[i] = v
	}
	if arr == nil {
		return f(x), true
	}
	out := &NDArray{Shape: append([]int64{}, arr.Shape...), DType: arr.DType, Vals: in.host.alloc(len(arr.Vals))}
	if !strings.HasPrefix(string(out.DType), "float") {
		out.DType = "float64"
	}
	if out.Vals == nil {
		return out, true
	}
	for k, v := range arr.Vals {
		for i, a := range args {
			if a == arr {
				x[i] = v
			}
		}
		out.Vals[k] = castScalar(out.DType, f(x))
	}
	return out, true
}

// ndIndex resolves an index of a host array to the row-major element
// offsets it selects and the shape of the selection (integers and slices
// per dimension, missing trailing dimensions whole).
func (in *interp) ndIndex(a *NDArray, idx Value, node python.Node) (offs []int64, shape []int64) {
	parts, ok := idx.(Tuple)
	if !ok {
		parts = Tuple{idx}
	}
	if len(parts) > len(a.Shape) {
		in.raise(node.At(), "IndexError", "too many indices for an array of %d dimensions", len(a.Shape))
	}
	type sel struct {
		idx    []int64
		scalar bool
	}
	sels := make([]sel, len(a.Shape))
	for d, n := range a.Shape {
		var p Value = &SliceVal{}
		if d < len(parts) {
			p = parts[d]
		}
		if s, ok := p.(*SliceVal); ok {
			lo, hi, st := in.sliceBounds(s, int(n), node)
			var ix []int64
			for i := lo; (st > 0 && i < hi) || (st < 0 && i > hi); i += st {
				ix = append(ix, int64(i))
			}
			sels[d] = sel{idx: ix}
			shape = append(shape, int64(len(ix)))
			continue
		}
		sels[d] = sel{idx: []int64{int64(in.index(p, int(n), node))}, scalar: true}
	}
	total := int64(1)
	for _, s := range sels {
		total *= int64(len(s.idx))
	}
	if total > maxHostValues {
		in.fail(node.At(), "indexing a host array", "selection of over %d elements", maxHostValues)
	}
	offs = []int64{0}
	for d, s := range sels {
		next := make([]int64, 0, len(offs)*len(s.idx))
		for _, o := range offs {
			for _, i := range s.idx {
				next = append(next, o*a.Shape[d]+i)
			}
		}
		offs = next
	}
	return offs, shape
}

func (in *interp) ndGetItem(a *NDArray, idx Value, node python.Node) Value {
	if a.Vals == nil {
		in.fail(node.At(), "reading a host array of "+strings.Trim(strings.Join(strings.Fields(str(Tuple(intsToValues(a.Shape)))), ""), "()"), "npukit keeps the values of host arrays up to %d elements each and %d in all per trace", maxHostValues, maxHostTotal)
	}
	offs, shape := in.ndIndex(a, idx, node)
	if len(shape) == 0 {
		v := a.Vals[offs[0]]
		if strings.Contains(string(a.DType), "int") {
			return int64(v)
		}
		if a.DType == "bool_" || a.DType == "bool" {
			return v != 0
		}
		return v
	}
	out := &NDArray{Shape: shape, DType: a.DType, Vals: in.host.alloc(len(offs))}
	for i := range out.Vals {
		out.Vals[i] = a.Vals[offs[i]]
	}
	return out
}

func (in *interp) ndSetItem(a *NDArray, idx, v Value, node python.Node) {
	offs, _ := in.ndIndex(a, idx, node)
	if a.Vals == nil {
		return // a large array keeps its shape only; its values are not read back
	}
	if src, ok := v.(*NDArray); ok {
		if src.Vals == nil || len(src.Vals) != len(offs) {
			in.fail(node.At(), "assigning a host array into a host array", "only same-size assignments of arrays with values are modelled")
		}
		for i, o := range offs {
			a.Vals[o] = castScalar(a.DType, src.Vals[i])
		}
		return
	}
	f, ok := num(v)
	if !ok {
		in.fail(node.At(), "assigning "+typeName(v)+" into a host array", "npukit models host arrays of numbers")
	}
	for _, o := range offs {
		a.Vals[o] = castScalar(a.DType, f)
	}
}

func intsToValues(s []int64) []Value {
	out := make([]Value, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// ndAttr returns an attribute of a host array.
func (in *interp) ndAttr(a *NDArray, name string) (Value, bool) {
	switch name {
	case "shape":
		return Tuple(intsToValues(a.Shape)), true
	case "dtype":
		return a.DType, true
	case "ndim":
		return int64(len(a.Shape)), true
	case "size":
		return a.size(), true
	case "astype":
		return bi("numpy.ndarray.astype", func(c *callCtx) Value {
			out := &NDArray{Shape: append([]int64{}, a.Shape...), DType: c.numpyDType(0, "dtype", a.DType)}
			if out.Vals = c.in.host.clone(a.Vals); out.Vals != nil {
				out.cast()
			}
			return out
		}), true
	case "copy":
		return bi("numpy.ndarray.copy", func(c *callCtx) Value {
			return &NDArray{Shape: append([]int64{}, a.Shape...), DType: a.DType, Vals: c.in.host.clone(a.Vals)}
		}), true
	case "reshape":
		return bi("numpy.ndarray.reshape", func(c *callCtx) Value {
			var shape []int64
			if len(c.args) == 1 {
				shape = c.numpyShape(0, "shape")
			} else {
				for i := range c.args {
					shape = append(shape, c.int(i, "shape"))
				}
			}
			neg := -1
			known := int64(1)
			for i, d := range shape {
				if d == -1 && neg < 0 {
					neg = i
					continue
				}
				known *= d
			}
			if neg >= 0 && known > 0 {
				shape[neg] = a.size() / known
			}
			if prod(shape) != a.size() {
				c.in.raise(c.pos, "ValueError", "cannot reshape an array of size %d into %v", a.size(), shape)
			}
			return &NDArray{Shape: shape, DType: a.DType, Vals: a.Vals}
		}), true
	case "T":
		if len(a.Shape) != 2 {
			return &NDArray{Shape: reversed(a.Shape), DType: a.DType}, true
		}
		out := &NDArray{Shape: []int64{a.Shape[1], a.Shape[0]}, DType: a.DType}
		if a.Vals != nil {
			out.Vals = in.host.alloc(len(a.Vals))
		}
		if out.Vals != nil {
			r, k := a.Shape[0], a.Shape[1]
			for i := int64(0); i < r; i++ {
				for j := int64(0); j < k; j++ {
					out.Vals[j*r+i] = a.Vals[i*k+j]
				}
			}
		}
		return out, true
	}
	return nil, false
}

func reversed(s []int64) []int64 {
	out := make([]int64, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// asNDArray views a host array operand (NDArray, or an IntArray as a
// one-dimensional int64 array) as an NDArray; ok is false for anything
// else.
func (in *interp) asNDArray(v Value) (*NDArray, bool) {
	switch x := v.(type) {
	case *NDArray:
		return x, true
	case *IntArray:
		a := &NDArray{Shape: []int64{int64(len(x.Vals))}, DType: x.dtype(), Vals: in.host.alloc(len(x.Vals))}
		for i := range a.Vals {
			a.Vals[i] = float64(x.Vals[i])
		}
		return a, true
	}
	return nil, false
}

func isIntDType(d DType) bool {
	return strings.HasPrefix(string(d), "int") || strings.HasPrefix(string(d), "uint")
}

// ndArrayOp is element-wise arithmetic on host arrays (a causal mask
// scaled by -1e9, a table shifted by one): + - * / // % ** of an array
// and a number or of two arrays of one shape. The result keeps a float
// array's dtype; an integer array gives float64 with a float operand or
// true division, as numpy does. ok is false when no operand is a host
// array.
func (in *interp) ndArrayOp(op string, l, r Value, pos python.Pos) (Value, bool) {
	la, lok := in.asNDArray(l)
	ra, rok := in.asNDArray(r)
	if !lok && !rok {
		return nil, false
	}
	var f func(a, b float64) float64
	switch op {
	case "+":
		f = func(a, b float64) float64 { return a + b }
	case "-":
		f = func(a, b float64) float64 { return a - b }
	case "*":
		f = func(a, b float64) float64 { return a * b }
	case "/":
		f = func(a, b float64) float64 { return a / b }
	case "//":
		f = func(a, b float64) float64 { return math.Floor(a / b) }
	case "%":
		f = func(a, b float64) float64 {
			m := math.Mod(a, b)
			if m != 0 && (m < 0) != (b < 0) {
				m += b
			}
			return m
		}
	case "**":
		f = math.Pow
	default:
		in.fail(pos, "numpy array "+op, "only + - * / // %% ** of host arrays are modelled")
	}
	arr := la
	if !lok {
		arr = ra
	}
	if lok && rok && (len(la.Shape) != len(ra.Shape) || prod(la.Shape) != prod(ra.Shape)) {
		in.fail(pos, "numpy array "+op, "broadcasting host arrays of shapes %v and %v is not modelled", la.Shape, ra.Shape)
	}
	var ls, rs float64
	floatScalar := false
	if !lok {
		v, ok := num(l)
		if !ok {
			in.fail(pos, typeName(l)+" "+op+" numpy array", "only numbers and host arrays are modelled")
		}
		_, floatScalar = l.(float64)
		ls = v
	}
	if !rok {
		v, ok := num(r)
		if !ok {
			in.fail(pos, "numpy array "+op+" "+typeName(r), "only numbers and host arrays are modelled")
		}
		_, floatScalar = r.(float64)
		rs = v
	}
	dt := arr.DType
	if lok && rok && isIntDType(dt) && !isIntDType(ra.DType) {
		dt = ra.DType
	}
	if isIntDType(dt) && (floatScalar || op == "/") {
		dt = "float64"
	}
	out := &NDArray{Shape: append([]int64{}, arr.Shape...), DType: dt}
	if (lok && la.Vals == nil) || (rok && ra.Vals == nil) {
		return out, true // a large array: its shape and dtype only
	}
	if out.Vals = in.host.alloc(int(prod(arr.Shape))); out.Vals == nil {
		return out, true
	}
	for i := range out.Vals {
		a, b := ls, rs
		if lok {
			a = la.Vals[i]
		}
		if rok {
			b = ra.Vals[i]
		}
		if isIntDType(dt) && (op == "//" || op == "%") && b == 0 {
			in.raise(pos, "ZeroDivisionError", "integer division or modulo by zero")
		}
		out.Vals[i] = castScalar(dt, f(a, b))
	}
	return out, true
}

// numpyTri is np.triu(m, k=0) / np.tril(m, k=0) of a 2-D host array: the
// elements below (triu) or above (tril) the k-th diagonal set to zero.
func numpyTri(upper bool) func(c *callCtx) Value {
	return func(c *callCtx) Value {
		a, ok := c.in.asNDArray(c.need(0, "m"))
		if !ok || len(a.Shape) != 2 {
			c.fail("of %s (npukit models 2-D host arrays)", typeName(c.args[0]))
		}
		k := int64(0)
		if c.has(1, "k") {
			k = c.int(1, "k")
		}
		out := &NDArray{Shape: append([]int64{}, a.Shape...), DType: a.DType}
		if a.Vals == nil {
			return out
		}
		if out.Vals = c.in.host.clone(a.Vals); out.Vals == nil {
			return out
		}
		cols := a.Shape[1]
		for i := int64(0); i < a.Shape[0]; i++ {
			for j := int64(0); j < cols; j++ {
				if (upper && j-i < k) || (!upper && j-i > k) {
					out.Vals[i*cols+j] = 0
				}
			}
		}
		return out
	}
}

// numpyLimits is np.finfo(dtype) / np.iinfo(dtype): min, max and bits of a
// float or integer type.
func numpyLimits(float bool) func(c *callCtx) Value {
	return func(c *callCtx) Value {
		d := c.numpyDType(0, "dtype", "")
		bits := int64(d.Size() * 8)
		attrs := map[string]Value{"bits": bits, "dtype": d}
		switch {
		case float:
			mx, ok := floatMax[d]
			if d == "float64" {
				mx, ok = math.MaxFloat64, true
			}
			if !ok {
				c.fail("no documented range for %s", d)
			}
			attrs["min"], attrs["max"] = -mx, mx
			eps := map[DType]float64{"float64": math.Pow(2, -52), "float32": math.Pow(2, -23), "float16": math.Pow(2, -10), "bfloat16": math.Pow(2, -7)}
			if e, ok := eps[d]; ok {
				attrs["eps"] = e
			}
		case isIntDType(d) && bits > 0 && bits <= 64:
			if strings.HasPrefix(string(d), "uint") {
				attrs["min"] = int64(0)
				if bits == 64 {
					c.fail("uint64's max is beyond 64-bit signed integers")
				}
				attrs["max"] = int64(1)<<bits - 1
			} else {
				attrs["min"] = -(int64(1) << (bits - 1))
				attrs["max"] = int64(1)<<(bits-1) - 1
				if bits == 64 {
					attrs["min"], attrs["max"] = int64(math.MinInt64), int64(math.MaxInt64)
				}
			}
		default:
			c.fail("of %s", d)
		}
		return &Module{Name: c.name + "(" + string(d) + ")", Attrs: attrs}
	}
}

// numpyReduce computes np.sum/prod/max/min/mean (and amax, amin) of numbers:
// a sequence of them or a host array with values (np.prod(t.shape[1:]));
// ok is false otherwise (these names are also operator identifiers).
func (in *interp) numpyReduce(name string, v Value, pos python.Pos) (Value, bool) {
	var xs []float64
	isInt := true
	switch x := v.(type) {
	case Tuple, *List:
		for _, e := range in.iterate(x, nil) {
			f, ok := num(e)
			if !ok {
				return nil, false
			}
			if _, fl := e.(float64); fl {
				isInt = false
			}
			xs = append(xs, f)
		}
	default:
		a, ok := in.asNDArray(v)
		if !ok || a.Vals == nil {
			return nil, false
		}
		xs, isInt = a.Vals, isIntDType(a.DType)
	}
	var r float64
	switch name {
	case "sum":
		for _, x := range xs {
			r += x
		}
	case "prod":
		r = 1
		for _, x := range xs {
			r *= x
		}
	case "mean":
		if len(xs) == 0 {
			return math.NaN(), true
		}
		for _, x := range xs {
			r += x
		}
		return r / float64(len(xs)), true
	case "max", "amax", "min", "amin":
		if len(xs) == 0 {
			in.raise(pos, "ValueError", "zero-size array to reduction operation %s", name)
		}
		r = xs[0]
		for _, x := range xs[1:] {
			if (name == "max" || name == "amax") == (x > r) && x != r {
				r = x
			}
		}
	default:
		return nil, false
	}
	if isInt && math.Abs(r) < 9e18 {
		return int64(r), true
	}
	return r, true
}
