package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/trace"
)

// Every corpus NEFF simulates, and its trace is valid Chrome trace JSON
// with exactly one complete event per descriptor on at most one track per
// DMA engine.
func TestNeffSimTraceCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	tmp := t.TempDir()
	for _, f := range conformance.Files(t, dir, "*.neff") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tp := filepath.Join(tmp, filepath.Base(f)+".json")
			env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
			out, err := runNeffSim(env, detect.Result{Path: f, Kind: detect.NEFF}, SimOptions{Trace: tp})
			if err != nil {
				t.Fatal(err)
			}
			o := out.(neffSimOutput)
			var text bytes.Buffer
			if err := o.WriteText(&text); err != nil || !bytes.Contains(text.Bytes(), []byte("Total DMA time")) {
				t.Fatalf("text: %v %s", err, text.String())
			}
			t.Log(text.String())
			_, progs, err := openNeffPrograms(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(progs) != 1 {
				t.Skip("several subgraphs: one trace each")
			}
			descs := len(progs[0].Descriptors)
			if o.Subgraphs[0].Result.Descriptors != descs || o.TotalNs <= 0 {
				t.Fatalf("result %+v", o.Subgraphs[0].Result)
			}
			fh, err := os.Open(tp)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			sum, err := trace.Validate(fh)
			if err != nil {
				t.Fatal(err)
			}
			if got := sum.Phases["X"]; got != descs {
				t.Errorf("%d complete events for %d descriptors", got, descs)
			}
			if sum.Tracks < 1 || sum.Tracks > o.Params.Engines {
				t.Errorf("%d tracks for %d DMA engines", sum.Tracks, o.Params.Engines)
			}
			busy := map[int]bool{}
			for _, e := range o.Subgraphs[0].Result.Engines {
				if e.Descriptors > 0 {
					busy[e.Engine] = true
				}
			}
			if sum.Tracks != len(busy) {
				t.Errorf("%d tracks, %d busy engines", sum.Tracks, len(busy))
			}
		})
	}
}

// Flags change the model: halving the bandwidth of a bandwidth-bound
// program lengthens it.
func TestNeffSimParams(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	f := conformance.Files(t, dir, "*.neff")[0]
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	saved := neffSimFlags
	defer func() { neffSimFlags = saved }()
	neffSimFlags.engines, neffSimFlags.gibps, neffSimFlags.overhead, neffSimFlags.minRun = 16, 27, 0, 0
	a, err := runNeffSim(env, detect.Result{Path: f, Kind: detect.NEFF}, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	neffSimFlags.gibps = 13.5
	b, err := runNeffSim(env, detect.Result{Path: f, Kind: detect.NEFF}, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := a.(neffSimOutput).TotalNs, b.(neffSimOutput).TotalNs
	if tb < ta*19/10 {
		t.Errorf("half bandwidth: %d ns vs %d ns", tb, ta)
	}
	neffSimFlags.engines = 0
	neffSimFlags.gibps = -1
	if _, err := runNeffSim(env, detect.Result{Path: f, Kind: detect.NEFF}, SimOptions{}); err == nil {
		t.Error("negative bandwidth accepted")
	}
}
