package outputcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
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

func TestFromFlags(t *testing.T) {
	var out, in string
	var inputs []string
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringVarP(&out, "output", "o", "", "")
	fs.StringVar(&in, "in", "", "")
	fs.StringArrayVar(&inputs, "input", nil, "")
	if o, i := FromFlags(fs, []string{"a.neff"}, func(string) bool { return false }); o != nil || i != nil {
		t.Errorf("no output: %v %v", o, i)
	}
	if err := fs.Parse([]string{"-o", "d", "--in", "raw.bin", "--input", "x=v.npy"}); err != nil {
		t.Fatal(err)
	}
	o, i := FromFlags(fs, []string{"a.neff", "-"}, func(f string) bool { return f == "output" })
	if len(o) != 1 || !o[0].Dir || o[0].Path != "d" || strings.Join(i, " ") != "a.neff raw.bin v.npy" {
		t.Errorf("outputs %v inputs %v", o, i)
	}
}
