package edgetpu

import (
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
// USB 3.0 (5 Gb/s) and 120 us over PCIe Gen2 x1 (4 Gb/s).
func TestLinkBounds(t *testing.T) {
	if got, want := linkBounds(60000), "1.0 ms over USB 2.0, 96 us over USB 3.0, 120 us over PCIe Gen2 x1"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}
