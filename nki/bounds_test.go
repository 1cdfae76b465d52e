package nki

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile Python (issue 39): every kernel below either computes what
// CPython computes (checked by the kernel's own asserts) or is refused
// with an error naming its line; none may crash the process, wrap an
// integer, or run or allocate without bound. The step bound is lowered so
// that a refusal comes from counted work, never from a clock.

const hostileHeader = "import neuronxcc.nki.language as nl\n\ndef kernel():\n"

// runHostile traces body (indented into kernel()) with a step bound.
func runHostile(t *testing.T, body string, maxSteps int) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(hostileHeader)
	for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	b.WriteString("    return\n")
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return Trace(Options{Dir: dir, File: "k.py", Function: "kernel", NCVersion: "gen2", MaxSteps: maxSteps})
}

// Values that CPython computes: the kernel asserts them.
func TestHostilePythonSemantics(t *testing.T) {
	cases := map[string]string{
		"cyclic list printed": `a = []
a.append(a)
assert str(a) == "[[...]]", str(a)
assert repr([a, 1]) == "[[[...]], 1]"
assert f"{a}" == "[[...]]"`,
		"cyclic dict printed": `d = {}
d[1] = d
assert str(d) == "{1: {...}}", str(d)`,
		"cyclic list equal to itself": `a = []
a.append(a)
assert a == a
assert a in [a]
assert [a].count(a) == 1`,
		"distinct cycles compared": `a = []
a.append(a)
b = []
b.append(b)
ok = False
try:
    a == b
except RecursionError:
    ok = True
assert ok`,
		"deep nesting printed": `x = []
for i in range(3000):
    x = [x]
ok = False
try:
    str(x)
except RecursionError:
    ok = True
assert ok`,
		"big integers refused or exact": `assert 2**62 + (2**62 - 1) == 9223372036854775807
assert (-2)**63 == -9223372036854775807 - 1
assert 1 ** (10**18) == 1
assert round(9223372036854775807) == 9223372036854775807
assert round(1234567, -2) == 1234600
assert round(1250, -2) == 1200
assert 2**53 + 1 != 2**53
assert 2**53 + 1 != float(2**53)
assert 2**53 + 1 > float(2**53)
assert (-1).bit_length() == 1
assert divmod(7, -2) == (-4, -1)`,
		"floats as CPython prints them": `assert str(1234567.5) == "1234567.5", str(1234567.5)
assert str(1e16) == "1e+16"
assert str(1e15) == "1000000000000000.0"
assert str(0.0001) == "0.0001"
assert str(0.00001) == "1e-05"
assert repr(1.5e300) == "1.5e+300"
assert str(-0.0) == "-0.0"
assert str(0.1 + 0.2) == "0.30000000000000004"
q, r = divmod(1, 0.1)
assert q == 9.0, q
assert str(r) == "0.09999999999999995", r
assert 7.5 // 2 == 3.0
assert -7.5 % 2 == 0.5
assert round(2.675, 2) == 2.67
assert round(0.125, 2) == 0.12`,
		"strings quoted as CPython quotes them": `assert repr("it's") == '"it' + "'" + 's"'
assert repr("a\nb") == "'a\\nb'"
assert repr(("x",)) == "('x',)"`,
		"empty repetition does no work": `assert [] * 10**18 == []
assert "" * 10**18 == ""
assert () * 10**18 == ()`,
		"a long range is not listed": `for i in range(10**18):
    if i == 3:
        break
assert i == 3`,
		"combinations of more than there are": `import itertools
assert list(itertools.combinations([1, 2, 3], 10**18)) == []
assert list(itertools.combinations([1, 2, 3], 2)) == [(1, 2), (1, 3), (2, 3)]
assert list(itertools.combinations([1, 2], 0)) == [()]`,
		"partials of partials": `import functools
def f(*a):
    return len(a)
p = f
for i in range(5000):
    p = functools.partial(p, i)
assert p() == 5000`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := runHostile(t, body, 5_000_000); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Kernels that must be refused: each refusal names the kernel's file and a
// line, and comes from a bound, not from the machine running out.
func TestHostilePythonRefused(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		// the value bound is met before the default step bound
		{"doubling a string", "s = 'x' * 1024\nwhile True:\n    s = s + s", "bound for one Python value"},
		{"f-string growth", "s = 'a' * (1 << 24)\nwhile True:\n    s = f'{s}{s}{s}{s}'", "bound for one Python value"},
		{"list doubling", "a = [0] * 1024\nwhile True:\n    a = a + a", "bound of"},
		{"str of a big list", "a = ['x' * 100] * 1000000\ns = str(a)", "bound for one Python value"},
		{"integer overflow", "x = 2**64", "beyond 64 bits"},
		{"shift overflow", "x = 1 << 64", "beyond 64 bits"},
		{"sum overflow", "x = 2**62 + 2**62", "beyond 64 bits"},
		{"product overflow", "x = 3037000500 * 3037000500", "beyond 64 bits"},
		{"negation overflow", "x = -(-2**63)", "beyond 64 bits"},
		{"int of a huge float", "x = int(1e19)", "beyond 64 bits"},
		{"abs of the smallest integer", "x = abs(-9223372036854775807 - 1)", "beyond 64 bits"},
		{"round of a huge float", "x = round(1e19)", "beyond 64 bits"},
		{"string repetition overflow", `x = "ab" * 2**62`, "bound for one Python value"},
		{"list repetition overflow", "x = [0, 0, 0, 0] * 2**62", "bound of"},
		{"replace blow-up", "s = 'a' * (1 << 20)\nt = s.replace('a', s)", "bound for one Python value"},
		{"join blow-up", "s = 'a' * (1 << 20)\nt = ''.join([s] * 100)", "bound for one Python value"},
		{"sum of lists", "x = sum([[0] * 1000] * 100000, [])", "evaluation steps"},
		{"pop(0) is linear", "a = list(range(200000))\nwhile a:\n    a.pop(0)", "evaluation steps"},
		{"membership is linear", "a = list(range(200000))\nfor i in range(1000):\n    x = -1 in a", "evaluation steps"},
		{"dict deletion is linear", "d = {}\nfor i in range(20000):\n    d[i] = i\nfor i in range(20000):\n    del d[i]", "evaluation steps"},
		{"shared tuples compared", "a = (1,)\nb = (1,)\nfor i in range(80):\n    a = (a, a)\n    b = (b, b)\nx = a == b", "evaluation steps"},
		{"shared tuples hashed", "a = (1,)\nfor i in range(80):\n    a = (a, a)\nd = {a: 1}", "over 1024 KiB"},
		{"sorting is n log n", "a = list(range(1000000))\nfor i in range(100):\n    b = sorted(a)", "evaluation steps"},
		{"classes through shared bases", "class A:\n    pass\nfor i in range(40):\n    class B(A):\n        pass\n    class C(A):\n        pass\n    class A(B, C):\n        pass", "shared ancestors"},
		{"iterator returning iterators", "class I:\n    def __iter__(self):\n        return I()\nfor x in I():\n    pass", "non-iterator"},
		{"__bool__ returning an instance", "class A:\n    def __bool__(self):\n        return A()\nif A():\n    pass", "__bool__ should return bool"},
		{"long strings ordered", "s = 'a' * (1 << 22)\nt = 'a' * (1 << 22)\nwhile True:\n    x = s < t", "evaluation steps"},
		{"long strings compared", "s = 'a' * (1 << 22)\nt = 'a' * (1 << 22)\nwhile True:\n    x = s == t", "evaluation steps"},
		{"shared tuples ordered", "a = (1,)\nb = (1,)\nfor i in range(80):\n    a = (a, a)\n    b = (b, b)\nx = a < b", "evaluation steps"},
		{"dict updated from a big dict", "d1 = {}\nfor i in range(20000):\n    d1[i] = i\nd2 = {}\nwhile True:\n    d2.update(d1)", "evaluation steps"},
		{"keyword unpacking of a big dict", "d = {}\nfor i in range(20000):\n    d['k' + str(i)] = i\ndef f(**kw):\n    return 0\nwhile True:\n    f(**d)", "evaluation steps"},
		{"startswith of a long string", "s = 'a' * (1 << 22)\nwhile True:\n    x = s.startswith(s)", "evaluation steps"},
		{"long strings by identity", "s = 'a' * (1 << 22)\nt = 'a' * (1 << 22)\nwhile True:\n    x = s is t", "evaluation steps"},
		{"shared tuples by identity", "a = (1,)\nb = (1,)\nfor i in range(80):\n    a = (a, a)\n    b = (b, b)\nx = a is b", "evaluation steps"},
		{"wide format field", "x = f'{1:>100000000}'", "bound for one Python value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps := 5_000_000 // a refusal for counted work comes early
			if !strings.Contains(c.want, "evaluation steps") {
				steps = 0 // the package's bound: the other bound must come first
			}
			_, err := runHostile(t, c.body, steps)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want a refusal naming the line, got %v", err)
			}
			if e.File != "k.py" || e.Pos.Line < 4 {
				t.Errorf("refusal at %s:%d, want the kernel's line", e.File, e.Pos.Line)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// Long chains of operators, attributes, calls and subscripts nest the
// syntax tree as deep as they are long; the parser refuses them before
// evaluation recurses that deep (CPython's compiler raises RecursionError
// on such sources too).
func TestHostileChains(t *testing.T) {
	for name, src := range map[string]string{
		"operators":  "x = " + strings.Repeat("1+", 200_000) + "1",
		"attributes": "x = nl" + strings.Repeat(".a", 200_000),
		"calls":      "x = len" + strings.Repeat("()", 200_000),
		"subscripts": "x = [0]" + strings.Repeat("[0]", 200_000),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runHostile(t, src, 5_000_000)
			if err == nil || !strings.Contains(err.Error(), "chained deeper than") {
				t.Fatalf("got %v", err)
			}
		})
	}
	// a chain as long as real code writes evaluates
	if _, err := runHostile(t, "x = "+strings.Repeat("1+", 500)+"1\nassert x == 501", 5_000_000); err != nil {
		t.Fatal(err)
	}
}

// A manifest's module path or a symbolically linked sibling module never
// makes the tracer read a file outside the kernel's folder, and the
// refusal does not print the file's contents.
func TestModulesConfinedToTheFolder(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(root, "secret")
	if err := os.WriteFile(secret, []byte("ghp_SECRETTOKEN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "kernels")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kernel := "import neuronxcc.nki.language as nl\nfrom .helper import X\n\ndef kernel():\n    return\n"
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.py", kernel)
	write("notes.txt", "ghp_INSIDETOKEN\n")
	for name, o := range map[string]Options{
		"manifest ../ path":      {Modules: map[string]string{"helper": "../secret"}},
		"manifest absolute path": {Modules: map[string]string{"helper": secret}},
		"manifest non-.py file":  {Modules: map[string]string{"helper": "notes.txt"}},
		"symlinked sibling":      {},
	} {
		t.Run(name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "helper.py"))
			if name == "symlinked sibling" {
				if err := os.Symlink(secret, filepath.Join(dir, "helper.py")); err != nil {
					t.Skip(err)
				}
			}
			o.Dir, o.File, o.Function, o.NCVersion = dir, "k.py", "kernel", "gen2"
			_, err := Trace(o)
			if err == nil {
				t.Fatal("traced a module outside the folder")
			}
			if strings.Contains(err.Error(), "TOKEN") {
				t.Errorf("the error prints the file's contents: %v", err)
			}
			if !strings.Contains(err.Error(), "folder") && !strings.Contains(err.Error(), "a .py file") {
				t.Errorf("the error does not say why: %v", err)
			}
		})
	}
	// a module inside the folder, also through a link that stays inside it
	write("real_helper.py", "X = 1\n")
	os.Remove(filepath.Join(dir, "helper.py"))
	if err := os.Symlink("real_helper.py", filepath.Join(dir, "helper.py")); err != nil {
		t.Skip(err)
	}
	if _, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", NCVersion: "gen2"}); err != nil {
		t.Fatal(err)
	}
}

// A manifest's keyword arguments are ordered in n log n: a manifest of
// 250,000 keywords used to be sorted by insertion.
func TestManyManifestKeywords(t *testing.T) {
	kw := make([]kwarg, 250_000)
	for i := range kw {
		kw[i] = kwarg{Name: string(rune('a'+i%26)) + strings.Repeat("x", i%7) + itemCount(int64(len(kw)-i))}
	}
	n := 0
	sortKwCounting(kw, &n)
	if n > 40*len(kw) {
		t.Fatalf("%d comparisons for %d keywords", n, len(kw))
	}
	for i := 1; i < len(kw); i++ {
		if kw[i].Name < kw[i-1].Name {
			t.Fatal("not sorted")
		}
	}
}
