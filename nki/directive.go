package nki

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/npukit/npukit/neuroncore"
)

// A Directive is a comment in a kernel file that says how to check it
// without a manifest, the way a test states its inputs:
//
//	# npukit: check tensor_add(a=float32[128,512], b=float32[128,512], n=4) grid=2,2 arch=v3
//
// It names the kernel function and its arguments (NAME=DTYPE[D0,D1,...]
// for a tensor, NAME=VALUE for an int, float, bool, None or string), and
// optionally the SPMD grid and NeuronCore generation. `npukit nki check`
// of a file or a directory, and `npukit lsp`, check every kernel a
// directive names.
type Directive struct {
	Line      int // 1-based line of the comment
	Function  string
	Args      []Arg
	Grid      []int64
	NCVersion string // gen2, gen3, gen4 ("" for the default)
}

const directivePrefix = "npukit: check "

// Directives returns the directives of a kernel source, in line order. A
// malformed directive is an error naming its line: it was written to be
// used, so it must not be skipped silently.
func Directives(src []byte) ([]Directive, error) {
	var out []Directive
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(t, "#") {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, "#"))
		if !strings.HasPrefix(t, directivePrefix) {
			continue
		}
		d, err := parseDirective(strings.TrimSpace(t[len(directivePrefix):]))
		if err != nil {
			return nil, fmt.Errorf("line %d: npukit: check: %v", line, err)
		}
		d.Line = line
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

var archGen = map[string]string{"v2": "gen2", "v3": "gen3", "v4": "gen4"}

func parseDirective(s string) (Directive, error) {
	var d Directive
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return d, errors.New("want KERNEL(ARG=SPEC, ...)")
	}
	d.Function = strings.TrimSpace(s[:open])
	if !isIdent(d.Function) {
		return d, fmt.Errorf("%q is not a function name", d.Function)
	}
	depth, close := 0, -1
	for i := open; i < len(s) && close < 0; i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 && s[i] == ')' {
				close = i
			}
		}
	}
	if close < 0 {
		return d, errors.New("unbalanced parentheses")
	}
	for _, a := range splitTop(s[open+1 : close]) {
		arg, err := ParseArg(a)
		if err != nil {
			return d, fmt.Errorf("%q: %v", a, err)
		}
		d.Args = append(d.Args, arg)
	}
	for _, opt := range strings.Fields(s[close+1:]) {
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "grid":
			for _, x := range strings.Split(v, ",") {
				n, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return d, fmt.Errorf("grid=%s: want positive integers separated by commas", v)
				}
				d.Grid = append(d.Grid, n)
			}
			// The plan's rule, as for --grid.
			_, err := neuroncore.CheckGrid(d.Grid, nil)
			if ge := (*neuroncore.GridError)(nil); errors.As(err, &ge) {
				return d, fmt.Errorf("grid=%s: %s", v, ge.Msg)
			} else if err != nil {
				return d, err
			}
		case "arch":
			g, ok := archGen[v]
			if !ok {
				return d, fmt.Errorf("arch=%s: want v2, v3 or v4", v)
			}
			d.NCVersion = g
		default:
			return d, fmt.Errorf("unknown option %q (want grid=... or arch=...)", opt)
		}
	}
	return d, nil
}

// splitTop splits on commas outside brackets: "a=f32[1,2], n=3".
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(s[start:]); last != "" || len(out) > 0 {
		out = append(out, last)
	}
	return out
}

// ParseArg reads one kernel argument: NAME=DTYPE[D0,D1,...] (a tensor in
// HBM), NAME=nl.DTYPE (a dtype passed as a value, as flash attention's
// kernel_dtype=nl.bfloat16; np.DTYPE and nki.language.DTYPE too), NAME=(...)
// (a tuple of numbers, True/False, None or tuples, as padding=((0, 0), (1, 1)))
// or NAME=VALUE (an int, float, True/False, None or a string). A kernel
// called with a dtype or a tuple could not be given them on the command line
// before: a string "nl.bfloat16" is no dtype to nl.ndarray.
func ParseArg(s string) (Arg, error) {
	name, val, ok := strings.Cut(s, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !ok && unnamedValue(name) {
		// an unnamed argument fills the next parameter by position
		name, val = "", name
	} else if !ok || name == "" {
		return Arg{}, errors.New("want NAME=DTYPE[SHAPE] or NAME=VALUE (DTYPE[SHAPE], a number, a dtype or a tuple alone binds by position)")
	}
	if i := strings.IndexByte(val, '['); i > 0 && strings.HasSuffix(val, "]") {
		dt := DType(val[:i])
		if dt.Size() == 0 {
			return Arg{}, fmt.Errorf("unknown dtype %q", val[:i])
		}
		var shape []int64
		for _, d := range strings.Split(val[i+1:len(val)-1], ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
			if err != nil || n < 0 {
				return Arg{}, fmt.Errorf("dimension %q is not a non-negative integer", d)
			}
			shape = append(shape, n)
		}
		return Arg{Name: name, Shape: shape, DType: string(dt)}, nil
	}
	if d, ok := dtypeValue(val); ok {
		return Arg{Name: name, DTypeValue: string(d)}, nil
	}
	if strings.HasPrefix(val, "(") {
		t, rest, err := parseTuple(val)
		if err != nil {
			return Arg{}, err
		}
		if strings.TrimSpace(rest) != "" {
			return Arg{}, fmt.Errorf("tuple %q: unexpected %q after its closing parenthesis", val, rest)
		}
		return Arg{Name: name, Tuple: t}, nil
	}
	var v any
	switch {
	case val == "None":
		v = nil
	case val == "True" || val == "False":
		v = val == "True"
	default:
		if n, err := strconv.ParseInt(val, 10, 64); err == nil {
			v = float64(n)
		} else if f, err := strconv.ParseFloat(val, 64); err == nil {
			v = f
		} else {
			v = val
		}
	}
	return Arg{Name: name, Value: v}, nil
}

// Options returns the trace options of a directive for the kernel file
// (dir, file as in Options).
func (d Directive) Options(dir, file string) Options {
	o := Options{Dir: dir, File: file, Function: d.Function, Args: d.Args, Grid: d.Grid, NCVersion: d.NCVersion,
		ArgsFrom: fmt.Sprintf("the '# npukit: check' comment on line %d", d.Line), ArgsByName: true}
	if o.NCVersion == "" {
		o.NCVersion = "gen2"
	}
	o.ProgramID = make([]int64, len(o.Grid))
	return o
}

// unnamedValue reports whether s, given without NAME=, reads as a value
// on its own: a tensor DTYPE[SHAPE], a dtype, a tuple, a number, True,
// False or None (a bare word is refused: a string needs its NAME=).
func unnamedValue(s string) bool {
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		return true
	}
	if _, ok := dtypeValue(s); ok {
		return true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	return strings.HasPrefix(s, "(") || s == "True" || s == "False" || s == "None"
}

// dtypeModules are the module prefixes a dtype value is spelled with on the
// command line (nl.bfloat16, np.float32, nki.language.float16).
var dtypeModules = []string{"nl.", "nki.language.", "neuronxcc.nki.language.", "np.", "numpy."}

// dtypeValue reads a dtype passed as a value: a dtype module's member.
func dtypeValue(val string) (DType, bool) {
	for _, m := range dtypeModules {
		if rest, ok := strings.CutPrefix(val, m); ok && DType(rest).Size() > 0 {
			return DType(rest), true
		}
	}
	return "", false
}

// parseTuple reads "(a, b, ...)" whose items are numbers, True/False, None
// or tuples, and returns the items and the text after the closing
// parenthesis. A tuple of one item may end with a comma: "(3,)".
func parseTuple(s string) ([]any, string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "(") {
		return nil, s, fmt.Errorf("tuple %q: want '('", s)
	}
	s = s[1:]
	items := []any{}
	for {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, ")") {
			return items, s[1:], nil
		}
		if s == "" {
			return nil, "", errors.New("tuple: missing ')'")
		}
		if strings.HasPrefix(s, "(") {
			t, rest, err := parseTuple(s)
			if err != nil {
				return nil, "", err
			}
			items = append(items, t)
			s = rest
		} else {
			end := strings.IndexAny(s, ",)")
			if end < 0 {
				return nil, "", errors.New("tuple: missing ')'")
			}
			tok := strings.TrimSpace(s[:end])
			switch tok {
			case "None":
				items = append(items, nil)
			case "True", "False":
				items = append(items, tok == "True")
			default:
				f, err := strconv.ParseFloat(tok, 64)
				if err != nil {
					return nil, "", fmt.Errorf("tuple item %q: want a number, True, False, None or a tuple", tok)
				}
				items = append(items, f)
			}
			s = s[end:]
		}
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, ",") {
			s = s[1:]
		} else if !strings.HasPrefix(s, ")") {
			return nil, "", fmt.Errorf("tuple: want ',' or ')' before %q", s)
		}
	}
}
