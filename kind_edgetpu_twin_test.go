package npukit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/report"
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

// report of a compiled model whose twin is not used says why, as sim
// does: a file beside it named as its source that is not the model it was
// compiled from, or an --uncompiled model that is another's.
func TestReportEdgeTPUSaysWhyNoTwin(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "models", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tmp := t.TempDir()
	compiled := filepath.Join(tmp, "Face_Mask_RPi__model_edgetpu.tflite")
	// Another model under the compiled model's source name.
	for name, b := range map[string][]byte{compiled: read("Face_Mask_RPi__model_edgetpu.tflite"), filepath.Join(tmp, "Face_Mask_RPi__model.tflite"): read("Franco__model.tflite")} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notes := func(o *npukit.Options) string {
		a, err := npukit.Open(compiled)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Report(o)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, sec := range p.Sections {
			if !strings.HasPrefix(sec.ID, "latency-") {
				continue
			}
			s = append(s, sec.Intro)
			for _, b := range sec.Blocks {
				if x, ok := b.(*report.Text); ok {
					s = append(s, x.Text)
				}
			}
		}
		return strings.Join(s, "\n")
	}
	if s := notes(nil); !strings.Contains(s, "no uncompiled model used: Face_Mask_RPi__model.tflite beside it is not the model it was compiled from") || strings.Contains(s, "from the uncompiled model") {
		t.Errorf("report does not say why no twin was used:\n%s", s)
	}
}
