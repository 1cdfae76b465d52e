package nki

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Writing compiler-allocated tiles back as declared tensors.
//
// A Beta-1 instruction or operator result that is used as an operand is a
// tile the compiler allocates (an implicit tensor). Under direct
// allocation every tensor must be allocated explicitly (direct allocation
// guide, spec 002), so place turns each such result into a declared tensor
// that the instruction writes:
//
//	x = nl.exp(a) * 2                    # nl.exp(a) and the product are tiles
//
// becomes
//
//	npukit_tile1 = nl.ndarray((128, 512), dtype=nl.float32, buffer=ALLOC)
//	npukit_tile1[...] = nl.exp(a)
//	x_placed = nl.ndarray((128, 512), dtype=nl.float32, buffer=ALLOC)
//	x_placed[...] = npukit_tile1 * 2
//	x = x_placed
//
// Nested results are written innermost first, left to right: the order in
// which Python evaluates them, so the instructions run in the same order.
// A result is rewritten only in a simple statement (an expression, an
// assignment, a return) and not under a conditional expression, a boolean
// operator, a lambda or a comprehension, where moving it ahead of the
// statement would change whether it runs; those are refused naming the
// site.

// stmtRewrite gathers the rewrites of one simple statement.
type stmtRewrite struct {
	stmt       python.Stmt
	start, end int    // the statement's text: first token to end of its logical line
	indent     string // the text before start on its line (blanks)
	tiles      []*stmtTile
	named      *stmtTile // the statement's value bound to a name
}

// stmtTile is one result written as a declared tensor.
type stmtTile struct {
	rec        *TensorRec
	code       string // the allocation
	s, e       int    // its expression's text
	tmp        string // the declared tensor's name
	whole      bool   // the named result: the statement's whole value
	nameTarget string
}

// stmtIndex locates the expressions of a parsed kernel file.
type stmtIndex struct {
	src   string
	lines []int // offset of each line start
	at    map[python.Pos][]exprAt
}

// exprAt is an expression with its statement; guarded when an ancestor
// may skip or repeat it (IfExp, BoolOp, Lambda, comprehension); parent
// is the enclosing expression (nil at the top).
type exprAt struct {
	e       python.Expr
	stmt    python.Stmt // nil: a compound statement's header
	guarded bool
	parent  python.Expr
}

func newStmtIndex(src string, mod *python.Module) *stmtIndex {
	ix := &stmtIndex{src: src, at: map[python.Pos][]exprAt{}, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			ix.lines = append(ix.lines, i+1)
		}
	}
	ix.stmts(mod.Body)
	return ix
}

func (ix *stmtIndex) off(p python.Pos) int {
	if p.Line < 1 || p.Line > len(ix.lines) {
		return -1
	}
	o := ix.lines[p.Line-1] + p.Col
	if o > len(ix.src) {
		return -1
	}
	return o
}

func (ix *stmtIndex) stmts(body []python.Stmt) {
	for _, s := range body {
		switch x := s.(type) {
		case *python.ExprStmt:
			ix.expr(x.Value, s, false, nil)
		case *python.Assign:
			for _, t := range x.Targets {
				ix.expr(t, s, false, nil)
			}
			ix.expr(x.Value, s, false, nil)
		case *python.AnnAssign:
			ix.expr(x.Target, s, false, nil)
			ix.expr(x.Value, s, false, nil)
		case *python.AugAssign:
			ix.expr(x.Target, s, false, nil)
			ix.expr(x.Value, s, false, nil)
		case *python.Return:
			ix.expr(x.Value, s, false, nil)
		case *python.Assert:
			ix.expr(x.Test, s, false, nil)
			ix.expr(x.Msg, s, true, nil)
		case *python.If:
			ix.expr(x.Test, nil, false, nil)
			ix.stmts(x.Body)
			ix.stmts(x.Else)
		case *python.While:
			ix.expr(x.Test, nil, false, nil)
			ix.stmts(x.Body)
			ix.stmts(x.Else)
		case *python.For:
			ix.expr(x.Iter, nil, false, nil)
			ix.stmts(x.Body)
			ix.stmts(x.Else)
		case *python.With:
			for _, it := range x.Items {
				ix.expr(it.Context, nil, false, nil)
			}
			ix.stmts(x.Body)
		case *python.Try:
			ix.stmts(x.Body)
			for _, h := range x.Handlers {
				ix.stmts(h.Body)
			}
			ix.stmts(x.Else)
			ix.stmts(x.Finally)
		case *python.FunctionDef:
			ix.stmts(x.Body)
		case *python.ClassDef:
			ix.stmts(x.Body)
		}
	}
}

func (ix *stmtIndex) expr(e python.Expr, s python.Stmt, guarded bool, parent python.Expr) {
	if e == nil {
		return
	}
	ix.at[e.At()] = append(ix.at[e.At()], exprAt{e: e, stmt: s, guarded: guarded, parent: parent})
	sub := func(c python.Expr, g bool) { ix.expr(c, s, guarded || g, e) }
	switch x := e.(type) {
	case *python.Attribute:
		sub(x.Value, false)
	case *python.Subscript:
		sub(x.Value, false)
		sub(x.Index, false)
	case *python.Slice:
		sub(x.Lower, false)
		sub(x.Upper, false)
		sub(x.Step, false)
	case *python.Call:
		sub(x.Func, false)
		for _, a := range x.Args {
			sub(a, false)
		}
		for _, k := range x.Keywords {
			sub(k.Value, false)
		}
	case *python.Starred:
		sub(x.Value, false)
	case *python.BinOp:
		sub(x.Left, false)
		sub(x.Right, false)
	case *python.UnaryOp:
		sub(x.Operand, false)
	case *python.BoolOp:
		for i, v := range x.Values {
			sub(v, i > 0)
		}
	case *python.Compare:
		sub(x.Left, false)
		for _, c := range x.Comparators {
			sub(c, len(x.Ops) > 1)
		}
	case *python.IfExp:
		sub(x.Test, false)
		sub(x.Body, true)
		sub(x.Else, true)
	case *python.Lambda:
		sub(x.Body, true)
	case *python.Comp:
		sub(x.Elt, true)
		sub(x.Value, true)
		for i, g := range x.Gens {
			sub(g.Iter, i > 0)
			for _, c := range g.Ifs {
				sub(c, true)
			}
		}
	case *python.NamedExpr:
		sub(x.Value, false)
	case *python.Tuple:
		for _, v := range x.Elts {
			sub(v, false)
		}
	case *python.List:
		for _, v := range x.Elts {
			sub(v, false)
		}
	case *python.Set:
		for _, v := range x.Elts {
			sub(v, false)
		}
	case *python.Dict:
		for i, v := range x.Values {
			if x.Keys[i] != nil {
				sub(x.Keys[i], false)
			}
			sub(v, false)
		}
	case *python.FString:
		for _, v := range x.Parts {
			sub(v, false)
		}
	case *python.FormatField:
		sub(x.Value, false)
	}
}

// lex skips a string literal or a comment at i; it returns the offset after
// it, or i when there is none.
func lexSkip(src string, i int) int {
	c := src[i]
	if c == '#' {
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i
	}
	if c != '\'' && c != '"' {
		return i
	}
	q := string(c)
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	j := i + len(q)
	for j < len(src) && !strings.HasPrefix(src[j:], q) {
		if src[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+len(q), len(src))
}

// depth is the bracket depth at the end of src[s:e], strings and comments
// skipped.
func depth(src string, s, e int) int {
	_, d := scanBrackets(src, s, e, nil)
	return d
}

// scanBrackets walks src[s:e], strings and comments skipped, keeping the
// bracket depth. At each bracket it calls stop (when not nil) with the
// depth after it; the first offset where stop says so is returned, else
// -1, with the depth reached.
func scanBrackets(src string, s, e int, stop func(d int) bool) (at, d int) {
	for i := s; i < e; {
		if j := lexSkip(src, i); j != i {
			i = j
			continue
		}
		switch src[i] {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		default:
			i++
			continue
		}
		if stop != nil && stop(d) {
			return i, d
		}
		i++
	}
	return -1, d
}

// skipBlank skips blanks, newlines, line continuations and comments.
func skipBlank(src string, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\\':
			i += 2
		case c == '#':
			i = lexSkip(src, i)
		default:
			return i
		}
	}
	return min(i, len(src))
}

// closing is the offset of the bracket closing the one opened at open.
func closing(src string, open int) int {
	at, _ := scanBrackets(src, open, len(src), func(d int) bool { return d == 0 })
	return at
}

// span is the text [s, e) of an expression; ok false when it cannot tell.
func (ix *stmtIndex) span(e python.Expr) (int, int, bool) {
	s := ix.off(e.At())
	end := ix.end(e)
	if s < 0 || end <= s {
		return 0, 0, false
	}
	// an operand in parentheses that the node's own start leaves open
	for d := depth(ix.src, s, end); d > 0; d-- {
		j := skipBlank(ix.src, end)
		if j >= len(ix.src) || ix.src[j] != ')' {
			return 0, 0, false
		}
		end = j + 1
	}
	if depth(ix.src, s, end) != 0 {
		return 0, 0, false
	}
	return s, end, true
}

// end is the offset just past e, -1 when unknown.
func (ix *stmtIndex) end(e python.Expr) int {
	src := ix.src
	o := ix.off(e.At())
	if o < 0 {
		return -1
	}
	after := func(from int, open byte) int {
		// the bracket group opened after from (a call's or subscript's)
		if from < 0 {
			return -1
		}
		j := skipBlank(src, from)
		for j < len(src) && src[j] == ')' { // (f)(x): a parenthesized callee
			j = skipBlank(src, j+1)
		}
		if j >= len(src) || src[j] != open {
			return -1
		}
		c := closing(src, j)
		if c < 0 {
			return -1
		}
		return c + 1
	}
	switch x := e.(type) {
	case *python.Name:
		return o + len(x.ID)
	case *python.Num:
		return o + len(x.Text)
	case *python.Const:
		switch x.Kind {
		case "Ellipsis":
			return o + 3
		case "None", "True", "False":
			return o + len(x.Kind)
		}
	case *python.Str:
		j := o
		for j < len(src) && src[j] != '\'' && src[j] != '"' {
			j++ // a prefix: r, b, u
		}
		if j < len(src) {
			return lexSkip(src, j)
		}
	case *python.Attribute:
		v := ix.end(x.Value)
		if v < 0 {
			return -1
		}
		j := skipBlank(src, v)
		for j < len(src) && src[j] == ')' {
			j = skipBlank(src, j+1)
		}
		if j >= len(src) || src[j] != '.' {
			return -1
		}
		j = skipBlank(src, j+1)
		if !strings.HasPrefix(src[j:], x.Attr) {
			return -1
		}
		return j + len(x.Attr)
	case *python.Subscript:
		return after(ix.end(x.Value), '[')
	case *python.Call:
		return after(ix.end(x.Func), '(')
	case *python.BinOp:
		return ix.end(x.Right)
	case *python.UnaryOp:
		return ix.end(x.Operand)
	case *python.Compare:
		if len(x.Comparators) > 0 {
			return ix.end(x.Comparators[len(x.Comparators)-1])
		}
	case *python.Tuple:
		if x.Parens && o < len(src) && src[o] == '(' {
			if c := closing(src, o); c >= 0 {
				return c + 1
			}
			return -1
		}
		if len(x.Elts) > 0 {
			return ix.end(x.Elts[len(x.Elts)-1])
		}
	case *python.List, *python.Dict, *python.Set:
		if o < len(src) && strings.IndexByte("[{", src[o]) >= 0 {
			if c := closing(src, o); c >= 0 {
				return c + 1
			}
		}
	}
	return -1
}

// resultMatches reports whether expression e produces the result named
// fn ("nl.exp", "operator.multiply", "tile.broadcast_to", ...).
func resultMatches(e python.Expr, fn string) bool {
	short := fn[strings.LastIndexByte(fn, '.')+1:]
	if strings.HasPrefix(fn, "operator.") {
		switch x := e.(type) {
		case *python.BinOp:
			return opNames[x.Op] == short
		case *python.UnaryOp:
			return x.Op == "-" && short == "negative"
		case *python.Compare:
			return len(x.Ops) == 1 && opNames[x.Ops[0]] == short
		}
		return false
	}
	c, ok := e.(*python.Call)
	if !ok {
		return false
	}
	switch f := c.Func.(type) {
	case *python.Attribute:
		return f.Attr == short
	case *python.Name:
		return f.ID == short
	}
	return false
}

// implicit registers a compiler-allocated tile to be written as a
// declared tensor with allocation code.
func (e *editor) implicit(res *Result, rec *TensorRec, code string) error {
	s := *rec.Site
	refuse := func(why string) error {
		return &PlaceError{Site: s, Msg: "a compiler-allocated tile (the result of " + strings.TrimPrefix(rec.API, "result of ") + ") " + why + "; bind it to a name (x = ...) in a statement of its own first"}
	}
	if e.ix == nil {
		return &PlaceError{Site: s, Msg: fmt.Sprintf("the kernel file does not parse: %v", e.parseErr)}
	}
	if e.stmts == nil {
		e.stmts = map[python.Stmt]*stmtRewrite{}
	}
	fn := strings.TrimPrefix(rec.API, "result of ")
	var found []exprAt
	for _, x := range e.ix.at[s.pos()] {
		if resultMatches(x.e, fn) {
			found = append(found, x)
		}
	}
	if len(found) > 1 {
		found = e.readingCandidates(res, rec, found)
	}
	switch {
	case len(found) == 0:
		return refuse("is not an expression place can find at its site")
	case len(found) > 1:
		// x * y * z: both products start at one column and the trace
		// keeps their results as one record (declared once per product
		// and execution); a chain of nested results is written as one
		// declared tensor each, all at the record's one allocation
		// (each product reads the previous one where it writes, in place)
		chain, ok := e.nestedChain(found)
		if ok && len(chain) > 1 {
			// the outermost written straight into t[...] = ... is no
			// tile of its own (the trace records no result for it)
			last := chain[len(chain)-1]
			if a, isAssign := last.stmt.(*python.Assign); isAssign && a.Value == last.e && len(a.Targets) == 1 {
				if _, sub := a.Targets[0].(*python.Subscript); sub {
					chain = chain[:len(chain)-1]
				}
			}
		}
		if !ok || rec.Declared < int64(len(chain)) || rec.Declared%int64(len(chain)) != 0 {
			return refuse("shares its site with another expression of the same operation")
		}
		for _, x := range chain {
			if err := e.implicitAt(rec, code, x, refuse); err != nil {
				return err
			}
		}
		return nil
	}
	return e.implicitAt(rec, code, found[0], refuse)
}

// nestedChain orders expressions innermost first when each lies within
// the next one's source text; false when they do not nest so.
func (e *editor) nestedChain(found []exprAt) ([]exprAt, bool) {
	type span struct {
		x    exprAt
		s, t int
	}
	var sp []span
	for _, x := range found {
		s, t, ok := e.ix.span(x.e)
		if !ok {
			return nil, false
		}
		sp = append(sp, span{x, s, t})
	}
	sort.Slice(sp, func(i, j int) bool { return sp[i].t-sp[i].s < sp[j].t-sp[j].s })
	out := make([]exprAt, len(sp))
	for i := range sp {
		if i > 0 && (sp[i-1].s < sp[i].s || sp[i-1].t > sp[i].t || sp[i-1].t-sp[i-1].s == sp[i].t-sp[i].s) {
			return nil, false
		}
		out[i] = sp[i].x
	}
	return out, true
}

// implicitAt registers the compiler-allocated tile of one expression.
func (e *editor) implicitAt(rec *TensorRec, code string, x exprAt, refuse func(string) error) error {
	switch {
	case x.stmt == nil:
		return refuse("is in the header of a compound statement")
	case x.guarded:
		return refuse("is under a conditional expression, a boolean operator, a lambda or a comprehension")
	}
	if sub, ok := x.parent.(*python.Subscript); ok && sub.Value == x.e {
		return refuse("is indexed where it is produced")
	}
	t0, t1, ok := e.ix.span(x.e)
	if !ok {
		return refuse("has a source extent place cannot determine")
	}
	st := e.stmts[x.stmt]
	if st == nil {
		start := e.ix.off(x.stmt.At())
		if start < 0 || start > t0 {
			return refuse("has a statement place cannot locate")
		}
		lineStart := strings.LastIndexByte(e.src[:start], '\n') + 1
		indent := e.src[lineStart:start]
		if strings.TrimLeft(indent, " \t") != "" {
			return refuse("is in a statement that shares its line with another")
		}
		end := scan(e.src, start, func(c byte, _ int) bool { return c == '\n' || c == ';' })
		if end < len(e.src) && e.src[end] == ';' {
			return refuse("is in a statement followed by ; on the same line")
		}
		st = &stmtRewrite{stmt: x.stmt, start: start, end: end, indent: indent}
		e.stmts[x.stmt] = st
	}
	t := &stmtTile{rec: rec, code: code, s: t0, e: t1}
	if rec.Name != "" {
		var target python.Expr
		var value python.Expr
		switch a := x.stmt.(type) {
		case *python.Assign:
			if len(a.Targets) == 1 {
				target, value = a.Targets[0], a.Value
			}
		case *python.AnnAssign:
			target, value = a.Target, a.Value
		}
		if n, ok := target.(*python.Name); ok && n.ID == rec.Name && value == x.e {
			if st.named != nil {
				return refuse("is bound twice")
			}
			t.whole, t.nameTarget = true, n.ID
			st.named = t
			return nil
		}
	}
	for _, o := range st.tiles {
		if o.s == t.s && o.e == t.e {
			return refuse("shares its source text with another tile")
		}
	}
	st.tiles = append(st.tiles, t)
	return nil
}

// declLine renders `name = lang.ndarray(shape, dtype=lang.dt, buffer=...)`.
func declLine(api, lang, name string, rec *TensorRec, code string) string {
	shape := make([]string, len(rec.Shape))
	for i, d := range rec.Shape {
		shape[i] = fmt.Sprint(d)
	}
	sh := "(" + strings.Join(shape, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	sh += ")"
	buf := "buffer=" + code
	if api != "beta1" {
		buf = fmt.Sprintf("buffer=%s.%s, %s", lang, rec.Buffer, code)
	}
	return fmt.Sprintf("%s = %s.ndarray(%s, dtype=%s.%s, %s)", name, lang, sh, lang, rec.DType, buf)
}

// flushStatements renders every rewritten statement as one edit. It fails
// when another edit (a declaration's allocation) falls inside one.
func (e *editor) flushStatements(api, lang string) error {
	var sts []*stmtRewrite
	for _, st := range e.stmts {
		sts = append(sts, st)
	}
	sort.Slice(sts, func(i, j int) bool { return sts[i].start < sts[j].start })
	for _, st := range sts {
		for _, ed := range e.edits {
			if ed.at >= st.start && ed.at < st.end {
				return &PlaceError{Site: siteAt(e.file, e.src, st.start), Msg: "a declaration and a compiler-allocated tile in one statement; declare the tile with nl.ndarray"}
			}
		}
		// evaluation order: by end, inner (later start) first
		ts := st.tiles
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].e != ts[j].e {
				return ts[i].e < ts[j].e
			}
			return ts[i].s > ts[j].s
		})
		var b strings.Builder
		for _, t := range ts {
			e.n++
			t.tmp = fmt.Sprintf("npukit_tile%d", e.n)
			expr := e.render(t.s, t.e, ts, t)
			if strings.Contains(expr, "\n") {
				expr = "(" + expr + ")"
			}
			fmt.Fprintf(&b, "%s\n%s%s[...] = %s\n%s", declLine(api, lang, t.tmp, t.rec, t.code), st.indent, t.tmp, expr, st.indent)
		}
		body := e.render(st.start, st.end, ts, nil)
		if n := st.named; n != nil {
			// "name = value" (or "name: annotation = value") becomes
			// "name_placed[...] = value", then "name = name_placed"
			tmp := n.nameTarget + "_placed"
			eq := scan(e.src, st.start, func(c byte, _ int) bool { return c == '=' })
			if eq >= n.s {
				return &PlaceError{Site: *n.rec.Site, Msg: "cannot find the = of the assignment"}
			}
			fmt.Fprintf(&b, "%s\n%s", declLine(api, lang, tmp, n.rec, n.code), st.indent)
			body = tmp + "[...] =" + e.render(eq+1, st.end, ts, nil) + "\n" + st.indent + n.nameTarget + " = " + tmp
		}
		b.WriteString(body)
		e.edits = append(e.edits, edit{st.start, st.end - st.start, b.String()})
	}
	return nil
}

// render is src[s:e) with the outermost tiles inside it (other than self)
// replaced by their declared tensors.
func (e *editor) render(s, end int, ts []*stmtTile, self *stmtTile) string {
	var in []*stmtTile
	for _, t := range ts {
		if t != self && t.s >= s && t.e <= end && t.tmp != "" {
			in = append(in, t)
		}
	}
	sort.Slice(in, func(i, j int) bool {
		if in[i].s != in[j].s {
			return in[i].s < in[j].s
		}
		return in[i].e > in[j].e
	})
	var b strings.Builder
	at := s
	for _, t := range in {
		if t.s < at {
			continue // inside one already replaced
		}
		b.WriteString(e.src[at:t.s])
		b.WriteString(t.tmp)
		at = t.e
	}
	b.WriteString(e.src[at:end])
	return b.String()
}

// siteAt is the site of a byte offset of the kernel file.
func siteAt(file, src string, off int) Site {
	line := strings.Count(src[:off], "\n") + 1
	return Site{File: file, Line: line, Col: off - (strings.LastIndexByte(src[:off], '\n') + 1)}
}

// readingCandidates narrows the expressions of one operation that start at
// a result's site (9 * w * tile parses as (9 * w) * tile, both products at
// one column) to those whose text names a tensor the producing
// instruction reads: an operation on Python numbers is no instruction and
// reads no tensor. It returns found unchanged when the names do not tell
// the candidates apart.
func (e *editor) readingCandidates(res *Result, rec *TensorRec, found []exprAt) []exprAt {
	var names []string
	eachNode(res.Program, func(n *PNode) {
		if n.Step == nil {
			return
		}
		for _, w := range n.Step.Writes {
			if w.Rec != rec {
				continue
			}
			for _, r := range n.Step.Reads {
				if r.Rec != nil && r.Rec.Name != "" && isIdent(r.Rec.Name) {
					names = append(names, r.Rec.Name)
				}
			}
		}
	})
	if len(names) == 0 {
		return found
	}
	var out []exprAt
	for _, x := range found {
		s, t := e.ix.off(x.e.At()), e.ix.end(x.e)
		if s < 0 || t <= s {
			return found
		}
		text := e.src[s:t]
		for _, n := range names {
			if regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(n) + `($|\W)`).MatchString(text) {
				out = append(out, x)
				break
			}
		}
	}
	if len(out) == 0 {
		return found
	}
	return out
}
