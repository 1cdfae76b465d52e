package nki

import (
	"errors"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

func bi(name string, fn func(c *callCtx) Value) *Builtin { return &Builtin{Name: name, Fn: fn} }

func (in *interp) initBuiltins() {
	exc := func(name string) *Class { return &Class{Name: name, Attrs: map[string]Value{}} }
	b := map[string]Value{
		"len": bi("len", func(c *callCtx) Value {
			v := c.need(0, "obj")
			switch x := v.(type) {
			case string:
				return int64(len(x))
			case Tuple:
				return int64(len(x))
			case *List:
				return int64(len(x.Items))
			case *IntArray:
				return int64(len(x.Vals))
			case *Dict:
				return int64(len(x.Keys))
			case *RangeVal:
				if !x.Symbolic {
					return x.Len()
				}
			case *Instance:
				if f, ok := c.in.findAttr(x.Class, "__len__"); ok {
					return c.in.call(f, []Value{x}, nil, c.pos, nil)
				}
			}
			if n, ok := c.in.tr.length(v); ok {
				return n
			}
			c.fail("len() of %s", typeName(v))
			return nil
		}),
		"range": bi("range", func(c *callCtx) Value { return c.in.tr.makeRange(c, "range") }),
		"print": bi("print", func(c *callCtx) Value { return nil }),
		"abs": bi("abs", func(c *callCtx) Value {
			switch x := c.need(0, "x").(type) {
			case int64:
				if x == math.MinInt64 {
					c.fail("abs(%d): %v", x, errIntOverflow{"abs()"})
				}
				if x < 0 {
					return -x
				}
				return x
			case float64:
				return math.Abs(x)
			}
			c.fail("abs() of %s", typeName(c.args[0]))
			return nil
		}),
		"min": bi("min", func(c *callCtx) Value { return c.in.minmax(c, -1) }),
		"max": bi("max", func(c *callCtx) Value { return c.in.minmax(c, 1) }),
		"sum": bi("sum", func(c *callCtx) Value {
			var acc Value = c.arg(1, "start", int64(0))
			if _, ok := acc.(string); ok {
				c.in.raise(c.pos, "TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
			}
			for _, v := range c.in.iterate(c.need(0, "iterable"), c.node) {
				acc = c.in.binop("+", acc, v, c.pos, c.node)
			}
			return acc
		}),
		"any": bi("any", func(c *callCtx) Value {
			for _, v := range c.in.iterate(c.need(0, "iterable"), c.node) {
				if c.in.truth(v, c.node) {
					return true
				}
			}
			return false
		}),
		"all": bi("all", func(c *callCtx) Value {
			for _, v := range c.in.iterate(c.need(0, "iterable"), c.node) {
				if !c.in.truth(v, c.node) {
					return false
				}
			}
			return true
		}),
		"isinstance": bi("isinstance", func(c *callCtx) Value {
			return c.in.isInstance(c.need(0, "obj"), c.need(1, "classinfo"))
		}),
		"hasattr": bi("hasattr", func(c *callCtx) Value {
			return c.in.hasAttr(c.need(0, "obj"), str(c.need(1, "name")), c.pos)
		}),
		"getattr": bi("getattr", func(c *callCtx) Value {
			obj, name := c.need(0, "obj"), str(c.need(1, "name"))
			if c.has(2, "default") && !c.in.hasAttr(obj, name, c.pos) {
				return c.arg(2, "default", nil)
			}
			return c.in.getAttr(obj, name, c.pos)
		}),
		"setattr": bi("setattr", func(c *callCtx) Value {
			c.in.setAttr(c.need(0, "obj"), str(c.need(1, "name")), c.need(2, "value"), c.pos)
			return nil
		}),
		"zip": bi("zip", func(c *callCtx) Value {
			var seqs [][]Value
			n := -1
			for _, a := range c.args {
				s := c.in.iterate(a, c.node)
				seqs = append(seqs, s)
				if n < 0 || len(s) < n {
					n = len(s)
				}
			}
			out := make(Tuple, 0, max(n, 0))
			for i := 0; i < n; i++ {
				t := make(Tuple, len(seqs))
				for j := range seqs {
					t[j] = seqs[j][i]
				}
				out = append(out, t)
			}
			return out
		}),
		"enumerate": bi("enumerate", func(c *callCtx) Value {
			start, _ := asInt(c.arg(1, "start", int64(0)))
			items := c.in.iterate(c.need(0, "iterable"), c.node)
			out := make(Tuple, len(items))
			for i, v := range items {
				out[i] = Tuple{start + int64(i), v}
			}
			return out
		}),
		"reversed": bi("reversed", func(c *callCtx) Value {
			items := c.in.iterate(c.need(0, "seq"), c.node)
			out := make(Tuple, len(items))
			for i, v := range items {
				out[len(items)-1-i] = v
			}
			return out
		}),
		"sorted": bi("sorted", func(c *callCtx) Value {
			items := append([]Value{}, c.in.iterate(c.need(0, "iterable"), c.node)...)
			key := c.arg(-1, "key", nil)
			keys := items
			if key != nil {
				keys = make([]Value, len(items))
				for i, v := range items {
					keys[i] = c.in.call(key, []Value{v}, nil, c.pos, nil)
				}
			}
			idx := make([]int, len(items))
			for i := range idx {
				idx[i] = i
			}
			c.in.charge(int64(len(items)) * int64(1+bits.Len(uint(len(items)))))
			sort.SliceStable(idx, func(a, b int) bool {
				r, ok := c.in.ordered(keys[idx[a]], keys[idx[b]])
				if !ok {
					c.fail("unorderable values")
				}
				return r < 0
			})
			out := make([]Value, len(items))
			for i, j := range idx {
				out[i] = items[j]
			}
			if rev, _ := c.arg(-1, "reverse", false).(bool); rev {
				for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
					out[i], out[j] = out[j], out[i]
				}
			}
			return &List{Items: out}
		}),
		"map": bi("map", func(c *callCtx) Value {
			f := c.need(0, "func")
			var out Tuple
			for _, v := range c.in.iterate(c.need(1, "iterable"), c.node) {
				out = append(out, c.in.call(f, []Value{v}, nil, c.pos, nil))
			}
			return out
		}),
		"filter": bi("filter", func(c *callCtx) Value {
			f := c.need(0, "func")
			var out Tuple
			for _, v := range c.in.iterate(c.need(1, "iterable"), c.node) {
				keep := v
				if f != nil {
					keep = c.in.call(f, []Value{v}, nil, c.pos, nil)
				}
				if c.in.truth(keep, c.node) {
					out = append(out, v)
				}
			}
			return out
		}),
		"round": bi("round", pyRound),
		"divmod": bi("divmod", func(c *callCtx) Value {
			a, b := c.need(0, "a"), c.need(1, "b")
			return Tuple{c.in.binop("//", a, b, c.pos, c.node), c.in.binop("%", a, b, c.pos, c.node)}
		}),
		"id":   bi("id", func(c *callCtx) Value { c.fail("id() is not modelled"); return nil }),
		"iter": bi("iter", func(c *callCtx) Value { return Tuple(c.in.iterate(c.need(0, "obj"), c.node)) }),
		"super": bi("super", func(c *callCtx) Value {
			c.fail("super() is not modelled")
			return nil
		}),
		"int":   &typeVal{"int", convInt},
		"float": &typeVal{"float", convFloat},
		"repr":  bi("repr", func(c *callCtx) Value { return c.in.repr(c.need(0, "obj")) }),
		"str":   &typeVal{"str", func(c *callCtx) Value { return c.in.str(c.arg(0, "object", "")) }},
		"bool":  &typeVal{"bool", func(c *callCtx) Value { return c.in.truth(c.arg(0, "x", false), c.node) }},
		"tuple": &typeVal{"tuple", func(c *callCtx) Value {
			if !c.has(0, "iterable") {
				return Tuple{}
			}
			return Tuple(c.in.iterate(c.args[0], c.node))
		}},
		// slice(stop) or slice(start, stop[, step]): the object a[start:stop:step]
		// indexes with (nki-samples' create_indices builds its index
		// tuples of slice(None) and None)
		"slice": &typeVal{"slice", func(c *callCtx) Value {
			if len(c.kw) > 0 {
				c.fail("slice() takes no keyword arguments")
			}
			switch len(c.args) {
			case 1:
				return &SliceVal{Upper: c.args[0]}
			case 2:
				return &SliceVal{Lower: c.args[0], Upper: c.args[1]}
			case 3:
				return &SliceVal{Lower: c.args[0], Upper: c.args[1], Step: c.args[2]}
			}
			c.in.raise(c.pos, "TypeError", "slice expected 1 to 3 arguments, got %d", len(c.args))
			return nil
		}},
		"list": &typeVal{"list", func(c *callCtx) Value {
			if !c.has(0, "iterable") {
				return &List{}
			}
			return &List{Items: c.in.iterate(c.args[0], c.node)}
		}},
		"set": &typeVal{"set", func(c *callCtx) Value {
			if !c.has(0, "iterable") {
				return &List{}
			}
			return &List{Items: c.in.uniq(c.in.iterate(c.args[0], c.node))}
		}},
		"dict": &typeVal{"dict", func(c *callCtx) Value {
			c.in.alloc(objectBytes)
			d := newDict()
			if c.has(0, "") {
				switch src := c.args[0].(type) {
				case *Dict:
					for i := range src.Keys {
						c.in.dset(d, src.Keys[i], src.Vals[i])
					}
				default:
					for _, kv := range c.in.iterate(src, c.node) {
						p := c.in.iterate(kv, c.node)
						if len(p) != 2 {
							c.fail("dict() of a sequence that is not pairs")
						}
						c.in.dset(d, p[0], p[1])
					}
				}
			}
			for _, k := range c.kw {
				c.in.dset(d, k.Name, k.Value)
			}
			return d
		}},
		"type": bi("type", func(c *callCtx) Value {
			v := c.need(0, "obj")
			if inst, ok := v.(*Instance); ok {
				return inst.Class
			}
			return &typeVal{Name: typeName(v), Fn: func(c *callCtx) Value { c.fail("calling type(x)"); return nil }}
		}),
		"object":              &Class{Name: "object", Attrs: map[string]Value{}},
		"Exception":           exc("Exception"),
		"BaseException":       exc("BaseException"),
		"ValueError":          exc("ValueError"),
		"TypeError":           exc("TypeError"),
		"AssertionError":      exc("AssertionError"),
		"RuntimeError":        exc("RuntimeError"),
		"NotImplementedError": exc("NotImplementedError"),
		"KeyError":            exc("KeyError"),
		"IndexError":          exc("IndexError"),
		"AttributeError":      exc("AttributeError"),
		"StopIteration":       exc("StopIteration"),
		"ZeroDivisionError":   exc("ZeroDivisionError"),
		"RecursionError":      exc("RecursionError"),
		"OverflowError":       exc("OverflowError"),
		"ArithmeticError":     exc("ArithmeticError"),
		"__name__":            "npukit_trace",
		"NotImplemented":      &Opaque{What: "NotImplemented"},
	}
	in.builtins = b
}

func convInt(c *callCtx) Value {
	v := c.arg(0, "x", int64(0))
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		return b2i(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			c.in.raise(c.pos, "ValueError", "cannot convert float %s to integer", pyFloat(x))
		}
		if x >= 1<<63 || x < -(1<<63) {
			c.fail("int() of %s: %v", pyFloat(x), errIntOverflow{"int()"})
		}
		return int64(x)
	case string:
		t := strings.ReplaceAll(strings.TrimSpace(x), "_", "")
		n, err := strconv.ParseInt(t, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			c.fail("int() of a %d-digit string: %v", len(t), errIntOverflow{"int()"})
		}
		if err != nil {
			c.in.raise(c.pos, "ValueError", "invalid literal for int() with base 10: %s", render(x, true))
		}
		return n
	case *Sym:
		c.in.fail(c.pos, "int() of a symbolic loop index", "its value differs per iteration")
	case *enumMember:
		if n, ok := asInt(x.Value); ok {
			return n
		}
	}
	c.fail("int() of %s", typeName(v))
	return nil
}

func convFloat(c *callCtx) Value {
	v := c.arg(0, "x", 0.0)
	if f, ok := num(v); ok {
		return f
	}
	if s, ok := v.(string); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "inf", "+inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		case "nan":
			return math.NaN()
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			c.in.raise(c.pos, "ValueError", "could not convert string to float: %q", s)
		}
		return f
	}
	c.fail("float() of %s", typeName(v))
	return nil
}

func (in *interp) minmax(c *callCtx, sign int) Value {
	items := c.args
	if len(items) == 1 {
		items = in.iterate(items[0], c.node)
	}
	if len(items) == 0 {
		if d := c.arg(-1, "default", nil); c.has(-1, "default") {
			return d
		}
		in.raise(c.pos, "ValueError", "%s() arg is an empty sequence", c.name)
	}
	key := c.arg(-1, "key", nil)
	best := items[0]
	bestKey := best
	if key != nil {
		bestKey = in.call(key, []Value{best}, nil, c.pos, nil)
	}
	for _, v := range items[1:] {
		k := v
		if key != nil {
			k = in.call(key, []Value{v}, nil, c.pos, nil)
		}
		_, s1 := k.(*Sym)
		_, s2 := bestKey.(*Sym)
		if s1 || s2 {
			op := "min"
			if sign > 0 {
				op = "max"
			}
			best = in.symOp(op, bestKey, k, c.node)
			bestKey = best
			continue
		}
		r, ok := in.ordered(k, bestKey)
		if !ok {
			c.fail("%s() of %s and %s", c.name, typeName(k), typeName(bestKey))
		}
		if r*sign > 0 {
			best, bestKey = v, k
		}
	}
	return best
}

func (in *interp) isInstance(v, cls Value) bool {
	if t, ok := cls.(Tuple); ok {
		for _, c := range t {
			if in.isInstance(v, c) {
				return true
			}
		}
		return false
	}
	switch c := cls.(type) {
	case *typeVal:
		switch c.Name {
		case "int":
			_, ok := v.(int64)
			_, b := v.(bool)
			return ok || b
		case "float":
			_, ok := v.(float64)
			return ok
		case "str":
			_, ok := v.(string)
			return ok
		case "bool":
			_, ok := v.(bool)
			return ok
		case "tuple":
			_, ok := v.(Tuple)
			return ok
		case "list":
			_, ok := v.(*List)
			return ok
		case "dict":
			_, ok := v.(*Dict)
			return ok
		case "slice":
			_, ok := v.(*SliceVal)
			return ok
		}
	case *Class:
		var walk func(k *Class) bool
		walk = func(k *Class) bool {
			if k == c {
				return true
			}
			for _, b := range k.Bases {
				if walk(b) {
					return true
				}
			}
			return false
		}
		switch x := v.(type) {
		case *Instance:
			return walk(x.Class)
		case *enumMember:
			return walk(x.Class)
		}
		return false
	case *Opaque:
		return false
	}
	if r, ok := in.tr.isInstance(v, cls); ok {
		return r
	}
	return false
}

func (in *interp) hasAttr(obj Value, name string, pos python.Pos) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if e, isExc := r.(*pyExc); isExc && e.Type == "AttributeError" {
				ok = false
				return
			}
			panic(r)
		}
	}()
	switch o := obj.(type) {
	case *Module:
		_, ok := o.Attrs[name]
		return ok || o.Opaque && (o.Names == nil || o.Names[name])
	case *Instance:
		if _, ok := o.Attrs[name]; ok {
			return true
		}
		_, ok := in.findAttr(o.Class, name)
		return ok
	}
	in.getAttr(obj, name, pos)
	return true
}

// builtinMethod returns the methods of str, list, dict and tuple.
func builtinMethod(in *interp, obj Value, name string, pos python.Pos) (Value, bool) {
	m := func(f func(c *callCtx) Value) (Value, bool) { return bi(typeName(obj)+"."+name, f), true }
	switch o := obj.(type) {
	case *IntArray:
		return intArrayMethod(o, name, m)
	case string:
		switch name {
		case "format":
			return m(func(c *callCtx) Value {
				var b strings.Builder
				auto := 0
				s := o
				for i := 0; i < len(s); i++ {
					if s[i] == '{' && i+1 < len(s) && s[i+1] == '{' {
						b.WriteByte('{')
						i++
						continue
					}
					if s[i] == '}' && i+1 < len(s) && s[i+1] == '}' {
						b.WriteByte('}')
						i++
						continue
					}
					if s[i] != '{' {
						b.WriteByte(s[i])
						continue
					}
					j := strings.IndexByte(s[i:], '}')
					if j < 0 {
						break
					}
					field := s[i+1 : i+j]
					spec := ""
					if k := strings.IndexByte(field, ':'); k >= 0 {
						field, spec = field[:k], field[k+1:]
					}
					var v Value
					if field == "" {
						v = c.arg(auto, "", nil)
						auto++
					} else if n, err := strconv.Atoi(field); err == nil {
						v = c.arg(n, "", nil)
					} else {
						v = c.arg(-1, field, nil)
					}
					fs := c.in.formatSpec(v, spec)
					c.in.grow(b.Len(), len(fs), "str.format")
					b.WriteString(fs)
					i += j
				}
				return b.String()
			})
		case "join":
			return m(func(c *callCtx) Value {
				items := c.in.iterate(c.need(0, "iterable"), c.node)
				parts := make([]string, len(items))
				total := int64(0)
				for i, v := range items {
					s, ok := v.(string)
					if !ok {
						c.in.raise(c.pos, "TypeError", "sequence item %d: expected str instance, %s found", i, typeName(v))
					}
					parts[i] = s
					total = addSizes(total, int64(len(s)))
					if i > 0 {
						total = addSizes(total, int64(len(o)))
					}
				}
				c.in.needBytes(total, "str.join")
				return strings.Join(parts, o)
			})
		case "upper":
			return m(func(c *callCtx) Value { c.in.charge(int64(len(o)) / bytesPerStep); return strings.ToUpper(o) })
		case "lower":
			return m(func(c *callCtx) Value { c.in.charge(int64(len(o)) / bytesPerStep); return strings.ToLower(o) })
		case "strip":
			return m(func(c *callCtx) Value { c.in.charge(int64(len(o)) / bytesPerStep); return strings.TrimSpace(o) })
		case "startswith":
			return m(func(c *callCtx) Value {
				p := c.in.str(c.need(0, "prefix"))
				c.in.charge(int64(min(len(p), len(o))) / bytesPerStep)
				return strings.HasPrefix(o, p)
			})
		case "endswith":
			return m(func(c *callCtx) Value {
				p := c.in.str(c.need(0, "suffix"))
				c.in.charge(int64(min(len(p), len(o))) / bytesPerStep)
				return strings.HasSuffix(o, p)
			})
		case "replace":
			return m(func(c *callCtx) Value {
				old, nw := c.in.str(c.need(0, "old")), c.in.str(c.need(1, "new"))
				c.in.charge(int64(len(o)) / bytesPerStep)
				n := int64(strings.Count(o, old))
				if old == "" {
					n = int64(len(o)) + 1 // between the bytes (ASCII)
				}
				size := addSizes(int64(len(o)), mulSizes(n, int64(len(nw))))
				if size >= 0 {
					size -= n * int64(len(old))
				}
				c.in.needBytes(size, "str.replace")
				return strings.ReplaceAll(o, old, nw)
			})
		case "split":
			return m(func(c *callCtx) Value {
				c.in.charge(int64(len(o)) / bytesPerStep)
				var parts []string
				if c.has(0, "sep") && c.args[0] != nil {
					sep := c.in.str(c.args[0])
					if sep == "" {
						c.in.raise(c.pos, "ValueError", "empty separator")
					}
					c.in.needItems(int64(strings.Count(o, sep))+1, "str.split")
					parts = strings.Split(o, sep)
				} else {
					c.in.needItems(int64(len(o))/2+1, "str.split")
					parts = strings.Fields(o)
				}
				out := &List{Items: make([]Value, len(parts))}
				for i, p := range parts {
					out.Items[i] = p
				}
				return out
			})
		}
	case *List:
		switch name {
		case "append":
			return m(func(c *callCtx) Value {
				if len(o.Items) >= MaxElements {
					c.in.needItems(int64(len(o.Items))+1, "list.append")
				}
				o.Items = append(o.Items, c.need(0, "object"))
				return nil
			})
		case "extend":
			return m(func(c *callCtx) Value {
				items := c.in.iterate(c.need(0, "iterable"), c.node)
				c.in.needItems(addSizes(int64(len(o.Items)), int64(len(items))), "list.extend")
				o.Items = append(o.Items, items...)
				return nil
			})
		case "pop":
			return m(func(c *callCtx) Value {
				if len(o.Items) == 0 {
					c.in.raise(c.pos, "IndexError", "pop from empty list")
				}
				i := len(o.Items) - 1
				if c.has(0, "index") {
					i = c.in.index(c.args[0], len(o.Items), c.node)
				}
				v := o.Items[i]
				c.in.charge(int64(len(o.Items) - i))
				o.Items = append(o.Items[:i], o.Items[i+1:]...)
				return v
			})
		case "insert":
			return m(func(c *callCtx) Value {
				i, _ := asInt(c.need(0, "index"))
				if i < 0 {
					i += int64(len(o.Items))
				}
				i = max(0, min(i, int64(len(o.Items))))
				c.in.needItems(int64(len(o.Items))+1, "list.insert")
				o.Items = append(o.Items[:i], append([]Value{c.need(1, "object")}, o.Items[i:]...)...)
				return nil
			})
		case "index":
			return m(func(c *callCtx) Value {
				x := c.need(0, "value")
				for i := 0; i < len(o.Items); i++ {
					c.in.charge(1)
					if sameObject(o.Items[i], x) || c.in.equal(o.Items[i], x) {
						return int64(i)
					}
				}
				c.in.raise(c.pos, "ValueError", "not in list")
				return nil
			})
		case "copy":
			return m(func(c *callCtx) Value {
				c.in.charge(int64(len(o.Items)))
				return &List{Items: append([]Value{}, o.Items...)}
			})
		case "clear":
			// list.clear() empties the list in place (Python docs, "Mutable
			// Sequence Types"); nki-library's tree_logger clears its log list
			return m(func(c *callCtx) Value {
				o.Items = nil
				return nil
			})
		case "remove":
			// list.remove(x) drops the first item equal to x, ValueError if none
			return m(func(c *callCtx) Value {
				x := c.need(0, "value")
				c.in.charge(int64(len(o.Items)))
				for i := 0; i < len(o.Items); i++ {
					if sameObject(o.Items[i], x) || c.in.equal(o.Items[i], x) {
						o.Items = append(o.Items[:i], o.Items[i+1:]...)
						return nil
					}
				}
				c.in.raise(c.pos, "ValueError", "list.remove(x): x not in list")
				return nil
			})
		case "reverse":
			return m(func(c *callCtx) Value {
				c.in.charge(int64(len(o.Items)))
				for i, j := 0, len(o.Items)-1; i < j; i, j = i+1, j-1 {
					o.Items[i], o.Items[j] = o.Items[j], o.Items[i]
				}
				return nil
			})
		case "count":
			return m(func(c *callCtx) Value {
				n := int64(0)
				x := c.need(0, "value")
				c.in.charge(int64(len(o.Items)))
				for i := 0; i < len(o.Items); i++ {
					if sameObject(o.Items[i], x) || c.in.equal(o.Items[i], x) {
						n++
					}
				}
				return n
			})
		}
	case Tuple:
		switch name {
		case "index":
			return m(func(c *callCtx) Value {
				x := c.need(0, "value")
				for i, v := range o {
					c.in.charge(1)
					if sameObject(v, x) || c.in.equal(v, x) {
						return int64(i)
					}
				}
				c.in.raise(c.pos, "ValueError", "not in tuple")
				return nil
			})
		case "count":
			return m(func(c *callCtx) Value {
				n := int64(0)
				x := c.need(0, "value")
				c.in.charge(int64(len(o)))
				for _, v := range o {
					if sameObject(v, x) || c.in.equal(v, x) {
						n++
					}
				}
				return n
			})
		}
	case *Dict:
		switch name {
		case "get":
			return m(func(c *callCtx) Value {
				if v, ok := c.in.dget(o, c.need(0, "key")); ok {
					return v
				}
				return c.arg(1, "default", nil)
			})
		case "keys":
			return m(func(c *callCtx) Value { c.in.charge(int64(len(o.Keys))); return Tuple(append([]Value{}, o.Keys...)) })
		case "values":
			return m(func(c *callCtx) Value { c.in.charge(int64(len(o.Keys))); return Tuple(append([]Value{}, o.Vals...)) })
		case "items":
			return m(func(c *callCtx) Value {
				c.in.charge(int64(len(o.Keys)))
				out := make(Tuple, len(o.Keys))
				for i := range o.Keys {
					out[i] = Tuple{o.Keys[i], o.Vals[i]}
				}
				return out
			})
		case "setdefault":
			return m(func(c *callCtx) Value {
				k := c.need(0, "key")
				if v, ok := c.in.dget(o, k); ok {
					return v
				}
				d := c.arg(1, "default", nil)
				c.in.dset(o, k, d)
				return d
			})
		case "update":
			return m(func(c *callCtx) Value {
				if src, ok := c.arg(0, "", nil).(*Dict); ok {
					for i := 0; i < len(src.Keys); i++ {
						c.in.dset(o, src.Keys[i], src.Vals[i])
					}
				}
				for _, k := range c.kw {
					c.in.dset(o, k.Name, k.Value)
				}
				return nil
			})
		case "pop":
			return m(func(c *callCtx) Value {
				k := c.need(0, "key")
				if v, ok := c.in.dget(o, k); ok {
					c.in.ddel(o, k)
					return v
				}
				if c.has(1, "default") {
					return c.args[1]
				}
				c.in.raise(c.pos, "KeyError", "%s", repr(k))
				return nil
			})
		case "clear":
			return m(func(c *callCtx) Value {
				o.Keys, o.Vals, o.index = nil, nil, map[string]int{}
				return nil
			})
		case "copy":
			return m(func(c *callCtx) Value {
				d := newDict()
				c.in.charge(int64(len(o.Keys)))
				for i := range o.Keys {
					d.set(o.Keys[i], o.Vals[i])
				}
				return d
			})
		}
	case float64:
		// numpy scalars (np.float32(v), np.sqrt(d)) are floats here:
		// their .item() and .astype(dtype)
		switch name {
		case "item":
			return m(func(c *callCtx) Value { return o })
		case "astype":
			return m(func(c *callCtx) Value {
				d := c.numpyDType(0, "dtype", "float64")
				r := castScalar(d, o)
				if isIntDType(d) {
					return int64(r)
				}
				return r
			})
		case "is_integer":
			return m(func(c *callCtx) Value { return o == math.Trunc(o) })
		}
	case int64:
		if name == "item" {
			return m(func(c *callCtx) Value { return o })
		}
		if name == "bit_length" {
			return m(func(c *callCtx) Value {
				x := uint64(o)
				if o < 0 {
					x = -x
				}
				return int64(bits.Len64(x))
			})
		}
	}
	return nil, false
}

// pyModules returns the standard-library stand-ins.
func (in *interp) pyModules() map[string]*Module {
	mathF := func(name string, f func(float64) float64) *Builtin {
		return bi("math."+name, func(c *callCtx) Value {
			x, ok := num(c.need(0, "x"))
			if !ok {
				c.fail("math.%s of %s", name, typeName(c.args[0]))
			}
			return f(x)
		})
	}
	mathI := func(name string, f func(float64) float64) *Builtin {
		return bi("math."+name, func(c *callCtx) Value {
			x, ok := num(c.need(0, "x"))
			if !ok {
				c.fail("math.%s of %s", name, typeName(c.args[0]))
			}
			if iv, isInt := c.args[0].(int64); isInt {
				return iv
			}
			r := f(x)
			if math.IsInf(r, 0) || math.IsNaN(r) {
				c.in.raise(c.pos, "OverflowError", "cannot convert to integer")
			}
			return int64(r)
		})
	}
	m := map[string]*Module{}
	m["math"] = &Module{Name: "math", Attrs: map[string]Value{
		"ceil": mathI("ceil", math.Ceil), "floor": mathI("floor", math.Floor), "trunc": mathI("trunc", math.Trunc),
		"sqrt": mathF("sqrt", math.Sqrt), "exp": mathF("exp", math.Exp), "log2": mathF("log2", math.Log2),
		"log10": mathF("log10", math.Log10), "fabs": mathF("fabs", math.Abs),
		"log": bi("math.log", func(c *callCtx) Value {
			x, ok := num(c.need(0, "x"))
			if !ok {
				c.fail("math.log of %s", typeName(c.args[0]))
			}
			if c.has(1, "base") {
				b, _ := num(c.args[1])
				return math.Log(x) / math.Log(b)
			}
			return math.Log(x)
		}),
		"pow": bi("math.pow", func(c *callCtx) Value {
			x, _ := num(c.need(0, "x"))
			y, _ := num(c.need(1, "y"))
			return math.Pow(x, y)
		}),
		"gcd": bi("math.gcd", func(c *callCtx) Value {
			a, b := c.int(0, "a"), c.int(1, "b")
			for b != 0 {
				a, b = b, a%b
			}
			if a < 0 {
				a = -a
			}
			return a
		}),
		"isqrt": bi("math.isqrt", func(c *callCtx) Value {
			n := c.int(0, "n")
			if n < 0 {
				c.in.raise(c.pos, "ValueError", "isqrt() argument must be nonnegative")
			}
			r := int64(math.Sqrt(float64(n)))
			for r > 0 && (r > 3037000499 || r*r > n) {
				r--
			}
			for r < 3037000499 && (r+1)*(r+1) <= n {
				r++
			}
			return r
		}),
		"prod": bi("math.prod", func(c *callCtx) Value {
			var acc Value = c.arg(-1, "start", int64(1))
			for _, v := range c.in.iterate(c.need(0, "iterable"), c.node) {
				acc = c.in.binop("*", acc, v, c.pos, c.node)
			}
			return acc
		}),
		"isclose": bi("math.isclose", func(c *callCtx) Value {
			a, _ := num(c.need(0, "a"))
			b, _ := num(c.need(1, "b"))
			return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
		}),
		"inf": math.Inf(1), "pi": math.Pi, "e": math.E, "nan": math.NaN(),
	}}
	reduce := bi("functools.reduce", func(c *callCtx) Value {
		f := c.need(0, "function")
		items := c.in.iterate(c.need(1, "iterable"), c.node)
		var acc Value
		if c.has(2, "initial") {
			acc = c.args[2]
		} else {
			if len(items) == 0 {
				c.in.raise(c.pos, "TypeError", "reduce() of empty iterable with no initial value")
			}
			acc, items = items[0], items[1:]
		}
		for _, v := range items {
			acc = c.in.call(f, []Value{acc, v}, nil, c.pos, nil)
		}
		return acc
	})
	identityDeco := bi("functools.decorator", func(c *callCtx) Value {
		if len(c.args) == 1 && len(c.kw) == 0 {
			if _, ok := c.args[0].(*Func); ok {
				return c.args[0]
			}
		}
		return bi("decorator", func(c2 *callCtx) Value { return c2.need(0, "f") })
	})
	m["functools"] = &Module{Name: "functools", Attrs: map[string]Value{
		"partial": bi("functools.partial", func(c *callCtx) Value {
			if len(c.args) == 0 {
				c.fail("partial() needs a function")
			}
			// a partial of a partial is one partial, as in Python's
			// functools (so nesting them never nests calls)
			if p, ok := c.args[0].(*Partial); ok {
				return &Partial{Fn: p.Fn, Args: append(append([]Value{}, p.Args...), c.args[1:]...), Kw: append(append([]kwarg{}, p.Kw...), c.kw...)}
			}
			return &Partial{Fn: c.args[0], Args: append([]Value{}, c.args[1:]...), Kw: append([]kwarg{}, c.kw...)}
		}),
		"reduce": reduce, "lru_cache": identityDeco, "cache": identityDeco, "wraps": identityDeco,
	}}
	opF := func(name, op string) *Builtin {
		return bi("operator."+name, func(c *callCtx) Value {
			return c.in.binop(op, c.need(0, "a"), c.need(1, "b"), c.pos, c.node)
		})
	}
	m["operator"] = &Module{Name: "operator", Attrs: map[string]Value{
		"mul": opF("mul", "*"), "add": opF("add", "+"), "sub": opF("sub", "-"), "floordiv": opF("floordiv", "//"),
		"truediv": opF("truediv", "/"), "mod": opF("mod", "%"),
	}}
	m["itertools"] = &Module{Name: "itertools", Attrs: map[string]Value{
		"product": bi("itertools.product", func(c *callCtx) Value {
			out := []Tuple{{}}
			for _, a := range c.args {
				items := c.in.iterate(a, c.node)
				c.in.needItems(mulSizes(mulSizes(int64(len(out)), int64(len(items))), int64(len(c.args))+1), "itertools.product")
				var next []Tuple
				for _, p := range out {
					for _, v := range items {
						next = append(next, append(append(Tuple{}, p...), v))
					}
				}
				c.in.needItems(int64(len(next)), "itertools.product")
				out = next
			}
			res := make(Tuple, len(out))
			for i, t := range out {
				res[i] = t
			}
			return res
		}),
		// chain(*iterables) and combinations(iterable, r) as in Python
		// (nki-samples' neuron-team-kernels common.py imports both)
		"chain": bi("itertools.chain", func(c *callCtx) Value {
			var out Tuple
			for _, a := range c.args {
				out = append(out, c.in.iterate(a, c.node)...)
				if len(out) > MaxElements {
					c.fail("chain over %d items", MaxElements)
				}
			}
			return out
		}),
		"combinations": bi("itertools.combinations", func(c *callCtx) Value {
			items := c.in.iterate(c.need(0, "iterable"), c.node)
			r := int(c.int(1, "r"))
			if r < 0 {
				c.in.raise(c.pos, "ValueError", "r must be non-negative")
			}
			var out Tuple
			n := len(items)
			if r > n {
				return out
			}
			// lexicographic index tuples, without recursion (r may be
			// as large as the iterable)
			idx := make([]int, r)
			for i := range idx {
				idx[i] = i
			}
			for {
				t := make(Tuple, r)
				for i, j := range idx {
					t[i] = items[j]
				}
				out = append(out, t)
				// each combination is r items more
				if int64(len(out))*int64(r+1) > MaxElements {
					c.in.needItems(int64(len(out))*int64(r+1), "itertools.combinations")
				}
				c.in.charge(int64(r) + 1)
				i := r - 1
				for i >= 0 && idx[i] == i+n-r {
					i--
				}
				if i < 0 {
					return out
				}
				idx[i]++
				for j := i + 1; j < r; j++ {
					idx[j] = idx[j-1] + 1
				}
			}
		}),
	}}
	m["dataclasses"] = &Module{Name: "dataclasses", Attrs: map[string]Value{
		"dataclass": identityDeco,
		"field": bi("dataclasses.field", func(c *callCtx) Value {
			if c.has(-1, "default") {
				return c.arg(-1, "default", nil)
			}
			if f := c.arg(-1, "default_factory", nil); f != nil {
				return c.in.call(f, nil, nil, c.pos, nil)
			}
			return nil
		}),
	}}
	m["enum"] = &Module{Name: "enum", Attrs: map[string]Value{
		"Enum":    &Opaque{What: "enum.Enum"},
		"IntEnum": &Opaque{What: "enum.IntEnum"},
		"auto":    bi("enum.auto", func(c *callCtx) Value { return enumAuto{} }),
	}}
	// typing: annotations stay opaque; the callables a module runs at
	// import or trace time do what Python does
	typ := &Module{Name: "typing", Attrs: map[string]Value{
		"cast": bi("typing.cast", func(c *callCtx) Value { return c.need(1, "val") }),
		"TypeVar": bi("typing.TypeVar", func(c *callCtx) Value {
			name, _ := c.need(0, "name").(string)
			return &Opaque{What: "typing.TypeVar(" + name + ")"}
		}),
		"NewType": bi("typing.NewType", func(c *callCtx) Value { return c.need(1, "tp") }),
	}, Opaque: true}
	for _, k := range []string{"final", "overload", "no_type_check", "runtime_checkable"} {
		typ.Attrs[k] = bi("typing."+k, func(c *callCtx) Value { return c.need(0, "f") })
	}
	m["typing"] = typ
	m["os"] = &Module{Name: "os", Attrs: map[string]Value{"environ": newDict()}, Opaque: true}
	for _, name := range []string{"sys", "argparse", "unittest", "logging", "scipy", "torch_xla", "torch", "time", "pytest", "abc", "collections", "copy", "inspect", "ast", "textwrap", "warnings"} {
		m[name] = &Module{Name: name, Attrs: map[string]Value{}, Opaque: true}
	}
	return m
}
