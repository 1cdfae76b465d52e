package demo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/examples"
	"github.com/npukit/npukit/neff"
)

// The demo's NKI step runs from the embedded kernels (no file of the
// repository is read): the guide's overlapping allocation is an error,
// its fix checks clean, and no step fails.
func TestKernels(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	if failed := kernels(&out, dir); failed != 0 {
		t.Fatalf("%d steps failed:\n%s", failed, out.String())
	}
	s := out.String()
	overlap, fix, ok := strings.Cut(s, "--entry guide.disjoint")
	if !ok || !strings.Contains(overlap, "error [sbuf/lifetime-overlap] t1[0]") || !strings.Contains(overlap, "1 error,") ||
		!strings.Contains(fix, "0 errors, 0 warnings") {
		t.Errorf("demo output:\n%s", s)
	}
}

// The demo steps run on the generated demo NEFF: it checks clean, its DMA
// program executes (y = w since x is zero) and simulates.
func TestNeffDemoSteps(t *testing.T) {
	data, err := fs.ReadFile(examples.FS(), "demo_neff_dma.neff")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "demo_neff_dma.neff")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := neff.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep := neff.Check(m, neff.DefaultRuntime); rep.HasErrors() {
		t.Fatalf("demo NEFF does not check: %v", rep)
	}
	var out bytes.Buffer
	for _, s := range stepsFor(detect.NEFF) {
		if err := s.run(&out, path, dir, nil); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	if !strings.Contains(out.String(), "not executed") || !strings.Contains(out.String(), "trace:") {
		t.Fatalf("output:\n%s", out.String())
	}
	y, err := os.ReadFile(filepath.Join(dir, "demo_neff_dma.dma", "y.npy"))
	if err != nil {
		t.Fatal(err)
	}
	y16, err := os.ReadFile(filepath.Join(dir, "demo_neff_dma.dma", "y16.npy"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.File.Member("sg00/w.bin")
	// y (float32) = w + 0; y16 (float16, kept as such in its .npy) is w
	// in float16 (all values are multiples of 1/8 below 125, exact).
	w16 := make([]byte, len(w.Data)/2)
	for i := 0; 4*i < len(w.Data); i++ {
		dtype.Convert(dtype.Float16, w16[2*i:], dtype.Float32, w.Data[4*i:])
	}
	if !bytes.HasSuffix(y, w.Data) || !bytes.HasSuffix(y16, w16) {
		t.Errorf("output differs from the constant")
	}
	if _, err := os.Stat(filepath.Join(dir, "demo_neff_dma.sim-trace.json")); err != nil {
		t.Error(err)
	}
}

// Audit item 4: the demo's "sim --trace" line showed the DMA program's
// time alone (2.5 us) where `npukit sim` predicts 12.5 us. It now quotes
// sim's headline, and labels the DMA program's time as such.
func TestNeffDemoSimIsSims(t *testing.T) {
	for _, name := range []string{"demo.neff", "demo_neff_dma.neff"} {
		data, err := fs.ReadFile(examples.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var demo bytes.Buffer
		if err := neffSim(&demo, path, dir, nil); err != nil {
			t.Fatal(err)
		}
		a, err := npukit.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Simulate(nil)
		if err != nil {
			t.Fatal(err)
		}
		var sim bytes.Buffer
		if err := out.WriteText(&sim); err != nil {
			t.Fatal(err)
		}
		head := ""
		for _, l := range strings.Split(sim.String(), "\n") {
			if strings.HasPrefix(l, "Predicted time:") {
				head = l
			}
		}
		if head == "" || !strings.Contains(demo.String(), head+"\n") {
			t.Errorf("%s: sim says %q, the demo:\n%s", name, head, demo.String())
		}
		for _, l := range strings.Split(strings.TrimSpace(demo.String()), "\n")[1:] {
			if !strings.Contains(l, "DMA program alone") && !strings.HasPrefix(l, "trace: ") {
				t.Errorf("%s: a time not labelled as the DMA program's: %q", name, l)
			}
		}
	}
}

// Audit r3 #17: the headline said "6 example artifacts" above 7 sections
// (the NKI kernels are the last); it names every section it runs.
func TestDemoHeadlineCountsSections(t *testing.T) {
	var out bytes.Buffer
	if _, err := Run(&out, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	head, _, _ := strings.Cut(s, "\n")
	sections := strings.Count(s, "\n==== ")
	if n := len(examples.Names()); sections != n+1 || !strings.Contains(head, "example artifacts and the NKI example kernels") {
		t.Errorf("%d sections (%d artifacts) under %q", sections, n, head)
	}
}
