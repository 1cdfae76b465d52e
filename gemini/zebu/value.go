package zebu

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the type of a Value.
type Kind uint8

// Value kinds of the Python-literal subset the emulator prints.
const (
	Null   Kind = iota // None
	Int                // 42, -3
	Float              // -14.0, 53.59
	Bool               // True, False
	String             // 'abc'
	Ident              // a bare word such as the instruction name (ct_st)
	Enum               // <DataFmt.FP16: 3>: Str is "DataFmt.FP16", Int is 3
	List               // [a, b, ...]
	Dict               // {'k': v, ...}
)

// Value is one parsed literal. Only the fields of its Kind are set.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Bool  bool
	Str   string // String, Ident, Enum name
	Items []Value
	Keys  []string // Dict keys, parallel to Items, in file order
}

// Get returns the value of key in a Dict.
func (v Value) Get(key string) (Value, bool) {
	for i, k := range v.Keys {
		if k == key {
			return v.Items[i], true
		}
	}
	return Value{}, false
}

// Ints returns the value as a list of integers (a scalar Int gives one
// element); ok is false for anything else.
func (v Value) Ints() ([]int64, bool) {
	switch v.Kind {
	case Int, Enum:
		return []int64{v.Int}, true
	case List:
		out := make([]int64, len(v.Items))
		for i, it := range v.Items {
			if it.Kind != Int {
				return nil, false
			}
			out[i] = it.Int
		}
		return out, true
	}
	return nil, false
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 32

// parser reads one line. Every error names the column (byte offset in the line).
type parser struct {
	s   string
	pos int
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) skip() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.errf("nesting deeper than %d", maxDepth)
	}
	p.skip()
	if p.pos >= len(p.s) {
		return Value{}, p.errf("unexpected end of line")
	}
	switch c := p.s[p.pos]; {
	case c == '[':
		p.pos++
		var items []Value
		for {
			p.skip()
			if p.pos < len(p.s) && p.s[p.pos] == ']' {
				p.pos++
				return Value{Kind: List, Items: items}, nil
			}
			if len(items) > 0 {
				if err := p.expect(','); err != nil {
					return Value{}, err
				}
				p.skip()
				if p.pos < len(p.s) && p.s[p.pos] == ']' { // trailing comma
					p.pos++
					return Value{Kind: List, Items: items}, nil
				}
			}
			it, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			items = append(items, it)
		}
	case c == '{':
		p.pos++
		v := Value{Kind: Dict}
		for {
			p.skip()
			if p.pos < len(p.s) && p.s[p.pos] == '}' {
				p.pos++
				return v, nil
			}
			if len(v.Items) > 0 {
				if err := p.expect(','); err != nil {
					return Value{}, err
				}
				p.skip()
			}
			k, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			if k.Kind != String && k.Kind != Ident {
				return Value{}, p.errf("dictionary key is not a string")
			}
			p.skip()
			if err := p.expect(':'); err != nil {
				return Value{}, err
			}
			val, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Keys = append(v.Keys, k.Str)
			v.Items = append(v.Items, val)
		}
	case c == '\'' || c == '"':
		start := p.pos + 1
		for i := start; i < len(p.s); i++ {
			if p.s[i] == '\\' {
				return Value{}, p.errf("escapes in strings are not supported")
			}
			if p.s[i] == c {
				p.pos = i + 1
				return Value{Kind: String, Str: p.s[start:i]}, nil
			}
		}
		return Value{}, p.errf("unterminated string")
	case c == '<':
		// <Name.MEMBER: 3>
		end := p.pos + 1
		for end < len(p.s) && p.s[end] != '>' {
			end++
		}
		if end >= len(p.s) {
			return Value{}, p.errf("unterminated <enum>")
		}
		body := p.s[p.pos+1 : end]
		colon := -1
		for i := len(body) - 1; i >= 0; i-- {
			if body[i] == ':' {
				colon = i
				break
			}
		}
		if colon < 0 {
			return Value{}, p.errf("enum %q has no ': value'", body)
		}
		n, err := strconv.ParseInt(strings.Trim(body[colon+1:], " "), 10, 64)
		if err != nil {
			return Value{}, p.errf("enum %q: value is not an integer", body)
		}
		p.pos = end + 1
		return Value{Kind: Enum, Str: body[:colon], Int: n}, nil
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		start := p.pos
		for p.pos < len(p.s) && isNumChar(p.s[p.pos]) {
			p.pos++
		}
		tok := p.s[start:p.pos]
		if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
			return Value{Kind: Int, Int: n}, nil
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			p.pos = start
			return Value{}, p.errf("bad number %q", tok)
		}
		return Value{Kind: Float, Float: f}, nil
	case isIdentChar(c):
		start := p.pos
		for p.pos < len(p.s) && isIdentChar(p.s[p.pos]) {
			p.pos++
		}
		switch w := p.s[start:p.pos]; w {
		case "None":
			return Value{Kind: Null}, nil
		case "True":
			return Value{Kind: Bool, Bool: true}, nil
		case "False":
			return Value{Kind: Bool}, nil
		case "inf", "nan":
			f, _ := strconv.ParseFloat(w, 64)
			return Value{Kind: Float, Float: f}, nil
		default:
			return Value{Kind: Ident, Str: w}, nil
		}
	default:
		return Value{}, p.errf("unexpected %q", c)
	}
}

func (p *parser) expect(c byte) error {
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return p.errf("expected %q", c)
	}
	p.pos++
	return nil
}

func isNumChar(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
