package npukit_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/conformance"
)

// report of a compiled model prices its Edge TPU compute with the
// uncompiled twin found beside it, as sim does, and says which file; with
// EdgeTPUNoTwin it keeps to the compiled file.
func TestReportEdgeTPUFindsTwin(t *testing.T) {
	f := filepath.Join(conformance.Shared(t, "corpus2/edgetpu-pairs"), "models", "Face_Mask_RPi__model_edgetpu.tflite")
	intro := func(o *npukit.Options) string {
		a, err := npukit.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Report(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sections {
			if strings.HasPrefix(s.ID, "latency-") {
				return s.Intro
			}
		}
		t.Fatal("no latency section")
		return ""
	}
	if s := intro(nil); !strings.Contains(s, "from the uncompiled model Face_Mask_RPi__model.tflite (found beside the compiled file)") {
		t.Errorf("report does not name the twin: %s", s)
	}
	if s := intro(&npukit.Options{EdgeTPUNoTwin: true}); strings.Contains(s, "uncompiled model") {
		t.Errorf("EdgeTPUNoTwin: %s", s)
	}
}
