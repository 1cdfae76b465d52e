package nki

import (
	"fmt"
	"math"
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
	// tree is the number of classes a walk of the bases visits (the class,
	// then each base's tree): bounded so that attribute lookups through
	// shared bases stay linear in the source
	tree  int
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
	case *IntArray, *NDArray:
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
	case *SliceVal:
		return "slice"
	}
	return fmt.Sprintf("%T", v)
}

// hashKey renders a hashable value as a map key; ok is false for an
// unhashable value and for a key over maxKeyBytes or nested past MaxNest
// (in.keyOf tells those apart).
func hashKey(v Value) (string, bool) {
	k, err := hashKeyBounded(v)
	return k, k != "" && err == renderOK
}

// hashKeyBounded renders the key within maxKeyBytes and MaxNest levels;
// "" with renderOK is an unhashable value.
func hashKeyBounded(v Value) (key string, err renderErr) {
	if t, ok := v.(Tuple); ok {
		var b strings.Builder
		err = tupleKey(&b, t, 0)
		if err != renderOK {
			return "", err
		}
		return b.String(), renderOK
	}
	return scalarKey(v), renderOK
}

// tupleKey writes a tuple's key; an unhashable item makes the whole key "".
func tupleKey(b *strings.Builder, t Tuple, depth int) renderErr {
	if depth >= MaxNest {
		return renderDeep
	}
	b.WriteByte('(')
	for i, e := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		if et, ok := e.(Tuple); ok {
			if err := tupleKey(b, et, depth+1); err != renderOK {
				return err
			}
		} else {
			k := scalarKey(e)
			if k == "" {
				b.Reset()
				return renderOK
			}
			b.WriteString(k)
		}
		if b.Len() > maxKeyBytes {
			return renderLong
		}
	}
	b.WriteByte(')')
	return renderOK
}

func scalarKey(v Value) string {
	switch x := v.(type) {
	case nil:
		return "N"
	case bool:
		if x {
			return "i1"
		}
		return "i0"
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		// an integral float is the same key as the integer (1.0 == 1)
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "s" + x
	case DType:
		return "d" + string(x)
	case *Class, *Func, *Instance, *Module, *Builtin, *Tensor:
		return fmt.Sprintf("p%p", x)
	case *enumMember:
		return fmt.Sprintf("p%p", x)
	case *BufferVal:
		// a plain buffer (nl.sbuf, or t.buffer of an SBUF tensor) is a
		// value: t.buffer == nl.sbuf holds (nki-library asserts it); an
		// allocator is its own object
		if x.Alloc == "" && x.Func == nil && x.Args == nil {
			return "b" + x.Kind
		}
		return fmt.Sprintf("p%p", x)
	}
	return ""
}

func newDict() *Dict { return &Dict{index: map[string]int{}} }

func (d *Dict) get(k Value) (Value, bool) {
	h, ok := hashKey(k)
	if !ok {
		return nil, false
	}
	return d.getKey(h)
}

func (d *Dict) getKey(h string) (Value, bool) {
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
	d.setKey(h, k, v)
	return true
}

func (d *Dict) setKey(h string, k, v Value) {
	if i, ok := d.index[h]; ok {
		d.Vals[i] = v
		return
	}
	d.index[h] = len(d.Keys)
	d.Keys = append(d.Keys, k)
	d.Vals = append(d.Vals, v)
}

func (d *Dict) del(k Value) bool {
	h, ok := hashKey(k)
	if !ok {
		return false
	}
	return d.delKey(h)
}

func (d *Dict) delKey(h string) bool {
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

// dictKey is k's hash key for the kernel's dict or set operation: a
// TypeError when k is unhashable.
func (in *interp) dictKey(k Value) string {
	h, ok := in.keyOf(k)
	if !ok {
		in.raise(in.cur().pos, "TypeError", "unhashable type: '%s'", typeName(k))
	}
	return h
}

// dget, dset and ddel are the kernel's d[k], d[k] = v and del d[k]: the
// key's hashing and a deletion's reindexing (linear in the dict) are
// charged to the step bound.
func (in *interp) dget(d *Dict, k Value) (Value, bool) { return d.getKey(in.dictKey(k)) }

func (in *interp) dset(d *Dict, k, v Value) {
	in.charge(4) // a hash, a map insert, two appends
	h := in.dictKey(k)
	if _, ok := d.index[h]; !ok {
		// an entry holds a key, a value and an index entry
		if n := int64(len(d.Keys)+1) * 3; n > MaxValueBytes/elemBytes {
			in.needItems(n, "dict of "+strconv.Itoa(len(d.Keys)+1)+" keys")
		}
	}
	d.setKey(h, k, v)
}

func (in *interp) ddel(d *Dict, k Value) bool {
	h := in.dictKey(k)
	if i, ok := d.index[h]; ok {
		// each later key is hashed and reindexed again
		in.charge(4 * int64(len(d.Keys)-i))
	}
	return d.delKey(h)
}

// repr renders a value as Python would (for f-strings and messages).
func repr(v Value) string { return render(v, true) }

func str(v Value) string { return render(v, false) }

// renderScalar prints what is not a container.
func renderScalar(v Value) string {
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
		return pyFloat(x)
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
