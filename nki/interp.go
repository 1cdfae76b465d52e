package nki

import (
	"fmt"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Limits on one trace, so that a hostile kernel cannot run forever or
// exhaust memory.
const (
	MaxSteps     = 20_000_000 // evaluated statements and expressions
	MaxCallDepth = 150
	MaxRecords   = 200_000                   // tensor, loop and call events
	MaxElements  = MaxValueBytes / elemBytes // items of one Python sequence built by the kernel
)

// Error is an evaluation failure at a source position: an unsupported
// construct, a value npukit cannot evaluate honestly, or a Python error the
// kernel itself raised while tracing.
type Error struct {
	File string
	Pos  python.Pos
	// Construct names what could not be evaluated (e.g. "call of np.zeros").
	Construct string
	Msg       string
	// Raised is true when the kernel raised (assert, raise): the kernel is
	// wrong for these arguments, not unsupported.
	Raised bool
}

func (e *Error) Error() string {
	if e.Construct != "" {
		return fmt.Sprintf("%s:%s: %s: %s", e.File, e.Pos, e.Construct, e.Msg)
	}
	return fmt.Sprintf("%s:%s: %s", e.File, e.Pos, e.Msg)
}

// pyExc is a Python exception in flight (caught by try/except).
type pyExc struct {
	Type string
	Msg  string
	Val  Value
	err  *Error
}

type scope struct {
	vars    map[string]Value
	parent  *scope // enclosing function scope (closures)
	mod     *Module
	globals map[string]bool
	class   bool
	// captured: a function made in this scope (or one nested in it)
	// keeps it as its closure, so it outlives the call
	captured bool
}

func newScope(parent *scope, mod *Module) *scope {
	return &scope{vars: map[string]Value{}, parent: parent, mod: mod}
}

type ctl int

const (
	ctlNone ctl = iota
	ctlReturn
	ctlBreak
	ctlContinue
)

// frame is one executing Python function (for error positions and records).
type frame struct {
	mod  *Module
	fn   string
	pos  python.Pos // current call site in this frame
	kern bool       // code of a corpus file (not a callback of a stand-in)
}

type interp struct {
	tr       *tracer
	argsFrom string // Options.ArgsFrom
	steps    int
	frames   []*frame
	builtins map[string]Value
	loader   *loader
	// inCallback counts nested calls made by NKI stand-ins (alloc funcs):
	// loops run there are not the kernel's loops.
	inCallback int
	maxSteps   int
	slab       slab
	host       hostBudget // values of host numpy arrays (hostnumpy.go)
}

// slab hands out the small objects every call makes (call contexts,
// frames, argument lists) from arrays: one allocation per slabChunk of
// them instead of one each. An array lives as long as anything handed out
// from it does.
type slab struct {
	ctxs   []callCtx
	frames []frame
	vals   []Value
	// call contexts and function scopes whose call has returned, to be
	// used again (a scope only if no closure captured it)
	freeCtxs   []*callCtx
	freeScopes []*scope
	freeFrames []*frame
	// ints: recently boxed integers, by value modulo its length (boxInt)
	ints [512]Value
}

// boxInt is v as a Value, sharing the box of the same value made
// recently: kernels compute the same offsets and bounds in their Python
// loops thousands of times, and every fresh box of an integer past 255
// (below that Go shares static ones) is an allocation.
func (s *slab) boxInt(v int64) Value {
	if v >= 0 && v < 256 {
		return v
	}
	slot := &s.ints[uint64(v)%uint64(len(s.ints))]
	if b, ok := (*slot).(int64); ok && b == v {
		return *slot
	}
	*slot = v
	return *slot
}

func (s *slab) doneCtx(c *callCtx) {
	*c = callCtx{}
	s.freeCtxs = append(s.freeCtxs, c)
}

// scope is a function call's empty scope.
func (s *slab) scope(parent *scope, mod *Module) *scope {
	if sc := reuse(&s.freeScopes); sc != nil {
		sc.parent, sc.mod = parent, mod
		return sc
	}
	return &scope{vars: make(map[string]Value, 8), parent: parent, mod: mod}
}

// release takes back the scope of a call that has returned, unless a
// function or lambda made during the call captured it (makeFunc).
func (s *slab) release(sc *scope) {
	if sc.captured {
		return
	}
	clear(sc.vars)
	*sc = scope{vars: sc.vars}
	s.freeScopes = append(s.freeScopes, sc)
}

const slabChunk = 256

// take hands out the next element of an array, starting a new array of
// slabChunk when the last is used up.
func take[T any](free *[]T) *T {
	if len(*free) == 0 {
		*free = make([]T, slabChunk)
	}
	p := &(*free)[0]
	*free = (*free)[1:]
	return p
}

// reuse pops the last element of a free list, nil when it is empty.
func reuse[T any](free *[]*T) *T {
	n := len(*free)
	if n == 0 {
		return nil
	}
	p := (*free)[n-1]
	*free = (*free)[:n-1]
	return p
}

func (s *slab) callCtx() *callCtx {
	if c := reuse(&s.freeCtxs); c != nil {
		return c
	}
	return take(&s.ctxs)
}

func (s *slab) frame() *frame {
	if f := reuse(&s.freeFrames); f != nil {
		return f
	}
	return take(&s.frames)
}

// doneFrame takes back the frame of a call that has returned (nothing
// keeps a frame: sites copy what they need from it).
func (s *slab) doneFrame(f *frame) { s.freeFrames = append(s.freeFrames, f) }

// values is an empty slice with room for n values; appending past n
// reallocates, so it never writes into another caller's values.
func (s *slab) values(n int) []Value {
	if n > slabChunk/8 {
		return make([]Value, 0, n)
	}
	if cap(s.vals)-len(s.vals) < n {
		s.vals = make([]Value, 0, slabChunk*4)
	}
	k := len(s.vals)
	s.vals = s.vals[:k+n]
	return s.vals[k : k : k+n]
}

// drop gives back v, the values taken last, once nothing refers to them
// (the arguments of a call that has returned, its function having
// copied them into its scope). Values that are not the last taken, or
// that append moved elsewhere, stay where they are.
func (s *slab) drop(v []Value) {
	n := cap(v)
	k := len(s.vals) - n
	if n == 0 || k < 0 || &s.vals[k] != &v[:1][0] {
		return
	}
	clear(s.vals[k:])
	s.vals = s.vals[:k]
}

func (in *interp) cur() *frame { return in.frames[len(in.frames)-1] }

// fail aborts the trace with an error at pos.
func (in *interp) fail(pos python.Pos, construct, format string, a ...any) {
	f := in.cur()
	panic(&Error{File: f.mod.File, Pos: pos, Construct: construct, Msg: fmt.Sprintf(format, a...)})
}

// raise throws a Python exception (catchable by try/except).
func (in *interp) raise(pos python.Pos, typ, format string, a ...any) {
	f := in.cur()
	msg := fmt.Sprintf(format, a...)
	panic(&pyExc{Type: typ, Msg: msg, err: &Error{File: f.mod.File, Pos: pos, Msg: typ + ": " + msg, Raised: true}})
}

func (in *interp) step(pos python.Pos) {
	in.steps++
	if in.steps > in.maxSteps {
		in.fail(pos, "", "trace exceeded %d evaluation steps (a bound against kernels that never finish)", in.maxSteps)
	}
	in.cur().pos = pos
}

func (in *interp) src(n python.Node) string {
	f := in.cur()
	if f.mod.AST == nil {
		return ""
	}
	p := n.At()
	if p.Line-1 < len(f.mod.AST.Lines) {
		l := f.mod.AST.Lines[p.Line-1]
		if p.Col <= len(l) {
			s := strings.TrimSpace(l[p.Col:])
			if len(s) > 60 {
				s = s[:60] + "..."
			}
			return s
		}
	}
	return ""
}

// ---- name resolution ----

func (in *interp) lookup(sc *scope, name string, pos python.Pos) Value {
	for s := sc; s != nil; s = s.parent {
		if s.globals != nil && s.globals[name] {
			break
		}
		if v, ok := s.vars[name]; ok {
			return v
		}
	}
	if v, ok := sc.mod.Attrs[name]; ok {
		return v
	}
	if v, ok := in.builtins[name]; ok {
		return v
	}
	in.raise(pos, "NameError", "name %q is not defined", name)
	return nil
}

func (in *interp) assignName(sc *scope, name string, v Value) {
	if sc.globals != nil && sc.globals[name] {
		sc.mod.Attrs[name] = v
		return
	}
	if sc.parent == nil && !sc.class && sc.vars == nil {
		sc.mod.Attrs[name] = v
		return
	}
	sc.vars[name] = v
}

// ---- statements ----

func (in *interp) execBlock(sc *scope, body []python.Stmt) (ctl, Value) {
	for _, s := range body {
		if c, v := in.exec(sc, s); c != ctlNone {
			return c, v
		}
	}
	return ctlNone, nil
}

func (in *interp) exec(sc *scope, s python.Stmt) (ctl, Value) {
	in.step(s.At())
	switch st := s.(type) {
	case *python.ExprStmt:
		if _, ok := st.Value.(*python.Str); ok {
			return ctlNone, nil // docstring
		}
		v := in.eval(sc, st.Value)
		in.tr.discard(v)
	case *python.Assign:
		v := in.eval(sc, st.Value)
		for _, t := range st.Targets {
			in.assign(sc, t, v, st.Value)
		}
	case *python.AnnAssign:
		if sc.class {
			in.annotation(sc, st.Annotation)
		}
		if st.Value != nil {
			v := in.eval(sc, st.Value)
			in.assign(sc, st.Target, v, st.Value)
		} else if sc.class {
			if n, ok := st.Target.(*python.Name); ok {
				sc.vars["__annotations__:"+n.ID] = true
				sc.vars["__fieldorder__"] = append(fieldOrder(sc), n.ID)
			}
		}
		if sc.class && st.Value != nil {
			if n, ok := st.Target.(*python.Name); ok {
				sc.vars["__fieldorder__"] = append(fieldOrder(sc), n.ID)
			}
		}
	case *python.AugAssign:
		in.augAssign(sc, st)
	case *python.Delete:
		for _, t := range st.Targets {
			in.delete(sc, t)
		}
	case *python.Pass:
	case *python.Break:
		return ctlBreak, nil
	case *python.Continue:
		return ctlContinue, nil
	case *python.Return:
		if st.Value == nil {
			return ctlReturn, nil
		}
		return ctlReturn, in.eval(sc, st.Value)
	case *python.Raise:
		if st.Exc == nil {
			in.raise(st.Pos, "RuntimeError", "re-raise")
		}
		v := in.eval(sc, st.Exc)
		typ, msg := excInfo(v)
		panic(&pyExc{Type: typ, Msg: msg, Val: v, err: &Error{File: in.cur().mod.File, Pos: st.Pos, Msg: "kernel raised " + typ + ": " + msg, Raised: true}})
	case *python.Global:
		if sc.globals == nil {
			sc.globals = map[string]bool{}
		}
		for _, n := range st.Names {
			if st.Nonlocal {
				in.fail(st.Pos, "nonlocal", "nonlocal is not supported")
			}
			sc.globals[n] = true
		}
	case *python.Import:
		for _, a := range st.Names {
			m := in.loader.importModule(in, a.Name, 0, st.Pos)
			if a.AsName != "" {
				in.assignName(sc, a.AsName, m)
				continue
			}
			top := strings.SplitN(a.Name, ".", 2)[0]
			in.assignName(sc, top, in.loader.importModule(in, top, 0, st.Pos))
		}
	case *python.ImportFrom:
		for _, a := range st.Names {
			if a.Name == "*" {
				m := in.loader.importModule(in, st.Module, st.Level, st.Pos).(*Module)
				for k, v := range m.Attrs {
					if !strings.HasPrefix(k, "_") {
						in.assignName(sc, k, v)
					}
				}
				continue
			}
			if st.Module == "__future__" && st.Level == 0 {
				if a.Name == "annotations" && sc.mod != nil {
					sc.mod.Attrs[futureAnnotations] = true
				}
				continue
			}
			v := in.loader.importFrom(in, st.Module, st.Level, a.Name, st.Pos)
			name := a.Name
			if a.AsName != "" {
				name = a.AsName
			}
			in.assignName(sc, name, v)
		}
	case *python.Assert:
		v := in.eval(sc, st.Test)
		if !in.truth(v, st.Test) {
			msg := ""
			if st.Msg != nil {
				msg = str(in.eval(sc, st.Msg)) // cut at msgBytes: it is printed
			}
			panic(&pyExc{Type: "AssertionError", Msg: msg, err: &Error{File: in.cur().mod.File, Pos: st.Pos, Construct: "assert " + in.src(st.Test),
				Msg: "the kernel's assertion fails for these arguments" + ifMsg(msg), Raised: true}})
		}
	case *python.If:
		return in.execIf(sc, st)
	case *python.While:
		for n := 0; ; n++ {
			if !in.truth(in.eval(sc, st.Test), st.Test) {
				return in.execBlock(sc, st.Else)
			}
			c, v := in.execBlock(sc, st.Body)
			if c == ctlBreak {
				break
			}
			if c == ctlReturn {
				return c, v
			}
		}
	case *python.For:
		return in.execFor(sc, st)
	case *python.With:
		for _, it := range st.Items {
			v := in.eval(sc, it.Context)
			if it.Vars != nil {
				in.assign(sc, it.Vars, v, it.Context)
			}
		}
		return in.execBlock(sc, st.Body)
	case *python.Try:
		return in.execTry(sc, st)
	case *python.FunctionDef:
		in.defAnnotations(sc, st)
		fn := in.makeFunc(sc, st.Name, st.Args, st.Body, nil, st)
		var v Value = fn
		for i := len(st.Decorators) - 1; i >= 0; i-- {
			v = in.decorate(sc, st.Decorators[i], v, fn)
		}
		in.assignName(sc, st.Name, v)
	case *python.ClassDef:
		in.assignName(sc, st.Name, in.classDef(sc, st))
	default:
		in.fail(s.At(), fmt.Sprintf("%T", s), "statement not supported")
	}
	return ctlNone, nil
}

// defAnnotations evaluates a def's parameter and return annotations, as
// Python does when it runs the def (unless the module imported annotations
// from __future__).
func (in *interp) defAnnotations(sc *scope, st *python.FunctionDef) {
	if sc.mod != nil && sc.mod.Attrs[futureAnnotations] == true {
		return
	}
	a := st.Args
	for _, ps := range [][]python.Param{a.PosOnly, a.Args, a.KwOnly} {
		for _, p := range ps {
			in.annotation(sc, p.Annotation)
		}
	}
	for _, p := range []*python.Param{a.VarArg, a.KwArg} {
		if p != nil {
			in.annotation(sc, p.Annotation)
		}
	}
	in.annotation(sc, st.Returns)
}

// futureAnnotations marks a module that imported annotations from
// __future__ (its annotations stay unevaluated strings).
const futureAnnotations = "__future_annotations__"

// annotation evaluates an annotation for what can fail in Python: an
// attribute the module does not have (nki.dtype on an API without it is an
// AttributeError when the def runs). Typing constructs npukit does not
// model (X | None, subscripted builtins) change nothing in the trace, so
// their evaluation failing is ignored.
func (in *interp) annotation(sc *scope, e python.Expr) {
	if e == nil {
		return
	}
	if _, ok := e.(*python.Str); ok { // a forward reference
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(*Error); ok && !err.Raised && strings.Contains(err.Msg, "(unknown attribute of ") {
				panic(r)
			}
			if _, ok := r.(*Error); !ok {
				panic(r)
			}
		}
	}()
	in.eval(sc, e)
}

func ifMsg(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

func fieldOrder(sc *scope) []string {
	if v, ok := sc.vars["__fieldorder__"].([]string); ok {
		return v
	}
	return nil
}

func excInfo(v Value) (string, string) {
	switch x := v.(type) {
	case *Instance:
		msg := ""
		if a, ok := x.Attrs["args"].(Tuple); ok && len(a) > 0 {
			msg = str(a[0])
		}
		return x.Class.Name, msg
	case *Class:
		return x.Name, ""
	}
	return typeName(v), str(v)
}

func (in *interp) execTry(sc *scope, st *python.Try) (c ctl, v Value) {
	runFinally := func() {
		if st.Finally != nil {
			if fc, fv := in.execBlock(sc, st.Finally); fc != ctlNone {
				c, v = fc, fv
			}
		}
	}
	func() {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			exc, ok := r.(*pyExc)
			if !ok {
				panic(r)
			}
			for _, h := range st.Handlers {
				if h.Type == nil || in.excMatches(sc, h.Type, exc) {
					if h.Name != "" {
						in.assignName(sc, h.Name, exc.Val)
					}
					c, v = in.execBlock(sc, h.Body)
					return
				}
			}
			runFinally()
			panic(r)
		}()
		c, v = in.execBlock(sc, st.Body)
		if c == ctlNone {
			c, v = in.execBlock(sc, st.Else)
		}
	}()
	runFinally()
	return c, v
}

func (in *interp) excMatches(sc *scope, typ python.Expr, exc *pyExc) bool {
	t := in.eval(sc, typ)
	var names []string
	switch x := t.(type) {
	case Tuple:
		for _, e := range x {
			if c, ok := e.(*Class); ok {
				names = append(names, c.Name)
			}
		}
	case *Class:
		names = append(names, x.Name)
	}
	for _, n := range names {
		if n == exc.Type || n == "Exception" || n == "BaseException" {
			return true
		}
	}
	return false
}

func (in *interp) makeFunc(sc *scope, name string, params *python.Params, body []python.Stmt, expr python.Expr, def *python.FunctionDef) *Func {
	in.alloc(funcBytes)
	fn := &Func{Name: name, QualName: name, Params: params, Body: body, Expr: expr, Closure: sc, Mod: sc.mod, Def: def, KwDefs: map[string]Value{}}
	if sc.class {
		fn.Closure = sc.parent
	}
	for s := fn.Closure; s != nil && !s.captured; s = s.parent {
		s.captured = true
	}
	all := append(append([]python.Param{}, params.PosOnly...), params.Args...)
	for _, p := range all[len(all)-params.NDefault:] {
		fn.Defaults = append(fn.Defaults, in.eval(sc, p.Default))
	}
	for _, p := range params.KwOnly {
		if p.Default != nil {
			fn.KwDefs[p.Name] = in.eval(sc, p.Default)
		}
	}
	return fn
}

func (in *interp) decorate(sc *scope, d python.Expr, v Value, fn *Func) Value {
	name := dottedName(d)
	if c, ok := d.(*python.Call); ok {
		name = dottedName(c.Func)
	}
	fn.Decos = append(fn.Decos, name)
	switch {
	case name == "property":
		return &property{Get: v}
	case name == "staticmethod":
		return &staticMethod{Fn: v}
	case name == "classmethod":
		return &classMethod{Fn: v}
	case strings.HasSuffix(name, "jit") || strings.HasSuffix(name, "trace") || strings.HasSuffix(name, "nki_jit") ||
		strings.HasSuffix(name, "benchmark") || strings.HasSuffix(name, "baremetal") || strings.HasSuffix(name, "simulate_kernel") ||
		name == "dataclass" || strings.HasSuffix(name, ".dataclass"):
		if name == "dataclass" || strings.HasSuffix(name, ".dataclass") {
			if c, ok := v.(*Class); ok {
				c.Dataclass = true
			}
		}
		return v // the NKI decorators trace the function as written
	}
	dv := in.eval(sc, d)
	return in.call(dv, []Value{v}, nil, d.At(), d)
}

func dottedName(e python.Expr) string {
	switch x := e.(type) {
	case *python.Name:
		return x.ID
	case *python.Attribute:
		p := dottedName(x.Value)
		if p == "" {
			return ""
		}
		return p + "." + x.Attr
	}
	return ""
}

func (in *interp) classDef(sc *scope, st *python.ClassDef) Value {
	c := &Class{Name: st.Name, Attrs: map[string]Value{}}
	for _, b := range st.Bases {
		bv := in.eval(sc, b)
		switch x := bv.(type) {
		case *Class:
			c.Bases = append(c.Bases, x)
			if x.Enum {
				c.Enum = true
			}
		case *Opaque:
			if strings.HasSuffix(x.What, "Enum") || strings.HasSuffix(x.What, "IntEnum") {
				c.Enum = true
			}
			// object, unittest.TestCase, NKIObject: nothing to inherit
		}
	}
	c.tree = 1
	for _, b := range c.Bases {
		c.tree += max(b.tree, 1)
	}
	if c.tree > maxClassTree {
		in.fail(st.Pos, "class "+st.Name, "its bases reach %d classes through shared ancestors (bound %d)", c.tree, maxClassTree)
	}
	csc := newScope(sc, sc.mod)
	csc.class = true
	in.execBlock(csc, st.Body)
	order := fieldOrder(csc)
	for k, v := range csc.vars {
		if strings.HasPrefix(k, "__annotations__:") || k == "__fieldorder__" {
			continue
		}
		c.Attrs[k] = v
	}
	c.Fields = order
	for _, d := range st.Decorators {
		name := dottedName(d)
		if c2, ok := d.(*python.Call); ok {
			name = dottedName(c2.Func)
		}
		if name == "dataclass" || strings.HasSuffix(name, ".dataclass") {
			c.Dataclass = true
		}
	}
	if c.Enum {
		// auto() is the previous member's integer value plus one (1 for
		// the first), in definition order (Python enum module)
		last := int64(0)
		for _, name := range classAssigned(st.Body) {
			switch v := c.Attrs[name].(type) {
			case enumAuto:
				last++
				c.Attrs[name] = last
			case int64:
				last = v
			}
		}
		for k, v := range c.Attrs {
			if strings.HasPrefix(k, "_") {
				continue
			}
			switch v.(type) {
			case int64, string, float64, Tuple, bool:
				c.Attrs[k] = &enumMember{Class: c, Name: k, Value: v}
			}
		}
	}
	return c
}

// enumAuto is what enum.auto() returns until its Enum class numbers it.
type enumAuto struct{}

// classAssigned lists the names a class body assigns at its top level, in
// order (first assignment).
func classAssigned(body []python.Stmt) []string {
	var out []string
	seen := map[string]bool{}
	add := func(e python.Expr) {
		if n, ok := e.(*python.Name); ok && !seen[n.ID] {
			seen[n.ID] = true
			out = append(out, n.ID)
		}
	}
	for _, s := range body {
		switch st := s.(type) {
		case *python.Assign:
			for _, t := range st.Targets {
				add(t)
			}
		case *python.AnnAssign:
			add(st.Target)
		}
	}
	return out
}

// enumMember is a member of an Enum class.
type enumMember struct {
	Class *Class
	Name  string
	Value Value
}

func (in *interp) execIf(sc *scope, st *python.If) (ctl, Value) {
	v := in.eval(sc, st.Test)
	if s, ok := v.(*Sym); ok {
		return in.symbolicIf(sc, st, s)
	}
	if in.truth(v, st.Test) {
		return in.execBlock(sc, st.Body)
	}
	return in.execBlock(sc, st.Else)
}

// ---- assignment ----

func (in *interp) assign(sc *scope, target python.Expr, v Value, src python.Expr) {
	switch t := target.(type) {
	case *python.Name:
		v = in.tr.bind(in, v, t.ID, src)
		in.assignName(sc, t.ID, v)
	case *python.Tuple, *python.List:
		var elts []python.Expr
		if tt, ok := t.(*python.Tuple); ok {
			elts = tt.Elts
		} else {
			elts = t.(*python.List).Elts
		}
		items := in.iterate(v, target)
		star := -1
		for i, e := range elts {
			if _, ok := e.(*python.Starred); ok {
				star = i
			}
		}
		if star < 0 {
			if len(items) != len(elts) {
				in.raise(target.At(), "ValueError", "cannot unpack %d values into %d targets", len(items), len(elts))
			}
			for i, e := range elts {
				in.assign(sc, e, items[i], nil)
			}
			return
		}
		if len(items) < len(elts)-1 {
			in.raise(target.At(), "ValueError", "not enough values to unpack")
		}
		for i := 0; i < star; i++ {
			in.assign(sc, elts[i], items[i], nil)
		}
		nAfter := len(elts) - star - 1
		mid := items[star : len(items)-nAfter]
		in.assign(sc, elts[star].(*python.Starred).Value, &List{Items: append([]Value{}, mid...)}, nil)
		for i := 0; i < nAfter; i++ {
			in.assign(sc, elts[star+1+i], items[len(items)-nAfter+i], nil)
		}
	case *python.Attribute:
		obj := in.eval(sc, t.Value)
		in.setAttr(obj, t.Attr, v, t.Pos)
	case *python.Subscript:
		obj := in.eval(sc, t.Value)
		idx := in.eval(sc, t.Index)
		in.setItem(obj, idx, v, t, false)
	case *python.Starred:
		in.fail(t.Pos, "starred assignment", "a starred target outside a tuple")
	default:
		in.fail(target.At(), "assignment to "+in.src(target), "target not supported")
	}
}

func (in *interp) augAssign(sc *scope, st *python.AugAssign) {
	switch t := st.Target.(type) {
	case *python.Name:
		old := in.lookup(sc, t.ID, t.Pos)
		rhs := in.eval(sc, st.Value)
		if isTensorish(old) {
			in.tr.accumulate(in, old, rhs, st.Op, st, "")
			return
		}
		in.assignName(sc, t.ID, in.binop(st.Op, old, rhs, st.Pos, st))
	case *python.Subscript:
		obj := in.eval(sc, t.Value)
		idx := in.eval(sc, t.Index)
		rhs := in.eval(sc, st.Value)
		if isTensorish(obj) {
			view := in.getItem(obj, idx, t)
			in.tr.accumulate(in, view, rhs, st.Op, st, "")
			return
		}
		old := in.getItem(obj, idx, t)
		in.setItem(obj, idx, in.binop(st.Op, old, rhs, st.Pos, st), t, false)
	case *python.Attribute:
		obj := in.eval(sc, t.Value)
		old := in.getAttr(obj, t.Attr, t.Pos)
		rhs := in.eval(sc, st.Value)
		if isTensorish(old) {
			in.tr.accumulate(in, old, rhs, st.Op, st, "")
			return
		}
		in.setAttr(obj, t.Attr, in.binop(st.Op, old, rhs, st.Pos, st), t.Pos)
	default:
		in.fail(st.Pos, "augmented assignment to "+in.src(st.Target), "target not supported")
	}
}

func (in *interp) delete(sc *scope, t python.Expr) {
	switch x := t.(type) {
	case *python.Name:
		delete(sc.vars, x.ID)
	case *python.Subscript:
		obj := in.eval(sc, x.Value)
		idx := in.eval(sc, x.Index)
		switch o := obj.(type) {
		case *Dict:
			if !in.ddel(o, idx) {
				in.raise(x.Pos, "KeyError", "%s", repr(idx))
			}
		case *List:
			i := in.index(idx, len(o.Items), x)
			in.charge(int64(len(o.Items) - i))
			o.Items = append(o.Items[:i], o.Items[i+1:]...)
		default:
			in.fail(x.Pos, "del "+in.src(x), "deleting from a %s", typeName(obj))
		}
	case *python.Attribute:
		obj := in.eval(sc, x.Value)
		if o, ok := obj.(*Instance); ok {
			delete(o.Attrs, x.Attr)
		}
	}
}
