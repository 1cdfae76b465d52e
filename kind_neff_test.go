package npukit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/trace"
)

// Every corpus NEFF simulates, and its trace is the predicted run: one
// valid Chrome trace file at the path named (not one per subgraph), a
// launch process and a process per physical core, the engines' priced
// instructions and the DMA engines on each core, and the last slice
// ending at the predicted total (not at the DMA program alone's end). The
// corpus3 NEFFs include LNC 2 files and descriptor-generation (DGE) ones,
// whose trace was empty before.
func TestNeffSimTraceCorpus(t *testing.T) {
	files := conformance.CorpusFiles(t, "neff", "*.neff")
	for _, d := range []string{"corpus3/neff", "corpus3/ntff"} {
		files = append(files, conformance.Files(t, conformance.Shared(t, d), "*.neff")...)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := t.TempDir()
			tp := filepath.Join(dir, "t.json")
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
			if err := o.WriteText(&text); err != nil || !bytes.Contains(text.Bytes(), []byte("Predicted time")) || !strings.Contains(text.String(), "Trace written to "+tp) {
				t.Fatalf("text: %v %s", err, text.String())
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 || o.Trace != tp {
				t.Fatalf("trace %q; files written: %v", o.Trace, ents)
			}
			_, progs, err := neffPrograms(a, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Subgraphs) != len(progs) || o.TotalNs <= 0 {
				t.Fatalf("%d subgraphs simulated of %d, total %d", len(o.Subgraphs), len(progs), o.TotalNs)
			}
			raw, err := os.ReadFile(tp)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := trace.Validate(bytes.NewReader(raw)); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				TraceEvents []struct {
					Ph, Name string
					Pid, Tid int
					Ts, Dur  float64
					Args     struct{ Name string }
				}
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			procs := map[int]string{}
			threads := map[string]bool{} // "process/thread"
			var end float64
			for _, e := range doc.TraceEvents {
				switch {
				case e.Ph == "M" && e.Name == "process_name":
					procs[e.Pid] = e.Args.Name
				case e.Ph == "X":
					end = max(end, e.Ts+e.Dur)
				}
			}
			for _, e := range doc.TraceEvents {
				if e.Ph == "M" && e.Name == "thread_name" {
					name, _, _ := strings.Cut(e.Args.Name, " #")
					threads[procs[e.Pid]+"/"+name] = true
				}
			}
			if math.Abs(end*1e3-float64(o.TotalNs)) > 0.5 {
				t.Errorf("trace ends at %.3f us, the prediction is %d ns", end, o.TotalNs)
			}
			if !threads["launch/launch overhead"] {
				t.Errorf("no launch track: %v", threads)
			}
			cores := map[int]bool{}
			for _, sg := range o.Subgraphs {
				cores[sg.Core] = true
				proc := ""
				for _, p := range procs {
					if strings.HasPrefix(p, fmt.Sprintf("physical core %d (", sg.Core)) && strings.Contains(p, sg.Subgraph) && !strings.Contains(p, ":") {
						proc = p
					}
				}
				if proc == "" {
					t.Fatalf("%s: no process for physical core %d: %v", sg.Subgraph, sg.Core, procs)
				}
				if sg.Engines == nil {
					continue
				}
				for _, e := range sg.Engines.Engines {
					if e.BusyNs > 0 && !threads[proc+"/"+e.Engine] {
						t.Errorf("%s: %s busy %d ns, no track in %q", sg.Subgraph, e.Engine, e.BusyNs, proc)
					}
				}
				if sg.Engines.DMABusyNs > 0 && !threads[proc+"/DMA engine 0"] {
					t.Errorf("%s: DMA engines busy %d ns, no DMA engine track", sg.Subgraph, sg.Engines.DMABusyNs)
				}
			}
			if len(procs) != 1+len(cores) {
				t.Errorf("processes %v for %d cores", procs, len(cores))
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

// Audit r3 #27: a descriptor-generation (DGE) NEFF moved 0 B in inspect
// and neff dma and 4.6 MiB in sim. inspect's engine table and neff dma
// now give the DMAs the instructions describe, the same transfers and
// bytes sim prices.
func TestNeffDGEBytesAgree(t *testing.T) {
	files := conformance.Files(t, conformance.Shared(t, "corpus3/ntff"), "*.neff")
	dge := 0
	for _, f := range files {
		a, err := Open(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Simulate(nil)
		if err != nil {
			t.Fatal(err)
		}
		simN, simB := map[string]int{}, map[string]int64{}
		for _, sg := range out.(*NeffSimulation).Subgraphs {
			if e := sg.Engines; e != nil {
				simN[sg.Subgraph], simB[sg.Subgraph] = e.DGEDMAs, -1
				if e.StaticDMAs == 0 {
					simB[sg.Subgraph] = e.DMABytes // DGE bytes alone
				}
			}
		}
		in, err := a.Inspect(nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := a.NeffDMA(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, sg := range in.(*neff.Summary).Subgraphs {
			n, b := 0, int64(0)
			for _, e := range sg.Engines {
				n, b = n+e.DGETransfers, b+e.DGEBytes
			}
			if n != simN[sg.Name] || l.Subgraphs[i].DGETransfers != n || l.Subgraphs[i].DGEBytes != b {
				t.Errorf("%s %s: inspect %d DGE transfers (%d B), neff dma %d (%d B), sim %d", filepath.Base(f), sg.Name, n, b, l.Subgraphs[i].DGETransfers, l.Subgraphs[i].DGEBytes, simN[sg.Name])
			}
			if sb, ok := simB[sg.Name]; ok && sb >= 0 && b != sb {
				t.Errorf("%s %s: inspect %d DGE bytes, sim %d", filepath.Base(f), sg.Name, b, simB[sg.Name])
			}
			if n > 0 {
				dge++
			}
		}
	}
	if dge == 0 {
		t.Fatal("no DGE subgraph in corpus3/ntff")
	}
}
