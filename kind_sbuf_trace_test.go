package npukit

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// sbuf sim --trace (and nki sim --trace) says where the trace went and
// what it covers, and the trace ends at the printed kernel body: each
// DMA's fixed completion latency is drawn (audit r3 #20: the trace was
// written silently and ended 1.3 us before the body, at the last
// transfer), and the launch overhead is said to be left out.
func TestSbufTraceEndsAtKernelBody(t *testing.T) {
	p, err := neuroncore.ReadPlanFile("examples/sbuf/double-buffer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := SbufSimulate(p, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Ph      string  `json:"ph"`
			Cat     string  `json:"cat"`
			Ts, Dur float64 // µs
		} `json:"traceEvents"`
		Other map[string]string `json:"otherData"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	end, completions := 0.0, 0
	for _, e := range doc.Events {
		if e.Ph == "X" {
			end = math.Max(end, e.Ts+e.Dur)
			if e.Cat == "dma-completion" {
				completions++
			}
		}
	}
	s := r.Summary()
	if math.Abs(end*1000-s.KernelNs) > 1 || completions == 0 {
		t.Errorf("trace ends at %.3f us with %d DMA completions; the kernel body is %.3f us", end, completions, s.KernelNs/1000)
	}
	if !strings.Contains(doc.Other["covers"], "launch overhead") {
		t.Errorf("trace metadata does not say the launch is left out: %v", doc.Other)
	}
	var out strings.Builder
	if err := s.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Trace written to "+path) || s.Trace != path {
		t.Errorf("the output does not name the trace:\n%s", out.String())
	}
}
