// Command edgetpu measures the Edge TPU run-time steps on the largest corpus
// model, as ratios against baselines run in the same process:
//   - relayout (device -> plain) of the largest output, against a plain copy
//     of the same bytes (issue 8: ratio <= 4, goal <= 2);
//   - link of the largest executable (issue 8: under 1 ms), against a copy of
//     its chunks;
//   - Read of the largest model (parse only), against sha256 of the same bytes.
//
// Usage: go run ./bench/edgetpu [-corpus DIR] [-runs N]
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/conformance"
)

// median runs f as a Go benchmark (enough iterations for a stable time per
// call) rounds times and returns the median time per call.
func median(rounds int, f func()) time.Duration {
	var ds []time.Duration
	for range rounds {
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				f()
			}
		})
		ds = append(ds, time.Duration(r.NsPerOp()))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func main() {
	corpus := flag.String("corpus", "", "Edge TPU corpus directory (default ../shared/corpus/edgetpu)")
	runs := flag.Int("runs", 5, "benchmark rounds per measurement (median reported)")
	flag.Parse()
	if *corpus == "" {
		root, err := conformance.ModuleRoot()
		if err != nil {
			fail(err)
		}
		*corpus = filepath.Join(root, "..", "shared", "corpus", "edgetpu")
	}
	files, _ := filepath.Glob(filepath.Join(*corpus, "*.tflite"))
	if len(files) == 0 {
		fail(fmt.Errorf("no models in %s", *corpus))
	}
	type model struct {
		path string
		data []byte
		m    *edgetpu.Model
	}
	var ms []model
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fail(err)
		}
		m, err := edgetpu.Read(data)
		if err != nil {
			fail(fmt.Errorf("%s: %w", f, err))
		}
		ms = append(ms, model{f, data, m})
	}
	// Largest file: parse vs sha256.
	big := ms[0]
	for _, m := range ms {
		if len(m.data) > len(big.data) {
			big = m
		}
	}
	tRead := median(*runs, func() { edgetpu.Read(big.data) })
	tSha := median(*runs, func() { sha256.Sum256(big.data) })
	fmt.Printf("read   %-60s %8d B  Read %9v  sha256 %9v  ratio %.3f\n", filepath.Base(big.path), len(big.data), tRead, tSha, float64(tRead)/float64(tSha))

	// Largest output layer: relayout vs copy.
	var lay *edgetpu.Layer
	var layFile string
	var exe *edgetpu.Executable
	var exeFile string
	chunkBytes := func(e *edgetpu.Executable) (n int) {
		for _, b := range e.Bitstreams {
			n += len(b.Data)
		}
		return n
	}
	for _, m := range ms {
		for _, p := range m.m.Packages() {
			for _, e := range p.Executables {
				if exe == nil || chunkBytes(e) > chunkBytes(exe) {
					exe, exeFile = e, m.path
				}
				for _, l := range e.OutputLayers {
					if lay == nil || l.SizeBytes > lay.SizeBytes {
						lay, layFile = l, m.path
					}
				}
			}
		}
	}
	o := lay.RelayoutOutput()
	dev := make([]byte, o.SizeBytes)
	for i := range dev {
		dev[i] = byte(i * 31)
	}
	var dst []byte
	tRel := median(*runs, func() { o.ToPlain(dev, 1) })
	tCopy := median(*runs, func() { dst = append(dst[:0:0], dev...) })
	fmt.Printf("relayout %s %q (%dx%dx%d, %d B)  relayout %v  copy %v  ratio %.2f (<= 4, goal <= 2)\n",
		filepath.Base(layFile), lay.Name, lay.Y, lay.X, lay.Z, lay.SizeBytes, tRel, tCopy, float64(tRel)/float64(tCopy))

	// Largest executable: link.
	in := exe.LinkInput()
	a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}}
	for _, n := range in.Inputs {
		a.Inputs[n] = make([]uint64, max(in.BatchSize, 1))
	}
	for _, n := range in.Outputs {
		a.Outputs[n] = make([]uint64, max(in.BatchSize, 1))
	}
	var p, s uint64 = 0x1000, 0x2000
	a.Parameters, a.Scratch = &p, &s
	tLink := median(*runs, func() {
		if _, _, err := link.Link(in, a); err != nil {
			fail(err)
		}
	})
	tChunkCopy := median(*runs, func() {
		for _, c := range in.Chunks {
			_ = append([]byte(nil), c...)
		}
	})
	fmt.Printf("link   %s executable %q (%d B of chunks, %d relocations)  link %v (< 1ms: %v)  chunk copy %v  ratio %.2f\n",
		filepath.Base(exeFile), exe.Name, chunkBytes(exe), len(in.Relocations), tLink, tLink < time.Millisecond, tChunkCopy, float64(tLink)/float64(tChunkCopy))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/edgetpu:", err)
	os.Exit(1)
}
