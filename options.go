package npukit

import (
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
)

// Options tune the operations; the zero value (or nil) gives every kind's
// defaults. Each field names the kind and operation it concerns.
type Options struct {
	// Layers adds the per-layer table to a Gemini schedule's summary, and
	// prints a simulation's per-layer table in full however long it is.
	Layers bool
	// NeffLimits bound what reading a NEFF may decompress and allocate
	// (nil: neff.DefaultLimits).
	NeffLimits *neff.Limits
	// NeffRuntime is the Neuron runtime a NEFF's header is checked
	// against (nil: neff.DefaultRuntime, whose feature-bit findings are
	// warnings or infos rather than errors).
	NeffRuntime *neff.Runtime
	// NeffDMA adjusts the DMA model a NEFF is simulated with (it starts
	// from the NEFF's own NeuronCore generation); nil keeps it.
	NeffDMA func(dma.SimParams) (dma.SimParams, error)
	// GeminiSim adjusts the timing model a Gemini schedule is simulated
	// with; it starts from timing.Default with the DRAM bandwidth of the
	// file name (bwN) when it has one. nil keeps it.
	GeminiSim func(timing.Params) timing.Params
	// ZebuTrace is a ZeBu emulator trace of the same run to compare a
	// Gemini simulation with (the trace's bytes; nil: none).
	ZebuTrace []byte
	// ClockGHz is the nominal core clock of the cycle-based simulations
	// (Gemini schedules, ZeBu traces): it converts cycles to time (and a
	// Gemini DRAM bandwidth to bytes per cycle). 0 means 1 GHz, where one
	// cycle is one nanosecond.
	ClockGHz float64
	// EdgeTPUHost is the host class an Edge TPU or TFLite model is
	// simulated on (edgetpu.Hosts; "" is edgetpu.DefaultHost).
	EdgeTPUHost string
	// EdgeTPULatency selects what an Edge TPU inference includes (cache
	// evicted by another model between inferences, a per-call image
	// resize).
	EdgeTPULatency edgetpu.LatencyOptions
	// EdgeTPUNoTwin: do not look beside a compiled Edge TPU model for
	// its uncompiled twin (edgetpu.FindTwin); its Edge TPU compute is
	// then estimated from the compiled file alone unless
	// EdgeTPULatency.Twin gives the twin.
	EdgeTPUNoTwin bool
	// NtffNeff is the NEFF a Neuron profile capture profiled (inspect
	// names it; "" looks for it beside the capture).
	NtffNeff string
	// NeffMeasured is a Neuron profile capture (.ntff bytes) of a NEFF's
	// run to set its simulation beside (nil: none); NeffMeasuredName
	// names it in the output.
	NeffMeasured     []byte
	NeffMeasuredName string
	// NeffMeasuredOtherNeff compares with a capture whose recorded NEFF
	// UUID is not the NEFF's (refused otherwise: the comparison is then
	// of two different programs, and the output says so).
	NeffMeasuredOtherNeff bool
	// TracePath, when set, makes Simulate write a Perfetto/Chrome trace
	// JSON there (a NEFF with several subgraphs writes one per subgraph,
	// SUBGRAPH inserted before the extension).
	TracePath string
}

func (o *Options) neffLimits() neff.Limits {
	if o.NeffLimits != nil {
		return *o.NeffLimits
	}
	return neff.DefaultLimits()
}

func (o *Options) neffRuntime() neff.Runtime {
	if o.NeffRuntime != nil {
		return *o.NeffRuntime
	}
	return neff.DefaultRuntime
}

func (o *Options) clockGHz() float64 {
	if o.ClockGHz > 0 {
		return o.ClockGHz
	}
	return 1
}

// checkPolicy is the rule policy the notes and report pages that repeat
// check's findings apply, as `npukit check` does with no rule flags: the
// .npukit.yaml found from the working directory upward (audit r3 #32: sim
// said "check finds 1 error" of a rule the configuration disables); ok is
// false when that configuration cannot be read (the default rules apply,
// and the caller says so).
func checkPolicy() (p *ruleset.Policy, ok bool) {
	p, err := ruleset.Load(ruleset.Sources{})
	if err != nil {
		return nil, false
	}
	return p, true
}
