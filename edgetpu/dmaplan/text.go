package dmaplan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// WithPCIe returns links with every PCIe link's bandwidth set to
// bitsPerSec (links unchanged when it is not positive).
func WithPCIe(links []Link, bitsPerSec float64) []Link {
	out := append([]Link(nil), links...)
	if bitsPerSec > 0 {
		for i := range out {
			if strings.HasPrefix(out[i].Name, "PCIe") {
				out[i].BitsPerSec = bitsPerSec
			}
		}
	}
	return out
}

// Listing is the transfer plans of a model, one per package of each
// Edge TPU operator (`npukit edgetpu dma`).
type Listing struct {
	Plans []PackagePlan `json:"plans"`
	// Effective are the link rates npukit sim charges (measured, below
	// the raw rates of the lower bounds), so that the two relate.
	Effective []EffectiveLink `json:"sim_effective_links,omitempty"`
}

// EffectiveLink is an effective rate of a link, what the host classes
// named achieve (the latency model's rate, edgetpu.HostClass).
type EffectiveLink struct {
	Link string `json:"link"`
	// GBps is the rate in GB/s (10^9 bytes per second).
	GBps  float64  `json:"effective_gb_per_s"`
	Hosts []string `json:"host_classes"`
}

// PackagePlan is the plan of one package of one Edge TPU operator.
type PackagePlan struct {
	Op      int   `json:"op"`
	Package int   `json:"package"`
	Plan    *Plan `json:"plan"`
}

// WriteText lists each plan's steps (first inference, steady state), its
// totals and lower bounds, and its warnings.
func (o Listing) WriteText(w io.Writer) error {
	for i, e := range o.Plans {
		if i > 0 {
			fmt.Fprintln(w)
		}
		p := e.Plan
		fmt.Fprintf(w, "DMA plan of op %d package %d (USB runtime; PCIe ignores hints)\n", e.Op, e.Package)
		writeSteps(w, "First inference (parameter caching, then the run)", p.FirstInference)
		writeSteps(w, "Steady state (every later inference)", p.SteadyState)
		writeTotals(w, "First inference", p.First, p.Links, o.Effective)
		writeTotals(w, "Steady state", p.Steady, p.Links, o.Effective)
		fmt.Fprintln(w, "Times are lower bounds: bytes over raw link bandwidth, no protocol overhead, latency or compute.")
		if len(o.Effective) > 0 {
			fmt.Fprintln(w, "npukit sim charges both directions' bytes in turn at the effective rates its host classes measure (after each bound; sim --host help).")
		}
		fmt.Fprintln(w, "If the model runs faster than the steady-state bound on your CPU, the Edge TPU over that link is slower than the CPU.")
		for _, r := range p.USBRejects {
			fmt.Fprintf(w, "warning: executable %s: %s\n", r, NotDeterministicAdvice)
		}
		for _, x := range p.Warnings {
			fmt.Fprintf(w, "warning: %s\n", x)
		}
	}
	return nil
}

func writeSteps(w io.Writer, title string, steps []Step) {
	fmt.Fprintf(w, "%s: %s\n", title, humanize.Plural(len(steps), "step"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tEXECUTABLE\tKIND\tDIR\tTARGET\tLAYER\tOFFSET\tSIZE\tCHUNK")
	for _, s := range steps {
		size, chunk := "", ""
		if s.Size > 0 {
			size = humanize.Bytes(s.Size)
		}
		if s.Kind == Instruction.String() {
			chunk = strconv.Itoa(s.Chunk)
		}
		if s.Kind == Interrupt.String() {
			chunk = fmt.Sprintf("int %d", s.Interrupt)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Index, s.Executable, s.Kind, s.Direction, s.Target, humanize.Shorten(s.Layer, humanize.NameColumn), s.Offset, size, chunk)
	}
	tw.Flush()
}

func writeTotals(w io.Writer, title string, t Totals, links []Link, eff []EffectiveLink) {
	fmt.Fprintf(w, "%s: host->device %s, device->host %s", title, humanize.Bytes(t.HostToDevice), humanize.Bytes(t.DeviceToHost))
	for _, k := range t.TargetNames() {
		fmt.Fprintf(w, "; %s %s", k, humanize.Bytes(t.ByTarget[k]))
	}
	fmt.Fprintln(w)
	for _, l := range links {
		fmt.Fprintf(w, "  lower bound over %s (raw %.3g GB/s): %s", l.Name, l.BitsPerSec/8e9, humanize.Micros(t.LowerBoundUs[l.Name]))
		sep, what := "; sim:", " effective"
		for _, e := range eff {
			if e.Link == l.Name && e.GBps > 0 {
				us := float64(t.HostToDevice+t.DeviceToHost) / (e.GBps * 1e3)
				fmt.Fprintf(w, "%s %s at %.3g GB/s%s (%s)", sep, humanize.Micros(us), e.GBps, what, strings.Join(e.Hosts, ", "))
				sep, what = ",", ""
			}
		}
		fmt.Fprintln(w)
	}
}
