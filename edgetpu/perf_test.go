package edgetpu

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

func findings(t *testing.T, name string) diag.Report {
	t.Helper()
	m, err := ReadFile(filepath.Join(conformance.Corpus(t, "edgetpu"), name))
	if err != nil {
		t.Fatal(err)
	}
	return Check(m)
}

func finding(rep diag.Report, rule string) (diag.Diagnostic, bool) {
	for _, d := range rep {
		if d.Rule == rule {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}

// The deeplab slim model spills its activations to host memory: 9.3 MiB of
// scratch cross the link every inference, at least 162.6 ms over USB 2.0
// (9,748,...bytes x 8 / 480 Mb/s), which check now says.
func TestScratchOverHostReported(t *testing.T) {
	rep := findings(t, "deeplab_mobilenet_edgetpu_slim_cityscapes_quant_edgetpu.tflite")
	d, ok := finding(rep, RuleScratchHost)
	if !ok || d.Severity != diag.Info || !strings.Contains(d.Message, "9.3 MiB of scratch") || !strings.Contains(d.Message, "over USB 2.0") {
		t.Fatalf("scratch finding: %+v in %v", d, rep)
	}
}

// A co-compiled model streams parameters that would fit the cache alone:
// check says so and names the cause.
func TestCoCompiledStreamingReported(t *testing.T) {
	rep := findings(t, "cocompilation__mobilenet_v1_0.5_160_quant_cocompiled_with_3quant_edgetpu.tflite")
	d, ok := finding(rep, RuleStreamedParams)
	if !ok || !strings.Contains(d.Message, "437.8 KiB of parameters are streamed") || !strings.Contains(d.Message, "compiled together with others") {
		t.Fatalf("streamed finding: %+v", d)
	}
	// A model compiled alone that leaves a few KiB uncached is not
	// blamed on co-compilation.
	rep = findings(t, "movenet_single_pose_lightning_ptq_edgetpu.tflite")
	if d, ok := finding(rep, RuleStreamedParams); ok && strings.Contains(d.Message, "compiled together") {
		t.Fatalf("single model blamed on co-compilation: %s", d.Message)
	}
}

// linkBounds: 60,000 bytes take 1 ms over USB 2.0 (480 Mb/s), 96 us over
// USB 3.0 (5 Gb/s) and 120 us over PCIe Gen2 x1 (4 Gb/s), each with its
// raw rate.
func TestLinkBounds(t *testing.T) {
	if got, want := linkBounds(60000), "1.0 ms over USB 2.0 (0.06 GB/s), 96 us over USB 3.0 (0.625 GB/s), 120 us over PCIe Gen2 x1 (0.5 GB/s)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// The segments of a partitioned pipeline are found by their chained
// tensors (whatever order they are given in) and the slowest by the
// transfer model; models merely compiled together are not a pipeline.
func TestDetectPipeline(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	load := func(pattern string) []NamedModel {
		var ms []NamedModel
		for _, p := range conformance.Files(t, dir, pattern) {
			m, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, NamedModel{Path: filepath.Base(p), Model: m})
		}
		return ms
	}
	segs := load("pipeline__*_of_3_*.tflite")
	// Reverse the order: the chain decides, not the arguments.
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	p := DetectPipeline(segs)
	if p == nil || len(p.Segments) != 3 {
		t.Fatalf("pipeline not found: %+v", p)
	}
	for i, s := range p.Segments {
		if !strings.Contains(s.Path, fmt.Sprintf("segment_%d_of_3", i)) || s.LowerBoundUs <= 0 {
			t.Errorf("segment %d: %+v", i, s)
		}
		if s.LowerBoundUs > p.Segments[p.Slowest].LowerBoundUs {
			t.Errorf("segment %d is slower than the slowest", i)
		}
	}
	if q := DetectPipeline(load("cocompilation__*3quant*.tflite")); q != nil {
		t.Errorf("co-compiled models taken for a pipeline: %+v", q)
	}
	if q := DetectPipeline(segs[:1]); q != nil {
		t.Error("one file is not a pipeline")
	}
}
