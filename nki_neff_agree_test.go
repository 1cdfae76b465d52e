package npukit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
)

// nki sim of a kernel and sim of the NEFF compiled from it give one
// answer: the asst4 vector_add_stream kernel (hw/neuron/kernels) and the
// NEFFs neuronx-cc compiled from it at FREE_DIM 1000 (two iterations) and
// 2000 (one), captured on trn2 (corpus3/ntff), within 10%. Two
// iterations differed by 20% while nki sim kept one location per tile in
// a skip_middle_end_transformations kernel: the compiled NEFF gives each
// iteration its own tiles, and the captured run overlapped them.
func TestNkiSimAgreesWithNeffSim(t *testing.T) {
	hw := conformance.Shared(t, "hw/neuron/kernels")
	caps := conformance.Shared(t, "corpus3/ntff")
	kernels := conformance.Files(t, hw, "*asst4-trainium2__part1__kernels*.py")
	if len(kernels) == 0 {
		t.Skip("no asst4 part1 kernels")
	}
	src, err := os.ReadFile(kernels[0])
	if err != nil {
		t.Fatal(err)
	}
	const decl = "FREE_DIM = 1000"
	if !bytes.Contains(src, []byte(decl)) {
		t.Skipf("%s declares no %q", kernels[0], decl)
	}
	for _, c := range []struct{ fd, neff string }{
		{"1000", "chenhzhu__asst4-trainium2__part1__stream_256k_fd1k.neff"},
		{"2000", "chenhzhu__asst4-trainium2__part1__stream_256k_fd2k.neff"},
	} {
		neffPath := filepath.Join(caps, c.neff)
		if _, err := os.Stat(neffPath); err != nil {
			t.Skipf("%s: %v", c.neff, err)
		}
		k := bytes.Replace(src, []byte(decl), []byte("FREE_DIM = "+c.fd), 1)
		vec := []int64{256000}
		res, err := nki.Trace(nki.Options{Dir: hw, File: "k.py", Overlay: map[string][]byte{"k.py": k}, Function: "vector_add_stream", NCVersion: "gen3",
			Args: []nki.Arg{{Name: "a_vec", Shape: vec, DType: "float32"}, {Name: "b_vec", Shape: vec, DType: "float32"}}})
		if err != nil {
			t.Fatal(err)
		}
		ck, err := nki.CheckKernel(res, &neuroncore.V3)
		if err != nil {
			t.Fatal(err)
		}
		r, err := neuroncore.SimulateExecution(ck.Exec)
		if err != nil {
			t.Fatal(err)
		}
		nkiNs := r.Summary().TimeNs
		a, err := Open(neffPath)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Simulate(&Options{})
		if err != nil {
			t.Fatal(err)
		}
		ns, ok := out.(*NeffSimulation)
		if !ok {
			t.Fatalf("%s: %T", c.neff, out)
		}
		neffNs := float64(ns.TotalNs)
		t.Logf("FREE_DIM %s: nki sim %.3f us, sim X.neff %.3f us", c.fd, nkiNs/1e3, neffNs/1e3)
		if d := nkiNs/neffNs - 1; d > 0.1 || d < -0.1 {
			t.Errorf("FREE_DIM %s: nki sim %.3f us, sim of its NEFF %.3f us: %.0f%% apart", c.fd, nkiNs/1e3, neffNs/1e3, 100*d)
		}
	}
}
