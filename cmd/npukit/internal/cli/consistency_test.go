package cli_test

import (
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/internal/conformance"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// corpusGlob lists the shared corpus files matching pattern (relative to
// corpus/ and corpus2/); the test skips when the corpus is absent.
func corpusGlob(t *testing.T, pattern string) []string {
	t.Helper()
	var out []string
	for _, c := range []string{"corpus", "corpus2"} {
		dir := conformance.SharedDir()
		if dir == "" {
			break
		}
		m, _ := filepath.Glob(filepath.Join(dir, c, pattern))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skip("shared corpus absent")
	}
	for i, p := range out {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = abs
	}
	return out
}

// TestNeffInspectSimAgree: inspect's per-engine DMA descriptors and bytes
// add up, per subgraph, to what sim moves: one number for one thing
// (inspect counted the from side, twice the bytes of a two-source cast).
func TestNeffInspectSimAgree(t *testing.T) {
	type pair struct{ Descs, Bytes int64 }
	for _, f := range corpusGlob(t, "neff/*.neff") {
		var ins []struct {
			Result struct {
				Subgraphs []struct {
					Name    string
					Engines []struct {
						Descriptors int64
						DMABytes    int64 `json:"dma_bytes"`
					}
				}
			}
		}
		var sim struct {
			Subgraphs []struct {
				Subgraph string
				Result   struct{ Descriptors, Bytes int64 }
			}
		}
		ri, rs := run(t, ".", "inspect", "--json", f), run(t, ".", "sim", "--json", f)
		if err := json.Unmarshal([]byte(ri.stdout), &ins); err != nil || len(ins) != 1 {
			t.Fatalf("%s inspect: %v %s", f, err, ri)
		}
		if err := json.Unmarshal([]byte(rs.stdout), &sim); err != nil {
			t.Fatalf("%s sim: %v %s", f, err, rs)
		}
		a, b := map[string]pair{}, map[string]pair{}
		for _, sg := range ins[0].Result.Subgraphs {
			var p pair
			for _, e := range sg.Engines {
				p.Descs += e.Descriptors
				p.Bytes += e.DMABytes
			}
			a[sg.Name] = p
		}
		for _, sg := range sim.Subgraphs {
			b[sg.Subgraph] = pair{sg.Result.Descriptors, sg.Result.Bytes}
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s %s: inspect %+v, sim %+v", filepath.Base(f), k, v, b[k])
			}
		}
		if len(a) != len(b) {
			t.Errorf("%s: inspect has %d subgraphs, sim %d", filepath.Base(f), len(a), len(b))
		}
	}
}

// TestGeminiInspectSimAgree: a core's compute is one number: inspect's
// sum of the workloads' time equals sim's busy cycles (sim counted each
// tile's fixed cost as compute, 2,800 cycles more on resnet34).
func TestGeminiInspectSimAgree(t *testing.T) {
	for _, f := range corpusGlob(t, "gemini/*.json") {
		var ins []struct {
			Result struct {
				Cores []struct {
					ID      int   `json:"id"`
					TimeSum int64 `json:"time_sum_cycles"`
				}
			}
		}
		var sim struct {
			Cores []struct {
				Core int
				Busy int64 `json:"busy_cycles"`
			}
		}
		ri, rs := run(t, ".", "inspect", "--json", f), run(t, ".", "sim", "--json", f)
		if err := json.Unmarshal([]byte(ri.stdout), &ins); err != nil || len(ins) != 1 {
			t.Fatalf("%s inspect: %v %s", f, err, ri)
		}
		if err := json.Unmarshal([]byte(rs.stdout), &sim); err != nil {
			t.Fatalf("%s sim: %v %s", f, err, rs)
		}
		a, b := map[int]int64{}, map[int]int64{}
		for _, c := range ins[0].Result.Cores {
			a[c.ID] = c.TimeSum
		}
		for _, c := range sim.Cores {
			b[c.Core] = c.Busy
		}
		if len(a) == 0 || len(a) != len(b) {
			t.Errorf("%s: inspect %d cores, sim %d", filepath.Base(f), len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s core %d: inspect %d cycles of compute, sim busy %d", filepath.Base(f), k, v, b[k])
			}
		}
	}
}

// runJSON runs a command with --json and decodes its output.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	r := run(t, "", append([]string{"--json"}, args...)...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("%v: %s", args, r)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, r.stdout)
	}
}

// TestAllocInspectSolveAgree: inspect and alloc agree on an allocation
// problem's peak, capacity and how the offset column is read (inspect
// counted 316 'fixed' buffers in a previous solution alloc places anew).
func TestAllocInspectSolveAgree(t *testing.T) {
	n := 0
	for _, f := range corpusGlob(t, "alloc/*.csv") {
		var ins []struct {
			Result struct {
				Buffers  int
				Capacity int64
				Peak     int64
				Fixed    int
				Height   *int64
				Offsets  string
			}
		}
		runJSON(t, &ins, "inspect", f)
		s := ins[0].Result
		if s.Buffers > 2000 {
			continue // the solver's time on the large ones is not the point here
		}
		n++
		var a struct {
			Capacity int64
			Peak     int64
			// alloc read the `end` column half-open (inclusive, no
			// placement could exist) and says so: its peak is that
			// reading's (audit r3 #31)
			HalfOpen bool `json:"ends_read_half_open"`
			Offsets  *struct {
				Use            string
				PreviousHeight int64 `json:"previous_height"`
			}
		}
		runJSON(t, &a, "alloc", f, "--timeout", "5s")
		name := filepath.Base(f)
		if a.Peak != s.Peak && !a.HalfOpen {
			t.Errorf("%s: peak alive %d in inspect, %d in alloc", name, s.Peak, a.Peak)
		}
		if s.Capacity > 0 && a.Capacity != s.Capacity {
			t.Errorf("%s: capacity %d in inspect, %d in alloc", name, s.Capacity, a.Capacity)
		}
		use := ""
		if a.Offsets != nil {
			use = a.Offsets.Use
		}
		if use != s.Offsets || (use == "previous" && (s.Fixed != 0 || s.Height == nil || *s.Height != a.Offsets.PreviousHeight)) {
			t.Errorf("%s: inspect reads the offsets as %q (%d fixed, height %v), alloc as %+v", name, s.Offsets, s.Fixed, s.Height, a.Offsets)
		}
	}
	if n == 0 {
		t.Skip("no small allocation problem in the corpus")
	}
}

// TestEdgeTPUParameterBytesAgree: an Edge TPU model's parameter bytes are
// one number in inspect (executables), edgetpu memory (cached +
// streamed) and edgetpu dma (the first inference's PARAMETER transfers).
func TestEdgeTPUParameterBytesAgree(t *testing.T) {
	for _, f := range corpusGlob(t, "edgetpu/*_edgetpu.tflite") {
		var ins []struct {
			Result struct {
				EdgeTPUOps []struct {
					Packages []struct {
						Executables []struct {
							ParameterBytes   int64 `json:"parameter_bytes"`
							InstructionBytes int64 `json:"instruction_bytes"`
						}
					}
				} `json:"edgetpu_ops"`
			}
		}
		runJSON(t, &ins, "inspect", f)
		var params, instr int64
		for _, op := range ins[0].Result.EdgeTPUOps {
			for _, p := range op.Packages {
				for _, e := range p.Executables {
					params += e.ParameterBytes
					instr += e.InstructionBytes
				}
			}
		}
		if len(ins[0].Result.EdgeTPUOps) == 0 {
			continue // named like one, but a plain TFLite model
		}
		var mem struct {
			Groups []struct {
				Files []struct {
					Cached       int64 `json:"on_chip_cached_parameter_bytes"`
					Streamed     int64 `json:"off_chip_streamed_parameter_bytes"`
					Instructions int64 `json:"instruction_bytes"`
				}
			}
		}
		runJSON(t, &mem, "edgetpu", "memory", f)
		var mp, mi int64
		for _, g := range mem.Groups {
			for _, fl := range g.Files {
				mp += fl.Cached + fl.Streamed
				mi += fl.Instructions
			}
		}
		name := filepath.Base(f)
		if mp != params || mi != instr {
			t.Errorf("%s: parameters %d / instructions %d in inspect, %d / %d in edgetpu memory", name, params, instr, mp, mi)
		}
	}
}

// TestSbufInspectTextMatchesJSON: the plan summary's first line says the
// counts its JSON gives (it printed "tensors, steps in the body" without
// the numbers).
func TestSbufInspectTextMatchesJSON(t *testing.T) {
	dir := demoFiles(t)
	f := filepath.Join(dir, "demo_sbuf_double_buffer.yaml")
	var j []struct {
		Result struct {
			Steps    int
			Unrolled int
			Tensors  []json.RawMessage
		}
	}
	runJSON(t, &j, "inspect", f)
	s := j[0].Result
	want := fmt.Sprintf(": %d tensors, %d steps in the body, %d executed\n", len(s.Tensors), s.Steps, s.Unrolled)
	if r := run(t, "", "inspect", f); !strings.Contains(r.stdout, want) {
		t.Errorf("inspect text lacks %q:\n%s", want, r.stdout)
	}
}

// TestGeminiCoresOneName: inspect, realloc and check name a core the same
// way (ID, with the file's key where it differs) and inspect's L2 peak is
// realloc's live peak, on every corpus schedule (realloc's table showed
// the raw IR's keys 1, 2, 5, 6 in its core column where inspect said 0-3).
func TestGeminiCoresOneName(t *testing.T) {
	for _, f := range corpusGlob(t, "gemini/*.json") {
		var ins []struct {
			Result struct {
				Cores []struct {
					ID     int
					Key    int64
					L2Peak int64 `json:"l2_peak_bytes"`
				}
			}
		}
		runJSON(t, &ins, "inspect", f)
		var re struct {
			Cores []struct {
				Core     int
				Key      int64
				LivePeak int64 `json:"live_peak_bytes"`
			}
		}
		runJSON(t, &re, "gemini", "realloc", f, "--timeout", "5s")
		name := filepath.Base(f)
		a, b := ins[0].Result.Cores, re.Cores
		if len(a) != len(b) {
			t.Fatalf("%s: %d cores in inspect, %d in realloc", name, len(a), len(b))
		}
		text := run(t, "", "gemini", "realloc", f, "--timeout", "5s").stdout
		for i := range a {
			if a[i].ID != b[i].Core || a[i].Key != b[i].Key || a[i].L2Peak != b[i].LivePeak {
				t.Errorf("%s: inspect core %+v, realloc core %+v", name, a[i], b[i])
			}
			if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s+%d\s+%d\s`, a[i].ID, a[i].Key)).MatchString(text) {
				t.Errorf("%s: realloc's table has no row for core %d (key %d):\n%s", name, a[i].ID, a[i].Key, text)
			}
		}
	}
}

// TestNeffAndItsDirectoryAgree: a NEFF and its unpacked directory are one
// artifact: diff compares them (it refused: "cannot compare ... NEFF with
// unpacked NEFF directory") and finds them identical, and inspect of the
// directory says it has no payload instead of "0 B stored ... tar ()".
func TestNeffAndItsDirectoryAgree(t *testing.T) {
	dir := demoFiles(t)
	out := filepath.Join(dir, "x.unpacked")
	if r := run(t, dir, "neff", "unpack", "demo.neff", "-o", out); r.code != 0 {
		t.Fatalf("unpack: %s", r)
	}
	for _, pair := range [][2]string{{"demo.neff", out}, {out, "demo.neff"}} {
		if r := run(t, dir, "diff", pair[0], pair[1]); r.code != 0 || !strings.HasPrefix(r.stdout, "identical") {
			t.Errorf("diff %v: %s", pair, r)
		}
	}
	if r := run(t, dir, "diff", "demo_neff_dma.neff", out); r.code != 1 {
		t.Errorf("diff of another NEFF with a directory: %s", r)
	}
	if r := run(t, dir, "inspect", out); !strings.Contains(r.stdout, "payload        none (members are files)") || strings.Contains(r.stdout, "tar ()") {
		t.Errorf("inspect of a directory:\n%s", r.stdout)
	}
}

// TestGeminiDiffNumbersAreInspectAndSim: the numbers of a diff of two
// compiles of one network (resnet34 at batch 1 and 4) are inspect's and
// sim's numbers of each file, exact.
func TestGeminiDiffNumbersAreInspectAndSim(t *testing.T) {
	var a, b string
	for _, f := range corpusGlob(t, "gemini/*.json") {
		switch {
		case strings.Contains(f, "resnet34") && strings.Contains(f, "_b1_"):
			a = f
		case strings.Contains(f, "resnet34") && strings.Contains(f, "_b4_"):
			b = f
		}
	}
	if a == "" || b == "" {
		t.Skip("the two resnet34 compiles are not in the corpus")
	}
	type change struct {
		What string
		A, B json.Number
	}
	var d struct {
		Verdict []change
		Details struct {
			Cores []struct {
				Core    string
				Changes []change
			}
		}
	}
	r := run(t, "", "--json", "diff", a, b)
	if r.code != 1 {
		t.Fatalf("diff: %s", r)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	find := func(l []change, what string) change {
		for _, c := range l {
			if c.What == what {
				return c
			}
		}
		t.Fatalf("no %q in %+v", what, l)
		return change{}
	}
	type facts struct{ timeSum, l2Peak, simTotal, dramWrites int64 }
	get := func(f string) facts {
		var ins []struct {
			Result struct {
				TimeSum int64 `json:"time_sum_cycles"`
				DRAM    struct {
					WriteBytes int64 `json:"write_bytes"`
				}
				Cores []struct {
					L2Peak int64 `json:"l2_peak_bytes"`
				}
			}
		}
		runJSON(t, &ins, "inspect", f)
		var sim struct {
			TotalCycles int64 `json:"total_cycles"`
		}
		runJSON(t, &sim, "sim", f)
		s := ins[0].Result
		return facts{s.TimeSum, s.Cores[0].L2Peak, sim.TotalCycles, s.DRAM.WriteBytes}
	}
	fa, fb := get(a), get(b)
	core := d.Details.Cores[0]
	for _, c := range []struct {
		got  change
		a, b int64
	}{
		{find(d.Verdict, "compute cycles (sum of workload times)"), fa.timeSum, fb.timeSum},
		{find(d.Verdict, "simulated cycles"), fa.simTotal, fb.simTotal},
		{find(d.Verdict, "DRAM writes"), fa.dramWrites, fb.dramWrites},
		{find(core.Changes, "L2 peak occupancy"), fa.l2Peak, fb.l2Peak},
		{find(core.Changes, "DRAM writes"), fa.dramWrites, fb.dramWrites},
		{find(core.Changes, "compute cycles (sum of workload times)"), fa.timeSum, fb.timeSum},
	} {
		if c.got.A.String() != fmt.Sprint(c.a) || c.got.B.String() != fmt.Sprint(c.b) {
			t.Errorf("%s: diff says %s -> %s, inspect/sim %d -> %d", c.got.What, c.got.A, c.got.B, c.a, c.b)
		}
	}
	if core.Core != "core 0" {
		t.Errorf("core named %q", core.Core)
	}
}

// Counts of one take the singular in sim's text and JSON details: a
// Gemini schedule with one DRAM store printed "1 stores", an Edge TPU
// CPU operator on one element "1 elements in", a schedule of one
// workload "1 core, 1 workloads".
func TestSimSingularCounts(t *testing.T) {
	one := regexp.MustCompile(`(^|[^0-9.,])1 (loads|stores|elements|MACs|workloads|cores)\b`)
	files := append(corpusGlob(t, "gemini/*.json"), corpusGlob(t, "edgetpu/*.tflite")...)
	tiny := filepath.Join(t.TempDir(), "one.json")
	if r := run(t, "", "gemini", "synth", "--cores", "1", "--workloads", "1", "-o", tiny); r.code != 0 {
		t.Fatalf("synth: %s", r)
	}
	files = append(files, tiny)
	for _, f := range files {
		for _, args := range [][]string{{"sim", f}, {"sim", "--json", f}} {
			r := run(t, "", args...)
			if m := one.FindString(r.stdout); m != "" {
				t.Errorf("%s %s: %q", strings.Join(args[:len(args)-1], " "), filepath.Base(f), m)
			}
		}
	}
}

// Counts of one take the singular in what inspect, check, diff and realloc
// print of real files: "1 tiles on 1 locations" (nki inspect), "over 1
// partitions" (a NEFF's DMA finding), "pe, 1 workloads" (a Gemini diff)
// and "(+1 waits)" (gemini realloc) were printed.
func TestSingularCountsOnCorpus(t *testing.T) {
	one := regexp.MustCompile(`(^|[^0-9.,])1 (workloads|tiles|locations|partitions|waits)\b`)
	look := func(r result, args ...string) {
		t.Helper()
		for _, ix := range one.FindAllStringIndex(r.stdout, -1) {
			if before := r.stdout[:ix[0]+1]; strings.HasSuffix(strings.TrimSpace(before), "core") {
				continue // "core 1 workloads" names core 1
			}
			t.Errorf("%s: %q", strings.Join(args, " "), r.stdout[ix[0]:ix[1]])
			return
		}
	}
	man := conformance.Shared(t, filepath.Join("corpus2", "nki", "manifest.json"))
	var m struct {
		Entries []struct {
			ID string `json:"id"`
		} `json:"entries"`
	}
	b, err := os.ReadFile(man)
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	for _, e := range m.Entries {
		args := []string{"nki", "inspect", "--manifest", man, "--entry", e.ID}
		look(run(t, "", args...), args...)
	}
	neffs := corpusGlob(t, "neff/*.neff")
	if d := conformance.SharedDir(); d != "" {
		more, _ := filepath.Glob(filepath.Join(d, "corpus3", "*", "*.neff"))
		neffs = append(neffs, more...)
	}
	for _, f := range neffs {
		look(run(t, "", "check", f), "check", f)
	}
	gem := corpusGlob(t, "gemini/*.json")
	for i, f := range gem {
		look(run(t, "", "gemini", "realloc", "--timeout", "2s", f), "gemini realloc", f)
		if i > 0 {
			look(run(t, "", "diff", "--json", gem[i-1], f), "diff --json", gem[i-1], f)
		}
	}
}

// Every bandwidth sim prints is in GB/s (README: "Bandwidths are GB/s in
// every flag and output"): the Edge TPU estimate printed its host link in
// MB/s ("USB 3.0 at 470 MB/s effective").
func TestSimBandwidthUnits(t *testing.T) {
	other := regexp.MustCompile(`[0-9] ?(MB/s|MiB/s|GiB/s|Gb/s|Mb/s)`)
	files := append(corpusGlob(t, "edgetpu/*.tflite"), corpusGlob(t, "gemini/*.json")...)
	files = append(files, corpusGlob(t, "neff/*.neff")...)
	for _, f := range files {
		if m := other.FindString(run(t, "", "sim", f).stdout); m != "" {
			t.Errorf("sim %s: %q", filepath.Base(f), m)
		}
	}
	if m := other.FindString(run(t, "", "sim", "--host", "help", files[0]).stdout); m != "" {
		t.Errorf("sim --host help: %q", m)
	}
}

// inspect and report name every table of a DVE table set: a trn2 NEFF's
// set without a control table printed "control , datapath ...".
func TestNeffDVETablesNamed(t *testing.T) {
	empty := regexp.MustCompile(`(control|datapath|opcode) ,|DVE tables ,`)
	for _, f := range corpusGlob(t, "neff/*.neff") {
		if m := empty.FindString(run(t, "", "inspect", f).stdout); m != "" {
			t.Errorf("inspect %s: %q", filepath.Base(f), m)
		}
	}
}
