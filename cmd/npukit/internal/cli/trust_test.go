package cli_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
)

// Issue 32, floods: a rule with more than ten findings in one file is one
// line in check (736 gemini/ring-wrap infos were 736 lines); --all lists
// each. A simulation's per-layer table past 40 layers shows the longest
// 40 and says how to get all (a 2,000-workload schedule printed 2,067
// lines); --layers prints all.
func TestFloodsAreFolded(t *testing.T) {
	dir := t.TempDir()
	sched := filepath.Join(dir, "s.json")
	// A small L2 makes tensors wrap around the end of the ring.
	if r := run(t, dir, "gemini", "synth", "--cores", "1", "--workloads", "120", "--buffer", "600000", "-o", sched); r.code != 0 {
		t.Fatal(r)
	}
	all := run(t, dir, "check", "--all", sched)
	n := strings.Count(all.stdout, "[gemini/ring-wrap]")
	if n <= 10 {
		t.Fatalf("the synthetic schedule was meant to wrap more than 10 tensors: %d\n%s", n, all.stdout)
	}
	folded := run(t, dir, "check", sched)
	if c := strings.Count(folded.stdout, "[gemini/ring-wrap]"); c != 1 || !strings.Contains(folded.stdout, "findings like this one") {
		t.Errorf("check prints %d ring-wrap lines, want one folded line:\n%s", c, folded.stdout)
	}
	var doc struct {
		Diagnostics []struct {
			Rule  string `json:"rule"`
			Count int    `json:"count"`
		} `json:"diagnostics"`
	}
	if r := run(t, dir, "check", "--json", sched); json.Unmarshal([]byte(r.stdout), &doc) != nil {
		t.Fatalf("check --json: %s", r)
	}
	for _, d := range doc.Diagnostics {
		if d.Rule == "gemini/ring-wrap" && d.Count != n {
			t.Errorf("--json: the folded line stands for %d findings, --all lists %d", d.Count, n)
		}
	}

	sim := run(t, dir, "sim", sched)
	full := run(t, dir, "sim", "--layers", sched)
	layerRows := func(s string) int {
		_, tail, _ := strings.Cut(s, "\nLAYER ")
		return strings.Count(tail, "\n") - 1 // the header line ends with one
	}
	if got := layerRows(sim.stdout); got > 40 || !strings.Contains(sim.stdout, "--layers prints all") {
		t.Errorf("sim prints %d layer rows by default:\n%s", got, sim.stdout)
	}
	if got := layerRows(full.stdout); got != 120 {
		t.Errorf("sim --layers prints %d layer rows, want the 120 layers", got)
	}
}

// wrongPlural matches a count of one with a plural noun ("1 errors").
var wrongPlural = regexp.MustCompile(`(?:^|[^\d.,])1 (errors|warnings|infos|files|operators|cores|workloads|layers|tensors|steps)\b`)

// Issue 32: a report of several NEFFs summarised the first only ("0
// errors, 0 warnings" above another file's warning) and its findings did
// not say whose they were; a group of findings showed "x 1" where the
// finding says "579 descriptors like this one"; counts of one were
// plural ("1 warnings, 1 infos").
func TestMultiFileReportSummarisesEveryFile(t *testing.T) {
	dir := conformance.Corpus(t, "neff")
	files, _ := filepath.Glob(filepath.Join(dir, "*.neff"))
	if len(files) < 2 {
		t.Skip("fewer than two NEFFs in the corpus")
	}
	files = files[:2]
	out := filepath.Join(t.TempDir(), "two.html")
	if r := run(t, "", append([]string{"report", "-o", out}, files...)...); r.code != 0 {
		t.Fatal(r)
	}
	b, _ := os.ReadFile(out)
	page := html.UnescapeString(string(b))
	summary, _, _ := strings.Cut(page, `id="diagnostics"`)
	var counts []string
	for _, f := range files {
		c := run(t, "", "check", f)
		line := c.stdout[strings.LastIndex(strings.TrimRight(c.stdout, "\n"), "\n")+1:]
		_, want, _ := strings.Cut(strings.TrimSpace(line), "checked: ")
		want, _, _ = strings.Cut(want, " (in ")
		counts = append(counts, want)
		if !strings.Contains(summary, filepath.Base(f)) || !strings.Contains(summary, "check: "+want) {
			t.Errorf("the summary does not give %s with check's counts %q", filepath.Base(f), want)
		}
		if m := wrongPlural.FindString(c.stdout); m != "" {
			t.Errorf("check %s: %q", filepath.Base(f), m)
		}
		// Every group of findings counts what its lines stand for.
		var doc struct {
			Diagnostics []struct {
				Rule  string `json:"rule"`
				Count int    `json:"count"`
			} `json:"diagnostics"`
		}
		if r := run(t, "", "check", "--json", f); json.Unmarshal([]byte(r.stdout), &doc) != nil {
			t.Fatal(r)
		}
		for _, d := range doc.Diagnostics {
			if d.Count > 1 && !regexp.MustCompile(`<code>`+regexp.QuoteMeta(d.Rule)+`</code> &times; [\d,]*`).MatchString(string(b)) {
				t.Errorf("%s: no group for %s", filepath.Base(f), d.Rule)
			}
		}
	}
	if !strings.Contains(summary, "Check, all files") {
		t.Error("the summary has no count over all files")
	}
	if m := wrongPlural.FindString(page); m != "" {
		t.Errorf("report: %q", m)
	}
	if strings.Contains(page, "× 1 ") && strings.Contains(page, "descriptors like this one") {
		for _, m := range regexp.MustCompile(`× 1 [^<]*</span></summary><ul><li>(?:<code>[^<]*</code>: )*<code>[^<]*</code>: ([\d,]+) descriptors like this one`).FindAllStringSubmatch(page, -1) {
			t.Errorf("a group of %s descriptors is counted × 1", m[1])
		}
	}
}

// Issue 32 (ZeBu): the comparison says the agreement is in-sample on the
// traces the model was calibrated on, and names each layer's number in
// the trace (what `inspect` of the trace prints) beside its name.
func TestZebuComparisonSaysWhatItIs(t *testing.T) {
	zdir := conformance.Corpus(t, "gemini/zebu")
	traces, _ := filepath.Glob(filepath.Join(zdir, "*_sim.txt"))
	if len(traces) == 0 {
		t.Skip("no ZeBu traces")
	}
	tr := traces[0]
	sched := filepath.Join(filepath.Dir(zdir), strings.TrimSuffix(filepath.Base(tr), "_sim.txt")+"_stschedule.json")
	if _, err := os.Stat(sched); err != nil {
		t.Skip("no schedule beside the trace")
	}
	r := run(t, "", "sim", sched, "--zebu", tr)
	if r.code != 0 || !strings.Contains(r.stdout, "in-sample") || !strings.Contains(r.stdout, "TRACE") {
		t.Errorf("sim --zebu does not say in-sample or name the trace's layer numbers:\n%s", r.stdout)
	}
	ins := run(t, "", "inspect", tr)
	if !strings.Contains(ins.stdout, "--zebu") {
		t.Errorf("inspect of a trace does not say where its layers get names:\n%s", ins.stdout)
	}
}

// Issue 32, usage: a wrong argument count names the command and shows
// its usage line; --version works; --capacity takes K/M/G as
// --max-memory does; --budget takes seconds as --timeout does; flags
// that would be ignored are refused; --help lists every exit code.
func TestUsageErrorsSayWhichCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect"}, "usage: npukit inspect FILE"},
		{[]string{"diff", "a"}, "usage: npukit diff A B"},
		{[]string{"sim", "--no-such-flag", "x"}, "usage: npukit sim FILE"},
		{[]string{"check", "--list-rules", "x.neff"}, "takes no FILE"},
		{[]string{"completion", "bash", "--json"}, "--json does not apply"},
	} {
		r := run(t, dir, c.args...)
		name := c.args[0]
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, name) {
			t.Errorf("%v: exit %d, want 2 and %q naming %s:\n%s", c.args, r.code, c.want, name, r.stderr)
		}
	}
	if r := run(t, dir, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "npukit ") {
		t.Errorf("--version: %s", r)
	}
	prob := filepath.Join(dir, "p.csv")
	os.WriteFile(prob, []byte("id,lower,upper,size\na,0,4,1000\nb,2,6,1000\n"), 0o644)
	if r := run(t, dir, "alloc", prob, "--capacity", "2K", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"capacity": 2048`) {
		t.Errorf("--capacity 2K: %s", r)
	}
	sched := filepath.Join(dir, "s.json")
	if r := run(t, dir, "gemini", "synth", "--cores", "1", "--workloads", "4", "--buffer", "1M", "-o", sched); r.code != 0 {
		t.Fatalf("synth --buffer 1M: %s", r)
	}
	if r := run(t, dir, "gemini", "realloc", sched, "--budget", "30", "--timeout", "5"); r.code != 0 {
		t.Errorf("--budget 30 --timeout 5 (seconds): %s", r)
	}
	help := run(t, dir, "--help")
	for _, code := range []string{"0  success", "1  findings", "2  usage", "3  internal error"} {
		if !strings.Contains(help.stdout, code) {
			t.Errorf("--help does not list exit code %q", code)
		}
	}
}

// Issue 32, units: one bandwidth unit, GB/s (10^9 bytes per second), in
// every flag and output (sim of a NEFF said "27.0 GiB/s each", its report
// "29.0 GB/s per engine"; --dma-gibps took GiB/s, --dram-bw GB/s while the
// model used GiB/s, edgetpu dma --pcie-gbps Gb/s). The old flags stay as
// deprecated aliases giving the same answer.
func TestBandwidthIsGBpsEverywhere(t *testing.T) {
	dir := demoFiles(t)
	sim := func(args ...string) string {
		t.Helper()
		r := run(t, dir, args...)
		if r.code != 0 {
			t.Fatalf("%v: %s", args, r)
		}
		return r.stdout
	}
	neff := sim("sim", "demo.neff")
	if strings.Contains(neff, "GiB/s") || !strings.Contains(neff, "GB/s each") {
		t.Errorf("sim of a NEFF:\n%s", neff)
	}
	total := func(s string) string {
		_, after, _ := strings.Cut(s, "Predicted time: ")
		v, _, _ := strings.Cut(after, "\n")
		return v
	}
	// 27 GiB/s is 28.991029248 GB/s.
	if a, b := total(sim("sim", "demo.neff", "--dma-bw", "28.991029248")), total(sim("sim", "demo.neff", "--dma-gibps", "27")); a != b || a == "" {
		t.Errorf("--dma-bw 28.99 GB/s gives %q, --dma-gibps 27 %q", a, b)
	}
	lower := func(s string) string {
		i := strings.Index(s, "lower bound over PCIe")
		if i < 0 {
			t.Fatalf("no PCIe bound:\n%s", s)
		}
		line, _, _ := strings.Cut(s[i:], "\n")
		return line
	}
	etpu := sim("edgetpu", "dma", "demo_edgetpu.tflite", "--pcie-bw", "0.5")
	if lower(etpu) != lower(sim("edgetpu", "dma", "demo_edgetpu.tflite", "--pcie-gbps", "4")) || strings.Contains(etpu, "Gb/s") {
		t.Errorf("--pcie-bw 0.5 GB/s and --pcie-gbps 4 differ, or Gb/s printed:\n%s", etpu)
	}
	cycles := func(s string) string {
		_, after, _ := strings.Cut(s, "Total: ")
		v, _, _ := strings.Cut(after, " cycles")
		return v
	}
	g := sim("sim", "demo_gemini_schedule.json")
	if !strings.Contains(g, "DRAM 17.2 GB/s") {
		t.Errorf("Gemini: the default 16 GiB/s is not printed as 17.2 GB/s:\n%s", g)
	}
	if a, b := cycles(g), cycles(sim("sim", "demo_gemini_schedule.json", "--dram-bw", "17.179869184")); a != b {
		t.Errorf("--dram-bw 17.18 GB/s (the default 16 GiB/s) gives %s cycles, the default %s", b, a)
	}
}

// Issue 32, DMA output: a constant inspect calls `npy <u2 [16384]` is
// written by `neff dma --execute` with that dtype and shape (the demo
// NEFF declared the .npy file's size, header included, so it came back as
// uint8 [32852]).
func TestDMAOutputKeepsTheConstantsType(t *testing.T) {
	dir := demoFiles(t)
	files := []string{filepath.Join(dir, "demo.neff")}
	if d := conformance.SharedDir(); d != "" {
		// The three smallest real NEFFs (executing every one takes long).
		m, _ := filepath.Glob(filepath.Join(d, "corpus2", "neff", "*.neff"))
		size := func(p string) int64 { st, _ := os.Stat(p); return st.Size() }
		sort.Slice(m, func(i, j int) bool { return size(m[i]) < size(m[j]) })
		files = append(files, m[:min(3, len(m))]...)
	}
	npyType := map[string]string{"<u2": "uint16", "<f2": "float16", "<f4": "float32", "<i4": "int32", "<u4": "uint32", "|u1": "uint8", "|i1": "int8", "<i2": "int16", "<f8": "float64", "<i8": "int64"}
	checked := 0
	for _, f := range files {
		var ins []struct {
			Result struct {
				Constants []struct {
					Subgraph, Name, Format string
				}
			}
		}
		if r := run(t, dir, "inspect", "--json", f); json.Unmarshal([]byte(r.stdout), &ins) != nil || len(ins) != 1 {
			t.Fatalf("%s: inspect: %s", f, r)
		}
		out := filepath.Join(t.TempDir(), "vars")
		var dma struct {
			Subgraphs []struct {
				Subgraph string
				Written  []struct {
					Var   string
					DType string
					Shape []int64
				}
			}
		}
		r := run(t, dir, "neff", "dma", "--json", f, "--execute", "-o", out)
		if r.code != 0 {
			continue // a program the executor refuses says why elsewhere
		}
		if err := json.Unmarshal([]byte(r.stdout), &dma); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range ins[0].Result.Constants {
			var dt, shape string
			if _, err := fmt.Sscanf(c.Format, "npy %s [", &dt); err != nil {
				continue
			}
			shape = c.Format[strings.Index(c.Format, "[")+1 : strings.LastIndex(c.Format, "]")]
			for _, sg := range dma.Subgraphs {
				for _, w := range sg.Written {
					if w.Var != c.Name || sg.Subgraph != c.Subgraph && len(dma.Subgraphs) > 1 {
						continue
					}
					checked++
					got := strings.Trim(fmt.Sprint(w.Shape), "[]")
					if npyType[dt] != w.DType || got != shape {
						t.Errorf("%s %s: inspect %q, --execute wrote %s [%s]", filepath.Base(f), c.Name, c.Format, w.DType, got)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no constant was written back")
	}
}

// reportCounts reads the counts a report page gives its findings.
var reportCounts = regexp.MustCompile(`<section id="diagnostics"[^>]*><h2>Diagnostics</h2>(?:<p class="ok">No findings|<p>([^<]*)\.</p>)`)

// Issue 32, the consistency test: for every corpus file, the commands
// that print a quantity and the report give the same one: check's
// finding counts and the report's; a Gemini schedule's simulated cycles
// in sim and in the report; and no output says "1 errors".
func TestEveryFaceGivesTheSameQuantities(t *testing.T) {
	if testing.Short() {
		t.Skip("every corpus file through check, sim and report")
	}
	base := conformance.SharedDir()
	if base == "" {
		t.Skip("conformance: ../shared not found beside the checkout (set NPUKIT_SHARED)")
	}
	var files []string
	for _, c := range []string{"corpus", "corpus2", "corpus3"} {
		for _, k := range []string{"neff", "gemini", "edgetpu", "alloc"} {
			m, _ := filepath.Glob(filepath.Join(base, c, k, "*"))
			for _, f := range m {
				if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && st.Size() < 64<<20 && !strings.HasSuffix(f, ".md") {
					files = append(files, f)
				}
			}
		}
	}
	out := filepath.Join(t.TempDir(), "r.html")
	compared := 0
	for _, f := range files {
		name := filepath.Base(f)
		var doc struct {
			Summary struct{ Errors, Warnings, Infos int }
		}
		ck := run(t, "", "check", "--json", f)
		if ck.code > 1 || json.Unmarshal([]byte(ck.stdout), &doc) != nil {
			continue // not an artifact check reads (truth tables, logs)
		}
		if txt := run(t, "", "check", f); wrongPlural.MatchString(txt.stdout) {
			t.Errorf("%s: check says %q", name, wrongPlural.FindString(txt.stdout))
		}
		rp := run(t, "", "report", f, "-o", out)
		if rp.code != 0 {
			continue
		}
		b, _ := os.ReadFile(out)
		page := string(b)
		m := reportCounts.FindStringSubmatch(page)
		if m == nil {
			t.Errorf("%s: the report has no diagnostics counts", name)
			continue
		}
		want := strings.TrimSuffix(fmt.Sprint(doc.Summary.Errors, " ", doc.Summary.Warnings, " ", doc.Summary.Infos), "")
		got := "0 0 0"
		if m[1] != "" {
			var e, w, i int
			fmt.Sscanf(strings.NewReplacer(",", "", " errors", "", " error", "", " warnings", "", " warning", "", " infos", "", " info", "").Replace(m[1]), "%d %d %d", &e, &w, &i)
			got = fmt.Sprint(e, " ", w, " ", i)
		}
		if got != want {
			t.Errorf("%s: check counts (errors warnings infos) %s, the report %s (%q)", name, want, got, m[1])
		}
		if m := wrongPlural.FindString(html.UnescapeString(page)); m != "" {
			t.Errorf("%s: the report says %q", name, m)
		}
		compared++
		if strings.Contains(f, string(filepath.Separator)+"gemini"+string(filepath.Separator)) {
			var s struct {
				TotalCycles int64 `json:"total_cycles"`
			}
			if r := run(t, "", "sim", "--json", f); json.Unmarshal([]byte(r.stdout), &s) == nil && s.TotalCycles > 0 {
				if want := "Total</dt><dd>" + humanize.Count(s.TotalCycles) + " cycles"; !strings.Contains(page, want) {
					t.Errorf("%s: sim gives %d cycles; the report does not say %q", name, s.TotalCycles, want)
				}
			}
		}
	}
	if compared == 0 {
		t.Error("no corpus file was compared")
	}
}

// Issue 32, NKI naming: the report names a tensor's allocation as the
// kernel and `nki inspect` do (it said ncc.psum.alloc(table of 1) for a
// psum.mod_alloc), and inspect does not repeat the kernel's file name on
// every row.
func TestNkiNamesAllocationsOnce(t *testing.T) {
	man := conformance.Shared(t, filepath.Join("corpus2", "nki", "manifest.json"))
	entry := []string{"--manifest", man, "--entry", "sdk.test_sbuf_modulo_alloc"}
	out := filepath.Join(t.TempDir(), "k.html")
	if r := run(t, "", append([]string{"nki", "report", "-o", out}, entry...)...); r.code != 0 {
		t.Skipf("entry not traceable here: %s", r)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "ncc.psum.alloc(table of") || !strings.Contains(string(b), "psum.mod_alloc") {
		t.Error("the report does not name the kernel's psum.mod_alloc as inspect does")
	}
	ins := run(t, "", append([]string{"nki", "inspect"}, entry...)...)
	first, _, _ := strings.Cut(ins.stdout, "  ")
	base := filepath.Base(first)
	if n := strings.Count(ins.stdout, base); n > 2 {
		t.Errorf("inspect names %s %d times", base, n)
	}
}

// Issue 32, jargon: inspect says what its abbreviated columns mean.
func TestInspectExplainsItsColumns(t *testing.T) {
	dir := demoFiles(t)
	for file, want := range map[string]string{
		"demo_gemini_schedule.json": "WL PEAK: the largest weight-buffer",
		"demo_edgetpu.tflite":       "NARROW MEM/TILE: the on-tile",
	} {
		if r := run(t, dir, "inspect", file); !strings.Contains(r.stdout, want) {
			t.Errorf("inspect %s does not explain %q:\n%s", file, want, r.stdout)
		}
	}
}

// Issue 32, diff: fields that differ alike in many elements are one line
// each (a diff of two pool NEFFs printed 339 lines); the verdict leads.
func TestDiffFoldsRepeatedFields(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformance.Corpus(t, "neff"), "*.neff"))
	if len(files) < 2 {
		t.Skip("fewer than two NEFFs")
	}
	for i := 0; i+1 < len(files) && i < 3; i++ {
		r := run(t, "", "diff", files[i], files[i+1])
		lines := strings.Count(r.stdout, "\n")
		var js struct {
			Differences []any `json:"differences"`
		}
		j := run(t, "", "diff", "--json", files[i], files[i+1])
		json.Unmarshal([]byte(j.stdout), &js)
		if len(js.Differences) > 100 && lines > len(js.Differences)/2 {
			t.Errorf("%s vs %s: %d lines for %d listed fields", filepath.Base(files[i]), filepath.Base(files[i+1]), lines, len(js.Differences))
		}
		if strings.HasPrefix(r.stdout, "  ") {
			t.Errorf("the diff does not lead with its verdict:\n%.300s", r.stdout)
		}
	}
}

// Issue 32: the Gemini report says what its NoC rows "link (-1,0)->(0,0)"
// are (positions outside the mesh are the DRAM ports).
func TestGeminiReportExplainsLinks(t *testing.T) {
	dir := demoFiles(t)
	out := filepath.Join(dir, "g.html")
	if r := run(t, dir, "report", "demo_gemini_schedule.json", "-o", out); r.code != 0 {
		t.Fatal(r)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "link (-1,") && !strings.Contains(string(b), "x = -1 and the column right of the last core are the DRAM ports") {
		t.Error("the report draws links to (-1,y) without saying what they are")
	}
}
