package outputcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	d := t.TempDir()
	in := filepath.Join(d, "in.neff")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		outs   []Output
		inputs []string
		want   string // "" = accepted
	}{
		{[]Output{{Flag: "output", Path: filepath.Join(d, "new.html")}}, []string{in}, ""},
		{[]Output{{Flag: "output", Path: in}}, []string{in}, "is the input"},
		{[]Output{{Flag: "output", Path: d}}, nil, "is a directory"},
		{[]Output{{Flag: "output", Path: d, Dir: true}}, []string{in}, "holds the input"},
		{[]Output{{Flag: "output", Path: filepath.Join(d, "x.neff")}}, []string{d}, "inside the input directory"},
		{[]Output{{Flag: "output", Path: "a.json"}, {Flag: "trace", Path: "./a.json"}}, nil, "name one file"},
	} {
		err := Check(c.outs, c.inputs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v with inputs %v: %v, want %q", c.outs, c.inputs, err, c.want)
		}
	}
}
