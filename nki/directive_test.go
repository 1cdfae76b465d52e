package nki

import (
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
