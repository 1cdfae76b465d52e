package python

import (
	"github.com/npukit/npukit/internal/conformance"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// corpusKernels is in ../shared or $NPUKIT_SHARED.
var corpusKernels = filepath.Join(conformance.SharedDir(), "corpus2", "nki", "kernels")

// Every kernel and helper module of the corpus parses.
func TestParseCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusKernels, "*.py"))
	if len(files) == 0 {
		t.Skip("corpus2/nki not present")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := Parse(filepath.Base(f), string(src))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(mod.Body) == 0 {
			t.Errorf("%s: no statements", f)
		}
	}
}

func mustExpr(t *testing.T, src string) Expr {
	t.Helper()
	e, err := ParseExpr("t.py", src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return e
}

func TestPrecedence(t *testing.T) {
	e := mustExpr(t, "-a ** 2 + b * c // d")
	b, ok := e.(*BinOp)
	if !ok || b.Op != "+" {
		t.Fatalf("top is %T %+v", e, e)
	}
	u, ok := b.Left.(*UnaryOp)
	if !ok || u.Op != "-" {
		t.Fatalf("left is %T", b.Left)
	}
	if p, ok := u.Operand.(*BinOp); !ok || p.Op != "**" {
		t.Fatalf("-a**2 should be -(a**2), got %T", u.Operand)
	}
	r := b.Right.(*BinOp)
	if r.Op != "//" {
		t.Fatalf("b*c//d: top %q", r.Op)
	}
	if c := mustExpr(t, "a < b <= c").(*Compare); len(c.Ops) != 2 {
		t.Fatalf("chained compare: %v", c.Ops)
	}
	if c := mustExpr(t, "a not in b").(*Compare); c.Ops[0] != "not in" {
		t.Fatalf("not in: %v", c.Ops)
	}
	if c := mustExpr(t, "a is not None").(*Compare); c.Ops[0] != "is not" {
		t.Fatalf("is not: %v", c.Ops)
	}
	if _, ok := mustExpr(t, "x if c else y").(*IfExp); !ok {
		t.Fatal("conditional expression")
	}
	if c, ok := mustExpr(t, "[i * 2 for i in range(4) if i]").(*Comp); !ok || c.Kind != "list" || len(c.Gens[0].Ifs) != 1 {
		t.Fatal("list comprehension")
	}
	if _, ok := mustExpr(t, "(n := 3)").(*NamedExpr); !ok {
		t.Fatal("walrus")
	}
	if b := mustExpr(t, "a @ b").(*BinOp); b.Op != "@" {
		t.Fatal("@")
	}
}

func TestSubscripts(t *testing.T) {
	s := mustExpr(t, "t[i, 1:2, ::3, None, ...]").(*Subscript)
	tu := s.Index.(*Tuple)
	if len(tu.Elts) != 5 {
		t.Fatalf("elements %d", len(tu.Elts))
	}
	if sl := tu.Elts[2].(*Slice); sl.Lower != nil || sl.Upper != nil || sl.Step == nil {
		t.Fatalf("::3 = %+v", sl)
	}
	if c := tu.Elts[4].(*Const); c.Kind != "Ellipsis" {
		t.Fatal("...")
	}
}

func TestPositions(t *testing.T) {
	src := "def k(a, b=2, *args, c, d=4, **kw):\n  x = nl.ndarray((1, 2), dtype=a.dtype)\n  return x\n"
	mod, err := Parse("k.py", src)
	if err != nil {
		t.Fatal(err)
	}
	fd := mod.Body[0].(*FunctionDef)
	if len(fd.Args.Args) != 2 || fd.Args.NDefault != 1 || fd.Args.VarArg.Name != "args" || len(fd.Args.KwOnly) != 2 || fd.Args.KwArg.Name != "kw" {
		t.Fatalf("params %+v", fd.Args)
	}
	as := fd.Body[0].(*Assign)
	call := as.Value.(*Call)
	if call.Pos != (Pos{2, 6}) {
		t.Fatalf("call at %v, want line 2 col 6 (0-based)", call.Pos)
	}
}

func TestFString(t *testing.T) {
	src := "x = f'a{b + 1}c{d!r:>{w}}{{}}'\n"
	mod, err := Parse("f.py", src)
	if err != nil {
		t.Fatal(err)
	}
	fs := mod.Body[0].(*Assign).Value.(*FString)
	if len(fs.Parts) != 5 {
		t.Fatalf("parts %d: %#v", len(fs.Parts), fs.Parts)
	}
	ff := fs.Parts[1].(*FormatField)
	if ff.Value.At() != (Pos{1, 8}) {
		t.Fatalf("field at %v", ff.Value.At())
	}
	if f2 := fs.Parts[3].(*FormatField); f2.Conv != 'r' || f2.Spec == nil {
		t.Fatalf("conversion/spec: %+v", f2)
	}
}

func TestStatements(t *testing.T) {
	src := `import a.b as c, d
from . import x
from ..m import (y as z, w,)
@dec(1)
class C(B, metaclass=M):
    v: int = 3
    def f(self, /, q, *, r=1):
        global g
        for i, j in zip(a, b):
            if i: continue
            elif j:
                break
            else:
                pass
        while x: x -= 1
        with open(p) as fh, q:
            del fh[0]
        try:
            raise E("m") from None
        except (A, B) as e:
            assert e, "msg"
        finally:
            pass
        a = b = [*c, d]
        return {**k, 'x': 1}, {1, 2}, lambda u, v=2: u + v
`
	mod, err := Parse("s.py", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(mod.Body) != 4 {
		t.Fatalf("%d statements", len(mod.Body))
	}
	imp := mod.Body[2].(*ImportFrom)
	if imp.Level != 2 || imp.Module != "m" || len(imp.Names) != 2 {
		t.Fatalf("%+v", imp)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"x = (1,\n", "e.py:2:1: unexpected end of file inside brackets"},
		{"if x:\ny = 1\n", "e.py:2:1: expected an indented block"},
		{"def f():\n    a = 1\n  b = 2\n", "e.py:3:3: unindent does not match"},
		{"x = 'abc\n", "e.py:1:5: unterminated string"},
		{"x = 1 +\n", "e.py:1:8: expected an expression"},
		{"async def f(): pass\n", "e.py:1:1: \"async\" is not supported"},
		{"x = f'{}'\n", "empty expression"},
		{"x = f'{a b}'\n", "e.py:1:10:"},
	} {
		_, err := Parse("e.py", c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

func TestDeepNestingBounded(t *testing.T) {
	src := "x = " + strings.Repeat("(", 5000) + strings.Repeat(")", 5000) + "\n"
	if _, err := Parse("d.py", src); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Fatalf("err %v", err)
	}
	src = "x = " + strings.Repeat("-", 5000) + "1\n"
	if _, err := Parse("d.py", src); err == nil {
		t.Fatal("deep unary accepted")
	}
}

// parseWhole parses a file from all its tokens at once, as the parser
// did before it took them a logical line at a time.
func parseWhole(file, src string) (*Module, error) {
	toks, err := tokenize(file, src)
	if err != nil {
		return nil, err
	}
	return (&parser{file: file, toks: toks}).module(src)
}

// Taking tokens a logical line at a time gives the module (or the error)
// that all tokens at once give.
func TestParseByLine(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusKernels, "*.py"))
	srcs := []string{
		"x = (1,\n 2)\ny = a if b else c\nz = [i for i in r if i]\n",
		"def f():\n    return 1\n\n\n# c\nclass C:\n    pass",
		"if a:\n  b\n else:\n  c\n", // bad dedent
		"x = 1\ny = (2\n",           // end of file in brackets
		"x = 1\ny = 2 $\n",          // bad character after a good line
		"s = '''a\nb''' + f'{x!r}'\n",
		"x = \\\n  1\n",
		"",
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	for i, src := range srcs {
		m1, err1 := Parse("a.py", src)
		m2, err2 := parseWhole("a.py", src)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Errorf("source %d: by line: %v; whole: %v", i, err1, err2)
			continue
		}
		if !reflect.DeepEqual(m1, m2) {
			t.Errorf("source %d: the modules differ", i)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("def f(a, *b, c=1, **d):\n  return [x for x in a if x] + f'{c!r:>4}'\n")
	f.Add("x = t[1:2, ..., None]\nif a:\n\tpass\nelse:\n  b\n")
	files, _ := filepath.Glob(filepath.Join(corpusKernels, "*.py"))
	for _, p := range files[:min(3, len(files))] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		mod, err := Parse("fuzz.py", src)
		if _, err2 := parseWhole("fuzz.py", src); (err == nil) != (err2 == nil) {
			t.Fatalf("by line: %v; whole: %v", err, err2)
		}
		if err == nil && mod == nil {
			t.Fatal("nil module without error")
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}

// BenchmarkParseLargest parses the largest corpus kernel file (MB/s).
func BenchmarkParseLargest(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusKernels, "*.py"))
	var src []byte
	for _, f := range files {
		if s, err := os.ReadFile(f); err == nil && len(s) > len(src) {
			src = s
		}
	}
	if src == nil {
		b.Skip("corpus2/nki not present")
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("a.py", string(src)); err != nil {
			b.Fatal(err)
		}
	}
}
