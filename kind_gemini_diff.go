package npukit

import (
	"fmt"
	"io"
	"strings"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/l2alloc"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/semdiff"
)

// GeminiDiff is the difference of two Gemini schedules (two compiles of
// one network, or a schedule and its `alloc --rewrite`): the verdict in
// the user's terms — workloads, traffic, L2 occupancy and address extent
// per core, simulated cycles — and how many buffer addresses moved.
type GeminiDiff struct {
	Statement string       `json:"statement"`
	Verdict   semdiff.List `json:"verdict"`
	// AddressChanges counts buffer entries whose L2 address differs
	// (-1: the schedules differ in shape, so entries do not pair up).
	AddressChanges int `json:"address_changes"`
	// TensorsMoved counts the tensors at another L2 address, each once
	// (identified as check identifies them; -1 when shapes differ).
	TensorsMoved int `json:"tensors_moved"`
	// Details per core (workloads added, removed, moved, changed; traffic
	// per kind; buffer peaks; simulated cycles), per layer and per
	// workload.
	Details *gemini.DiffDetail `json:"details"`
	// Model is the timing model both schedules were simulated under: A's
	// (the DRAM bandwidth of A's name, bwN, unless the options set it),
	// with the source of each assumption; nil when not simulated.
	Model *timing.Params `json:"model,omitempty"`
	// Notes say what the comparison left out (B's name implying another
	// DRAM bandwidth).
	Notes []string `json:"notes,omitempty"`
}

// WriteText writes the statement, then the changes.
func (d *GeminiDiff) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("%s\n", d.Statement)
	if len(d.Verdict) > 0 {
		ew.Printf("Changes:\n")
		for _, c := range d.Verdict {
			ew.Printf("  %s\n", c)
		}
	}
	if d.Model != nil {
		ew.Printf("Simulated cycles: both files under A's model: %s\n", d.Model.ModelLine())
	}
	for _, n := range d.Notes {
		ew.Printf("Note: %s\n", n)
	}
	if d.Details == nil {
		return ew.Err()
	}
	for _, c := range d.Details.Cores {
		if c.Added+c.Removed+c.MovedIn+c.MovedOut+c.Changed == 0 && len(c.Changes) == 0 {
			continue
		}
		var counts []string
		for _, n := range []struct {
			n    int
			what string
		}{{c.Added, "added"}, {c.Removed, "removed"}, {c.MovedIn, "moved in"}, {c.MovedOut, "moved out"}, {c.Changed, "changed"}} {
			if n.n > 0 {
				counts = append(counts, fmt.Sprintf("%s %s", humanize.Count(int64(n.n)), n.what))
			}
		}
		if len(counts) == 0 {
			counts = []string{"the same workloads"}
		}
		if c.Added == c.WorkloadsB && c.Removed == c.WorkloadsA && c.Added > 0 {
			// every workload changed its ofmap range (another batch size,
			// another tiling): say why nothing pairs up (audit r3 #17)
			counts = append(counts, "none matches by layer and ofmap range")
		}
		ew.Printf("%s: %s -> %s workloads (%s)\n", termsafe.Name(c.Core), humanize.Count(int64(c.WorkloadsA)), humanize.Count(int64(c.WorkloadsB)), strings.Join(counts, ", "))
		for _, ch := range c.Changes {
			ew.Printf("  %s\n", ch)
		}
	}
	if len(d.Details.Layers) > 0 {
		ew.Printf("Layers (%s differ):\n", humanize.Count(int64(len(d.Details.Layers))))
		for _, l := range d.Details.Layers {
			parts := make([]string, len(l.Changes))
			for i, c := range l.Changes {
				parts[i] = c.String()
			}
			ew.Printf("  %s: %s\n", termsafe.Name(l.Layer), strings.Join(parts, "; "))
		}
	}
	if n := len(d.Details.Workloads) + d.Details.Unlisted; n > 0 {
		ew.Printf("Workloads (%s differ", humanize.Count(int64(n)))
		if d.Details.Unlisted > 0 {
			ew.Printf(": %s listed, %s more", humanize.Count(int64(len(d.Details.Workloads))), humanize.Count(int64(d.Details.Unlisted)))
		}
		ew.Printf("; matched by layer and ofmap range):\n")
		for _, w := range d.Details.Workloads {
			where := ""
			switch {
			case w.CoreA == nil:
				where = fmt.Sprintf("%s workload %d", *w.CoreB, *w.IDB)
			case w.CoreB == nil || (*w.CoreA == *w.CoreB && *w.IDA == *w.IDB):
				where = fmt.Sprintf("%s workload %d", *w.CoreA, *w.IDA)
			default:
				where = fmt.Sprintf("%s workload %d -> %s workload %d", *w.CoreA, *w.IDA, *w.CoreB, *w.IDB)
			}
			ew.Printf("  %s %s %s (%s)", w.Change, termsafe.Name(w.Layer), w.Range, where)
			parts := make([]string, len(w.Changes))
			for i, c := range w.Changes {
				parts[i] = c.String()
			}
			if len(parts) > 0 {
				ew.Printf(": %s", strings.Join(parts, "; "))
			}
			ew.Printf("\n")
		}
	}
	return ew.Err()
}

func diffGemini(a, b *Artifact, o *Options) (Output, bool, error) {
	sa, err := a.GeminiSchedule()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	sb, err := b.GeminiSchedule()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	l := gemini.DiffSummaries(gemini.Summarize(sa, false), gemini.Summarize(sb, false))
	// The L2 address extent per core: what an alloc --rewrite shrinks.
	for i := 0; i < min(len(sa.Cores), len(sb.Cores)); i++ {
		pa, errA := l2alloc.Build(sa, sa.Cores[i], l2alloc.Options{})
		pb, errB := l2alloc.Build(sb, sb.Cores[i], l2alloc.Options{})
		if errA == nil && errB == nil {
			l.Int(sb.Cores[i].Name()+" L2 address extent", semdiff.Bytes, pa.FileExtent, pb.FileExtent)
		}
	}
	// Simulated cycles, both schedules under one model, A's (audit r3
	// #14: a byte-identical copy named bw8 differed by +55% cycles): the
	// assumptions a name implies are not a difference of the files.
	pa := geminiSimParams(a.Name, o)
	ra, errA := timing.Simulate(sa, pa)
	rb, errB := timing.Simulate(sb, pa)
	if errA == nil && errB == nil {
		l.Int("simulated cycles", semdiff.Cycles, ra.TotalCycles, rb.TotalCycles)
	}
	det := gemini.DiffDetails(sa, sb)
	if errA == nil && errB == nil {
		for i := range det.Cores {
			var x, y timing.CoreStats
			if i < len(ra.Cores) {
				x = ra.Cores[i]
			}
			if i < len(rb.Cores) {
				y = rb.Cores[i]
			}
			c := &det.Cores[i]
			c.Changes.Int("simulated finish cycle", semdiff.Cycles, ra.TotalCycles-x.Idle, rb.TotalCycles-y.Idle)
			c.Changes.Int("simulated wait on DRAM", semdiff.Cycles, x.WaitDRAM, y.WaitDRAM)
			c.Changes.Int("simulated wait on other cores", semdiff.Cycles, x.WaitCores, y.WaitCores)
		}
	}
	d := &GeminiDiff{Verdict: l, AddressChanges: gemini.AddressChanges(sa, sb), TensorsMoved: gemini.TensorAddressChanges(sa, sb), Details: det}
	if d.Verdict == nil {
		d.Verdict = semdiff.List{}
	}
	if d.AddressChanges > 0 {
		d.Verdict = append(d.Verdict, semdiff.Change{What: "buffer entries at another L2 address", Unit: semdiff.Count, A: int64(0), B: int64(d.AddressChanges)})
		if d.TensorsMoved > 0 {
			d.Verdict = append(d.Verdict, semdiff.Change{What: "tensors at another L2 address", Unit: semdiff.Count, A: int64(0), B: int64(d.TensorsMoved)})
		}
	}
	if errA == nil && errB == nil {
		na, nb := timing.BandwidthOfName(a.Name), timing.BandwidthOfName(b.Name)
		if pb := geminiSimParams(b.Name, o); pb.DRAMGBps != pa.DRAMGBps {
			tag := "no bwN: the default"
			if nb.Tag != "" {
				tag = nb.Tag
			}
			d.Notes = append(d.Notes, fmt.Sprintf("B's name implies DRAM %.1f GB/s (%s) where A's implies %.1f GB/s: both files are simulated at A's, so this is no difference of the files (--dram-bw sets one bandwidth for both; `npukit sim` of each file uses its own name's)",
				pb.DRAMGBps, tag, pa.DRAMGBps))
		}
		if pa.Source.DRAM == na.Source("the file name") { // A's name gave it
			pa.Source.DRAM = na.Source("A's name")
		}
		d.Model = &pa
	}
	identical := len(d.Verdict) == 0
	switch {
	case identical:
		d.Statement = "identical in workloads, traffic, L2 use, addresses and simulated cycles"
	default:
		d.Statement = d.Verdict.Statement(3)
	}
	return d, identical, nil
}
