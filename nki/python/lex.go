// Package python reads the subset of Python that NKI kernels and their
// helper modules are written in: a tokenizer with Python's indentation
// rules and a recursive-descent parser producing a small AST (ast.go).
//
// It parses syntax only; evaluation is package nki's business. The grammar
// follows the Python 3 language reference (lexical analysis, expressions,
// simple and compound statements); constructs no kernel uses (async, match,
// yield, type aliases) are syntax errors naming the construct.
//
// Positions are Python's: line 1-based, column a 0-based byte offset (what
// the ast module reports as col_offset). Error messages print the column
// 1-based, as compilers do.
package python

import (
	"fmt"
	"strings"
)

// Limits that bound the work on hostile input.
const (
	MaxSource = 8 << 20 // bytes of one source file
	MaxDepth  = 200     // nesting of expressions, brackets and blocks
	MaxChain  = 1000    // links of left-nested chains (a + b + ..., a.b.c, f()[0]) on one path
)

// Pos is a source position.
type Pos struct {
	Line int // 1-based
	Col  int // 0-based byte offset in the line
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col+1) }

// Error is a syntax error at a position of a file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%s: %s", e.File, e.Pos, e.Msg)
}

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tNumber
	tString
	tOp
)

type token struct {
	kind tokKind
	text string // names, operators, number text; string: the decoded value
	pos  Pos
	// strings
	*strTok // strings only (kept out of line: most tokens are not strings)
}

// strTok is what a string token has beyond its decoded value.
type strTok struct {
	prefix string // lower-case prefix letters (r, b, f, u)
	raw    string // the source text between the quotes (f-strings are parsed from it)
	rawPos Pos    // position of the first character of raw
}

type lexer struct {
	file   string
	src    string
	i      int
	line   int
	lstart int // offset of the current line
	indent []int
	paren  int
	toks   []token
	atBOL  bool
	// pending: the last token emitted leaves a logical line open
	pending bool
	done    bool // EOF emitted
}

// opLen is the length of the operator at the start of s (0 if none): the
// longest of Python's three-, two- and one-character operators.
func opLen(s string) int {
	if len(s) >= 3 {
		switch s[:3] {
		case "**=", "//=", ">>=", "<<=", "...":
			return 3
		}
	}
	if len(s) >= 2 {
		switch s[:2] {
		case "**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=":
			return 2
		}
	}
	if len(s) >= 1 && strings.IndexByte(ops1, s[0]) >= 0 {
		return 1
	}
	return 0
}

const ops1 = "+-*/%@&|^~<>()[]{},:;.=!"

// lineChunk is how many tokens of one logical line the lexer produces
// before handing them to the parser.
const lineChunk = 1024

func tokenize(file, src string) ([]token, error) {
	if len(src) > MaxSource {
		return nil, &Error{file, Pos{1, 0}, fmt.Sprintf("source of %d bytes is over the %d-byte limit", len(src), MaxSource)}
	}
	lx := newLexer(file, src)
	lx.toks = make([]token, 0, len(src)/5+2)
	if err := lx.run(false); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func newLexer(file, src string) *lexer {
	lx := &lexer{file: file, src: src, line: 1, indent: []int{0}, atBOL: true}
	if strings.HasPrefix(src, "\ufeff") {
		lx.i = 3
		lx.lstart = 3
	}
	return lx
}

func (lx *lexer) pos() Pos { return Pos{lx.line, lx.i - lx.lstart} }

func (lx *lexer) errf(p Pos, format string, a ...any) error {
	return &Error{lx.file, p, fmt.Sprintf(format, a...)}
}

func (lx *lexer) emit(k tokKind, text string, p Pos) {
	lx.toks = append(lx.toks, token{kind: k, text: text, pos: p})
	// a logical line is open after any token but NEWLINE and DEDENT (the
	// end of file closes it with a NEWLINE)
	lx.pending = k != tNewline && k != tDedent
}

func (lx *lexer) newline() {
	lx.line++
	lx.lstart = lx.i
}

// run appends the tokens of the rest of the source to lx.toks, or, with
// line set, only up to the end of the next logical line (its NEWLINE token)
// so that a parser can take a file line by line without holding all its
// tokens at once. After the last token (EOF) lx.done is set.
func (lx *lexer) run(line bool) error {
	src := lx.src
	for {
		if line && len(lx.toks) >= lineChunk {
			// a long logical line (a bracket of 10^5 items) is handed over
			// in pieces, so the parser can reuse the buffer as it goes
			return nil
		}
		if lx.atBOL && lx.paren == 0 {
			// measure indentation; blank and comment-only lines do not count
			col := 0
			j := lx.i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f') {
				switch src[j] {
				case ' ':
					col++
				case '\t':
					col = (col/8 + 1) * 8
				case '\f':
					col = 0
				}
				j++
			}
			if j >= len(src) {
				lx.i = j
				break
			}
			if src[j] == '#' || src[j] == '\n' || src[j] == '\r' || (src[j] == '\\' && j+1 < len(src) && (src[j+1] == '\n' || src[j+1] == '\r')) {
				lx.i = j
				if src[j] == '#' {
					for lx.i < len(src) && src[lx.i] != '\n' {
						lx.i++
					}
				}
				if lx.i < len(src) && src[lx.i] == '\\' {
					lx.i++
				}
				if lx.i < len(src) && src[lx.i] == '\r' {
					lx.i++
				}
				if lx.i < len(src) && src[lx.i] == '\n' {
					lx.i++
				}
				lx.newline()
				continue
			}
			lx.i = j
			p := lx.pos()
			top := lx.indent[len(lx.indent)-1]
			switch {
			case col > top:
				if len(lx.indent) > MaxDepth {
					return lx.errf(p, "blocks nested deeper than %d", MaxDepth)
				}
				lx.indent = append(lx.indent, col)
				lx.emit(tIndent, "", p)
			case col < top:
				for col < lx.indent[len(lx.indent)-1] {
					lx.indent = lx.indent[:len(lx.indent)-1]
					lx.emit(tDedent, "", p)
				}
				if col != lx.indent[len(lx.indent)-1] {
					return lx.errf(p, "unindent does not match any outer indentation level")
				}
			}
			lx.atBOL = false
		}
		if lx.i >= len(src) {
			break
		}
		c := src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			lx.i++
		case c == '#':
			for lx.i < len(src) && src[lx.i] != '\n' {
				lx.i++
			}
		case c == '\r' || c == '\n':
			p := lx.pos()
			if c == '\r' && lx.i+1 < len(src) && src[lx.i+1] == '\n' {
				lx.i++
			}
			lx.i++
			if lx.paren == 0 {
				lx.emit(tNewline, "", p)
				lx.atBOL = true
				if line {
					lx.newline()
					return nil
				}
			}
			lx.newline()
		case c == '\\':
			j := lx.i + 1
			if j < len(src) && src[j] == '\r' {
				j++
			}
			if j < len(src) && src[j] == '\n' {
				lx.i = j + 1
				lx.newline()
				continue
			}
			return lx.errf(lx.pos(), "unexpected character after line continuation character")
		case isIdentStart(c):
			p := lx.pos()
			j := lx.i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			word := src[lx.i:j]
			if j < len(src) && (src[j] == '\'' || src[j] == '"') && isStringPrefix(word) {
				lx.i = j
				if err := lx.str(strings.ToLower(word), p); err != nil {
					return err
				}
				continue
			}
			lx.i = j
			lx.emit(tName, word, p)
		case c == '\'' || c == '"':
			if err := lx.str("", lx.pos()); err != nil {
				return err
			}
		case c >= '0' && c <= '9' || (c == '.' && lx.i+1 < len(src) && src[lx.i+1] >= '0' && src[lx.i+1] <= '9'):
			p := lx.pos()
			j := lx.number()
			lx.emit(tNumber, src[lx.i:j], p)
			lx.i = j
		default:
			p := lx.pos()
			op := src[lx.i : lx.i+opLen(src[lx.i:])]
			if op == "" {
				if c >= 0x80 {
					return lx.errf(p, "non-ASCII character outside a string or comment is not supported")
				}
				return lx.errf(p, "invalid character %q", c)
			}
			switch op {
			case "(", "[", "{":
				lx.paren++
				if lx.paren > MaxDepth {
					return lx.errf(p, "brackets nested deeper than %d", MaxDepth)
				}
			case ")", "]", "}":
				if lx.paren == 0 {
					return lx.errf(p, "unmatched %q", op)
				}
				lx.paren--
			}
			lx.i += len(op)
			lx.emit(tOp, op, p)
		}
	}
	p := lx.pos()
	if lx.paren > 0 {
		return lx.errf(p, "unexpected end of file inside brackets")
	}
	if lx.pending {
		lx.emit(tNewline, "", p)
	}
	for len(lx.indent) > 1 {
		lx.indent = lx.indent[:len(lx.indent)-1]
		lx.emit(tDedent, "", p)
	}
	lx.emit(tEOF, "", p)
	lx.done = true
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// number returns the end offset of the numeric literal at lx.i.
func (lx *lexer) number() int {
	src := lx.src
	j := lx.i
	if src[j] == '0' && j+1 < len(src) && strings.IndexByte("xXoObB", src[j+1]) >= 0 {
		j += 2
		for j < len(src) && (isIdentPart(src[j])) {
			j++
		}
		return j
	}
	digits := func() {
		for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
			j++
		}
	}
	digits()
	if j < len(src) && src[j] == '.' {
		j++
		digits()
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && src[k] >= '0' && src[k] <= '9' {
			j = k
			digits()
		}
	}
	if j < len(src) && (src[j] == 'j' || src[j] == 'J') {
		j++
	}
	return j
}

// str lexes a string literal whose opening quote is at lx.i.
func (lx *lexer) str(prefix string, p Pos) error {
	src := lx.src
	q := src[lx.i]
	triple := strings.HasPrefix(src[lx.i:], strings.Repeat(string(q), 3))
	n := 1
	if triple {
		n = 3
	}
	lx.i += n
	start := lx.i
	rawPos := lx.pos()
	raw := strings.Contains(prefix, "r")
	for {
		if lx.i >= len(src) {
			return lx.errf(p, "unterminated string literal")
		}
		c := src[lx.i]
		if c == '\\' {
			lx.i++
			if lx.i < len(src) {
				if src[lx.i] == '\n' {
					lx.i++
					lx.newline()
					continue
				}
				lx.i++
			}
			continue
		}
		if c == '\n' {
			if !triple {
				return lx.errf(p, "unterminated string literal")
			}
			lx.i++
			lx.newline()
			continue
		}
		if c == q && (!triple || strings.HasPrefix(src[lx.i:], strings.Repeat(string(q), 3))) {
			break
		}
		lx.i++
	}
	body := src[start:lx.i]
	lx.i += n
	val := body
	if !raw && !strings.Contains(prefix, "f") {
		val = unescape(body)
	}
	lx.toks = append(lx.toks, token{kind: tString, text: val, pos: p, strTok: &strTok{prefix: prefix, raw: body, rawPos: rawPos}})
	lx.pending = true
	return nil
}

// unescape decodes the escape sequences of a non-raw string literal body.
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case '\\', '\'', '"':
			b.WriteByte(s[i])
		case '\n':
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
