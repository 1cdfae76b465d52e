package l2alloc

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/conformance"
)

// checkClean fails the test on any error diagnostic of gemini.Check after a
// write/read round trip of s.
func checkClean(t *testing.T, s *gemini.Schedule) *gemini.Schedule {
	t.Helper()
	var buf bytes.Buffer
	if err := gemini.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, err := gemini.ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("rewritten schedule does not read back: %v", err)
	}
	for _, d := range gemini.Check(back) {
		if d.Severity == diag.Error {
			t.Errorf("rewritten schedule: %s", d)
		}
	}
	return back
}

func reuseWarnings(s *gemini.Schedule) int {
	n := 0
	for _, d := range gemini.Check(s) {
		if d.Rule == gemini.RuleAddressReuse {
			n += max(d.Count, 1) // the findings are grouped into one line
		}
	}
	return n
}

func errorCount(s *gemini.Schedule) int {
	n := 0
	for _, d := range gemini.Check(s) {
		if d.Severity == diag.Error {
			n++
		}
	}
	return n
}

// probeTimeout bounds each exact probe in the corpus test; a timed-out
// probe makes the answer "best found", which the test accepts.
const (
	probeTimeout = 1 * time.Second
	coreBudget   = 3 * time.Second
)

func TestCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, path := range conformance.Files(t, dir, "*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, err := gemini.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Reallocate(context.Background(), s, Options{}, SolveOptions{Timeout: probeTimeout, Budget: coreBudget,
				Probe: func(c int64, st alloc.Status, d time.Duration) { t.Logf("probe %d: %v in %v", c, st, d) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cores) != len(s.Cores) {
				t.Fatalf("%d core reports for %d cores", len(rep.Cores), len(s.Cores))
			}
			if s.Variant == gemini.Raw {
				for _, c := range rep.Cores {
					if c.Status != StatusNoAddresses || c.LivePeak <= 0 {
						t.Errorf("raw IR core %d: %+v", c.Key, c)
					}
				}
				if n, err := rep.Rewrite(s); n != 0 || err != nil {
					t.Errorf("raw IR rewrite: %d cores, %v", n, err)
				}
				return
			}
			for _, c := range rep.Cores {
				t.Logf("core %d: %d tensors, file extent %d, live peak %d, min %d (%s, lower bound %d, %d probes, %v)",
					c.Key, c.Tensors, c.FileExtent, c.LivePeak, c.MinCapacity, c.Status, c.LowerBound, c.Probes, time.Duration(c.SolveMicros)*time.Microsecond)
				if c.MinCapacity > c.FileExtent || c.MinCapacity < c.LivePeak || c.LowerBound < c.LivePeak || c.LowerBound > c.MinCapacity {
					t.Errorf("core %d: bounds out of order: %+v", c.Key, c)
				}
				if c.Status == string(Optimal) && c.LowerBound != c.MinCapacity {
					t.Errorf("core %d: optimal with a gap", c.Key)
				}
			}
			// The load waits counted on the problem are the schedule's
			// address-reuse warnings.
			fileWaits, waits := 0, 0
			for _, c := range rep.Cores {
				fileWaits += c.FileWaits
				waits += c.Waits
			}
			if got := reuseWarnings(s); got != fileWaits {
				t.Errorf("file: %d address-reuse warnings, %d load waits counted", got, fileWaits)
			}
			if n, err := rep.Rewrite(s); err != nil || n != len(s.Cores) {
				t.Fatalf("rewrite: %d cores, %v", n, err)
			}
			back := checkClean(t, s)
			if got := reuseWarnings(back); got != waits {
				t.Errorf("rewrite: %d address-reuse warnings, %d load waits counted", got, waits)
			}
			// With prefetch no load waits.
			pre, err := gemini.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			prep, err := Reallocate(context.Background(), pre, Options{Prefetch: PrefetchAll}, SolveOptions{Timeout: probeTimeout, Budget: coreBudget})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := prep.Rewrite(pre); err != nil {
				t.Fatal(err)
			}
			if got := reuseWarnings(checkClean(t, pre)); got != 0 {
				t.Errorf("prefetch rewrite: %d address-reuse warnings", got)
			}
			for i, c := range prep.Cores {
				t.Logf("core %d prefetch all: min %d (%s), load waits %d -> %d (without prefetch -> %d)", c.Key, c.MinCapacity, c.Status, c.FileWaits, c.Waits, rep.Cores[i].Waits)
				if c.Waits != 0 || c.LivePeak < rep.Cores[i].LivePeak {
					t.Errorf("core %d prefetch: %+v", c.Key, c)
				}
			}
			// Prefetch file: never more L2 than the file, and only loads
			// that wait in the file may wait.
			pf, err := gemini.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range pf.Cores {
				cp, err := Build(pf, c, Options{Prefetch: PrefetchFile})
				if err != nil {
					t.Fatal(err)
				}
				if !cp.FileValid {
					t.Fatalf("core %d: the file's placement is not a solution under prefetch file", c.Key)
				}
				res, err := Minimize(context.Background(), cp, SolveOptions{Timeout: probeTimeout, Budget: coreBudget})
				if err != nil {
					t.Fatal(err)
				}
				before, after := cp.waiting(cp.FileSolution.Offsets), cp.waiting(res.Solution.Offsets)
				for i := range after {
					for k := range after[i] {
						if after[i][k] && !before[i][k] {
							t.Errorf("core %d tensor %d: its load waits now but not in the file", c.Key, cp.Tensors[i].TensorID)
						}
					}
				}
				t.Logf("core %d prefetch file: min %d (%s), file extent %d, load waits %d -> %d", c.Key, res.Capacity, res.Status, cp.FileExtent, cp.Waits(cp.FileSolution.Offsets), cp.Waits(res.Solution.Offsets))
				if res.Capacity > cp.FileExtent {
					t.Errorf("core %d prefetch file: min %d above the file's extent %d", c.Key, res.Capacity, cp.FileExtent)
				}
			}
			// The rewritten file's own extent is the minimal capacity.
			rep2, err := Reallocate(context.Background(), back, Options{}, SolveOptions{Timeout: probeTimeout, Budget: coreBudget})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range rep2.Cores {
				if c.FileExtent != rep.Cores[i].MinCapacity {
					t.Errorf("core %d: rewritten extent %d, want %d", c.Key, c.FileExtent, rep.Cores[i].MinCapacity)
				}
			}
		})
	}
}

func TestSynth(t *testing.T) {
	for _, cfg := range []gemini.SynthConfig{
		{Cores: 2, Workloads: 12, Buffer: 512 << 10},
		{Cores: 4, Workloads: 20, XLen: 2, Buffer: 1 << 20, DRAMEvery: 3, Seed: 7},
	} {
		s, err := gemini.Synth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Reallocate(context.Background(), s, Options{Align: 64}, SolveOptions{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Cores {
			if c.MinCapacity > c.FileExtent || c.MinCapacity > c.RegionBytes || c.MinCapacity < c.LivePeak {
				t.Errorf("%+v core %d: %+v", cfg, c.Key, c)
			}
		}
		if _, err := rep.Rewrite(s); err != nil {
			t.Fatal(err)
		}
		back := checkClean(t, s)
		// No tensor wraps after the rewrite, and addresses are aligned.
		for _, c := range back.Cores {
			for wi := range c.Workloads {
				for _, e := range c.Workloads[wi].Buffer {
					if p, ok := gemini.Place(back.Regions(&c.Workloads[wi]), &e); !ok || p.Wraps || e.Address%64 != 0 {
						t.Fatalf("%+v: entry at %d size %d wraps or is misaligned", cfg, e.Address, e.Size)
					}
				}
			}
		}
	}
}

// TestTensorsMatchLifetimes: the problem's buffers are the schedule's tensor
// lifetimes (gemini.Schedule.Lifetimes) when no tensor leaves and comes back.
func TestTensorsMatchLifetimes(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 2, Workloads: 10, Buffer: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cores {
		cp, err := Build(s, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ls := s.Lifetimes(c)
		if len(ls) != len(cp.Tensors) {
			t.Fatalf("core %d: %d tensors, %d lifetimes", c.Key, len(cp.Tensors), len(ls))
		}
		for i, l := range ls {
			tn, b := cp.Tensors[i], cp.Problem.Buffers[i]
			if tn.TensorID != l.TensorID || tn.Size != l.Size || b.Lower != int64(l.First) || b.Upper != int64(l.Last)+1 || tn.FileAddress != l.Address {
				t.Errorf("core %d tensor %d: %+v / %+v, lifetime %+v", c.Key, i, tn, b, l)
			}
		}
	}
}

// A tensor that leaves the buffer and comes back keeps one buffer with a
// gap, so it gets one address (tensor_id address stability).
func TestReturningTensorKeepsOneAddress(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 1, Workloads: 6, Buffer: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cores[0]
	// Copy workload 0's first tensor into workload 3's snapshot: absent in
	// 1..2, back in 3 (newly added again).
	e := c.Workloads[0].Buffer[0]
	e.NewlyAdded = true
	e.TransferIDs = nil
	e.Sources = nil
	c.Workloads[3].Buffer = append(c.Workloads[3].Buffer, e)
	cp, err := Build(s, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tn *Tensor
	var b *alloc.Buffer
	for i := range cp.Tensors {
		if cp.Tensors[i].TensorID == e.TensorID {
			tn, b = &cp.Tensors[i], &cp.Problem.Buffers[i]
		}
	}
	if tn == nil || len(tn.Stays) != 2 || len(b.Gaps) != 1 || len(tn.Refs) != 2 {
		t.Fatalf("returning tensor: %+v %+v", tn, b)
	}
	res, err := Minimize(context.Background(), cp, SolveOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(s, cp, res.Solution); err != nil {
		t.Fatal(err)
	}
	if a, b := c.Workloads[0].Buffer[0].Address, c.Workloads[3].Buffer[len(c.Workloads[3].Buffer)-1].Address; a != b {
		t.Errorf("tensor %d at %d and %d", e.TensorID, a, b)
	}
}

// Apply refuses a solution that does not fit the region or overlaps.
func TestApplyRefusesInvalid(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 1, Workloads: 6, Buffer: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Build(s, s.Cores[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	zero := &alloc.Solution{Offsets: make([]int64, len(cp.Tensors))}
	if err := Apply(s, cp, zero); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Errorf("all-zero placement accepted: %v", err)
	}
	if err := Apply(s, cp, &alloc.Solution{}); err == nil {
		t.Error("short solution accepted")
	}
	before := errorCount(s)
	if before != 0 {
		t.Fatalf("synth has %d errors", before)
	}
}

// Minimize proves optimality when the live peak is reachable: disjoint
// lifetimes need exactly the largest tensor.
func TestMinimizeOptimalAtPeak(t *testing.T) {
	cp := &CoreProblem{Problem: alloc.Problem{Capacity: 1 << 20, Buffers: []alloc.Buffer{
		{ID: "a", Lower: 0, Upper: 2, Size: 100},
		{ID: "b", Lower: 1, Upper: 3, Size: 50},
		{ID: "c", Lower: 2, Upper: 4, Size: 120},
	}}}
	res, err := Minimize(context.Background(), cp, SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Capacity != 170 || res.Status != Optimal || res.LowerBound != 170 {
		t.Errorf("got %+v, want 170 optimal", res)
	}
}

// With a common alignment the lower bound counts the rounding: two
// 100-byte buffers alive together at alignment 64 need 128 + 100 bytes, and
// Minimize proves it.
func TestAlignedLowerBound(t *testing.T) {
	cp := &CoreProblem{Problem: alloc.Problem{Capacity: 1 << 20, Buffers: []alloc.Buffer{
		{ID: "a", Lower: 0, Upper: 2, Size: 100, Alignment: 64},
		{ID: "b", Lower: 1, Upper: 3, Size: 100, Alignment: 64},
	}}}
	if lb := alignedPeak(&cp.Problem); lb != 228 {
		t.Errorf("aligned lower bound %d, want 228", lb)
	}
	res, err := Minimize(context.Background(), cp, SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Capacity != 228 || res.Status != Optimal || res.Probes != 0 {
		t.Errorf("got %+v, want 228 optimal without a probe", res)
	}
}

// A probe that times out leaves the minimum unproven ("best found"), and
// the file's placement is used when it beats the last capacity solved.
func TestMinimizeTimeout(t *testing.T) {
	undecided := func(ctx context.Context, p *alloc.Problem, _ alloc.Options) (*alloc.Solution, alloc.Status, error) {
		return nil, alloc.TimedOut, context.DeadlineExceeded
	}
	// Two buffers alive together (peak 150) and one after them: the
	// heuristic stacks them at 150.
	cp := &CoreProblem{Problem: alloc.Problem{Capacity: 1 << 20, Buffers: []alloc.Buffer{
		{ID: "a", Lower: 0, Upper: 2, Size: 100},
		{ID: "b", Lower: 1, Upper: 3, Size: 50},
		{ID: "c", Lower: 3, Upper: 4, Size: 10},
	}}}
	res, err := Minimize(context.Background(), cp, SolveOptions{Solver: undecided})
	if err != nil {
		t.Fatal(err)
	}
	// The peak is reached by the heuristic: optimal without a probe.
	if res.Status != Optimal || res.Capacity != 150 || res.Probes != 0 {
		t.Fatalf("got %+v, want 150 optimal", res)
	}
	// An instance where the greedy placement (height 9) misses the
	// peak (8), which a placement reaches.
	cp.Problem.Buffers = []alloc.Buffer{
		{ID: "0", Lower: 3, Upper: 5, Size: 4},
		{ID: "1", Lower: 1, Upper: 3, Size: 3},
		{ID: "2", Lower: 0, Upper: 3, Size: 2},
		{ID: "3", Lower: 2, Upper: 4, Size: 3},
	}
	h := alloc.Height(&cp.Problem, alloc.Heuristic(&cp.Problem))
	pk := alloc.Peak(&cp.Problem)
	if h <= pk {
		t.Fatalf("heuristic reaches the peak (%d): pick another instance", pk)
	}
	res, err = Minimize(context.Background(), cp, SolveOptions{Solver: undecided})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != BestFound || res.TimedOut == 0 || res.Capacity != h || res.LowerBound != pk {
		t.Fatalf("got %+v, want best found at the heuristic's %d over the peak %d", res, h, pk)
	}
	// A valid file placement below the heuristic's height wins.
	m, err := Minimize(context.Background(), &CoreProblem{Problem: cp.Problem}, SolveOptions{})
	if err != nil || m.Capacity >= h {
		t.Fatalf("exact minimum %+v, %v", m, err)
	}
	cp.FileSolution, cp.FileExtent, cp.FileValid = *m.Solution, m.Capacity, true
	res, err = Minimize(context.Background(), cp, SolveOptions{Solver: undecided})
	// (at the peak, which the exact minimum reaches here, that is optimal)
	if err != nil || res.Capacity != m.Capacity || (res.Status == Optimal) != (m.Capacity == pk) {
		t.Fatalf("with the file's placement at %d: %+v, %v", m.Capacity, res, err)
	}
}

// A schedule whose buffers are not allocated yet (a converter's
// "address": true placeholders, found in the corpora by content) is
// allocated by Reallocate + Rewrite, and the result checks with no error
// and no warning: the unallocated finding is gone and nothing new appears.
// Synthetic placeholders on a clean schedule do the same without the
// corpus.
func TestAllocateUnallocated(t *testing.T) {
	run := func(t *testing.T, s *gemini.Schedule) {
		t.Helper()
		in := gemini.Check(s)
		if !hasRule(in, gemini.RuleUnallocated) {
			t.Fatal("no unallocated finding before allocation")
		}
		// A real converted slice may have errors of its own (the slicing
		// tool's, see gemini.TestCheckCorpus): the allocation adds none.
		had := map[string]bool{}
		for _, d := range in {
			if d.Severity == diag.Error {
				had[d.Rule] = true
			}
		}
		rep, err := Reallocate(context.Background(), s, Options{}, SolveOptions{Timeout: probeTimeout, Budget: coreBudget})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := rep.Rewrite(s); err != nil || n != len(s.Cores) {
			t.Fatalf("rewrite: %d cores, %v", n, err)
		}
		var buf bytes.Buffer
		if err := gemini.Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := gemini.ReadBytes(buf.Bytes())
		if err != nil {
			t.Fatalf("rewritten schedule does not read back: %v", err)
		}
		for _, d := range gemini.Check(back) {
			if d.Severity == diag.Warning || d.Severity == diag.Error && !had[d.Rule] {
				t.Errorf("after allocation: %v", d)
			}
		}
	}
	t.Run("synthetic", func(t *testing.T) {
		s, err := gemini.Synth(gemini.SynthConfig{Cores: 2, Workloads: 10, Buffer: 512 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Cores {
			for wi := range c.Workloads {
				for ei := range c.Workloads[wi].Buffer {
					e := &c.Workloads[wi].Buffer[ei]
					e.Address, e.HasAddress, e.Unallocated = 0, false, true
				}
			}
		}
		run(t, s)
	})
	found := 0
	for _, path := range conformance.CorpusFiles(t, "gemini", "*.json") {
		s, err := gemini.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !hasRule(gemini.Check(s), gemini.RuleUnallocated) {
			continue
		}
		found++
		t.Run(filepath.Base(path), func(t *testing.T) { run(t, s) })
	}
	if found == 0 {
		t.Error("no unallocated schedule in the corpora")
	}
}

func hasRule(rep diag.Report, rule string) bool {
	for _, d := range rep {
		if d.Rule == rule {
			return true
		}
	}
	return false
}

// Audit r3 #14: a rewrite whose name drops the input's bwN simulates at
// another DRAM bandwidth under `npukit sim`; the report says so.
func TestRewriteNameNote(t *testing.T) {
	if n := rewriteNameNote("sched_bw8.json", "out.json"); !strings.Contains(n, "8.6 GB/s (from the file name's bw8)") || !strings.Contains(n, "17.2 GB/s") {
		t.Errorf("bw8 -> no bwN: note %q", n)
	}
	for _, pair := range [][2]string{{"a_bw8.json", "b_bw8.json"}, {"a.json", "b.json"}} {
		if n := rewriteNameNote(pair[0], pair[1]); n != "" {
			t.Errorf("%s -> %s: note %q for names of one bandwidth", pair[0], pair[1], n)
		}
	}
	var buf bytes.Buffer
	r := &FileReport{File: "sched_bw8.json", Report: &Report{}, Rewritten: "out.json", NameNote: rewriteNameNote("sched_bw8.json", "out.json")}
	if err := r.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "Note: `npukit sim out.json`") {
		t.Errorf("text %q (err %v) lacks the note", buf.String(), err)
	}
}

// Audit r3 #28: a core whose file addresses are placeholders showed "file
// extent 0 B" and "load waits 0 -> 0"; those columns do not apply.
func TestUnallocatedCoreColumns(t *testing.T) {
	var buf bytes.Buffer
	r := &Report{Cores: []CoreReport{{Core: 0, Tensors: 3, LivePeak: 2 << 20, MinCapacity: 2 << 20, LowerBound: 2 << 20, Status: "optimal", Waits: 1, Unallocated: true}}}
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, " 0 B ") || !strings.Contains(s, "- -> 1") {
		t.Errorf("unallocated core:\n%s", s)
	}
}
