package edgetpu

import (
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

func TestDiffCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	ms := readNamed(t, []string{
		filepath.Join(dir, "mobilenet_v1_0.25_128_quant_edgetpu.tflite"),
		filepath.Join(dir, "cocompilation__mobilenet_v1_0.25_128_quant_cocompiled_with_mobilenet_v1_0.5_160_quant_edgetpu.tflite"),
		filepath.Join(dir, "mobilenet_v1_0.5_160_quant_edgetpu.tflite"),
	})
	// Co-compiling changes the instructions, not only the tokens.
	r, err := Diff(ms[0].Model, ms[1].Model)
	if err != nil {
		t.Fatal(err)
	}
	if r.Identical() || len(r.TokenDifferences) != 2 {
		t.Fatalf("%s: %+v", r.Statement, r.Differences)
	}
	r, _ = Diff(ms[0].Model, ms[2].Model)
	if r.Identical() {
		t.Fatal("different models compare identical")
	}
	r, _ = Diff(ms[0].Model, ms[0].Model)
	if !r.Identical() || len(r.TokenDifferences) != 0 || r.Statement != "identical" {
		t.Fatalf("self diff: %+v", r)
	}
}

func TestDiffSeesBitstreamChange(t *testing.T) {
	a := roundTrip(t, syntheticCases()["demo"])
	m := syntheticCases()["demo"]
	m.Ops[0].Packages[0].Executables[0].Bitstreams[0].Data[3] ^= 1
	b := roundTrip(t, m)
	r, _ := Diff(a, b)
	if r.Identical() || len(r.Differences) != 1 {
		t.Fatalf("%+v", r.Differences)
	}
}

// Two compiles of one model differ in the tokens only (notes, "Parameter
// caching"): 8 bytes per executable.
func TestDiffTwoCompiles(t *testing.T) {
	a := roundTrip(t, syntheticCases()["demo"])
	m := syntheticCases()["demo"]
	for _, e := range m.Ops[0].Packages[0].Executables {
		e.Token = 0x1234
	}
	b := roundTrip(t, m)
	r, _ := Diff(a, b)
	if !r.Identical() || len(r.TokenDifferences) != 2 || r.Statement[:40] != "identical except caching tokens (2 execu" {
		t.Fatalf("%+v", r)
	}
}
