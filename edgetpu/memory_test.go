package edgetpu

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

func readNamed(t *testing.T, paths []string) []NamedModel {
	var out []NamedModel
	for _, p := range paths {
		m, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, NamedModel{Path: filepath.Base(p), Model: m})
	}
	return out
}

func TestMemoryCocompiledOneGroup(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	files := conformance.Files(t, dir, "*_cocompiled_with_3quant_edgetpu.tflite")
	if len(files) != 3 {
		t.Fatalf("%d co-compiled files", len(files))
	}
	r := BuildMemoryReport(readNamed(t, files))
	if len(r.Groups) != 1 || len(r.Groups[0].Files) != 3 || !r.Groups[0].Fits {
		t.Fatalf("groups: %+v", r.Groups)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "co-reside") {
		t.Fatalf("text:\n%s", b.String())
	}
}

func TestMemorySeparateCompilesSplit(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	files := []string{filepath.Join(dir, "mobilenet_v1_0.25_128_quant_edgetpu.tflite"), filepath.Join(dir, "mobilenet_v1_0.5_160_quant_edgetpu.tflite")}
	r := BuildMemoryReport(readNamed(t, files))
	if len(r.Groups) != 2 || !strings.Contains(r.Statement, "evicts") {
		t.Fatalf("%+v", r)
	}
	m := readNamed(t, files[:1])[0].Model
	mem := MemoryOf(m.Packages()[0])
	if mem.Cached == 0 || mem.Instructions == 0 {
		t.Fatalf("%+v", mem)
	}
}

func TestMemorySynthetic(t *testing.T) {
	s := DemoSpec()
	mem := MemoryOf(SynthPackage(s))
	if mem.Cached != int64(s.CachedParams) || mem.Streamed != int64(s.StreamedParams) || mem.Scratch != int64(s.Scratch) || mem.Token != s.Token {
		t.Fatalf("%+v", mem)
	}
}

func TestSummaryText(t *testing.T) {
	m := roundTrip(t, syntheticCases()["demo"])
	var b bytes.Buffer
	if err := Summarize(m).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 on the Edge TPU", "PARAMETER_CACHING", "EXECUTION_ONLY", "0x5eed0f00dcafe123", "2x2 tiles", "requires runtime version 13", "fully deterministic: true"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}
