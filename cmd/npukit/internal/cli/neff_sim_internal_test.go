package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/examples"
	"github.com/npukit/npukit/neff"
)

// Flags change the model: halving the bandwidth of a bandwidth-bound
// program lengthens it.
func TestNeffSimParams(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	f := conformance.Files(t, dir, "*.neff")[0]
	a, err := npukit.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	sim := func(args ...string) (npukit.NeffSimulation, error) {
		fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
		apply := neffSimFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		o, err := libOptions(apply)
		if err != nil {
			return npukit.NeffSimulation{}, err
		}
		out, err := a.Simulate(o)
		if err != nil {
			return npukit.NeffSimulation{}, err
		}
		return *out.(*npukit.NeffSimulation), nil
	}
	x, err := sim("--dma-overhead-ns=0", "--dma-min-run=0", "--dma-gibps=27")
	if err != nil {
		t.Fatal(err)
	}
	y, err := sim("--dma-overhead-ns=0", "--dma-min-run=0", "--dma-gibps=13.5")
	if err != nil {
		t.Fatal(err)
	}
	// The DMA program alone (the prediction also holds compute and launch).
	if tx, ty := x.Subgraphs[0].Result.TotalNs, y.Subgraphs[0].Result.TotalNs; ty < tx*19/10 {
		t.Errorf("half bandwidth: %d ns vs %d ns", ty, tx)
	}
	if _, err := sim("--dma-gibps=-1"); err == nil {
		t.Error("negative bandwidth accepted")
	}
	// Flags not given keep the NEFF's own generation's figures.
	if d, err := sim(); err != nil || d.Params.Engines != 16 || d.Params.OverheadNs != 1300 || d.Setup.NeuronCore != "NeuronCore-v2" {
		t.Errorf("defaults: %+v %v", d.Params, err)
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
	env := &Env{Stdout: &out, Stderr: &out}
	for _, s := range stepsFor(detect.NEFF) {
		if err := s.run(env, path, dir); err != nil {
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
	if _, err := os.Stat(filepath.Join(dir, "demo_neff_dma.dma-trace.json")); err != nil {
		t.Error(err)
	}
}
