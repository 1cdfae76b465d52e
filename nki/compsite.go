package nki

import (
	"reflect"

	"github.com/npukit/npukit/nki/python"
)

// A comprehension's loop is reported at the site the corpus tracer gives
// it. That tracer finds loops by their FOR_ITER instruction, whose position
// in a comprehension's code (CPython 3.11) is the start line of the whole
// comprehension expression; it then takes, in ast.walk (breadth-first)
// order over the module, the first `for` clause whose target starts on or
// before that line and whose iterable ends on or after it, and reports the
// loop at that clause's iterable. So every clause of a one-line nested
// comprehension, e.g. nki-autotune's generated kernels'
//
//	sbuf = [[nl.ndarray((128, 128), ...) for _ in range(16)] for _ in range(16)]
//
// is one loop site, at the outer clause's range(16), with one entry of 16
// trips for the outer clause and 16 of 16 for the inner one. A comprehension
// with no such clause (its first `for` on a later line than its bracket) is
// reported at the comprehension itself.

// compSites maps each comprehension of a module to its loop site.
type compSites map[*python.Comp]python.Pos

// compSite returns the loop site of comprehension c of module m.
func (t *tracer) compSite(m *python.Module, c *python.Comp) python.Pos {
	if m == nil {
		return c.Gens[0].Iter.At()
	}
	if t.compSiteCache == nil {
		t.compSiteCache = map[*python.Module]compSites{}
	}
	cs, ok := t.compSiteCache[m]
	if !ok {
		cs = buildCompSites(m)
		t.compSiteCache[m] = cs
	}
	if p, ok := cs[c]; ok {
		return p
	}
	return c.Pos
}

var (
	posType   = reflect.TypeOf(python.Pos{})
	pType     = reflect.TypeOf(python.P{})
	compType  = reflect.TypeOf(python.Comp{})
	clauseTyp = reflect.TypeOf(python.Comprehension{})
	pyPkgPath = posType.PkgPath()
)

func buildCompSites(m *python.Module) compSites {
	type clause struct {
		targetLine, iterEnd int
		iter                python.Pos
	}
	var clauses []clause
	var comps []*python.Comp
	// breadth-first over the module, children in field order, as ast.walk
	queue := []reflect.Value{reflect.ValueOf(m.Body)}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		switch {
		case v.Kind() == reflect.Pointer && v.Type().Elem() == compType:
			comps = append(comps, v.Interface().(*python.Comp))
		case v.Type() == clauseTyp:
			g := v.Interface().(python.Comprehension)
			clauses = append(clauses, clause{g.Target.At().Line, maxLine(reflect.ValueOf(g.Iter)), g.Iter.At()})
		}
		queue = appendChildren(queue, v)
	}
	cs := compSites{}
	for _, c := range comps {
		line := c.Pos.Line
		for _, k := range clauses {
			if k.targetLine <= line && line <= k.iterEnd {
				cs[c] = k.iter
				break
			}
		}
	}
	return cs
}

// appendChildren appends the AST nodes directly under v (a node, or a list
// of them: lists are flattened as ast.iter_child_nodes does).
func appendChildren(queue []reflect.Value, v reflect.Value) []reflect.Value {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return queue
		}
		if v.Kind() == reflect.Interface {
			return appendChildren(queue, v.Elem())
		}
		v = v.Elem()
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			queue = appendNode(queue, v.Index(i))
		}
		return queue
	}
	if v.Kind() != reflect.Struct {
		return queue
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				queue = appendNode(queue, f.Index(j))
			}
		default:
			queue = appendNode(queue, f)
		}
	}
	return queue
}

// appendNode queues x if it is an AST node of package python.
func appendNode(queue []reflect.Value, x reflect.Value) []reflect.Value {
	switch x.Kind() {
	case reflect.Interface, reflect.Pointer:
		if x.IsNil() {
			return queue
		}
		e := x
		if x.Kind() == reflect.Interface {
			e = x.Elem()
		}
		if e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.Struct && e.Elem().Type().PkgPath() == pyPkgPath {
			return append(queue, e)
		}
	case reflect.Struct:
		if x.Type().PkgPath() == pyPkgPath && x.Type() != posType && x.Type() != pType {
			return append(queue, x)
		}
	}
	return queue
}

// maxLine is the last line any position in the subtree of v is on.
func maxLine(v reflect.Value) int {
	n := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type() == posType {
				n = max(n, v.Interface().(python.Pos).Line)
				return
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		}
	}
	walk(v)
	return n
}
