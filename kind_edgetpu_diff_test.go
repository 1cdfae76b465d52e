package npukit_test

import (
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/edgetpu"
)

// An uncompiled TFLite model and its compiled Edge TPU twin are one model
// before and after edgetpu_compiler: diff compares them (what moved to the
// Edge TPU) and report puts them on one page instead of refusing two kinds;
// other kinds stay apart.
func TestDiffUncompiledWithCompiled(t *testing.T) {
	compiled := edgetpu.Synthetic(edgetpu.DemoSpec())
	cb, err := edgetpu.Write(compiled)
	if err != nil {
		t.Fatal(err)
	}
	plain := edgetpu.Synthetic(edgetpu.DemoSpec())
	plain.TFLite.OperatorCodes = []edgetpu.OperatorCode{{DeprecatedBuiltinCode: 25, BuiltinCode: 25, Version: 1}}
	plain.Ops = nil
	pb, err := edgetpu.Write(plain)
	if err != nil {
		t.Fatal(err)
	}
	a, err := npukit.OpenBytes("model.tflite", pb)
	if err != nil {
		t.Fatal(err)
	}
	b, err := npukit.OpenBytes("model_edgetpu.tflite", cb)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != detect.TFLite || b.Kind != detect.EdgeTPU {
		t.Fatalf("kinds %s and %s, want a plain and a compiled model", a.Kind, b.Kind)
	}
	for _, pair := range [][2]*npukit.Artifact{{a, b}, {b, a}} {
		if !npukit.Comparable(pair[0], pair[1]) {
			t.Errorf("%s and %s not comparable", pair[0].Name, pair[1].Name)
		}
		out, identical, err := npukit.Diff(pair[0], pair[1], nil)
		if err != nil || identical || out == nil {
			t.Errorf("diff %s %s: identical %v, err %v", pair[0].Name, pair[1].Name, identical, err)
		}
	}
	// report takes the two as well (one page for the model before and
	// after compiling); it refused them as two kinds.
	for _, pair := range [][]*npukit.Artifact{{a, b}, {b, a}} {
		if _, err := npukit.Report(pair, nil); err != nil {
			t.Errorf("report %s %s: %v", pair[0].Name, pair[1].Name, err)
		}
	}
	c, err := npukit.OpenBytes("problem.csv", []byte("id,lower,upper,size\n0,0,10,4\n1,5,15,8\n"))
	if err != nil {
		t.Fatal(err)
	}
	if npukit.Comparable(a, c) || npukit.Comparable(c, b) {
		t.Errorf("a TFLite model and a %s are comparable", c.Kind)
	}
	if _, err := npukit.Report([]*npukit.Artifact{a, c}, nil); err == nil {
		t.Errorf("report of a TFLite model and a %s", c.Kind)
	}
}
