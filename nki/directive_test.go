package nki

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDirectives(t *testing.T) {
	src := `import x
# npukit: check add_kernel(a=float32[128,512], b=bfloat16[128, 512], n=4, scale=0.5, flag=True, mode=fast, none=None) grid=2,2 arch=v3
def add_kernel(a, b, n): pass
#npukit: check other()
`
	ds, err := Directives([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 {
		t.Fatalf("%d directives", len(ds))
	}
	d := ds[0]
	want := []Arg{{Name: "a", Shape: []int64{128, 512}, DType: "float32"}, {Name: "b", Shape: []int64{128, 512}, DType: "bfloat16"},
		{Name: "n", Value: float64(4)}, {Name: "scale", Value: 0.5}, {Name: "flag", Value: true}, {Name: "mode", Value: "fast"}, {Name: "none"}}
	if d.Line != 2 || d.Function != "add_kernel" || !reflect.DeepEqual(d.Args, want) || !reflect.DeepEqual(d.Grid, []int64{2, 2}) || d.NCVersion != "gen3" {
		t.Errorf("%+v", d)
	}
	if o := ds[1].Options("/k", "k.py"); ds[1].Line != 4 || ds[1].Function != "other" || len(ds[1].Args) != 0 || o.NCVersion != "gen2" {
		t.Errorf("%+v %+v", ds[1], o)
	}
}

func TestDirectiveErrorsNameTheLine(t *testing.T) {
	for _, bad := range []string{
		"# npukit: check k(a=float99[1])",
		"# npukit: check k(a=float32[1,2)",
		"# npukit: check k a=1",
		"# npukit: check k() grid=0",
		"# npukit: check k() grid=1,1,1,1,1,1,1,1,1", // the plan's bound (neuroncore.CheckGrid)
		"# npukit: check k() arch=v9",
		"# npukit: check k() speed=1",
		"# npukit: check 9k()",
	} {
		_, err := Directives([]byte("x = 1\n" + bad + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A kernel that takes its dtype and a padding tuple as arguments (flash
// attention's kernel_dtype=nl.bfloat16, conv's padding=((0, 0), (1, 1)))
// can be given them with --arg: nl.DTYPE is a dtype, not the string
// "nl.bfloat16" nl.ndarray refused, and (..) is a tuple.
func TestParseArgDTypeAndTuple(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Arg
	}{
		{"kernel_dtype=nl.bfloat16", Arg{Name: "kernel_dtype", DTypeValue: "bfloat16"}},
		{"acc=np.float32", Arg{Name: "acc", DTypeValue: "float32"}},
		{"d=nki.language.float16", Arg{Name: "d", DTypeValue: "float16"}},
		{"padding=((0, 0), (1, 1))", Arg{Name: "padding", Tuple: []any{[]any{0.0, 0.0}, []any{1.0, 1.0}}}},
		{"s=(3,)", Arg{Name: "s", Tuple: []any{3.0}}},
		{"e=()", Arg{Name: "e", Tuple: []any{}}},
		{"m=(None, True, 0.5)", Arg{Name: "m", Tuple: []any{nil, true, 0.5}}},
		{"mode=nl.fast", Arg{Name: "mode", Value: "nl.fast"}}, // not a dtype: a string as before
	} {
		got, err := ParseArg(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v %v, want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"p=(1, 2", "p=(1, x)", "p=(1 2)", "p=(1) 3"} {
		if _, err := ParseArg(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	src := authorHeader + `
@nki.jit
def kernel(a, kernel_dtype, padding):
    t = nl.ndarray((128, 512 + padding[1][0] + padding[1][1]), dtype=kernel_dtype, buffer=nl.sbuf)
    nl.store(a, value=t[:, 0:512])
`
	var args []Arg
	for _, s := range []string{"a=float32[128,512]", "kernel_dtype=nl.bfloat16", "padding=((0, 0), (1, 1))"} {
		a, err := ParseArg(s)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, a)
	}
	res := traceSource(t, src, "gen2", args...)
	var found bool
	for _, r := range res.Tensors {
		if r.Name == "t" {
			found = true
			if r.DType != "bfloat16" || !reflect.DeepEqual(r.Shape, []int64{128, 514}) {
				t.Errorf("t: %s%v, want bfloat16[128 514]", r.DType, r.Shape)
			}
		}
	}
	if !found {
		t.Error("no tensor t traced")
	}
}

// --arg and '# npukit: check' name the parameters they give, as Python's
// kernel(b=..., a=...): given out of order they bind by name (they were
// bound in order, b's tensor to a); a name the kernel does not have goes
// to **kwargs (conv's padding=, refused as a third positional argument)
// and without one is refused naming the parameters (audit r3 #6: it filled
// the next parameter silently); an unnamed argument fills the next
// parameter by position; a keyword-only parameter can be given.
func TestArgsBindByName(t *testing.T) {
	src := authorHeader + `
@nki.jit
def kernel(a, b, *, scale=1.0, **kw):
    assert a.shape == (128, 512) and b.shape == (128, 256)
    assert scale == 2.0 and kw["padding"] == (1, 1)
    t = nl.load(a)
    nl.store(a, value=t)
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := func(byName bool, flags ...string) error {
		var args []Arg
		for _, s := range flags {
			a, err := ParseArg(s)
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, a)
		}
		_, err := Trace(Options{Dir: dir, File: "k.py", Function: "kernel", Args: args, NCVersion: "gen2", ArgsByName: byName})
		return err
	}
	for _, flags := range [][]string{
		{"b=float32[128,256]", "a=float32[128,512]", "scale=2.0", "padding=(1,1)"},
		{"padding=(1,1)", "scale=2.0", "a=float32[128,512]", "b=float32[128,256]"},
		// unnamed arguments fill the parameters by position
		{"float32[128,512]", "float32[128,256]", "padding=(1,1)", "scale=2.0"},
	} {
		if err := trace(true, flags...); err != nil {
			t.Errorf("%v: %v", flags, err)
		}
	}
	// manifest entries stay positional, in order
	if err := trace(false, "b=float32[128,256]", "a=float32[128,512]"); err == nil {
		t.Error("positional arguments bound by name")
	}
	// a name the kernel lacks goes to **kwargs: a and b lack values
	if err := trace(true, "x=float32[128,512]", "y=float32[128,256]", "padding=(1,1)", "scale=2.0"); err == nil || !strings.Contains(err.Error(), "no value") {
		t.Errorf("x=, y= for kernel(a, b, **kw): %v", err)
	}
	// a name the kernel lacks, without **kwargs, is refused naming the
	// parameters; so is a parameter named twice
	src2 := authorHeader + `
@nki.jit
def kernel2(a):
    t = nl.load(a)
    nl.store(a, value=t)
`
	if err := os.WriteFile(filepath.Join(dir, "k2.py"), []byte(src2), 0o644); err != nil {
		t.Fatal(err)
	}
	x, _ := ParseArg("x=float32[128,512]")
	if _, err := Trace(Options{Dir: dir, File: "k2.py", Function: "kernel2", Args: []Arg{x}, NCVersion: "gen2", ArgsByName: true}); err == nil || !strings.Contains(err.Error(), "--arg x names no parameter of kernel2(a)") {
		t.Errorf("an argument named x for kernel2(a): %v", err)
	}
	a, _ := ParseArg("a=float32[128,512]")
	z, _ := ParseArg("z=3")
	_, err := Trace(Options{Dir: dir, File: "k2.py", Function: "kernel2", Args: []Arg{a, z}, NCVersion: "gen2", ArgsByName: true})
	if err == nil || !strings.Contains(err.Error(), "--arg z names no parameter of kernel2(a)") {
		t.Errorf("extra argument: %v", err)
	}
	if _, err := Trace(Options{Dir: dir, File: "k2.py", Function: "kernel2", Args: []Arg{a, a}, NCVersion: "gen2", ArgsByName: true}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a given twice: %v", err)
	}
	u, err := ParseArg("float32[128,512]")
	if err != nil || u.Name != "" {
		t.Fatalf("unnamed argument: %+v, %v", u, err)
	}
	res, err := Trace(Options{Dir: dir, File: "k2.py", Function: "kernel2", Args: []Arg{u}, NCVersion: "gen2", ArgsByName: true})
	if err != nil || res.Tensors[0].ID != "arg:a" {
		t.Errorf("an unnamed argument for kernel2(a): %v", err)
	}
	if _, err := ParseArg("inptu"); err == nil {
		t.Error("a bare word was taken for an unnamed value")
	}
	if _, err = Trace(Options{Dir: dir, File: "k2.py", Function: "kernel2", Args: []Arg{u, u}, NCVersion: "gen2", ArgsByName: true}); err == nil || !strings.Contains(err.Error(), "positional") {
		t.Errorf("two unnamed arguments for kernel2(a): %v", err)
	}
}
