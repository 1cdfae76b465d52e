package nki

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Bounds on the Python values a kernel builds. A traced kernel is code a
// user downloaded; the interpreter promises bounded time and memory, not
// only no host access.
const (
	// MaxNest is how deep a value may nest when it is printed, compared
	// or hashed: Python's default recursion limit (sys.getrecursionlimit()
	// is 1000), past which CPython raises RecursionError too.
	MaxNest = 1000
	// MaxValueBytes bounds one string, list, tuple or dict the kernel
	// builds, checked before the value is allocated.
	MaxValueBytes = 64 << 20
	// elemBytes is what one item of a list, tuple or dict costs (an
	// interface value) against MaxValueBytes.
	elemBytes = 16
	// bytesPerStep: building a value costs an evaluation step per
	// element, or per this many bytes of a string, so the step bound
	// also bounds the bytes built in all (MaxSteps x 8 = 160 MB of
	// strings, MaxSteps x 16 = 320 MB of list items).
	bytesPerStep = 8
)

// charge counts n units of work (elements visited or built) against the
// step bound.
func (in *interp) charge(n int64) {
	if n <= 0 {
		return
	}
	if n > int64(in.maxSteps) {
		n = int64(in.maxSteps) + 1
	}
	in.steps += int(n)
	if in.steps > in.maxSteps {
		in.fail(in.cur().pos, "", "trace exceeded %d evaluation steps (a bound against kernels that never finish; building or scanning a value costs a step per element)", in.maxSteps)
	}
}

// needItems refuses a sequence of n items over the value bound before it
// is allocated, and charges building it.
func (in *interp) needItems(n int64, what string) {
	if n < 0 || n > MaxValueBytes/elemBytes {
		in.fail(in.cur().pos, what, "a result of %s items is over the bound of %d items (%d MiB) for one Python value", itemCount(n), MaxValueBytes/elemBytes, MaxValueBytes>>20)
	}
	in.charge(n)
}

// needBytes refuses a string of n bytes over the value bound before it is
// allocated, and charges building it.
func (in *interp) needBytes(n int64, what string) {
	if n < 0 || n > MaxValueBytes {
		in.fail(in.cur().pos, what, "a string of %s bytes is over the %d MiB bound for one Python value", itemCount(n), MaxValueBytes>>20)
	}
	in.charge(n / bytesPerStep)
}

// What the kernel's objects cost in memory, charged as steps when one is
// made (a step per 8 bytes): a kernel keeping millions of closures or
// dicts reached 1.2 GB within the step bound. Real kernels take at most a
// few 10^5 steps (nki-library's attention_cte: 366 k of the 20 M).
const (
	funcBytes   = 512 // a Func and its keyword-defaults map
	objectBytes = 256 // a dict or an instance: a struct and a map
	listBytes   = 64  // a list and its first items
	symBytes    = 96  // a symbolic loop expression node
)

// alloc charges making an object of n bytes.
func (in *interp) alloc(n int64) { in.charge(n / bytesPerStep) }

// grow refuses a string being built that would pass the value bound with
// add more bytes, and charges the add bytes.
func (in *interp) grow(have, add int, what string) {
	n := addSizes(int64(have), int64(add))
	if n < 0 || n > MaxValueBytes {
		in.needBytes(n, what)
	}
	in.charge(int64(add) / bytesPerStep)
}

// itemCount prints a size computed with saturation (-1: over 2^63).
func itemCount(n int64) string {
	if n < 0 {
		return "over 2^63"
	}
	return strconv.FormatInt(n, 10)
}

// addSizes is a+b, -1 when it overflows.
func addSizes(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return -1
	}
	return a + b
}

// mulSizes is a*b for non-negative sizes, -1 when it overflows.
func mulSizes(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return -1
	}
	return int64(lo)
}

// ---- printing ----

// renderer prints a value as Python does, with the cycles Python prints as
// [...] and {...}, refusing nesting past MaxNest and output past limit.
type renderer struct {
	b      strings.Builder
	limit  int
	depth  int
	active []any // the lists, dicts and instances being printed
	err    renderErr
}

type renderErr int

const (
	renderOK renderErr = iota
	renderDeep
	renderLong
)

// renderStop unwinds a renderer that hit a bound.
type renderStop struct{}

func (r *renderer) write(s string) {
	if r.b.Len()+len(s) > r.limit {
		r.err = renderLong
		panic(renderStop{})
	}
	r.b.WriteString(s)
}

func (r *renderer) onStack(p any) bool {
	for _, a := range r.active {
		if a == p {
			return true
		}
	}
	return false
}

func (r *renderer) value(v Value, quote bool) {
	r.depth++
	if r.depth > MaxNest {
		r.err = renderDeep
		panic(renderStop{})
	}
	defer func() { r.depth-- }()
	switch x := v.(type) {
	case string:
		if quote {
			r.write(pyStrRepr(x))
			return
		}
		r.write(x)
	case Tuple:
		r.write("(")
		for i, e := range x {
			if i > 0 {
				r.write(", ")
			}
			r.value(e, true)
		}
		if len(x) == 1 {
			r.write(",")
		}
		r.write(")")
	case *List:
		if r.onStack(x) {
			r.write("[...]")
			return
		}
		r.active = append(r.active, x)
		r.write("[")
		for i, e := range x.Items {
			if i > 0 {
				r.write(", ")
			}
			r.value(e, true)
		}
		r.write("]")
		r.active = r.active[:len(r.active)-1]
	case *Dict:
		if r.onStack(x) {
			r.write("{...}")
			return
		}
		r.active = append(r.active, x)
		r.write("{")
		for i := range x.Keys {
			if i > 0 {
				r.write(", ")
			}
			r.value(x.Keys[i], true)
			r.write(": ")
			r.value(x.Vals[i], true)
		}
		r.write("}")
		r.active = r.active[:len(r.active)-1]
	default:
		r.write(renderScalar(v))
	}
}

// renderBounded prints v (str when quote is false, repr when true) within
// limit bytes.
func renderBounded(v Value, quote bool, limit int) (out string, err renderErr) {
	if s, ok := v.(string); ok && !quote {
		if len(s) > limit {
			return s[:limit], renderLong
		}
		return s, renderOK
	}
	r := &renderer{limit: limit}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(renderStop); !ok {
				panic(p)
			}
			out, err = r.b.String(), r.err
		}
	}()
	r.value(v, quote)
	return r.b.String(), renderOK
}

// msgBytes bounds a value printed into a message.
const msgBytes = 2000

// render prints a value for a message: cut after msgBytes, "..." for
// what is nested too deep.
func render(v Value, quote bool) string {
	s, err := renderBounded(v, quote, msgBytes)
	if err != renderOK {
		return s + "..."
	}
	return s
}

// text is str(v) (repr(v) when quote) as a Python value: a RecursionError
// past MaxNest, a refusal past MaxValueBytes, a step per 8 bytes built.
func (in *interp) text(v Value, quote bool) string {
	s, err := renderBounded(v, quote, MaxValueBytes)
	switch err {
	case renderDeep:
		in.raise(in.cur().pos, "RecursionError", "maximum recursion depth exceeded while getting the repr of an object")
	case renderLong:
		in.needBytes(-1, "str() of a "+typeName(v))
	}
	if _, plain := v.(string); !plain || quote {
		in.charge(int64(len(s)) / bytesPerStep)
	}
	return s
}

func (in *interp) str(v Value) string  { return in.text(v, false) }
func (in *interp) repr(v Value) string { return in.text(v, true) }

// pyStrRepr quotes a string as Python's repr does: single quotes unless the
// string holds a single quote and no double quote, backslash escapes for
// the quote, backslash and control characters.
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyFloat prints a float as Python's repr (and str) does: the shortest
// digits that read back to the same float, in positional notation when
// the decimal exponent is in [-4, 16), else as d.ddde+XX.
func pyFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // [-]d[.ddd]e±XX
	mant, exp, _ := strings.Cut(e, "e")
	n, _ := strconv.Atoi(exp)
	if n < -4 || n >= 16 {
		sign := "+"
		if n < 0 {
			sign, n = "-", -n
		}
		es := strconv.Itoa(n)
		if len(es) < 2 {
			es = "0" + es
		}
		return mant + "e" + sign + es
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// ---- comparing and hashing ----

// equal is Python's == on values known at trace time. Containers compare
// item by item, an item that is the very same object as its counterpart
// being equal without a look inside (as CPython's containers do), each
// item compared costing a step; nesting past MaxNest is a RecursionError
// (two distinct cyclic lists, as in CPython).
func (in *interp) equal(a, b Value) bool {
	return in.eq(a, b, 0)
}

func (in *interp) eq(a, b Value, depth int) bool {
	if depth > MaxNest {
		in.raise(in.cur().pos, "RecursionError", "maximum recursion depth exceeded in comparison")
	}
	switch x := a.(type) {
	case Tuple:
		y, ok := b.(Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			return true
		}
		in.charge(int64(len(x)))
		for i := range x {
			if !sameObject(x[i], y[i]) && !in.eq(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case *List:
		y, ok := b.(*List)
		if !ok || len(x.Items) != len(y.Items) {
			return false
		}
		if x == y {
			return true
		}
		in.charge(int64(len(x.Items)))
		for i := range x.Items {
			if i >= len(x.Items) || i >= len(y.Items) {
				return false
			}
			if !sameObject(x.Items[i], y.Items[i]) && !in.eq(x.Items[i], y.Items[i], depth+1) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		if x == y {
			return true
		}
		in.charge(int64(len(x.Keys)))
		for i, k := range x.Keys {
			v, ok := y.get(k)
			if !ok || (!sameObject(x.Vals[i], v) && !in.eq(x.Vals[i], v, depth+1)) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		if ok && len(x) == len(y) {
			in.charge(int64(len(x)) / bytesPerStep)
		}
		return ok && x == y
	}
	return equal(a, b)
}

// sameObject is true for the same container object (CPython's identity
// shortcut in container comparisons).
func sameObject(a, b Value) bool {
	switch x := a.(type) {
	case *List:
		y, ok := b.(*List)
		return ok && x == y
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	case Tuple:
		y, ok := b.(Tuple)
		return ok && len(x) == len(y) && len(x) > 0 && &x[0] == &y[0]
	}
	return false
}

// maxKeyBytes bounds the rendered hash key of one dict key or set item.
const maxKeyBytes = 1 << 20

// keyOf is hashKey for a key the kernel uses: a TypeError for an
// unhashable key is the caller's; a key nested past MaxNest is a
// RecursionError and one whose key would be over maxKeyBytes a refusal.
func (in *interp) keyOf(v Value) (string, bool) {
	k, err := hashKeyBounded(v)
	switch err {
	case renderDeep:
		in.raise(in.cur().pos, "RecursionError", "maximum recursion depth exceeded while hashing")
	case renderLong:
		in.fail(in.cur().pos, "hash of a "+typeName(v), "a key of nested tuples over %d KiB", maxKeyBytes>>10)
	}
	if len(k) > 64 {
		in.charge(int64(len(k)) / bytesPerStep)
	}
	return k, k != "" || err != renderOK
}

// maxClassTree bounds the classes a walk of one class's bases visits.
const maxClassTree = 4096

// ---- integers ----

// errIntOverflow is an integer result beyond 64 bits: Python's integers
// are unbounded, npukit's are not, so such a result is refused, never
// wrapped.
type errIntOverflow struct{ op string }

func (e errIntOverflow) Error() string {
	return "the result of " + e.op + " is beyond 64 bits (Python's integers are unbounded; npukit evaluates 64-bit integers and refuses what they cannot hold)"
}

// checkedIntOp is intBinOp refusing a result beyond 64 bits (constant
// folding of symbolic loop expressions; numpy index tables keep numpy's
// wrapping int64 arithmetic through intBinOp).
func checkedIntOp(op string, a, b int64) (int64, error) {
	over := errIntOverflow{fmt.Sprintf("%d %s %d", a, op, b)}
	switch op {
	case "+":
		if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
			return 0, over
		}
	case "-":
		if (b < 0 && a > math.MaxInt64+b) || (b > 0 && a < math.MinInt64+b) {
			return 0, over
		}
	case "*":
		v, ok := mulInt(a, b)
		if !ok {
			return 0, over
		}
		return v, nil
	case "<<":
		if b >= 0 && a != 0 && (b > 62 || (a<<uint(b))>>uint(b) != a) {
			return 0, over
		}
	case "**":
		if b >= 0 {
			v, ok := pyIntPow(a, b)
			if !ok {
				return 0, over
			}
			return v, nil
		}
	case "//":
		if a == math.MinInt64 && b == -1 {
			return 0, over
		}
	}
	return intBinOp(op, a, b)
}

// pyIntPow is a**b for b >= 0 by squaring, with overflow refused.
func pyIntPow(a, b int64) (int64, bool) {
	switch {
	case b == 0:
		return 1, true
	case a == 0 || a == 1:
		return a, true
	case a == -1:
		if b%2 == 0 {
			return 1, true
		}
		return -1, true
	}
	r := int64(1)
	base := a
	for {
		if b&1 != 0 {
			var ok bool
			if r, ok = mulInt(r, base); !ok {
				return 0, false
			}
		}
		b >>= 1
		if b == 0 {
			return r, true
		}
		var ok bool
		if base, ok = mulInt(base, base); !ok {
			return 0, false
		}
	}
}

// mulInt is a*b, false when it overflows.
func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

// cmpIntFloat compares an integer with a float exactly, as Python does
// (converting the integer to a float would round past 2^53); ok is false
// for NaN.
func cmpIntFloat(i int64, f float64) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= 1<<63:
		return -1, true
	case f < -(1 << 63):
		return 1, true
	}
	t := math.Trunc(f)
	ti := int64(t)
	switch {
	case i < ti:
		return -1, true
	case i > ti:
		return 1, true
	case f > t:
		return -1, true
	case f < t:
		return 1, true
	}
	return 0, true
}

// pyFloorDivMod is Python's float divmod (floatobject.c's float_divmod):
// the floor quotient derived from fmod so that q*b + m == a holds as
// closely as the floats allow, e.g. divmod(1, 0.1) == (9.0, 0.09999999999999995).
func pyFloorDivMod(a, b float64) (q, m float64) {
	m = math.Mod(a, b)
	div := (a - m) / b
	if m != 0 {
		if (b < 0) != (m < 0) {
			m += b
			div -= 1
		}
	} else {
		m = math.Copysign(0, b)
	}
	if div != 0 {
		q = math.Floor(div)
		if div-q > 0.5 {
			q++
		}
	} else {
		q = math.Copysign(0, a/b)
	}
	return q, m
}

// posOf is the current position (for charges made deep in a builtin).
func (in *interp) posOf() python.Pos { return in.cur().pos }

// pyRound is Python's round(number[, ndigits]): an integer stays an
// integer, a float rounds half to even on its exact value (through
// strconv, which rounds the exact binary value correctly), and a result
// beyond 64 bits is refused.
func pyRound(c *callCtx) Value {
	x := c.need(0, "number")
	if b, ok := x.(bool); ok {
		x = b2i(b)
	}
	hasN := c.has(1, "ndigits") && c.arg(1, "ndigits", nil) != nil
	n := int64(0)
	if hasN {
		var ok bool
		if n, ok = asInt(c.arg(1, "ndigits", nil)); !ok {
			c.in.raise(c.pos, "TypeError", "ndigits must be an integer")
		}
	}
	switch v := x.(type) {
	case int64:
		if !hasN || n >= 0 {
			return v
		}
		if n < -19 {
			return int64(0)
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(-n), nil)
		q, r := new(big.Int).DivMod(big.NewInt(v), p, new(big.Int)) // r >= 0
		twice := new(big.Int).Lsh(r, 1)
		if c := twice.Cmp(p); c > 0 || (c == 0 && q.Bit(0) == 1) {
			q.Add(q, big.NewInt(1))
		}
		q.Mul(q, p)
		if !q.IsInt64() {
			c.fail("round(%d, %d): %v", v, n, errIntOverflow{"round()"})
		}
		return q.Int64()
	case float64:
		if !hasN {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				c.in.raise(c.pos, "ValueError", "cannot convert float %s to integer", pyFloat(v))
			}
			r := math.RoundToEven(v)
			if r >= 1<<63 || r < -(1<<63) {
				c.fail("round(%s): %v", pyFloat(v), errIntOverflow{"round()"})
			}
			return int64(r)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || n > 330 {
			return v
		}
		if n >= 0 {
			f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', int(n), 64), 64)
			return f
		}
		if n < -330 {
			return math.Copysign(0, v)
		}
		p := math.Pow(10, float64(-n))
		return math.RoundToEven(v/p) * p
	}
	c.fail("round() of %s", typeName(x))
	return nil
}
