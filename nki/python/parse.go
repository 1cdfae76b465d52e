package python

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse parses one Python source file.
func Parse(file, src string) (mod *Module, err error) {
	if len(src) > MaxSource {
		return nil, &Error{file, Pos{1, 0}, fmt.Sprintf("source of %d bytes is over the %d-byte limit", len(src), MaxSource)}
	}
	// the file is tokenized a logical line at a time as the parser goes:
	// its tokens (40 bytes each, about one per five bytes of source) are
	// never all held at once
	lx := newLexer(file, src)
	lx.toks = make([]token, 0, 256)
	return (&parser{file: file, lx: lx}).module(src)
}

// module parses the statements of a file.
func (p *parser) module(src string) (mod *Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			mod, err = nil, pe
		}
	}()
	var body []Stmt
	for p.tok().kind != tEOF {
		if p.tok().kind == tNewline {
			p.next()
			continue
		}
		body = append(body, p.statement()...)
	}
	return &Module{File: p.file, Body: body, Lines: strings.Split(src, "\n")}, nil
}

// ParseExpr parses a single expression.
func ParseExpr(file, src string) (Expr, error) {
	return parseExprAt(file, src, Pos{1, 0}, 0)
}

// parseExprAt parses src as one expression whose first byte is at base
// (f-string fields report positions in their file).
func parseExprAt(file, src string, base Pos, depth int) (e Expr, err error) {
	toks, err := tokenize(file, "("+src+"\n)")
	if err != nil {
		return nil, shiftErr(err, base)
	}
	for k := range toks {
		toks[k].pos = shift(toks[k].pos, base)
	}
	p := &parser{file: file, toks: toks, depth: depth}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			e, err = nil, pe
		}
	}()
	e = p.atom()
	if p.tok().kind != tNewline && p.tok().kind != tEOF {
		p.failf(p.tok().pos, "expected end of expression, found %s", describe(p.tok()))
	}
	if t, ok := e.(*Tuple); ok && t.Parens {
		t.Pos = base
	}
	return e, nil
}

// shift maps a position in "(" + src to the file position of src at base.
func shift(p, base Pos) Pos {
	if p.Line == 1 {
		return Pos{base.Line, base.Col + p.Col - 1}
	}
	return Pos{base.Line + p.Line - 1, p.Col}
}

func shiftErr(err error, base Pos) error {
	if e, ok := err.(*Error); ok {
		return &Error{e.File, shift(e.Pos, base), e.Msg}
	}
	return err
}

type parser struct {
	file string
	// toks are the tokens at hand: all of them (parseExprAt), or those
	// the lexer lx has produced since the parser last took every token
	// at hand (Parse); tokens are handed out by value, so the buffer is
	// reused once it is used up
	toks  []token
	lx    *lexer
	i     int
	depth int
	folds int // links of left-nested chains on the path being parsed
	// pinned > 0 while the parser may go back to an earlier token
	pinned int
}

// more makes p.toks[p.i+n] exist, unless the lexer has reached the end.
func (p *parser) more(n int) {
	for p.i+n >= len(p.toks) && p.lx != nil && !p.lx.done {
		if p.i >= len(p.toks) && p.pinned == 0 {
			// every token at hand has been taken: reuse the buffer
			p.lx.toks, p.i = p.lx.toks[:0], 0
		}
		if err := p.lx.run(true); err != nil {
			panic(err)
		}
		p.toks = p.lx.toks
	}
}

func (p *parser) tok() token { return *p.cur() }

// cur is the current token in place, for a look that ends before the
// parser moves on (a refill may reuse the buffer; tok copies it).
func (p *parser) cur() *token {
	if p.i >= len(p.toks) {
		p.more(0)
	}
	return &p.toks[p.i]
}

func (p *parser) peek(n int) token {
	p.more(n)
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.cur()
	if t.kind != tEOF {
		p.i++
	}
	return *t
}

func (p *parser) failf(at Pos, format string, a ...any) {
	panic(&Error{p.file, at, fmt.Sprintf(format, a...)})
}

func (p *parser) isOp(s string) bool {
	t := p.cur()
	return t.kind == tOp && t.text == s
}

func (p *parser) isKw(s string) bool {
	t := p.cur()
	return t.kind == tName && t.text == s
}

func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptKw(s string) bool {
	if p.isKw(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(s string) Pos {
	t := p.tok()
	if t.kind != tOp || t.text != s {
		p.failf(t.pos, "expected %q, found %s", s, describe(t))
	}
	p.next()
	return t.pos
}

func (p *parser) expectKw(s string) {
	if !p.acceptKw(s) {
		p.failf(p.tok().pos, "expected %q, found %s", s, describe(p.tok()))
	}
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tNewline:
		return "end of line"
	case tIndent:
		return "an indented block"
	case tDedent:
		return "end of block"
	case tString:
		return "a string"
	}
	return strconv.Quote(t.text)
}

var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

func (p *parser) name() (string, Pos) {
	t := p.tok()
	if t.kind != tName || keywords[t.text] {
		p.failf(t.pos, "expected a name, found %s", describe(t))
	}
	p.next()
	return t.text, t.pos
}

func (p *parser) enter(at Pos) {
	p.depth++
	if p.depth > MaxDepth {
		p.failf(at, "nesting deeper than %d", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// fold counts one more level of a left-nested chain (a + b + ..., a.b.c,
// f()()[0]): the tree is as deep as the chain is long, and evaluating it
// recurses that deep.
func (p *parser) fold(at Pos) {
	p.folds++
	if p.folds > MaxChain {
		p.failf(at, "expression chained deeper than %d operators, calls, attributes or subscripts (evaluating it recurses once per link)", MaxChain)
	}
}

func (p *parser) endStmt() {
	if p.acceptOp(";") {
		return
	}
	t := p.tok()
	if t.kind == tNewline {
		p.next()
		return
	}
	if t.kind == tEOF || t.kind == tDedent {
		return
	}
	p.failf(t.pos, "expected end of statement, found %s", describe(t))
}

// statement parses one logical line (several when separated by ';') or one
// compound statement.
func (p *parser) statement() []Stmt {
	t := p.tok()
	if t.kind == tIndent {
		p.failf(t.pos, "unexpected indent")
	}
	if t.kind == tName {
		switch t.text {
		case "if":
			return []Stmt{p.ifStmt()}
		case "while":
			return []Stmt{p.whileStmt()}
		case "for":
			return []Stmt{p.forStmt()}
		case "with":
			return []Stmt{p.withStmt()}
		case "try":
			return []Stmt{p.tryStmt()}
		case "def":
			return []Stmt{p.funcDef(nil)}
		case "class":
			return []Stmt{p.classDef(nil)}
		case "async", "yield", "await":
			p.failf(t.pos, "%q is not supported in NKI kernels", t.text)
		}
	}
	if t.kind == tOp && t.text == "@" {
		return []Stmt{p.decorated()}
	}
	var out []Stmt
	for {
		out = append(out, p.simple())
		if p.acceptOp(";") {
			if p.tok().kind == tNewline || p.tok().kind == tEOF {
				break
			}
			continue
		}
		break
	}
	p.endStmt()
	return out
}

func (p *parser) block() []Stmt {
	p.expectOp(":")
	if p.tok().kind != tNewline {
		// one-line body: `if x: return y`
		var out []Stmt
		for {
			out = append(out, p.simple())
			if p.acceptOp(";") && p.tok().kind != tNewline {
				continue
			}
			break
		}
		p.endStmt()
		return out
	}
	p.next()
	t := p.tok()
	if t.kind != tIndent {
		p.failf(t.pos, "expected an indented block")
	}
	p.enter(t.pos)
	defer p.leave()
	p.next()
	var body []Stmt
	for p.tok().kind != tDedent && p.tok().kind != tEOF {
		if p.tok().kind == tNewline {
			p.next()
			continue
		}
		body = append(body, p.statement()...)
	}
	if p.tok().kind == tDedent {
		p.next()
	}
	return body
}

func (p *parser) simple() Stmt {
	t := p.tok()
	at := t.pos
	if t.kind == tName {
		switch t.text {
		case "pass":
			p.next()
			return &Pass{P{at}}
		case "break":
			p.next()
			return &Break{P{at}}
		case "continue":
			p.next()
			return &Continue{P{at}}
		case "return":
			p.next()
			s := &Return{P: P{at}}
			if !p.atStmtEnd() {
				s.Value = p.testListStar()
			}
			return s
		case "raise":
			p.next()
			s := &Raise{P: P{at}}
			if !p.atStmtEnd() {
				s.Exc = p.test()
				if p.acceptKw("from") {
					s.Cause = p.test()
				}
			}
			return s
		case "global", "nonlocal":
			p.next()
			s := &Global{P: P{at}, Nonlocal: t.text == "nonlocal"}
			for {
				n, _ := p.name()
				s.Names = append(s.Names, n)
				if !p.acceptOp(",") {
					break
				}
			}
			return s
		case "del":
			p.next()
			s := &Delete{P: P{at}}
			for {
				s.Targets = append(s.Targets, p.bitOr())
				if !p.acceptOp(",") || p.atStmtEnd() {
					break
				}
			}
			return s
		case "assert":
			p.next()
			s := &Assert{P: P{at}, Test: p.test()}
			if p.acceptOp(",") {
				s.Msg = p.test()
			}
			return s
		case "import":
			p.next()
			s := &Import{P: P{at}}
			for {
				a := Alias{Pos: p.tok().pos, Name: p.dotted()}
				if p.acceptKw("as") {
					a.AsName, _ = p.name()
				}
				s.Names = append(s.Names, a)
				if !p.acceptOp(",") {
					break
				}
			}
			return s
		case "from":
			p.next()
			s := &ImportFrom{P: P{at}}
			for p.isOp(".") || p.isOp("...") {
				s.Level += len(p.next().text)
			}
			if !p.isKw("import") {
				s.Module = p.dotted()
			}
			p.expectKw("import")
			if p.acceptOp("*") {
				s.Names = []Alias{{Pos: at, Name: "*"}}
				return s
			}
			paren := p.acceptOp("(")
			for {
				n, np := p.name()
				a := Alias{Pos: np, Name: n}
				if p.acceptKw("as") {
					a.AsName, _ = p.name()
				}
				s.Names = append(s.Names, a)
				if !p.acceptOp(",") {
					break
				}
				if paren && p.isOp(")") {
					break
				}
			}
			if paren {
				p.expectOp(")")
			}
			return s
		}
	}
	// expression statement or assignment
	first := p.testListStar()
	switch {
	case p.isOp(":"):
		p.next()
		s := &AnnAssign{P: P{at}, Target: first, Annotation: p.test()}
		if p.acceptOp("=") {
			s.Value = p.testListStar()
		}
		return s
	case p.isOp("="):
		s := &Assign{P: P{at}}
		s.Targets = append(s.Targets, first)
		for p.acceptOp("=") {
			s.Targets = append(s.Targets, p.testListStar())
		}
		s.Value = s.Targets[len(s.Targets)-1]
		s.Targets = s.Targets[:len(s.Targets)-1]
		return s
	}
	if t := p.tok(); t.kind == tOp && len(t.text) >= 2 && strings.HasSuffix(t.text, "=") && t.text != "==" && t.text != "<=" && t.text != ">=" && t.text != "!=" {
		p.next()
		return &AugAssign{P: P{at}, Target: first, Op: strings.TrimSuffix(t.text, "="), Value: p.testListStar()}
	}
	return &ExprStmt{P{at}, first}
}

func (p *parser) atStmtEnd() bool {
	t := p.tok()
	return t.kind == tNewline || t.kind == tEOF || t.kind == tDedent || (t.kind == tOp && t.text == ";")
}

func (p *parser) dotted() string {
	n, _ := p.name()
	for p.acceptOp(".") {
		m, _ := p.name()
		n += "." + m
	}
	return n
}

func (p *parser) ifStmt() Stmt {
	at := p.next().pos // if / elif
	s := &If{P: P{at}, Test: p.namedTest()}
	s.Body = p.block()
	switch {
	case p.isKw("elif"):
		s.Else = []Stmt{p.ifStmt()}
	case p.isKw("else"):
		p.next()
		s.Else = p.block()
	}
	return s
}

func (p *parser) whileStmt() Stmt {
	at := p.next().pos
	s := &While{P: P{at}, Test: p.namedTest()}
	s.Body = p.block()
	if p.acceptKw("else") {
		s.Else = p.block()
	}
	return s
}

func (p *parser) forStmt() Stmt {
	at := p.next().pos
	s := &For{P: P{at}, Target: p.targetList()}
	p.expectKw("in")
	s.Iter = p.testListStar()
	s.Body = p.block()
	if p.acceptKw("else") {
		s.Else = p.block()
	}
	return s
}

func (p *parser) withStmt() Stmt {
	at := p.next().pos
	s := &With{P: P{at}}
	for {
		it := WithItem{Context: p.test()}
		if p.acceptKw("as") {
			it.Vars = p.targetAtom()
		}
		s.Items = append(s.Items, it)
		if !p.acceptOp(",") {
			break
		}
	}
	s.Body = p.block()
	return s
}

func (p *parser) tryStmt() Stmt {
	at := p.next().pos
	s := &Try{P: P{at}}
	s.Body = p.block()
	for p.isKw("except") {
		h := ExceptHandler{Pos: p.next().pos}
		if !p.isOp(":") {
			h.Type = p.test()
			if p.acceptKw("as") {
				h.Name, _ = p.name()
			}
		}
		h.Body = p.block()
		s.Handlers = append(s.Handlers, h)
	}
	if p.acceptKw("else") {
		s.Else = p.block()
	}
	if p.acceptKw("finally") {
		s.Finally = p.block()
	}
	if len(s.Handlers) == 0 && s.Finally == nil {
		p.failf(at, "try without except or finally")
	}
	return s
}

func (p *parser) decorated() Stmt {
	var decs []Expr
	for p.isOp("@") {
		p.next()
		decs = append(decs, p.namedTest())
		if p.tok().kind != tNewline {
			p.failf(p.tok().pos, "expected end of line after decorator")
		}
		p.next()
	}
	switch {
	case p.isKw("def"):
		return p.funcDef(decs)
	case p.isKw("class"):
		return p.classDef(decs)
	}
	p.failf(p.tok().pos, "expected def or class after decorator")
	return nil
}

func (p *parser) funcDef(decs []Expr) Stmt {
	at := p.next().pos // Python (3.8+) reports a def at its keyword
	name, _ := p.name()
	p.expectOp("(")
	params := p.params(")", true)
	p.expectOp(")")
	s := &FunctionDef{P: P{at}, Name: name, Args: params, Decorators: decs}
	if p.acceptOp("->") {
		s.Returns = p.test()
	}
	s.Body = p.block()
	if len(s.Body) > 0 {
		if es, ok := s.Body[0].(*ExprStmt); ok {
			if str, ok := es.Value.(*Str); ok {
				s.Doc = str.Value
			}
		}
	}
	return s
}

func (p *parser) classDef(decs []Expr) Stmt {
	at := p.next().pos
	name, _ := p.name()
	s := &ClassDef{P: P{at}, Name: name, Decorators: decs}
	if p.acceptOp("(") {
		args, kws := p.callArgs()
		s.Bases, s.Keywords = args, kws
	}
	s.Body = p.block()
	return s
}

// params parses a parameter list up to (not including) the closing token.
func (p *parser) params(closing string, annotations bool) *Params {
	ps := &Params{}
	kwOnly := false
	sawDefault := false
	for !p.isOp(closing) {
		t := p.tok()
		switch {
		case p.acceptOp("/"):
			ps.PosOnly = append(ps.PosOnly, ps.Args...)
			ps.Args = nil
		case p.acceptOp("**"):
			n, np := p.name()
			pr := &Param{Pos: np, Name: n}
			if annotations && p.acceptOp(":") {
				pr.Annotation = p.test()
			}
			ps.KwArg = pr
		case p.acceptOp("*"):
			kwOnly = true
			if p.tok().kind == tName {
				n, np := p.name()
				pr := &Param{Pos: np, Name: n}
				if annotations && p.acceptOp(":") {
					pr.Annotation = p.test()
				}
				ps.VarArg = pr
			}
		default:
			n, np := p.name()
			pr := Param{Pos: np, Name: n}
			if annotations && p.acceptOp(":") {
				pr.Annotation = p.test()
			}
			if p.acceptOp("=") {
				pr.Default = p.test()
			}
			if kwOnly {
				ps.KwOnly = append(ps.KwOnly, pr)
			} else {
				if pr.Default != nil {
					sawDefault = true
					ps.NDefault++
				} else if sawDefault {
					p.failf(t.pos, "parameter without a default follows parameter with a default")
				}
				ps.Args = append(ps.Args, pr)
			}
		}
		if !p.acceptOp(",") {
			break
		}
	}
	return ps
}

// targetList parses for-loop targets (no `in` operator inside).
func (p *parser) targetList() Expr {
	at := p.tok().pos
	first := p.targetAtom()
	if !p.isOp(",") {
		return first
	}
	elts := []Expr{first}
	for p.acceptOp(",") {
		if p.isKw("in") {
			break
		}
		elts = append(elts, p.targetAtom())
	}
	return &Tuple{P: P{at}, Elts: elts}
}

func (p *parser) targetAtom() Expr {
	if p.isOp("*") {
		at := p.next().pos
		return &Starred{P{at}, p.bitOr()}
	}
	return p.bitOr()
}

// testListStar parses `a, b, *c` (a tuple when a comma is present).
func (p *parser) testListStar() Expr {
	at := p.tok().pos
	first := p.starOrNamed()
	if !p.isOp(",") {
		return first
	}
	elts := []Expr{first}
	for p.acceptOp(",") {
		if p.exprEnd() {
			break
		}
		elts = append(elts, p.starOrNamed())
	}
	return &Tuple{P: P{at}, Elts: elts}
}

// exprEnd reports whether the current token cannot start an expression.
func (p *parser) exprEnd() bool {
	t := p.tok()
	switch t.kind {
	case tNewline, tEOF, tDedent, tIndent:
		return true
	case tOp:
		switch t.text {
		case ")", "]", "}", "=", ":", ";":
			return true
		}
		if strings.HasSuffix(t.text, "=") && len(t.text) >= 2 && t.text != "==" && t.text != "<=" && t.text != ">=" && t.text != "!=" {
			return true
		}
	case tName:
		return t.text == "in" || t.text == "for" || t.text == "if" || t.text == "else"
	}
	return false
}

func (p *parser) starOrNamed() Expr {
	if p.isOp("*") {
		at := p.next().pos
		return &Starred{P{at}, p.bitOr()}
	}
	return p.namedTest()
}

// namedTest: test [':=' test]
func (p *parser) namedTest() Expr {
	if t := p.tok(); t.kind == tName && p.peek(1).kind == tOp && p.peek(1).text == ":=" {
		n, np := p.name()
		p.next()
		return &NamedExpr{P{np}, &Name{P{np}, n}, p.test()}
	}
	return p.test()
}

// test: or_test ['if' or_test 'else' test] | lambda
func (p *parser) test() Expr {
	t := p.tok()
	p.enter(t.pos)
	defer p.leave()
	if p.isKw("lambda") {
		p.next()
		params := p.params(":", false)
		p.expectOp(":")
		return &Lambda{P{t.pos}, params, p.test()}
	}
	e := p.orTest()
	if p.isKw("if") {
		// a comprehension's `if` follows `for`, never a bare expression, but
		// guard against `x for y in z if c` being misread: only take it when
		// an `else` follows
		save := p.i
		p.pinned++
		p.next()
		cond := p.orTest()
		p.pinned--
		if p.acceptKw("else") {
			return &IfExp{P{e.At()}, cond, e, p.test()}
		}
		p.i = save
	}
	return e
}

func (p *parser) testNoCond() Expr {
	if p.isKw("lambda") {
		return p.test()
	}
	return p.orTest()
}

func (p *parser) orTest() Expr {
	e := p.andTest()
	if !p.isKw("or") {
		return e
	}
	b := &BoolOp{P{e.At()}, "or", []Expr{e}}
	for p.acceptKw("or") {
		b.Values = append(b.Values, p.andTest())
	}
	return b
}

func (p *parser) andTest() Expr {
	e := p.notTest()
	if !p.isKw("and") {
		return e
	}
	b := &BoolOp{P{e.At()}, "and", []Expr{e}}
	for p.acceptKw("and") {
		b.Values = append(b.Values, p.notTest())
	}
	return b
}

func (p *parser) notTest() Expr {
	if p.isKw("not") {
		at := p.next().pos
		p.enter(at)
		defer p.leave()
		return &UnaryOp{P{at}, "not", p.notTest()}
	}
	return p.comparison()
}

func (p *parser) compOp() string {
	t := p.cur()
	switch {
	case t.kind == tOp:
		switch t.text {
		case "<", ">", "==", ">=", "<=", "!=":
			p.next()
			return t.text
		}
	case t.kind == tName && t.text == "in":
		p.next()
		return "in"
	case t.kind == tName && t.text == "not" && p.peek(1).kind == tName && p.peek(1).text == "in":
		p.next()
		p.next()
		return "not in"
	case t.kind == tName && t.text == "is":
		p.next()
		if p.acceptKw("not") {
			return "is not"
		}
		return "is"
	}
	return ""
}

func (p *parser) comparison() Expr {
	e := p.bitOr()
	op := p.compOp()
	if op == "" {
		return e
	}
	c := &Compare{P: P{e.At()}, Left: e}
	for op != "" {
		c.Ops = append(c.Ops, op)
		c.Comparators = append(c.Comparators, p.bitOr())
		op = p.compOp()
	}
	return c
}

// Binary operations, calls, attributes and subscripts are positioned at
// the first token of their leftmost operand, a parenthesis included (as
// CPython's ast: "(a - b) * c" starts at the parenthesis).
func (p *parser) bitOr() Expr { return p.binary(1) }

// binary parses the binary operators from | up by precedence climbing:
// operands bind by binPrec, every level associates to the left, and an
// operand is a factor (unary operators and **).
func (p *parser) binary(minPrec int) Expr {
	start := p.cur().pos
	e := p.factor()
	folds := p.folds
	defer func() { p.folds = folds }()
	for {
		t := p.cur()
		if t.kind != tOp {
			return e
		}
		prec := binPrec(t.text)
		if prec < minPrec {
			return e
		}
		p.i++
		p.fold(t.pos)
		e = &BinOp{P{start}, t.text, e, p.binary(prec + 1)}
	}
}

// binPrec is the precedence of a binary operator of the arithmetic and
// bitwise levels (Python reference, operator precedence), 0 for any other
// token text.
func binPrec(op string) int {
	switch op {
	case "|":
		return 1
	case "^":
		return 2
	case "&":
		return 3
	case "<<", ">>":
		return 4
	case "+", "-":
		return 5
	case "*", "/", "//", "%", "@":
		return 6
	}
	return 0
}

func (p *parser) factor() Expr {
	if t := p.cur(); t.kind != tOp || (t.text != "-" && t.text != "+" && t.text != "~") {
		return p.power()
	}
	t := p.next()
	p.enter(t.pos)
	defer p.leave()
	return &UnaryOp{P{t.pos}, t.text, p.factor()}
}

func (p *parser) power() Expr {
	start := p.cur().pos
	e := p.primary()
	if p.isOp("**") {
		p.next()
		p.enter(e.At())
		defer p.leave()
		return &BinOp{P{start}, "**", e, p.factor()}
	}
	return e
}

func (p *parser) primary() Expr {
	start := p.tok().pos
	e := p.atom()
	folds := p.folds
	defer func() { p.folds = folds }()
	for {
		t := p.tok()
		if t.kind != tOp {
			return e
		}
		switch t.text {
		case ".", "(", "[":
			p.fold(t.pos)
		}
		switch t.text {
		case ".":
			p.next()
			n, _ := p.name()
			e = &Attribute{P{start}, e, n}
		case "(":
			p.next()
			args, kws := p.callArgs()
			e = &Call{P{start}, e, args, kws}
		case "[":
			p.next()
			idx := p.subscriptList()
			p.expectOp("]")
			e = &Subscript{P{start}, e, idx}
		default:
			return e
		}
	}
}

// callArgs parses arguments after '(' through ')'.
func (p *parser) callArgs() ([]Expr, []Keyword) {
	var args []Expr
	var kws []Keyword
	for !p.isOp(")") {
		t := p.tok()
		switch {
		case p.acceptOp("**"):
			kws = append(kws, Keyword{Pos: t.pos, Value: p.test()})
		case p.acceptOp("*"):
			args = append(args, &Starred{P{t.pos}, p.test()})
		case t.kind == tName && p.peek(1).kind == tOp && p.peek(1).text == "=":
			n, _ := p.name()
			p.next()
			kws = append(kws, Keyword{Pos: t.pos, Name: n, Value: p.test()})
		default:
			e := p.namedTest()
			if p.isKw("for") {
				e = p.comprehension("gen", e, nil, e.At())
			}
			args = append(args, e)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return args, kws
}

func (p *parser) subscriptList() Expr {
	at := p.tok().pos
	first := p.subscript()
	if !p.isOp(",") {
		return first
	}
	elts := []Expr{first}
	for p.acceptOp(",") {
		if p.isOp("]") {
			break
		}
		elts = append(elts, p.subscript())
	}
	return &Tuple{P: P{at}, Elts: elts}
}

func (p *parser) subscript() Expr {
	at := p.tok().pos
	if p.isOp("*") {
		p.next()
		return &Starred{P{at}, p.bitOr()}
	}
	var lower Expr
	if !p.isOp(":") {
		lower = p.namedTest()
		if !p.isOp(":") {
			return lower
		}
	}
	p.expectOp(":")
	s := &Slice{P: P{at}, Lower: lower}
	if !p.isOp(":") && !p.isOp("]") && !p.isOp(",") {
		s.Upper = p.test()
	}
	if p.acceptOp(":") {
		if !p.isOp("]") && !p.isOp(",") {
			s.Step = p.test()
		}
	}
	return s
}

func (p *parser) comprehension(kind string, elt, value Expr, at Pos) Expr {
	c := &Comp{P: P{at}, Kind: kind, Elt: elt, Value: value}
	for p.isKw("for") {
		g := Comprehension{Pos: p.next().pos}
		g.Target = p.targetList()
		p.expectKw("in")
		g.Iter = p.orTest()
		for p.isKw("if") {
			p.next()
			g.Ifs = append(g.Ifs, p.testNoCond())
		}
		c.Gens = append(c.Gens, g)
	}
	return c
}

func (p *parser) atom() Expr {
	t := p.tok()
	p.enter(t.pos)
	defer p.leave()
	switch t.kind {
	case tName:
		switch t.text {
		case "None", "True", "False":
			p.next()
			return &Const{P{t.pos}, t.text}
		case "await", "yield", "async":
			p.failf(t.pos, "%q is not supported in NKI kernels", t.text)
		}
		if keywords[t.text] {
			p.failf(t.pos, "unexpected keyword %q", t.text)
		}
		p.next()
		return &Name{P{t.pos}, t.text}
	case tNumber:
		p.next()
		return p.number(t)
	case tString:
		return p.strings()
	case tOp:
		switch t.text {
		case "...":
			p.next()
			return &Const{P{t.pos}, "Ellipsis"}
		case "(":
			p.next()
			if p.acceptOp(")") {
				return &Tuple{P: P{t.pos}, Parens: true}
			}
			first := p.starOrNamed()
			if p.isKw("for") {
				c := p.comprehension("gen", first, nil, t.pos)
				p.expectOp(")")
				return c
			}
			if !p.isOp(",") {
				p.expectOp(")")
				return first
			}
			elts := []Expr{first}
			for p.acceptOp(",") {
				if p.isOp(")") {
					break
				}
				elts = append(elts, p.starOrNamed())
			}
			p.expectOp(")")
			return &Tuple{P{t.pos}, elts, true}
		case "[":
			p.next()
			if p.acceptOp("]") {
				return &List{P{t.pos}, nil}
			}
			first := p.starOrNamed()
			if p.isKw("for") {
				c := p.comprehension("list", first, nil, t.pos)
				p.expectOp("]")
				return c
			}
			elts := []Expr{first}
			for p.acceptOp(",") {
				if p.isOp("]") {
					break
				}
				elts = append(elts, p.starOrNamed())
			}
			p.expectOp("]")
			return &List{P{t.pos}, elts}
		case "{":
			p.next()
			if p.acceptOp("}") {
				return &Dict{P: P{t.pos}}
			}
			if p.acceptOp("**") {
				d := &Dict{P: P{t.pos}}
				d.Keys = append(d.Keys, nil)
				d.Values = append(d.Values, p.bitOr())
				return p.dictRest(d)
			}
			first := p.starOrNamed()
			if p.acceptOp(":") {
				val := p.test()
				if p.isKw("for") {
					c := p.comprehension("dict", first, val, t.pos)
					p.expectOp("}")
					return c
				}
				d := &Dict{P: P{t.pos}, Keys: []Expr{first}, Values: []Expr{val}}
				return p.dictRest(d)
			}
			if p.isKw("for") {
				c := p.comprehension("set", first, nil, t.pos)
				p.expectOp("}")
				return c
			}
			elts := []Expr{first}
			for p.acceptOp(",") {
				if p.isOp("}") {
					break
				}
				elts = append(elts, p.starOrNamed())
			}
			p.expectOp("}")
			return &Set{P{t.pos}, elts}
		}
	}
	p.failf(t.pos, "expected an expression, found %s", describe(t))
	return nil
}

func (p *parser) dictRest(d *Dict) Expr {
	for p.acceptOp(",") {
		if p.isOp("}") {
			break
		}
		if p.acceptOp("**") {
			d.Keys = append(d.Keys, nil)
			d.Values = append(d.Values, p.bitOr())
			continue
		}
		k := p.test()
		p.expectOp(":")
		d.Keys = append(d.Keys, k)
		d.Values = append(d.Values, p.test())
	}
	p.expectOp("}")
	return d
}

func (p *parser) number(t token) Expr {
	text := strings.ReplaceAll(t.text, "_", "")
	n := &Num{P: P{t.pos}, Text: t.text}
	lower := strings.ToLower(text)
	if strings.HasSuffix(lower, "j") {
		f, err := strconv.ParseFloat(lower[:len(lower)-1], 64)
		if err != nil {
			p.failf(t.pos, "invalid number %q", t.text)
		}
		n.Imag, n.Float = true, f
		return n
	}
	isFloat := !strings.HasPrefix(lower, "0x") && !strings.HasPrefix(lower, "0b") && !strings.HasPrefix(lower, "0o") &&
		strings.ContainsAny(lower, ".e")
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !math.IsInf(f, 0) {
			p.failf(t.pos, "invalid number %q", t.text)
		}
		n.Float, n.Value = f, f
		return n
	}
	n.IsInt = true
	base := 10
	digits := lower
	switch {
	case strings.HasPrefix(lower, "0x"):
		base, digits = 16, lower[2:]
	case strings.HasPrefix(lower, "0o"):
		base, digits = 8, lower[2:]
	case strings.HasPrefix(lower, "0b"):
		base, digits = 2, lower[2:]
	default:
		if len(digits) > 1 && strings.Trim(digits, "0") != "" && digits[0] == '0' {
			p.failf(t.pos, "leading zeros in decimal integer literals are not permitted")
		}
	}
	v, err := strconv.ParseInt(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			n.Big = true
			f, _ := strconv.ParseFloat(digits, 64)
			n.Float = f
			return n
		}
		p.failf(t.pos, "invalid number %q", t.text)
	}
	n.Int, n.Value = v, v
	return n
}

// strings parses adjacent string literals (implicit concatenation).
func (p *parser) strings() Expr {
	at := p.tok().pos
	var parts []Expr
	var lit strings.Builder
	isBytes, isF := false, false
	flush := func(pos Pos) {
		if lit.Len() > 0 {
			parts = append(parts, &Str{P: P{pos}, Value: lit.String()})
			lit.Reset()
		}
	}
	for p.tok().kind == tString {
		t := p.next()
		if strings.Contains(t.prefix, "b") {
			isBytes = true
		}
		if strings.Contains(t.prefix, "f") {
			isF = true
			flush(at)
			parts = append(parts, p.fstring(t)...)
			continue
		}
		lit.WriteString(t.text)
	}
	if !isF {
		return &Str{P: P{at}, Value: lit.String(), Bytes: isBytes}
	}
	flush(at)
	return &FString{P{at}, parts}
}

// fstring splits an f-string body into literal parts and fields.
func (p *parser) fstring(t token) []Expr {
	raw := strings.Contains(t.prefix, "r")
	s := t.raw
	var parts []Expr
	var lit strings.Builder
	// position of byte off of the body (fields on later lines of a
	// triple-quoted string count lines); offsets come in increasing order,
	// so the scan resumes where it stopped
	lastOff, last := 0, t.rawPos
	posAt := func(off int) Pos {
		if off < lastOff {
			lastOff, last = 0, t.rawPos
		}
		for k := lastOff; k < off && k < len(s); k++ {
			if s[k] == '\n' {
				last.Line++
				last.Col = 0
			} else {
				last.Col++
			}
		}
		lastOff = off
		return last
	}
	flush := func() {
		if lit.Len() > 0 {
			v := lit.String()
			if !raw {
				v = unescape(v)
			}
			parts = append(parts, &Str{P: P{t.pos}, Value: v})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			p.failf(posAt(i), "f-string: single '}' is not allowed")
		case c == '{':
			flush()
			end, field := p.fstringField(t, s, i+1, posAt)
			parts = append(parts, field)
			i = end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts
}

// fstringField parses a replacement field starting after '{' at start; it
// returns the offset of the closing '}'.
func (p *parser) fstringField(t token, s string, start int, posAt func(int) Pos) (int, Expr) {
	depth := 0
	var quote byte
	i := start
	exprEnd := -1
	for ; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']':
			depth--
		case '}':
			if depth == 0 {
				goto done
			}
			depth--
		case '!':
			if depth == 0 && i+1 < len(s) && s[i+1] != '=' && exprEnd < 0 {
				exprEnd = i
			}
		case ':':
			if depth == 0 && exprEnd < 0 {
				exprEnd = i
				// the format spec runs to the matching '}'
				d := 0
				for i++; i < len(s); i++ {
					if s[i] == '{' {
						d++
					} else if s[i] == '}' {
						if d == 0 {
							goto done
						}
						d--
					}
				}
				goto done
			}
		}
	}
done:
	if i >= len(s) {
		p.failf(posAt(start-1), "f-string: expecting '}'")
	}
	if exprEnd < 0 {
		exprEnd = i
	}
	src := s[start:exprEnd]
	ff := &FormatField{P: P{posAt(start)}}
	trimmed := strings.TrimRight(src, " ")
	if strings.HasSuffix(trimmed, "=") && !strings.HasSuffix(trimmed, "==") && !strings.HasSuffix(trimmed, "!=") &&
		!strings.HasSuffix(trimmed, "<=") && !strings.HasSuffix(trimmed, ">=") {
		ff.Debug = src
		src = strings.TrimSuffix(trimmed, "=")
	}
	if strings.TrimSpace(src) == "" {
		p.failf(posAt(start), "f-string: empty expression not allowed")
	}
	e, err := parseExprAt(p.file, src, posAt(start), p.depth)
	if err != nil {
		panic(err)
	}
	ff.Value = e
	rest := s[exprEnd:i]
	if strings.HasPrefix(rest, "!") && len(rest) >= 2 {
		ff.Conv = rest[1]
		rest = rest[2:]
	}
	if strings.HasPrefix(rest, ":") {
		spec := token{kind: tString, pos: t.pos, strTok: &strTok{prefix: "f", raw: rest[1:], rawPos: posAt(exprEnd + 1)}}
		if strings.Contains(t.prefix, "r") {
			spec.prefix = "rf"
		}
		ff.Spec = &FString{P{t.pos}, p.fstring(spec)}
	}
	return i, ff
}
