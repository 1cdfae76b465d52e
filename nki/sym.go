package nki

import (
	"fmt"
	"strconv"
)

// Sym is an integer (or predicate) that depends on the induction variables
// of symbolic loops (Beta-1 affine_range / sequential_range, which the NKI
// frontend does not unroll). It is kept as an expression so that block
// indices and `if` predicates can be evaluated exactly over the loop ranges.
type Sym struct {
	Op   string // "var", "const", or a binary operator, or "~" (not)
	Var  int    // loop variable (index into the tracer's symbolic loops)
	C    int64
	A, B *Sym
	vars []int // variables it depends on, sorted
	size int
}

const maxSymSize = 4096

func symVar(v int) *Sym { return &Sym{Op: "var", Var: v, vars: []int{v}, size: 1} }

func symConst(c int64) *Sym { return &Sym{Op: "const", C: c, size: 1} }

func toSym(v Value) (*Sym, bool) {
	switch x := v.(type) {
	case *Sym:
		return x, true
	case int64:
		return symConst(x), true
	case bool:
		if x {
			return symConst(1), true
		}
		return symConst(0), true
	}
	return nil, false
}

func mergeVars(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// symBin combines two symbolic operands; it returns an error for an
// expression grown beyond bounds.
func symBin(op string, a, b *Sym) (*Sym, error) {
	if a.Op == "const" && b.Op == "const" {
		v, err := checkedIntOp(op, a.C, b.C)
		if err != nil {
			return nil, err
		}
		return symConst(v), nil
	}
	// simplifications that keep affine expressions small
	switch op {
	case "+":
		if b.Op == "const" && b.C == 0 {
			return a, nil
		}
		if a.Op == "const" && a.C == 0 {
			return b, nil
		}
	case "*":
		if b.Op == "const" && b.C == 1 {
			return a, nil
		}
		if a.Op == "const" && a.C == 1 {
			return b, nil
		}
	}
	s := &Sym{Op: op, A: a, B: b, vars: mergeVars(a.vars, b.vars), size: a.size + b.size + 1}
	if s.size > maxSymSize {
		return nil, fmt.Errorf("symbolic expression of loop variables over %d terms", maxSymSize)
	}
	return s, nil
}

func intBinOp(op string, a, b int64) (int64, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "//":
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return q, nil
	case "%":
		if b == 0 {
			return 0, fmt.Errorf("integer modulo by zero")
		}
		m := a % b
		if m != 0 && ((m < 0) != (b < 0)) {
			m += b
		}
		return m, nil
	case "<<":
		if b < 0 || b > 62 {
			return 0, fmt.Errorf("shift count %d out of range", b)
		}
		return a << uint(b), nil
	case ">>":
		if b < 0 {
			return 0, fmt.Errorf("negative shift count")
		}
		if b > 63 {
			b = 63
		}
		return a >> uint(b), nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	case "**":
		if b < 0 {
			return 0, fmt.Errorf("negative integer power")
		}
		r := int64(1)
		for i := int64(0); i < b; i++ {
			r *= a
			if i > 64 {
				return 0, fmt.Errorf("integer power too large")
			}
		}
		return r, nil
	case "<":
		return b2i(a < b), nil
	case "<=":
		return b2i(a <= b), nil
	case ">":
		return b2i(a > b), nil
	case ">=":
		return b2i(a >= b), nil
	case "==":
		return b2i(a == b), nil
	case "!=":
		return b2i(a != b), nil
	case "min":
		return min(a, b), nil
	case "max":
		return max(a, b), nil
	}
	return 0, fmt.Errorf("operator %s on symbolic loop index", op)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Eval evaluates the expression with the variables' values.
func (s *Sym) Eval(env []int64) int64 {
	switch s.Op {
	case "const":
		return s.C
	case "var":
		if s.Var < len(env) {
			return env[s.Var]
		}
		return 0
	case "~":
		return b2i(s.A.Eval(env) == 0)
	case "neg":
		return -s.A.Eval(env)
	}
	v, err := intBinOp(s.Op, s.A.Eval(env), s.B.Eval(env))
	if err != nil {
		return 0
	}
	return v
}

func (s *Sym) String() string {
	switch s.Op {
	case "const":
		return strconv.FormatInt(s.C, 10)
	case "var":
		return "L" + strconv.Itoa(s.Var)
	case "~":
		return "~(" + s.A.String() + ")"
	case "neg":
		return "-(" + s.A.String() + ")"
	}
	return "(" + s.A.String() + " " + s.Op + " " + s.B.String() + ")"
}
