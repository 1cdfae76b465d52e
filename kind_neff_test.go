package npukit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/trace"
)

// Every corpus NEFF simulates, and its trace is valid Chrome trace JSON
// with one complete event per piece of a descriptor (a descriptor's rows
// spread over up to all the engines) on at most one track per DMA engine.
func TestNeffSimTraceCorpus(t *testing.T) {
	tmp := t.TempDir()
	for _, f := range conformance.CorpusFiles(t, "neff", "*.neff") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tp := filepath.Join(tmp, filepath.Base(f)+".json")
			a, err := Open(f)
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.Simulate(&Options{TracePath: tp})
			if err != nil {
				t.Fatal(err)
			}
			o := out.(*NeffSimulation)
			var text bytes.Buffer
			if err := o.WriteText(&text); err != nil || !bytes.Contains(text.Bytes(), []byte("Predicted time")) {
				t.Fatalf("text: %v %s", err, text.String())
			}
			t.Log(text.String())
			_, progs, err := neffPrograms(a, nil)
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
				if got := sum.Phases["X"]; got < descs || got > descs*o.Params.Engines {
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

// A NEFF's report page links each finding to its section: header findings
// to the header, DMA findings to the file's DMA traffic section.
func TestNeffReportLinks(t *testing.T) {
	files := conformance.CorpusFiles(t, "neff", "*.neff")
	a, err := Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	page, err := a.Report(nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range page.Sections {
		ids[s.ID] = true
	}
	for _, want := range []string{"neff-0-header", "neff-0-dma-traffic", "neff-0-dma-timeline"} {
		if !ids[want] {
			t.Errorf("no section %q in %v", want, ids)
		}
	}
	name := filepath.Base(files[0])
	if id := page.SectionFor(diag.Diagnostic{File: name, Location: "offset 8"}); id != "neff-0-header" {
		t.Errorf("header finding links to %q", id)
	}
	for _, d := range page.Diagnostics {
		if id := page.SectionFor(d); !ids[id] {
			t.Errorf("finding %v links to %q, not a section", d, id)
		}
	}
}

// One verdict per NEFF: check, the report's diagnostics and the report's
// summary line give the same findings and counts (the DMA efficiency
// findings included, once), and a rule repeated on many descriptors is
// one line per subgraph.
func TestNeffOneVerdict(t *testing.T) {
	files := append(conformance.CorpusFiles(t, "neff", "*.neff"), conformance.Files(t, conformance.Shared(t, "corpus2/neff"), "*.neff")...)
	sawDMA := false
	for _, f := range files {
		a, err := Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := a.Check(nil)
		if err != nil {
			t.Fatal(err)
		}
		page, err := a.Report(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Diagnostics) != len(rep) || page.Diagnostics.Summary() != rep.Summary() {
			t.Errorf("%s: check %s (%d lines), report diagnostics %s (%d lines)", filepath.Base(f), rep.Summary(), len(rep), page.Diagnostics.Summary(), len(page.Diagnostics))
		}
		for _, kv := range page.Summary {
			if kv.Key == "Check" && kv.Value != rep.Summary() {
				t.Errorf("%s: report summary says %q, check %q", filepath.Base(f), kv.Value, rep.Summary())
			}
		}
		lines := map[string]int{}
		for _, d := range rep {
			if strings.HasPrefix(d.Rule, "neff/dma-") {
				sawDMA = true
				sg, _, _ := strings.Cut(d.Location, "/")
				lines[sg+" "+d.Rule]++
			}
		}
		for k, n := range lines {
			if n > 1 {
				t.Errorf("%s: %s said on %d lines", filepath.Base(f), k, n)
			}
		}
	}
	if !sawDMA {
		t.Error("no corpus NEFF has a DMA efficiency finding: the test proves nothing")
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
