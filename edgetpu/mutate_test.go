package edgetpu

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// TestMutatedModels runs everything the commands do on truncated and
// byte-flipped copies of small real models and of synthetic ones (shape
// info slices, nested packages, three executables, a raw package)
// (deterministic, so that CI repeats it): reading may fail, nothing may
// panic. The flips aim at the structures (file start and end, the custom
// options, the package and executable tables), not at parameter bytes.
func TestMutatedModels(t *testing.T) {
	var bases [][]byte
	cases := syntheticCases()
	for _, name := range []string{"demo", "shape_info", "multi_chip_package", "three_executables", "raw"} {
		if b, err := (WriteOptions{Align: 8}).Model(cases[name]); err == nil {
			bases = append(bases, b)
		}
	}
	if dir := conformance.SharedDir(); dir != "" {
		for _, name := range []string{"tools__split_concat_edgetpu.tflite", "keras_lstm_mnist_ptq_edgetpu.tflite"} {
			if b, err := os.ReadFile(filepath.Join(dir, "corpus", "edgetpu", name)); err == nil {
				bases = append(bases, b)
			}
		}
	}
	rng := rand.New(rand.NewPCG(4, 8))
	for _, base := range bases {
		m, err := Read(base)
		if err != nil {
			t.Fatal(err)
		}
		regions := []int{0, max(0, len(base)-4096)}
		for _, op := range m.Ops {
			regions = append(regions, op.Options.Offset+op.Options.Size-256)
			for _, p := range op.Packages {
				regions = append(regions, p.FileOffset, p.FileOffset+p.MultiExecutableOffset)
				for _, e := range p.Executables {
					at := p.FileOffset + p.MultiExecutableOffset + e.Offset
					regions = append(regions, at, at+len(e.Data)-4096)
				}
			}
		}
		for i := 0; i < 150; i++ {
			b := append([]byte(nil), base...)
			switch rng.IntN(4) {
			case 0:
				b = b[:rng.IntN(len(b))]
			default:
				for range 1 + rng.IntN(8) {
					at := min(max(regions[rng.IntN(len(regions))]+rng.IntN(4096), 0), len(b)-1)
					if rng.IntN(2) == 0 {
						b[at] ^= 1 << rng.IntN(8)
					} else {
						b[at] = byte(rng.Uint32())
					}
				}
			}
			if m, err := Read(b); err == nil {
				exercise(m)
			}
		}
	}
}
