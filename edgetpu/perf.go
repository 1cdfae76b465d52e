package edgetpu

import (
	"fmt"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/internal/humanize"
)

// Why a compiled model is slow: what crosses the host link every inference
// and why. These are infos (the model loads and runs; the numbers say what
// it costs), computed from the steady-state transfer plan of the USB
// runtime (package dmaplan) and the model's operator placement.
const (
	RuleScratchHost    = "edgetpu/scratch-over-host"
	RuleStreamedParams = "edgetpu/streamed-parameters"
	RuleCPURoundTrip   = "edgetpu/cpu-round-trip"
	RuleOutputRelayout = "edgetpu/output-relayout"
)

// PerformanceRules are the rules above: infos about cost, which a model
// may carry beside any finding.
var PerformanceRules = []string{RuleScratchHost, RuleStreamedParams, RuleCPURoundTrip, RuleOutputRelayout}

func init() {
	diag.Register(
		diag.Rule{ID: RuleScratchHost, Severity: diag.Info, Description: "activations spill to host memory: the executable's scratch crosses the host link every inference"},
		diag.Rule{ID: RuleStreamedParams, Severity: diag.Info, Description: "parameters are streamed from the host every inference (not cached in the 8 MiB on-chip memory), with its cause: parameters larger than the cache, a cache shared by co-compiled models, or a small remainder the compiler left uncached"},
		diag.Rule{ID: RuleOutputRelayout, Severity: diag.Info, Description: "outputs come back in the device's tiled or padded layout and are re-laid out on the CPU every inference"},
		diag.Rule{ID: RuleCPURoundTrip, Severity: diag.Info, Description: "CPU operators run between Edge TPU operators: every inference goes device -> host -> device in the middle"},
	)
}

// CompiledWithOthers reports whether the package was most likely compiled
// together with other models sharing its parameter cache: its parameters
// would fit the on-chip memory alone, yet a large share of them is
// streamed. Alone, a model whose parameters fit is cached but for small
// remainders (real single models stream at most a few KiB). check
// (edgetpu/streamed-parameters) and edgetpu memory's statement about a
// file's group both decide by it.
func (m Memory) CompiledWithOthers() bool {
	total := m.Cached + m.Streamed
	return total <= ParameterSRAM && m.Streamed >= coCompiledStream && 20*m.Streamed >= total
}

// coCompiledStream is the streamed-parameter size from which a model that
// would fit the cache alone is taken to share it with co-compiled models.
const coCompiledStream = 64 << 10

// linkBounds words a transfer's lower bounds at the raw link rates: "4.2
// ms over USB 2.0 (0.06 GB/s), 402 us over USB 3.0 (0.625 GB/s), 502 us
// over PCIe Gen2 x1 (0.5 GB/s)".
func linkBounds(bytes int64) string {
	var parts []string
	for _, l := range dmaplan.DefaultLinks() {
		parts = append(parts, fmt.Sprintf("%s over %s (%s)", ms(float64(bytes)*8/l.BitsPerSec*1e6), l.Name, gbps(l.BitsPerSec/8)))
	}
	return strings.Join(parts, ", ")
}

func ms(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.0f us", us)
}

// checkPerformance adds the "why is it slow" findings of one package.
func checkPerformance(rep *diag.Report, loc string, p *Package) {
	plan, err := dmaplan.Build(PlanInput(p), dmaplan.DefaultLinks())
	if err != nil {
		return
	}
	st := plan.Steady
	if s := st.ByTarget["SCRATCH"]; s > 0 {
		rep.Add(RuleScratchHost, loc, "activations spill to host memory: %s of scratch cross the host link every inference (%s); a smaller input, fewer or narrower layers keep them on chip",
			humanize.Bytes(s), streamedLinkText(s))
	}
	if e := p.Main(); e != nil {
		checkRelayout(rep, loc, e)
	}
	mem := MemoryOf(p)
	if s := st.ByTarget["PARAMETER"]; s > 0 {
		total := mem.Cached + mem.Streamed
		var cause string
		switch {
		case total > ParameterSRAM:
			cause = fmt.Sprintf("the model's parameters (%s) exceed what the 8 MiB on-chip memory holds", humanize.Bytes(total))
		case mem.CompiledWithOthers():
			cause = fmt.Sprintf("%s cached + %s streamed would fit the 8 MiB on-chip memory: the model was most likely compiled together with others sharing its cache (caching token %s); the compiler hands the cache out in the order the models are given, so compile this model first, or alone, to cache all of it",
				humanize.Bytes(mem.Cached), humanize.Bytes(mem.Streamed), mem.TokenHex)
		default:
			cause = fmt.Sprintf("the compiler left a small part of the parameters (%s of %s) uncached", humanize.Bytes(mem.Streamed), humanize.Bytes(total))
		}
		rep.Add(RuleStreamedParams, loc, "%s of parameters are streamed from the host every inference (%s): %s", humanize.Bytes(s), streamedLinkText(s), cause)
	}
}

// checkRelayout reports the outputs the runtime re-lays out on the CPU
// every inference: several tiles, or z padded (the device keeps x
// positions 4-byte aligned), or execution-count repeats.
func checkRelayout(rep *diag.Report, loc string, e *Executable) {
	var names []string
	var bytes int64
	for _, l := range e.OutputLayers {
		if l.Output == nil || l.Output.Layout == nil {
			continue
		}
		lay := l.Output.Layout
		plain := int64(l.Y) * int64(l.X) * int64(l.Z) * int64(l.DataType.Size())
		if len(lay.TileOffset) > 1 || int64(l.SizeBytes) > plain || l.ExecutionCount > 1 {
			names = append(names, fmt.Sprintf("%s (%dx%dx%d)", l.Name, l.Y, l.X, l.Z))
			bytes += int64(l.SizeBytes) * int64(max(l.ExecutionCount, 1))
		}
	}
	if len(names) > 0 {
		rep.Add(RuleOutputRelayout, loc, "%s %s re-laid out from the device's tiled layout on the CPU every inference (%s read and rewritten): %s",
			humanize.Plural(len(names), "output"), humanize.Agree(len(names), "is", "are"), humanize.Bytes(bytes), strings.Join(names, ", "))
	}
}

// checkRoundTrips reports CPU operators between the Edge TPU operators of a
// subgraph.
func checkRoundTrips(rep *diag.Report, m *Model) {
	s := Summarize(m)
	var between []string
	for _, o := range s.Operators {
		if o.Position == "between" {
			between = append(between, fmt.Sprintf("%d %s", o.Index, o.Code))
		}
	}
	if len(between) > 0 {
		rep.Add(RuleCPURoundTrip, "model", "%s %s between Edge TPU operators (%s): each inference crosses the host link twice more; making them mappable (npukit edgetpu plan on the uncompiled model says why they are not) keeps the data on the device",
			humanize.Plural(len(between), "CPU operator"), humanize.Agree(len(between), "runs", "run"), strings.Join(between, ", "))
	}
}
