package ntff

import (
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neuroncore"
)

// Every capture that lays its streams out (formats 5 and 6) shows the
// kernel's own instructions inside the window, and the rest of the
// window, the runtime's launch, within 1 us of the launch the cost model
// charges (neuroncore's LaunchNs, measured on these captures): on a
// core that runs a kernel the launch is not the idle core's window.
func TestKernelSpanLaunch(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	launch := neuroncore.V3.LaunchNs / 1e3
	n := 0
	for _, f := range conformance.Files(t, dir, "*.ntff") {
		p := readCapture(t, f)
		if p.Format < 5 {
			continue
		}
		s := Summarize(p, f)
		c := s.Cores[0]
		if c.KernelUs <= 0 {
			t.Errorf("%s: no kernel instruction found in the window", filepath.Base(f))
			continue
		}
		n++
		got := c.LaunchBeforeUs + c.LaunchAfterUs
		if d := got - launch; d < -1 || d > 1 {
			t.Errorf("%s: launch %.3f us (%.3f before, %.3f after the kernel's %.3f us), model %.3f us", filepath.Base(f), got, c.LaunchBeforeUs, c.LaunchAfterUs, c.KernelUs, launch)
		}
		if d := c.KernelUs + got - c.TotalTimeUs; d < -1e-6 || d > 1e-6 {
			t.Errorf("%s: kernel %.3f + launch %.3f us is not the window's %.3f us", filepath.Base(f), c.KernelUs, got, c.TotalTimeUs)
		}
	}
	if n == 0 {
		t.Fatal("no capture lays its streams out")
	}
}
