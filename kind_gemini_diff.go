package npukit

import (
	"fmt"
	"io"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/l2alloc"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/stickywriter"
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
	return ew.Err()
}

func diffGemini(a, b *Artifact, o *Options) (Output, bool, error) {
	sa, err := GeminiSchedule(a)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	sb, err := GeminiSchedule(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	l := gemini.DiffSummaries(gemini.Summarize(sa, false), gemini.Summarize(sb, false))
	// The L2 address extent per core: what an alloc --rewrite shrinks.
	for i := 0; i < min(len(sa.Cores), len(sb.Cores)); i++ {
		pa, errA := l2alloc.Build(sa, sa.Cores[i], l2alloc.Options{})
		pb, errB := l2alloc.Build(sb, sb.Cores[i], l2alloc.Options{})
		if errA == nil && errB == nil {
			l.Int(fmt.Sprintf("core %d L2 address extent", i), semdiff.Bytes, pa.FileExtent, pb.FileExtent)
		}
	}
	// Simulated cycles, each schedule under its own timing parameters.
	ra, errA := timing.Simulate(sa, GeminiSimParams(a.Name, o))
	rb, errB := timing.Simulate(sb, GeminiSimParams(b.Name, o))
	if errA == nil && errB == nil {
		l.Int("simulated cycles", semdiff.Cycles, ra.TotalCycles, rb.TotalCycles)
	}
	d := &GeminiDiff{Verdict: l, AddressChanges: gemini.AddressChanges(sa, sb)}
	if d.Verdict == nil {
		d.Verdict = semdiff.List{}
	}
	if d.AddressChanges > 0 {
		d.Verdict = append(d.Verdict, semdiff.Change{What: "buffer entries at another L2 address", Unit: semdiff.Count, A: int64(0), B: int64(d.AddressChanges)})
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
