package edgetpu

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
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

// One file given alone: edgetpu memory's statement about its group and
// check's cause of its streamed parameters come from one rule
// (Memory.CompiledWithOthers), so a file check calls "most likely compiled
// together with others" is never "alone in its group" (audit r3 #8).
func TestMemoryLoneFileAgreesWithCheck(t *testing.T) {
	for _, c := range []struct {
		cached, streamed int
		together         bool
	}{
		{300 << 10, 250 << 10, true}, // a large streamed share of a model that fits
		{1 << 20, 0, false},          // all cached
		{4 << 20, 8 << 10, false},    // a small remainder streamed
		{7 << 20, 2 << 20, false},    // too large for the cache
		{512 << 10, 200 << 10, true}, // co-compiled, streamed third
		{2 << 20, 100 << 10, false},  // streamed share under 1/20
	} {
		s := DemoSpec()
		s.CachedParams, s.StreamedParams = c.cached, c.streamed
		m := synthModel(t, s)
		r := BuildMemoryReport([]NamedModel{{Path: "m_edgetpu.tflite", Model: m}})
		st := r.Groups[0].Statement
		checkSays := false
		for _, d := range Check(m) {
			checkSays = checkSays || d.Rule == RuleStreamedParams && strings.Contains(d.Message, "compiled together with others")
		}
		memorySays := strings.Contains(st, "compiled together with others") && strings.Contains(st, "not alone in its group")
		if checkSays != c.together || memorySays != c.together || r.Groups[0].Files[0].CompiledWithOthers != c.together {
			t.Errorf("cached %d streamed %d: check says co-compiled %v, memory %v (%q), want %v", c.cached, c.streamed, checkSays, memorySays, st, c.together)
		}
		if strings.Contains(st, "Alone in its group") {
			t.Errorf("statement %q", st)
		}
	}
}

// A plain TFLite model among the files of edgetpu memory is listed as not
// on the Edge TPU (it takes no part in the cache) and the others are
// reported as without it (audit r3 #8: the command failed as a whole).
func TestMemoryPlainModelListedApart(t *testing.T) {
	b, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	plain := &Model{TFLite: m.TFLite}
	alone := BuildMemoryReport([]NamedModel{{Path: "a_edgetpu.tflite", Model: m}})
	both := BuildMemoryReport([]NamedModel{{Path: "cpu.tflite", Model: plain}, {Path: "a_edgetpu.tflite", Model: m}})
	if len(both.Groups) != 1 || len(both.Groups[0].Files) != 1 || both.Groups[0].Statement != alone.Groups[0].Statement {
		t.Fatalf("groups %+v, want those of the Edge TPU file alone %+v", both.Groups, alone.Groups)
	}
	if len(both.NoEdgeTPU) != 1 || both.NoEdgeTPU[0].Path != "cpu.tflite" || !strings.Contains(both.NoEdgeTPU[0].Reason, "neither uses nor evicts") {
		t.Errorf("not on the Edge TPU: %+v", both.NoEdgeTPU)
	}
	var w bytes.Buffer
	if err := both.WriteText(&w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "Not on the Edge TPU: cpu.tflite") || !strings.Contains(w.String(), "One file holds an Edge TPU package.") {
		t.Errorf("text:\n%s", w.String())
	}
}

// inspect words an executable's instruction chunks in the units of the
// table above them (audit r3 #31: "chunks 182928 bytes" under "178.6 KiB").
func TestSummaryChunksInTableUnits(t *testing.T) {
	b, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := Summarize(m).WriteText(&w); err != nil {
		t.Fatal(err)
	}
	e := m.Ops[0].Packages[0].Executables[0]
	want := "instruction chunks " + humanize.Bytes(int64(len(e.Bitstreams[0].Data)))
	if !strings.Contains(w.String(), want) || strings.Contains(w.String(), " bytes; relocations") {
		t.Errorf("no %q in\n%s", want, w.String())
	}
}
