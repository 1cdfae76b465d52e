package cli

import (
	"bytes"
	"github.com/spf13/pflag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/examples"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/trace"
)

// Every corpus NEFF simulates, and its trace is valid Chrome trace JSON
// with exactly one complete event per descriptor on at most one track per
// DMA engine.
func TestNeffSimTraceCorpus(t *testing.T) {
	tmp := t.TempDir()
	for _, f := range conformance.CorpusFiles(t, "neff", "*.neff") {
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
			if len(o.Subgraphs) != len(progs) || o.TotalNs <= 0 {
				t.Fatalf("%d subgraphs simulated of %d, total %d", len(o.Subgraphs), len(progs), o.TotalNs)
			}
			for i, sg := range o.Subgraphs {
				descs := len(progs[i].Descriptors)
				if sg.Result.Descriptors != descs {
					t.Fatalf("%s: result %+v", sg.Subgraph, sg.Result)
				}
				fh, err := os.Open(sg.Trace)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := trace.Validate(fh)
				fh.Close()
				if err != nil {
					t.Fatalf("%s: %v", sg.Subgraph, err)
				}
				if got := sum.Phases["X"]; got != descs {
					t.Errorf("%s: %d complete events for %d descriptors", sg.Subgraph, got, descs)
				}
				busy := map[int]bool{}
				for _, e := range sg.Result.Engines {
					if e.Descriptors > 0 {
						busy[e.Engine] = true
					}
				}
				if sum.Tracks != len(busy) || sum.Tracks > o.Params.Engines {
					t.Errorf("%s: %d tracks, %d busy engines of %d", sg.Subgraph, sum.Tracks, len(busy), o.Params.Engines)
				}
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
	sim := func(args ...string) (neffSimOutput, error) {
		fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
		neffSimFlagSet(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		o, err := runNeffSim(env, detect.Result{Path: f, Kind: detect.NEFF}, SimOptions{})
		if err != nil {
			return neffSimOutput{}, err
		}
		return o.(neffSimOutput), nil
	}
	a, err := sim("--dma-overhead-ns=0", "--dma-min-run=0", "--dma-gibps=27")
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim("--dma-overhead-ns=0", "--dma-min-run=0", "--dma-gibps=13.5")
	if err != nil {
		t.Fatal(err)
	}
	if ta, tb := a.TotalNs, b.TotalNs; tb < ta*19/10 {
		t.Errorf("half bandwidth: %d ns vs %d ns", tb, ta)
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
	// y (float32) = w + 0; y16 widened back to float32 equals w (all values
	// are multiples of 1/8 below 125, exact in float16).
	for _, got := range [][]byte{y, y16} {
		if !bytes.HasSuffix(got, w.Data) {
			t.Errorf("output differs from the constant")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "demo_neff_dma.dma-trace.json")); err != nil {
		t.Error(err)
	}
}

// The DMA report sections render for every corpus NEFF (and the demo one)
// into a valid page with a traffic and a timeline section.
func TestNeffDMASections(t *testing.T) {
	files := conformance.Files(t, conformance.Corpus(t, "neff"), "*.neff")
	for _, f := range files {
		m, err := neff.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		secs, rep := neffDMASections(m)
		ids := map[string]bool{}
		for _, s := range secs {
			ids[s.ID] = true
		}
		if !ids["dma-traffic"] || !ids["dma-timeline"] {
			t.Errorf("%s: sections %v", f, ids)
		}
		page := &report.Page{Title: "NEFF", Sections: secs, Diagnostics: rep, SectionFor: func(d diag.Diagnostic) string { return neffDMASectionFor(m, d) }}
		var html bytes.Buffer
		if err := report.Render(&html, page); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if html.Len() > 5<<20 {
			t.Errorf("%s: report of %d bytes", f, html.Len())
		}
		for _, d := range rep {
			if neffDMASectionFor(m, d) != "dma-traffic" {
				t.Errorf("%s: finding %v not linked", f, d)
			}
		}
	}
}

func TestNpyFileName(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct {
		name string
		id   int64
		want string
	}{{"out", 1, "out.npy"}, {"a/b", 2, "a_b.npy"}, {"a_b", 3, "a_b_var3.npy"}, {"..", 4, "_var4.npy"}, {"", 5, "_var5.npy"}} {
		if got := npyFileName(c.name, c.id, used); got != c.want {
			t.Errorf("%q: %q, want %q", c.name, got, c.want)
		}
	}
}
