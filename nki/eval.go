package nki

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

func (in *interp) eval(sc *scope, e python.Expr) Value {
	in.step(e.At())
	switch x := e.(type) {
	case *python.Name:
		return in.lookup(sc, x.ID, x.Pos)
	case *python.Num:
		switch {
		case x.Imag:
			in.fail(x.Pos, "complex literal "+x.Text, "complex numbers are not supported")
		case x.Big:
			in.fail(x.Pos, "integer literal "+x.Text, "integer beyond 64 bits")
		}
		return x.Value
	case *python.Str:
		return x.Value
	case *python.FString:
		var b strings.Builder
		put := func(s string) {
			in.grow(b.Len(), len(s), "f-string")
			b.WriteString(s)
		}
		for _, p := range x.Parts {
			switch f := p.(type) {
			case *python.Str:
				put(f.Value)
			case *python.FormatField:
				v := in.eval(sc, f.Value)
				if f.Debug != "" {
					put(f.Debug)
				}
				spec := ""
				if f.Spec != nil {
					spec = in.str(in.eval(sc, f.Spec))
				}
				switch {
				case f.Conv == 'r' || (f.Debug != "" && spec == "" && f.Conv == 0):
					put(in.repr(v))
				default:
					put(in.formatSpec(v, spec))
				}
			}
		}
		return b.String()
	case *python.Const:
		switch x.Kind {
		case "None":
			return nil
		case "True":
			return true
		case "False":
			return false
		}
		return ellipsis
	case *python.Tuple:
		return Tuple(in.evalElts(sc, x.Elts))
	case *python.List:
		in.alloc(listBytes)
		return &List{Items: in.evalElts(sc, x.Elts)}
	case *python.Set:
		// sets are rare in kernels; a list with unique hashable items
		items := in.evalElts(sc, x.Elts)
		return &List{Items: in.uniq(items)}
	case *python.Dict:
		in.alloc(objectBytes)
		d := newDict()
		for i, k := range x.Keys {
			if k == nil {
				src := in.eval(sc, x.Values[i])
				sd, ok := src.(*Dict)
				if !ok {
					in.fail(x.Pos, "**"+typeName(src), "dict unpacking of a non-dict")
				}
				for j := range sd.Keys {
					in.dset(d, sd.Keys[j], sd.Vals[j])
				}
				continue
			}
			kv := in.eval(sc, k)
			in.dset(d, kv, in.eval(sc, x.Values[i]))
		}
		return d
	case *python.Attribute:
		return in.getAttr(in.eval(sc, x.Value), x.Attr, x.Pos)
	case *python.Subscript:
		obj := in.eval(sc, x.Value)
		idx := in.eval(sc, x.Index)
		return in.getItem(obj, idx, x)
	case *python.Slice:
		s := &SliceVal{}
		if x.Lower != nil {
			s.Lower = in.eval(sc, x.Lower)
		}
		if x.Upper != nil {
			s.Upper = in.eval(sc, x.Upper)
		}
		if x.Step != nil {
			s.Step = in.eval(sc, x.Step)
		}
		return s
	case *python.Call:
		return in.evalCall(sc, x)
	case *python.BinOp:
		l := in.eval(sc, x.Left)
		r := in.eval(sc, x.Right)
		return in.binop(x.Op, l, r, x.Pos, x)
	case *python.UnaryOp:
		v := in.eval(sc, x.Operand)
		return in.unary(x.Op, v, x)
	case *python.BoolOp:
		var v Value
		for i, ve := range x.Values {
			v = in.eval(sc, ve)
			if _, ok := v.(*Sym); ok {
				in.fail(ve.At(), "`"+x.Op+"` on a symbolic loop index", "Python's %s needs a truth value the tracer does not have (use & or |)", x.Op)
			}
			t := in.truth(v, ve)
			if i == len(x.Values)-1 {
				break
			}
			if (x.Op == "and" && !t) || (x.Op == "or" && t) {
				return v
			}
		}
		return v
	case *python.Compare:
		left := in.eval(sc, x.Left)
		var result Value = true
		for i, op := range x.Ops {
			right := in.eval(sc, x.Comparators[i])
			r := in.compare(op, left, right, x)
			if len(x.Ops) == 1 {
				return r
			}
			if _, ok := r.(*Sym); ok {
				in.fail(x.Pos, "chained comparison of a symbolic loop index", "not supported")
			}
			if !in.truth(r, x) {
				return false
			}
			result = r
			left = right
		}
		return result
	case *python.IfExp:
		c := in.eval(sc, x.Test)
		if s, ok := c.(*Sym); ok {
			return in.symbolicIfExp(sc, x, s)
		}
		if in.truth(c, x.Test) {
			return in.eval(sc, x.Body)
		}
		return in.eval(sc, x.Else)
	case *python.Lambda:
		return in.makeFunc(sc, "<lambda>", x.Args, nil, x.Body, nil)
	case *python.Comp:
		return in.comprehension(sc, x)
	case *python.NamedExpr:
		v := in.eval(sc, x.Value)
		in.assignName(sc, x.Target.ID, v)
		return v
	case *python.Starred:
		in.fail(x.Pos, "starred expression", "not allowed here")
	}
	in.fail(e.At(), fmt.Sprintf("%T", e), "expression not supported")
	return nil
}

// uniq is a set's items: the first of each distinct hashable value, a
// TypeError for an unhashable one (as set() raises).
func (in *interp) uniq(items []Value) []Value {
	seen := map[string]bool{}
	var out []Value
	for _, v := range items {
		k := in.dictKey(v)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}

func (in *interp) evalElts(sc *scope, elts []python.Expr) []Value {
	out := make([]Value, 0, len(elts))
	for _, e := range elts {
		if s, ok := e.(*python.Starred); ok {
			out = append(out, in.iterate(in.eval(sc, s.Value), s)...)
			if len(out) > MaxElements {
				in.needItems(int64(len(out)), "unpacking into a display")
			}
			continue
		}
		out = append(out, in.eval(sc, e))
	}
	return out
}

// formatSpec is format(v, spec) for the common specs; a width or
// precision past the value bound is refused before anything is built.
func (in *interp) formatSpec(v Value, spec string) string {
	if spec == "" {
		return in.str(v)
	}
	// the common numeric specs: width, precision, d/f/e/g/x, alignment
	s := spec
	align := byte(0)
	if len(s) >= 2 && strings.IndexByte("<>^", s[1]) >= 0 {
		s = s[2:]
		align = spec[1]
	} else if len(s) >= 1 && strings.IndexByte("<>^", s[0]) >= 0 {
		align = s[0]
		s = s[1:]
	}
	s = strings.TrimPrefix(s, ",")
	verb := "v"
	if n := len(s); n > 0 && strings.IndexByte("dfegxXs%", s[n-1]) >= 0 {
		verb = string(s[n-1])
		s = s[:n-1]
	}
	width, prec := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		width, prec = s[:i], s[i+1:]
	}
	for _, n := range []string{width, prec} {
		n = strings.TrimLeft(n, "+- #0")
		if n == "" {
			continue
		}
		w, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			continue // not a number: fmt prints it as a bad verb
		}
		if w > MaxValueBytes {
			in.needBytes(w, "format width or precision")
		}
		in.charge(w / bytesPerStep)
	}
	f := "%"
	if align == '<' {
		f += "-"
	}
	f += width
	if prec != "" {
		f += "." + prec
	}
	switch verb {
	case "d", "x", "X":
		if fv, ok := v.(float64); ok {
			v = int64(fv)
		}
		f += verb
	case "f", "e", "g":
		if iv, ok := v.(int64); ok {
			v = float64(iv)
		}
		f += verb
	case "%":
		if iv, ok := v.(int64); ok {
			v = float64(iv)
		}
		if fv, ok := v.(float64); ok {
			v = fv * 100
		}
		f += "f%%"
	default:
		f += "s"
		v = in.str(v)
	}
	return fmt.Sprintf(f, v)
}

func (in *interp) comprehension(sc *scope, c *python.Comp) Value {
	csc := newScope(sc, sc.mod)
	var out []Value
	d := newDict()
	var rec func(g int)
	rec = func(g int) {
		if g == len(c.Gens) {
			if c.Kind == "dict" {
				k := in.eval(csc, c.Elt)
				in.dset(d, k, in.eval(csc, c.Value))
				return
			}
			out = append(out, in.eval(csc, c.Elt))
			if len(out) > MaxElements {
				in.fail(c.Pos, "comprehension", "more than %d elements", MaxElements)
			}
			return
		}
		gen := c.Gens[g]
		iv := in.eval(csc, gen.Iter)
		items := in.iterate(iv, gen.Iter)
		lp := in.tr.loopEnter(in, gen.Pos, gen.Iter, iv, "comprehension", int64(len(items)))
		if lp.rec != nil && lp.rec.Entries == 1 {
			var mod *python.Module
			if sc.mod != nil {
				mod = sc.mod.AST
			}
			lp.rec.At = in.site(in.tr.compSite(mod, c))
		}
		for _, it := range items {
			in.assign(csc, gen.Target, it, nil)
			ok := true
			for _, cond := range gen.Ifs {
				if !in.truth(in.eval(csc, cond), cond) {
					ok = false
					break
				}
			}
			if ok {
				rec(g + 1)
			}
		}
		in.tr.loopExit(lp)
	}
	rec(0)
	switch c.Kind {
	case "dict":
		return d
	case "set":
		return &List{Items: in.uniq(out)}
	case "gen":
		return Tuple(out) // consumed at once by tuple(), sum(), any(), ...
	}
	return &List{Items: out}
}

// truth is Python's truth value; a symbolic value has none.
func (in *interp) truth(v Value, at python.Node) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case Tuple:
		return len(x) > 0
	case *List:
		return len(x.Items) > 0
	case *Dict:
		return len(x.Keys) > 0
	case *Sym:
		in.fail(at.At(), "truth value of "+in.src(at), "depends on a symbolic loop index")
	case *Instance:
		// __bool__ returns a bool and __len__ an int, as Python requires
		// (a __bool__ returning another instance recursed without end)
		if f, ok := in.findAttr(x.Class, "__bool__"); ok {
			r, isBool := in.call(f, []Value{x}, nil, at.At(), nil).(bool)
			if !isBool {
				in.raise(at.At(), "TypeError", "__bool__ should return bool")
			}
			return r
		}
		if f, ok := in.findAttr(x.Class, "__len__"); ok {
			switch r := in.call(f, []Value{x}, nil, at.At(), nil).(type) {
			case int64:
				return r != 0
			case bool:
				return r
			}
			in.raise(at.At(), "TypeError", "__len__ should return an integer")
		}
		return true
	case *Opaque:
		in.fail(at.At(), "truth value of "+x.What, "npukit does not model %s", x.What)
	case *enumMember:
		return true
	}
	return true
}

// ---- arithmetic ----

func isTensorish(v Value) bool {
	switch v.(type) {
	case *Tensor, *View, *Tile:
		return true
	}
	return false
}

func isGrid(v Value) bool { _, ok := v.(*Grid); return ok }

func (in *interp) binop(op string, l, r Value, pos python.Pos, node python.Node) Value {
	if isTensorish(l) || isTensorish(r) {
		return in.tr.tensorOp(in, op, l, r, node)
	}
	if isGrid(l) || isGrid(r) {
		return in.gridOp(op, l, r, node)
	}
	if inst, ok := l.(*Instance); ok {
		if f, ok := in.findAttr(inst.Class, dunder(op)); ok {
			return in.call(f, []Value{inst, r}, nil, pos, nil)
		}
	}
	if _, ok := l.(*Sym); ok {
		return in.symOp(op, l, r, node)
	}
	if _, ok := r.(*Sym); ok {
		return in.symOp(op, l, r, node)
	}
	if v, ok := in.intArrayOp(op, l, r, pos); ok {
		return v
	}
	if v, ok := in.ndArrayOp(op, l, r, pos); ok {
		return v
	}
	switch a := l.(type) {
	case bool:
		l = b2i(a)
	}
	switch b := r.(type) {
	case bool:
		r = b2i(b)
	}
	switch a := l.(type) {
	case int64:
		switch b := r.(type) {
		case int64:
			if op == "/" {
				if b == 0 {
					in.raise(pos, "ZeroDivisionError", "division by zero")
				}
				return float64(a) / float64(b)
			}
			if op == "**" && b < 0 {
				if a == 0 {
					in.raise(pos, "ZeroDivisionError", "0.0 cannot be raised to a negative power")
				}
				return math.Pow(float64(a), float64(b))
			}
			return in.slab.boxInt(in.intOp(op, a, b, pos))
		case float64:
			return in.floatOp(op, float64(a), b, pos)
		case Tuple, *List, string:
			if op == "*" {
				return in.repeat(r, a, pos)
			}
		}
	case float64:
		switch b := r.(type) {
		case int64:
			return in.floatOp(op, a, float64(b), pos)
		case float64:
			return in.floatOp(op, a, b, pos)
		}
	case string:
		switch b := r.(type) {
		case string:
			if op == "+" {
				in.needBytes(addSizes(int64(len(a)), int64(len(b))), "str + str")
				return a + b
			}
		case int64:
			if op == "*" {
				return in.repeat(a, b, pos)
			}
		}
		if op == "%" {
			return in.percentFormat(a, r)
		}
	case Tuple:
		switch b := r.(type) {
		case Tuple:
			if op == "+" {
				in.needItems(addSizes(int64(len(a)), int64(len(b))), "tuple + tuple")
				return append(append(make(Tuple, 0, len(a)+len(b)), a...), b...)
			}
		case int64:
			if op == "*" {
				return in.repeat(a, b, pos)
			}
		}
	case *List:
		switch b := r.(type) {
		case *List:
			if op == "+" {
				in.needItems(addSizes(int64(len(a.Items)), int64(len(b.Items))), "list + list")
				return &List{Items: append(append(make([]Value, 0, len(a.Items)+len(b.Items)), a.Items...), b.Items...)}
			}
		case int64:
			if op == "*" {
				return in.repeat(a, b, pos)
			}
		}
	case DType:
		// dtype arithmetic is not a thing; fall through to the error
	}
	in.fail(pos, fmt.Sprintf("%s %s %s", typeName(l), op, typeName(r)), "operation not supported")
	return nil
}

// intOp is a binary operator on two integers: Python's result, or a
// refusal naming the line when it is beyond 64 bits (never a wrapped one).
func (in *interp) intOp(op string, a, b int64, pos python.Pos) int64 {
	over := func() {
		in.fail(pos, "integer arithmetic", "%v", errIntOverflow{fmt.Sprintf("%d %s %d", a, op, b)})
	}
	switch op {
	case "+":
		if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
			over()
		}
		return a + b
	case "-":
		if (b < 0 && a > math.MaxInt64+b) || (b > 0 && a < math.MinInt64+b) {
			over()
		}
		return a - b
	case "*":
		v, ok := mulInt(a, b)
		if !ok {
			over()
		}
		return v
	case "//", "%":
		if b == 0 {
			in.raise(pos, "ZeroDivisionError", "integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			if op == "%" {
				return 0
			}
			over()
		}
	case "<<":
		if b < 0 {
			in.raise(pos, "ValueError", "negative shift count")
		}
		if a == 0 {
			return 0
		}
		if b > 62 || (a<<uint(b))>>uint(b) != a {
			over()
		}
		return a << uint(b)
	case ">>":
		if b < 0 {
			in.raise(pos, "ValueError", "negative shift count")
		}
	case "**":
		v, ok := pyIntPow(a, b)
		if !ok {
			over()
		}
		return v
	}
	v, err := intBinOp(op, a, b)
	if err != nil {
		in.raise(pos, "ArithmeticError", "%v", err)
	}
	return v
}

func (in *interp) percentFormat(f string, arg Value) string {
	args, ok := arg.(Tuple)
	if !ok {
		args = Tuple{arg}
	}
	var b strings.Builder
	k := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("0123456789.-+ ", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			b.WriteString(f[i:])
			break
		}
		if f[j] == '%' {
			b.WriteByte('%')
			i = j
			continue
		}
		if k < len(args) {
			s := in.formatSpec(args[k], f[i+1:j+1])
			in.grow(b.Len(), len(s), "% formatting")
			b.WriteString(s)
			k++
		}
		i = j
	}
	return b.String()
}

func dunder(op string) string {
	switch op {
	case "+":
		return "__add__"
	case "-":
		return "__sub__"
	case "*":
		return "__mul__"
	case "/":
		return "__truediv__"
	case "//":
		return "__floordiv__"
	case "%":
		return "__mod__"
	case "==":
		return "__eq__"
	case "<":
		return "__lt__"
	}
	return "__op__"
}

func (in *interp) repeat(v Value, n int64, pos python.Pos) Value {
	if n < 0 {
		n = 0
	}
	var l int64
	switch x := v.(type) {
	case string:
		l = int64(len(x))
	case Tuple:
		l = int64(len(x))
	case *List:
		l = int64(len(x.Items))
	}
	if l == 0 || n == 0 {
		n = 0
	}
	total := mulSizes(l, n)
	switch x := v.(type) {
	case string:
		in.needBytes(total, "string repetition")
		return strings.Repeat(x, int(n))
	case Tuple:
		in.needItems(total, "tuple repetition")
		out := make(Tuple, 0, total)
		for i := int64(0); i < n; i++ {
			out = append(out, x...)
		}
		return out
	case *List:
		in.needItems(total, "list repetition")
		out := &List{Items: make([]Value, 0, total)}
		for i := int64(0); i < n; i++ {
			out.Items = append(out.Items, x.Items...)
		}
		return out
	}
	return nil
}

func (in *interp) floatOp(op string, a, b float64, pos python.Pos) Value {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/":
		if b == 0 {
			in.raise(pos, "ZeroDivisionError", "float division by zero")
		}
		return a / b
	case "//":
		if b == 0 {
			in.raise(pos, "ZeroDivisionError", "float floor division by zero")
		}
		q, _ := pyFloorDivMod(a, b)
		return q
	case "%":
		if b == 0 {
			in.raise(pos, "ZeroDivisionError", "float modulo")
		}
		_, m := pyFloorDivMod(a, b)
		return m
	case "**":
		if a == 0 && b < 0 {
			in.raise(pos, "ZeroDivisionError", "0.0 cannot be raised to a negative power")
		}
		if a < 0 && b != math.Trunc(b) {
			in.fail(pos, "float **", "a negative number to a fractional power is a complex number (not supported)")
		}
		return math.Pow(a, b)
	}
	in.fail(pos, "float "+op, "operation not supported")
	return nil
}

func (in *interp) symOp(op string, l, r Value, node python.Node) Value {
	in.alloc(symBytes)
	a, ok1 := toSym(l)
	b, ok2 := toSym(r)
	if !ok1 || !ok2 {
		in.fail(node.At(), fmt.Sprintf("%s %s %s", typeName(l), op, typeName(r)), "arithmetic of a symbolic loop index with a non-integer")
	}
	s, err := symBin(op, a, b)
	if err != nil {
		in.fail(node.At(), "symbolic loop index arithmetic", "%v", err)
	}
	return s
}

func (in *interp) unary(op string, v Value, node *python.UnaryOp) Value {
	switch op {
	case "not":
		if s, ok := v.(*Sym); ok {
			return &Sym{Op: "~", A: s, vars: s.vars, size: s.size + 1}
		}
		return !in.truth(v, node.Operand)
	case "-":
		switch x := v.(type) {
		case int64:
			if x == math.MinInt64 {
				in.fail(node.Pos, "integer arithmetic", "%v", errIntOverflow{fmt.Sprintf("-(%d)", x)})
			}
			return -x
		case float64:
			return -x
		case bool:
			return -b2i(x)
		case *Sym:
			return &Sym{Op: "neg", A: x, vars: x.vars, size: x.size + 1}
		}
		if isTensorish(v) {
			return in.tr.tensorOp(in, "neg", v, nil, node)
		}
	case "+":
		switch v.(type) {
		case int64, float64:
			return v
		}
	case "~":
		switch x := v.(type) {
		case int64:
			return ^x
		case bool:
			return ^b2i(x)
		case *Sym:
			return &Sym{Op: "~", A: x, vars: x.vars, size: x.size + 1}
		}
		if isTensorish(v) || isGrid(v) {
			return v // a negated mask predicate has the same shape
		}
	}
	in.fail(node.Pos, fmt.Sprintf("%s%s", op, typeName(v)), "operation not supported")
	return nil
}

func (in *interp) compare(op string, l, r Value, node python.Node) Value {
	if ls, ok := l.(string); ok && (op == "is" || op == "is not") {
		if rs, ok := r.(string); ok && len(ls) == len(rs) {
			in.charge(int64(len(ls)) / bytesPerStep)
		}
	}
	if _, ok := l.(Tuple); ok && (op == "is" || op == "is not") {
		// tuples of equal items are taken as the same object (CPython
		// folds constant tuples), compared with in.equal's charges
		_, isTuple := r.(Tuple)
		same := isTuple && (sameObject(l, r) || in.equal(l, r))
		return same == (op == "is")
	}
	switch op {
	case "is":
		return identical(l, r)
	case "is not":
		return !identical(l, r)
	case "in", "not in":
		found := in.contains(r, l, node)
		if op == "in" {
			return found
		}
		return !found
	}
	if isGrid(l) || isGrid(r) || isTensorish(l) || isTensorish(r) {
		return in.gridOp(op, l, r, node) // masks
	}
	_, ls := l.(*Sym)
	_, rs := r.(*Sym)
	if ls || rs {
		return in.symOp(op, l, r, node)
	}
	if op == "==" || op == "!=" {
		eq := in.equal(l, r)
		if op == "==" {
			return eq
		}
		return !eq
	}
	c, ok := in.ordered(l, r)
	if !ok {
		in.fail(node.At(), fmt.Sprintf("%s %s %s", typeName(l), op, typeName(r)), "comparison not supported")
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

func identical(a, b Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		// (no key built: a 64 MiB string would be copied per `is`)
		y, ok := b.(string)
		return ok && x == y
	case *List, *Dict:
		return sameObject(a, b)
	case Tuple:
		return sameObject(x, b)
	}
	if a == nil || b == nil {
		return false
	}
	ka, ok1 := hashKey(a)
	kb, ok2 := hashKey(b)
	if ok1 && ok2 {
		return ka == kb
	}
	return fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b)
}

func num(v Value) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		return float64(b2i(x)), true
	}
	return 0, false
}

// equal is == on scalars (in.equal compares containers, bounded);
// containers here are equal only when they are the same object.
func equal(a, b Value) bool {
	if c, ok := cmpNum(a, b); ok {
		return c == 0
	}
	if _, isNum := num(a); isNum {
		return false
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case DType:
		y, ok := b.(DType)
		return ok && x == y
	case Tuple, *List, *Dict:
		return sameObject(a, b)
	}
	return identical(a, b)
}

// cmpNum compares two numbers exactly, as Python does: integers as
// integers, an integer with a float without rounding the integer; ok is
// false when either is not a number or a float is NaN.
func cmpNum(a, b Value) (int, bool) {
	ia, aInt := asPlainInt(a)
	ib, bInt := asPlainInt(b)
	switch {
	case aInt && bInt:
		switch {
		case ia < ib:
			return -1, true
		case ia > ib:
			return 1, true
		}
		return 0, true
	case aInt:
		fb, ok := b.(float64)
		if !ok {
			return 0, false
		}
		return cmpIntFloat(ia, fb)
	case bInt:
		fa, ok := a.(float64)
		if !ok {
			return 0, false
		}
		c, ok := cmpIntFloat(ib, fa)
		return -c, ok
	}
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	if !ok1 || !ok2 || math.IsNaN(fa) || math.IsNaN(fb) {
		return 0, false
	}
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	}
	return 0, true
}

func asPlainInt(v Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		return b2i(x), true
	}
	return 0, false
}

// ordered compares for <, sorted, min and max; ok is false for what does
// not order, including tuples nested past MaxNest. Each tuple item and
// each 8 bytes of a string compared costs a step (tuples sharing their
// items compared exponentially often otherwise).
func (in *interp) ordered(a, b Value) (int, bool) { return in.orderedAt(a, b, 0) }

func (in *interp) orderedAt(a, b Value, depth int) (int, bool) {
	if depth > MaxNest {
		return 0, false
	}
	if ea, ok := a.(*enumMember); ok {
		if eb, ok := b.(*enumMember); ok && ea.Class == eb.Class {
			return in.orderedAt(ea.Value, eb.Value, depth+1)
		}
	}
	if _, ok := num(a); ok {
		return cmpNum(a, b)
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		in.charge(int64(min(len(x), len(y))) / bytesPerStep)
		return strings.Compare(x, y), true
	case Tuple:
		y, ok := b.(Tuple)
		if !ok {
			return 0, false
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			in.charge(1)
			c, ok := in.orderedAt(x[i], y[i], depth+1)
			if !ok {
				return 0, false
			}
			if c != 0 {
				return c, true
			}
		}
		return len(x) - len(y), true
	}
	return 0, false
}

func (in *interp) contains(container, item Value, node python.Node) bool {
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			in.raise(node.At(), "TypeError", "'in <string>' requires string as left operand, not %s", typeName(item))
		}
		in.charge(int64(len(c)) / bytesPerStep)
		return strings.Contains(c, s)
	case *Dict:
		_, ok := in.dget(c, item)
		return ok
	case *Module:
		s, ok := item.(string)
		_, has := c.Attrs[s]
		return ok && has
	}
	var items []Value
	switch c := container.(type) {
	case Tuple:
		items = c
	case *List:
		items = c.Items
	default:
		items = in.iterate(container, node)
	}
	in.charge(int64(len(items)))
	for i := 0; i < len(items); i++ {
		if sameObject(items[i], item) || in.equal(items[i], item) {
			return true
		}
	}
	return false
}
