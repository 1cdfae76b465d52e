package dma

import (
	"fmt"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// Findings returns the efficiency findings of a DMA program with one line
// per rule: a pattern repeated on thousands of descriptors is one thing to
// fix, said once with how many descriptors show it, the bytes they move
// (and their share of the program's) and, where the DMA model charges for
// it (runs under MinChargedRun), the engine time it costs beyond moving
// the same bytes in full-length runs, summed over the engines and per
// engine if spread evenly. The line keeps the first
// descriptor's location and message; Count is the number of descriptors.
// Analyze lists every finding instead.
func Findings(descs []Descriptor, l Layout, p SimParams) diag.Report {
	type group struct {
		first    diag.Diagnostic
		count    int
		bytes    int64
		extraNs  float64
		position int
	}
	groups := map[string]*group{}
	var total int64
	for _, d := range descs {
		rep := descriptorFindings(d, l) // one per rule
		moved, charged := chargedBytes(d.Transfer, p)
		total += moved
		for _, f := range rep {
			g := groups[f.Rule]
			if g == nil {
				g = &group{first: f, position: len(groups)}
				groups[f.Rule] = g
			}
			g.count++
			g.bytes += moved
			if f.Rule == RuleSmallRuns && p.BytesPerNs > 0 && charged > moved {
				g.extraNs += float64(charged-moved) / p.BytesPerNs
			}
		}
	}
	out := make(diag.Report, len(groups))
	for _, g := range groups {
		f := g.first
		if g.count > 1 {
			share := ""
			if total > 0 {
				share = fmt.Sprintf(", %s of the program's DMA bytes", percent(g.bytes, total))
			}
			cost := ""
			if g.extraNs >= 1 {
				// a sum over the engines: it can exceed the kernel's time
				// several times over, so say so (audit r3 #29)
				cost = fmt.Sprintf("; about %s of DMA engine time beyond moving them in full-length runs, summed over the %d DMA engines (%s if spread evenly; npukit sim's DMA model: runs under %s B charged as %s B at %g GB/s per engine)",
					humanize.Nanos(int64(g.extraNs)), max(p.Engines, 1), humanize.Nanos(int64(g.extraNs/float64(max(p.Engines, 1)))), humanize.Count(p.MinChargedRun), humanize.Count(p.MinChargedRun), float64(int64(p.BytesPerNs*10+0.5))/10)
			}
			f.Count = g.count
			f.Message = fmt.Sprintf("%s like this one %s %s%s%s; the first: %s", humanize.Plural(g.count, "descriptor"), humanize.Agree(g.count, "moves", "move"), humanize.Bytes(g.bytes), share, cost, f.Message)
		}
		out[g.position] = f
	}
	return out
}

func percent(part, whole int64) string {
	v := 100 * float64(part) / float64(whole)
	if v > 0 && v < 1 {
		return "under 1%"
	}
	return fmt.Sprintf("%.0f%%", v)
}
