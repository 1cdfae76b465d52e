package edgetpu

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/semdiff"
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

// The verdict comes first in the user's terms, numbers are exact (JSON
// numbers, no exponent), tokens hex as inspect prints them, and layers,
// relocations and DMA hints are matched by identity: one output layer
// renamed is one difference per element, not a shift of every index.
func TestDiffVerdictExactIdentity(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	ms := readNamed(t, []string{
		filepath.Join(dir, "mobilenet_v1_0.25_128_quant_edgetpu.tflite"),
		filepath.Join(dir, "mobilenet_v1_0.5_160_quant_edgetpu.tflite"),
		filepath.Join(dir, "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_0_of_2_edgetpu.tflite"),
		filepath.Join(dir, "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_0_of_3_edgetpu.tflite"),
	})
	r, err := Diff(ms[0].Model, ms[1].Model)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Verdict) == 0 || r.Verdict[0].What != "cached parameters" || r.Verdict[0].A != int64(566912) || r.Verdict[0].B != int64(1473280) {
		t.Errorf("verdict: %+v", r.Verdict)
	}
	if !strings.HasPrefix(r.Statement, "cached parameters 553.6 KiB -> 1.4 MiB") {
		t.Errorf("statement: %s", r.Statement)
	}
	var text strings.Builder
	r.WriteText(&text)
	js, _ := json.Marshal(r)
	for _, out := range []string{text.String(), string(js)} {
		if strings.Contains(out, "e+0") {
			t.Errorf("exponent notation in %s", out)
		}
	}
	if !strings.Contains(string(js), `"path":".edgetpu_ops[0].options.size","a":778324,"b":1720404`) {
		t.Errorf("options.size not exact JSON numbers: %s", js)
	}
	for _, d := range r.TokenDifferences {
		if s, _ := d.A.(string); len(s) != 18 || !strings.HasPrefix(s, "0x") {
			t.Errorf("token not hex: %+v", d)
		}
	}
	// Two pipeline splits: one output layer replaced by another.
	r, _ = Diff(ms[2].Model, ms[3].Model)
	if len(r.Differences) > 30 {
		t.Errorf("%d differences: index-shift noise", len(r.Differences))
	}
	var relocs int
	for _, d := range r.Differences {
		if strings.Contains(d.Path, ".field_offsets[") {
			relocs++
			if (d.A == nil) == (d.B == nil) {
				t.Errorf("relocation not matched by identity: %+v", d)
			}
		}
	}
	if relocs != 4 { // LOWER and UPPER of the old and the new layer
		t.Errorf("%d relocation differences, want 4", relocs)
	}
}

// The verdict of a diff says what the differences cost per inference, as
// sim prices each file (audit r3 #30: "+245.2 KiB streamed parameters"
// without the time sim charges for them); equal files get no time row.
func TestDiffVerdictTime(t *testing.T) {
	read := func(streamed int) *Model {
		s := DemoSpec()
		s.CachedParams, s.StreamedParams = 512<<10, streamed
		m := synthModel(t, s)
		return m
	}
	a, b := read(0), read(256<<10)
	h, _ := HostByName(DefaultHost)
	la, _ := EstimateModel(a, h, LatencyOptions{})
	lb, _ := EstimateModel(b, h, LatencyOptions{})
	find := func(r *DiffResult) *semdiff.Change {
		for i, c := range r.Verdict {
			if c.Unit == semdiff.Nanos {
				return &r.Verdict[i]
			}
		}
		return nil
	}
	r, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	c := find(r)
	if c == nil || c.A != int64(la.SteadyStateUs*1e3+0.5) || c.B != int64(lb.SteadyStateUs*1e3+0.5) || lb.SteadyStateUs <= la.SteadyStateUs ||
		!strings.Contains(c.String(), h.Name) || !strings.Contains(c.String(), " us") {
		t.Errorf("time row %+v (sim: %v -> %v us)", c, la.SteadyStateUs, lb.SteadyStateUs)
	}
	if r, _ := Diff(a, read(0)); find(r) != nil {
		t.Errorf("equal files: %+v", find(r))
	}
}
