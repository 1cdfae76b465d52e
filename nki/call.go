package nki

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// callCtx is what a Go-implemented function receives.
type callCtx struct {
	in   *interp
	args []Value
	kw   []kwarg
	pos  python.Pos
	node *python.Call // nil when called by the tracer itself
	name string
}

func (c *callCtx) fail(format string, a ...any) {
	c.in.fail(c.pos, "call of "+c.name, format, a...)
}

// arg returns positional argument i or keyword name (or def when absent).
func (c *callCtx) arg(i int, name string, def Value) Value {
	if i >= 0 && i < len(c.args) {
		return c.args[i]
	}
	for _, k := range c.kw {
		if k.Name == name {
			return k.Value
		}
	}
	return def
}

func (c *callCtx) has(i int, name string) bool {
	if i >= 0 && i < len(c.args) {
		return true
	}
	for _, k := range c.kw {
		if k.Name == name {
			return true
		}
	}
	return false
}

func (c *callCtx) need(i int, name string) Value {
	if !c.has(i, name) {
		c.fail("missing argument %s", name)
	}
	return c.arg(i, name, nil)
}

func (c *callCtx) int(i int, name string) int64 {
	v := c.need(i, name)
	n, ok := asInt(v)
	if !ok {
		c.fail("argument %s is %s, not an integer known at trace time", name, typeName(v))
	}
	return n
}

func asInt(v Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		return b2i(x), true
	case *enumMember:
		return asInt(x.Value)
	}
	return 0, false
}

func (in *interp) evalCall(sc *scope, x *python.Call) Value {
	fn := in.eval(sc, x.Func)
	args := in.slab.values(len(x.Args))
	for _, a := range x.Args {
		if s, ok := a.(*python.Starred); ok {
			args = append(args, in.iterate(in.eval(sc, s.Value), s)...)
			continue
		}
		args = append(args, in.eval(sc, a))
	}
	var kws []kwarg
	if len(x.Keywords) > 0 {
		kws = make([]kwarg, 0, len(x.Keywords))
	}
	for _, k := range x.Keywords {
		v := in.eval(sc, k.Value)
		if k.Name == "" {
			d, ok := v.(*Dict)
			if !ok {
				in.fail(k.Pos, "**"+typeName(v), "keyword unpacking of a non-dict")
			}
			in.charge(16 * int64(len(d.Keys))) // each becomes a keyword, then a parameter or a **kwargs entry (a hash, map and scope work)
			for i, key := range d.Keys {
				ks, ok := key.(string)
				if !ok {
					in.raise(k.Pos, "TypeError", "keywords must be strings")
				}
				kws = append(kws, kwarg{ks, d.Vals[i]})
			}
			continue
		}
		kws = append(kws, kwarg{k.Name, v})
	}
	v := in.call(fn, args, kws, x.Pos, x)
	if _, ok := fn.(*Func); ok {
		in.slab.drop(args)
	}
	return v
}

// call invokes any callable value.
func (in *interp) call(fn Value, args []Value, kws []kwarg, pos python.Pos, node python.Node) Value {
	cn, _ := node.(*python.Call)
	switch f := fn.(type) {
	case *Func:
		return in.callFunc(f, args, kws, pos)
	case *Builtin:
		return in.callBuiltin(f.Fn, callCtx{in: in, args: args, kw: kws, pos: pos, node: cn, name: f.Name})
	case *typeVal:
		return in.callBuiltin(f.Fn, callCtx{in: in, args: args, kw: kws, pos: pos, node: cn, name: f.Name})
	case *BoundMethod:
		return in.call(f.Fn, append([]Value{f.Self}, args...), kws, pos, node)
	case *Partial:
		return in.call(f.Fn, append(append([]Value{}, f.Args...), args...), append(append([]kwarg{}, f.Kw...), kws...), pos, node)
	case *Class:
		return in.instantiate(f, args, kws, pos)
	case *staticMethod:
		return in.call(f.Fn, args, kws, pos, node)
	case *Instance:
		if m, ok := in.findAttr(f.Class, "__call__"); ok {
			return in.call(m, append([]Value{f}, args...), kws, pos, node)
		}
	case *Opaque:
		if name, ok := strings.CutPrefix(f.What, "numpy."); ok {
			if v, ok := in.numpyCall(name, args, kws, pos); ok {
				return v
			}
		}
		in.fail(pos, "call of "+f.What, "npukit does not model %s", f.What)
	case DType:
		// numpy's scalar types: np.float32(v), np.dtype(d).type(v)
		return in.callBuiltin(func(c *callCtx) Value { return in.numpyScalar(f, c) }, callCtx{in: in, args: args, kw: kws, pos: pos, node: cn, name: "numpy." + string(f)})
	}
	in.raise(pos, "TypeError", "%s is not callable", typeName(fn))
	return nil
}

func (in *interp) callFunc(f *Func, args []Value, kws []kwarg, pos python.Pos) Value {
	if len(in.frames) > MaxCallDepth {
		in.fail(pos, "call of "+f.Name, "call depth over %d", MaxCallDepth)
	}
	ps := f.Params
	// The scope starts empty, so a parameter is bound once it has a
	// variable (parameter names are distinct).
	sc := in.slab.scope(f.Closure, f.Mod)
	bound := func(name string) bool { _, ok := sc.vars[name]; return ok }
	positional := ps.Args
	if len(ps.PosOnly) > 0 {
		positional = append(append([]python.Param{}, ps.PosOnly...), ps.Args...)
	}
	for i, a := range args {
		if i < len(positional) {
			sc.vars[positional[i].Name] = a
			continue
		}
		if ps.VarArg == nil {
			in.raise(pos, "TypeError", "%s() takes %d positional arguments but %d were given", f.Name, len(positional), len(args))
		}
		break
	}
	if ps.VarArg != nil {
		var rest Tuple
		if len(args) > len(positional) {
			rest = append(rest, args[len(positional):]...)
		}
		sc.vars[ps.VarArg.Name] = rest
	}
	var extra *Dict
	if ps.KwArg != nil {
		extra = newDict()
		sc.vars[ps.KwArg.Name] = extra
	}
	for _, k := range kws {
		ok := false
		for _, p := range ps.Args {
			if p.Name == k.Name {
				ok = true
			}
		}
		for _, p := range ps.KwOnly {
			if p.Name == k.Name {
				ok = true
			}
		}
		if ok {
			if bound(k.Name) {
				in.raise(pos, "TypeError", "%s() got multiple values for argument %q", f.Name, k.Name)
			}
			sc.vars[k.Name] = k.Value
			continue
		}
		if extra == nil {
			in.raise(pos, "TypeError", "%s() got an unexpected keyword argument %q", f.Name, k.Name)
		}
		extra.set(k.Name, k.Value)
	}
	nd := len(positional) - ps.NDefault
	if in.cur().fn == "<trace>" {
		in.kernelArgsGiven(f, positional[:max(nd, 0)], bound)
	}
	for i, p := range positional {
		if bound(p.Name) {
			continue
		}
		if i >= nd {
			sc.vars[p.Name] = f.Defaults[i-nd]
			continue
		}
		in.raise(pos, "TypeError", "%s() missing required argument %q", f.Name, p.Name)
	}
	for _, p := range ps.KwOnly {
		if bound(p.Name) {
			continue
		}
		d, ok := f.KwDefs[p.Name]
		if !ok {
			in.raise(pos, "TypeError", "%s() missing keyword-only argument %q", f.Name, p.Name)
		}
		sc.vars[p.Name] = d
	}
	fr := in.slab.frame()
	*fr = frame{mod: f.Mod, fn: f.Name, pos: pos, kern: in.inCallback == 0}
	in.frames = append(in.frames, fr)
	defer func() {
		in.frames = in.frames[:len(in.frames)-1]
		in.slab.doneFrame(fr)
	}()
	var v Value
	if f.Expr != nil {
		v = in.eval(sc, f.Expr)
	} else {
		_, v = in.execBlock(sc, f.Body)
	}
	in.slab.release(sc)
	return v
}

// callBuiltin runs a Go-implemented callable with a call context that is
// reused once the call returns: a builtin reads its arguments and returns,
// nothing keeps the context (values it keeps, such as a partial's
// arguments, are copied out of it).
func (in *interp) callBuiltin(fn func(*callCtx) Value, ctx callCtx) Value {
	c := in.slab.callCtx()
	*c = ctx
	v := fn(c)
	in.slab.doneCtx(c)
	return v
}

func (in *interp) findAttr(c *Class, name string) (Value, bool) {
	if v, ok := c.Attrs[name]; ok {
		return v, true
	}
	for _, b := range c.Bases {
		if v, ok := in.findAttr(b, name); ok {
			return v, true
		}
	}
	return nil, false
}

func (in *interp) instantiate(c *Class, args []Value, kws []kwarg, pos python.Pos) Value {
	in.alloc(objectBytes)
	if isExceptionClass(c) {
		return &Instance{Class: c, Attrs: map[string]Value{"args": Tuple(args)}}
	}
	if c.Enum {
		if len(args) == 1 {
			for _, v := range c.Attrs {
				if m, ok := v.(*enumMember); ok && equal(m.Value, args[0]) {
					return m
				}
			}
		}
		in.raise(pos, "ValueError", "not a member of %s", c.Name)
	}
	obj := &Instance{Class: c, Attrs: map[string]Value{}}
	if init, ok := in.findAttr(c, "__init__"); ok {
		in.call(init, append([]Value{obj}, args...), kws, pos, nil)
		return obj
	}
	if c.Dataclass || len(c.Fields) > 0 {
		fields := in.dataFields(c)
		for i, a := range args {
			if i >= len(fields) {
				in.raise(pos, "TypeError", "%s takes %d arguments", c.Name, len(fields))
			}
			obj.Attrs[fields[i]] = a
		}
		for _, k := range kws {
			obj.Attrs[k.Name] = k.Value
		}
		for _, f := range fields {
			if _, ok := obj.Attrs[f]; !ok {
				if d, ok := in.findAttr(c, f); ok {
					obj.Attrs[f] = d
				} else {
					in.raise(pos, "TypeError", "%s missing field %q", c.Name, f)
				}
			}
		}
		if post, ok := in.findAttr(c, "__post_init__"); ok {
			in.call(post, []Value{obj}, nil, pos, nil)
		}
	}
	return obj
}

func (in *interp) dataFields(c *Class) []string {
	var out []string
	for i := len(c.Bases) - 1; i >= 0; i-- {
		out = append(out, in.dataFields(c.Bases[i])...)
	}
	seen := map[string]bool{}
	for _, f := range out {
		seen[f] = true
	}
	for _, f := range c.Fields {
		if !seen[f] {
			out = append(out, f)
			seen[f] = true
		}
	}
	return out
}

func isExceptionClass(c *Class) bool {
	if strings.HasSuffix(c.Name, "Error") || strings.HasSuffix(c.Name, "Exception") {
		return true
	}
	for _, b := range c.Bases {
		if isExceptionClass(b) {
			return true
		}
	}
	return false
}

// ---- attributes ----

func (in *interp) getAttr(obj Value, name string, pos python.Pos) Value {
	switch o := obj.(type) {
	case *Module:
		if v, ok := o.Attrs[name]; ok {
			return v
		}
		if o.Opaque && (o.Names == nil || o.Names[name]) {
			return &Opaque{What: o.Name + "." + name}
		}
		if o.AST != nil {
			if sub := in.loader.submodule(in, o, name, pos); sub != nil {
				return sub
			}
		}
		in.fail(pos, o.Name+"."+name, "not modelled by npukit (unknown attribute of %s)", o.Name)
	case *Instance:
		if v, ok := o.Attrs[name]; ok {
			return v
		}
		if v, ok := in.findAttr(o.Class, name); ok {
			return in.bindAttr(o, v, pos)
		}
		if name == "__class__" {
			return o.Class
		}
		in.raise(pos, "AttributeError", "'%s' object has no attribute %q", o.Class.Name, name)
	case *Class:
		if v, ok := in.findAttr(o, name); ok {
			switch m := v.(type) {
			case *classMethod:
				return &BoundMethod{Self: o, Fn: m.Fn}
			case *staticMethod:
				return m.Fn
			}
			return v
		}
		if name == "__name__" {
			return o.Name
		}
		in.raise(pos, "AttributeError", "type object %q has no attribute %q", o.Name, name)
	case *enumMember:
		switch name {
		case "value":
			return o.Value
		case "name":
			return o.Name
		}
		if v, ok := in.findAttr(o.Class, name); ok {
			if f, ok := v.(*Func); ok {
				return &BoundMethod{Self: o, Fn: f}
			}
			if p, ok := v.(*property); ok {
				return in.call(p.Get, []Value{o}, nil, pos, nil)
			}
			return v
		}
	case *Func:
		switch name {
		case "__name__":
			return o.Name
		case "__qualname__":
			return o.QualName
		}
	case *Opaque:
		return &Opaque{What: o.What + "." + name}
	case *NDArray:
		if v, ok := in.ndAttr(o, name); ok {
			return v
		}
	case DType:
		switch name {
		case "type": // np.dtype(d).type is the scalar type
			return o
		case "name":
			return string(o)
		}
	}
	if v, ok := in.tr.attr(in, obj, name, pos); ok {
		return v
	}
	if v, ok := builtinMethod(in, obj, name, pos); ok {
		return v
	}
	in.raise(pos, "AttributeError", "%s has no attribute %q", typeName(obj), name)
	return nil
}

func (in *interp) bindAttr(self Value, v Value, pos python.Pos) Value {
	switch m := v.(type) {
	case *Func, *Builtin, *Partial:
		return &BoundMethod{Self: self, Fn: m}
	case *property:
		return in.call(m.Get, []Value{self}, nil, pos, nil)
	case *staticMethod:
		return m.Fn
	case *classMethod:
		if inst, ok := self.(*Instance); ok {
			return &BoundMethod{Self: inst.Class, Fn: m.Fn}
		}
	}
	return v
}

func (in *interp) setAttr(obj Value, name string, v Value, pos python.Pos) {
	switch o := obj.(type) {
	case *Instance:
		if p, ok := in.findAttr(o.Class, name); ok {
			if _, isProp := p.(*property); isProp {
				in.fail(pos, "property setter "+name, "not supported")
			}
		}
		o.Attrs[name] = v
		return
	case *Class:
		o.Attrs[name] = v
		return
	case *Module:
		if !o.Opaque {
			o.Attrs[name] = v
			return
		}
	case *Func:
		return // function attributes are metadata
	}
	in.fail(pos, "setting ."+name+" of "+typeName(obj), "not supported")
}

// ---- items ----

func (in *interp) index(idx Value, n int, node python.Node) int {
	i, ok := asInt(idx)
	if !ok {
		if _, sym := idx.(*Sym); sym {
			in.fail(node.At(), "Python indexing with a symbolic loop index", "a list or tuple cannot be indexed per iteration at trace time")
		}
		in.raise(node.At(), "TypeError", "indices must be integers, not %s", typeName(idx))
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		in.raise(node.At(), "IndexError", "index %d out of range for length %d", i, n)
	}
	return int(i)
}

func (in *interp) sliceBounds(s *SliceVal, n int, node python.Node) (start, stop, step int) {
	step = 1
	if s.Step != nil {
		st, ok := asInt(s.Step)
		if !ok || st == 0 {
			in.raise(node.At(), "ValueError", "slice step must be a non-zero integer")
		}
		step = int(st)
	}
	get := func(v Value, def int) int {
		if v == nil {
			return def
		}
		i, ok := asInt(v)
		if !ok {
			in.fail(node.At(), "slice bound "+typeName(v), "slice of a Python sequence needs integer bounds")
		}
		x := int(i)
		if x < 0 {
			x += n
		}
		if step > 0 {
			return max(0, min(x, n))
		}
		return max(-1, min(x, n-1))
	}
	if step > 0 {
		start, stop = get(s.Lower, 0), get(s.Upper, n)
	} else {
		start, stop = get(s.Lower, n-1), get(s.Upper, -1)
	}
	return
}

func sliceItems(items []Value, start, stop, step int) []Value {
	var out []Value
	if step > 0 {
		for i := start; i < stop; i += step {
			out = append(out, items[i])
		}
	} else {
		for i := start; i > stop; i += step {
			out = append(out, items[i])
		}
	}
	return out
}

func (in *interp) getItem(obj, idx Value, node python.Node) Value {
	switch o := obj.(type) {
	case Tuple:
		if s, ok := idx.(*SliceVal); ok {
			a, b, st := in.sliceBounds(s, len(o), node)
			out := Tuple(sliceItems(o, a, b, st))
			in.charge(int64(len(out)))
			return out
		}
		return o[in.index(idx, len(o), node)]
	case *List:
		if s, ok := idx.(*SliceVal); ok {
			a, b, st := in.sliceBounds(s, len(o.Items), node)
			out := &List{Items: sliceItems(o.Items, a, b, st)}
			in.charge(int64(len(out.Items)))
			return out
		}
		return o.Items[in.index(idx, len(o.Items), node)]
	case *IntArray:
		if s, ok := idx.(*SliceVal); ok {
			a, b, st := in.sliceBounds(s, len(o.Vals), node)
			out := &IntArray{DType: o.DType}
			for _, v := range sliceItems(o.items(), a, b, st) {
				out.Vals = append(out.Vals, v.(int64))
			}
			return out
		}
		return o.Vals[in.index(idx, len(o.Vals), node)]
	case string:
		if s, ok := idx.(*SliceVal); ok {
			a, b, st := in.sliceBounds(s, len(o), node)
			if st == 1 {
				if b <= a {
					return ""
				}
				return o[a:b]
			}
			in.charge(int64(b-a) / int64(st) / bytesPerStep)
			var sb []byte
			if st > 0 {
				for i := a; i < b; i += st {
					sb = append(sb, o[i])
				}
			} else {
				for i := a; i > b; i += st {
					sb = append(sb, o[i])
				}
			}
			return string(sb)
		}
		return string(o[in.index(idx, len(o), node)])
	case *Dict:
		v, ok := in.dget(o, idx)
		if !ok {
			in.raise(node.At(), "KeyError", "%s", repr(idx))
		}
		return v
	case *Instance:
		if f, ok := in.findAttr(o.Class, "__getitem__"); ok {
			return in.call(f, []Value{o, idx}, nil, node.At(), nil)
		}
	case *Class:
		if f, ok := in.findAttr(o, "__class_getitem__"); ok {
			return in.call(f, []Value{idx}, nil, node.At(), nil)
		}
		if o.Enum {
			if s, ok := idx.(string); ok {
				if m, ok := o.Attrs[s]; ok {
					return m
				}
			}
		}
	case *Opaque:
		return &Opaque{What: o.What + "[...]"} // typing annotations: Optional[int]
	case *NDArray:
		return in.ndGetItem(o, idx, node)
	}
	if v, ok := in.tr.item(in, obj, idx, node); ok {
		return v
	}
	in.fail(node.At(), "indexing a "+typeName(obj), "not supported")
	return nil
}

func stringItems(s string) []Value {
	out := make([]Value, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}

func (in *interp) setItem(obj, idx, v Value, node python.Node, accumulate bool) {
	switch o := obj.(type) {
	case *List:
		if _, ok := idx.(*SliceVal); ok {
			in.fail(node.At(), "slice assignment to a list", "not supported")
		}
		o.Items[in.index(idx, len(o.Items), node)] = v
		return
	case *Dict:
		in.dset(o, idx, v)
		return
	case *Instance:
		if f, ok := in.findAttr(o.Class, "__setitem__"); ok {
			in.call(f, []Value{o, idx, v}, nil, node.At(), nil)
			return
		}
	case *NDArray:
		in.ndSetItem(o, idx, v, node)
		return
	}
	if isTensorish(obj) {
		in.tr.store(in, obj, idx, v, node)
		return
	}
	in.fail(node.At(), "item assignment to a "+typeName(obj), "not supported")
}

// iterate returns the items of an iterable known at trace time.
func (in *interp) iterate(v Value, node python.Node) []Value {
	switch x := v.(type) {
	case Tuple:
		return x
	case *List:
		in.needItems(int64(len(x.Items)), "iterating a list")
		return append([]Value{}, x.Items...)
	case *IntArray:
		in.needItems(int64(len(x.Vals)), "iterating an array")
		return x.items()
	case string:
		in.needItems(int64(len(x)), "iterating a string")
		return stringItems(x)
	case *Dict:
		in.needItems(int64(len(x.Keys)), "iterating a dict")
		return append([]Value{}, x.Keys...)
	case *RangeVal:
		if x.Symbolic {
			in.fail(node.At(), "iterating "+x.Kind+" outside a for statement", "a symbolic range has no items at trace time")
		}
		n := x.Len()
		in.needItems(n, "range")
		out := make([]Value, 0, n)
		for i := x.Start; (x.Step > 0 && i < x.Stop) || (x.Step < 0 && i > x.Stop); i += x.Step {
			out = append(out, in.slab.boxInt(i))
		}
		return out
	case *Instance:
		if f, ok := in.findAttr(x.Class, "__iter__"); ok {
			it := in.call(f, []Value{x}, nil, node.At(), nil)
			if iv, ok := it.(*Instance); ok {
				// iter() takes what __iter__ returns as the iterator: it
				// needs __next__ (it is never asked for __iter__ again)
				nx, ok := in.findAttr(iv.Class, "__next__")
				if !ok {
					in.raise(node.At(), "TypeError", "iter() returned non-iterator of type '%s'", iv.Class.Name)
				}
				return in.drain(iv, nx, node)
			}
			return in.iterate(it, node)
		}
	case *Class:
		if x.Enum {
			var out []Value
			for _, k := range sortedKeys(x.Attrs) {
				if m, ok := x.Attrs[k].(*enumMember); ok {
					out = append(out, m)
				}
			}
			return out
		}
	case *Opaque:
		in.fail(node.At(), "iterating "+x.What, "npukit does not model %s", x.What)
	}
	if items, ok := in.tr.iterate(in, v, node); ok {
		return items
	}
	in.raise(node.At(), "TypeError", "%s is not iterable", typeName(v))
	return nil
}

// drain calls __next__ until StopIteration.
func (in *interp) drain(obj Value, next Value, node python.Node) (out []Value) {
	for {
		stop := false
		func() {
			defer func() {
				if r := recover(); r != nil {
					if e, ok := r.(*pyExc); ok && e.Type == "StopIteration" {
						stop = true
						return
					}
					panic(r)
				}
			}()
			out = append(out, in.call(next, []Value{obj}, nil, node.At(), nil))
		}()
		if stop {
			return out
		}
		if len(out) > MaxElements {
			in.fail(node.At(), "iterator", "more than %d items", MaxElements)
		}
	}
}

func describeCallee(e python.Expr) string {
	if n := dottedName(e); n != "" {
		return n
	}
	return fmt.Sprintf("%T", e)
}

// kernelArgsGiven refuses the traced kernel's call when a parameter
// without a default has no value. It is not the kernel's TypeError (the
// kernel never called itself wrongly) but the request's: the error names
// every missing argument at its parameter and says where to give it.
func (in *interp) kernelArgsGiven(f *Func, required []python.Param, bound func(string) bool) {
	var missing []python.Param
	for _, p := range required {
		if !bound(p.Name) {
			missing = append(missing, p)
		}
	}
	for _, p := range f.Params.KwOnly {
		if _, ok := f.KwDefs[p.Name]; !ok && !bound(p.Name) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return
	}
	var names, flags []string
	for _, p := range missing {
		names = append(names, strconv.Quote(p.Name))
		flags = append(flags, "--arg "+p.Name+"=DTYPE[D0,D1,...]")
	}
	noun := "argument"
	if len(missing) > 1 {
		noun = "arguments"
	}
	msg := fmt.Sprintf("%s(): no value for %s %s", f.Name, noun, strings.Join(names, ", "))
	if in.argsFrom == "" {
		msg += fmt.Sprintf(": give %s (a tensor; NAME=VALUE for a number, bool, None or string)", strings.Join(flags, " "))
	} else {
		msg += fmt.Sprintf(": %s gives none", in.argsFrom)
	}
	file := in.cur().mod.File
	if f.Mod != nil {
		file = f.Mod.File
	}
	panic(&Error{File: file, Pos: missing[0].Pos, Msg: msg})
}
