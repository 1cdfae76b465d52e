package nki

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Value is a Python value during tracing: nil (None), bool, int64,
// float64, string, or one of the types below.
type Value any

// Tuple is an immutable sequence.
type Tuple []Value

// List is a mutable sequence.
type List struct{ Items []Value }

// Dict is an insertion-ordered dictionary of hashable keys.
type Dict struct {
	Keys  []Value
	Vals  []Value
	index map[string]int
}

// ellipsisT is Python's Ellipsis.
type ellipsisT struct{}

var ellipsis = ellipsisT{}

// SliceVal is a slice object (a:b:c).
type SliceVal struct{ Lower, Upper, Step Value }

// Func is a Python function (def or lambda) with its closure.
type Func struct {
	Name     string
	QualName string
	Params   *python.Params
	Body     []python.Stmt // def
	Expr     python.Expr   // lambda
	Defaults []Value       // for the last NDefault of PosOnly+Args
	KwDefs   map[string]Value
	Closure  *scope
	Mod      *Module
	Def      *python.FunctionDef
	Decos    []string
}

// Builtin is a function implemented in Go.
type Builtin struct {
	Name string
	Fn   func(c *callCtx) Value
}

// Module is a namespace: a Python module, a stand-in NKI module, or an
// attribute namespace such as nl.tile_size.
type Module struct {
	Name  string
	Attrs map[string]Value
	File  string
	AST   *python.Module
	// Opaque modules (numpy, typing, ...) give opaque attributes.
	Opaque bool
	// Names, when set, are the only names an opaque module has beyond
	// Attrs; any other attribute is an AttributeError, as in Python.
	Names map[string]bool
}

// Class is a Python class.
type Class struct {
	Name  string
	Bases []*Class
	Attrs map[string]Value
	// Opaque base (e.g. unittest.TestCase): the class is usable as a
	// namespace but instances only get what the class defines.
	Dataclass bool
	Fields    []string
	Enum      bool
}

// Instance is an object of a Class.
type Instance struct {
	Class *Class
	Attrs map[string]Value
}

// BoundMethod is a function bound to its first argument.
type BoundMethod struct {
	Self Value
	Fn   Value
}

// Partial is functools.partial.
type Partial struct {
	Fn   Value
	Args []Value
	Kw   []kwarg
}

// Opaque is a value npukit does not model (an attribute of numpy, typing,
// ...). It may be passed around and stored; any computation with it is an
// error naming where it came from.
type Opaque struct{ What string }

// property is a @property descriptor.
type property struct{ Get Value }

// staticMethod and classMethod are method descriptors.
type staticMethod struct{ Fn Value }
type classMethod struct{ Fn Value }

// typeVal is a builtin type used as a constructor and in isinstance.
type typeVal struct {
	Name string
	Fn   func(c *callCtx) Value
}

type kwarg struct {
	Name  string
	Value Value
}

func typeName(v Value) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case Tuple:
		return "tuple"
	case *List:
		return "list"
	case *IntArray:
		return "numpy.ndarray"
	case *Dict:
		return "dict"
	case *Func:
		return "function"
	case *Builtin:
		return "builtin function"
	case *Module:
		return "module"
	case *Class:
		return "type"
	case *Instance:
		return x.Class.Name
	case *Sym:
		return "symbolic loop index"
	case *Tensor:
		return "tensor"
	case *View:
		return "tensor view"
	case *Tile:
		return "tile"
	case *Grid:
		return "index grid"
	case *Opaque:
		return x.What
	case DType:
		return "dtype"
	case *RangeVal:
		return "range"
	}
	return fmt.Sprintf("%T", v)
}

// hashKey renders a hashable value as a map key.
func hashKey(v Value) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "N", true
	case bool:
		if x {
			return "i1", true
		}
		return "i0", true
	case int64:
		return "i" + strconv.FormatInt(x, 10), true
	case float64:
		if x == float64(int64(x)) {
			return "i" + strconv.FormatInt(int64(x), 10), true
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return "s" + x, true
	case DType:
		return "d" + string(x), true
	case Tuple:
		parts := make([]string, len(x))
		for i, e := range x {
			k, ok := hashKey(e)
			if !ok {
				return "", false
			}
			parts[i] = k
		}
		return "(" + strings.Join(parts, ",") + ")", true
	case *Class, *Func, *Instance, *Module, *Builtin, *Tensor:
		return fmt.Sprintf("p%p", x), true
	case *enumMember:
		return fmt.Sprintf("p%p", x), true
	case *BufferVal:
		// a plain buffer (nl.sbuf, or t.buffer of an SBUF tensor) is a
		// value: t.buffer == nl.sbuf holds (nki-library asserts it); an
		// allocator is its own object
		if x.Alloc == "" && x.Func == nil && x.Args == nil {
			return "b" + x.Kind, true
		}
		return fmt.Sprintf("p%p", x), true
	}
	return "", false
}

func newDict() *Dict { return &Dict{index: map[string]int{}} }

func (d *Dict) get(k Value) (Value, bool) {
	h, ok := hashKey(k)
	if !ok {
		return nil, false
	}
	i, ok := d.index[h]
	if !ok {
		return nil, false
	}
	return d.Vals[i], true
}

func (d *Dict) set(k, v Value) bool {
	h, ok := hashKey(k)
	if !ok {
		return false
	}
	if i, ok := d.index[h]; ok {
		d.Vals[i] = v
		return true
	}
	d.index[h] = len(d.Keys)
	d.Keys = append(d.Keys, k)
	d.Vals = append(d.Vals, v)
	return true
}

func (d *Dict) del(k Value) bool {
	h, ok := hashKey(k)
	if !ok {
		return false
	}
	i, ok := d.index[h]
	if !ok {
		return false
	}
	d.Keys = append(d.Keys[:i], d.Keys[i+1:]...)
	d.Vals = append(d.Vals[:i], d.Vals[i+1:]...)
	delete(d.index, h)
	for j := i; j < len(d.Keys); j++ {
		hk, _ := hashKey(d.Keys[j])
		d.index[hk] = j
	}
	return true
}

// repr renders a value as Python would (for f-strings and messages).
func repr(v Value) string { return render(v, true) }

func str(v Value) string { return render(v, false) }

func render(v Value, quote bool) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == float64(int64(x)) && x < 1e16 && x > -1e16 {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		if quote {
			return "'" + x + "'"
		}
		return x
	case Tuple:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = repr(e)
		}
		if len(x) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *List:
		parts := make([]string, len(x.Items))
		for i, e := range x.Items {
			parts[i] = repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *Dict:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = repr(x.Keys[i]) + ": " + repr(x.Vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case DType:
		return string(x)
	case *Sym:
		return x.String()
	case *Tensor:
		return fmt.Sprintf("tensor%v", x.Shape)
	case *Func:
		return "<function " + x.QualName + ">"
	case *Class:
		return "<class '" + x.Name + "'>"
	case *enumMember:
		return x.Class.Name + "." + x.Name
	case *Instance:
		return "<" + x.Class.Name + " object>"
	}
	return "<" + typeName(v) + ">"
}

func sortedKeys(m map[string]Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
