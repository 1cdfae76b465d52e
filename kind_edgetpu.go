package npukit

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/edgetpureport"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

func init() {
	// A plain TFLite model (no Edge TPU op) reads through the same model:
	// its operators all run on the CPU.
	for _, k := range []Kind{detect.EdgeTPU, detect.DarwiNN, detect.TFLite} {
		Register(Adapter{Kind: k, Inspect: inspectEdgeTPU, Check: checkEdgeTPU, Report: reportEdgeTPU, Diff: diffEdgeTPU, Simulate: simulateEdgeTPU})
	}
}

// EdgeTPUModel reads an Edge TPU model, a plain TFLite model or a raw
// DarwiNN package.
func (a *Artifact) EdgeTPUModel() (*edgetpu.Model, error) {
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	return edgetpu.Read(b)
}

func reportEdgeTPU(files []*Artifact, o *Options) (*report.Page, error) {
	var named []edgetpu.NamedModel
	for _, f := range files {
		m, err := f.EdgeTPUModel()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		nm := edgetpu.NamedModel{Path: f.Name, Model: m}
		if lo, err := edgeTPUTwin(f, m, o); err != nil {
			// A compiled model that is not the given twin's is
			// priced from its file alone, and says why.
			nm.TwinNote = err.Error()
		} else if len(m.Ops) > 0 {
			nm.Twin, nm.TwinNote = lo.Twin, lo.TwinNote
		}
		named = append(named, nm)
	}
	return edgetpureport.Page(named)
}

func inspectEdgeTPU(a *Artifact, o *Options) (Output, error) {
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, err
	}
	return edgetpu.Summarize(m), nil
}

func checkEdgeTPU(a *Artifact, o *Options) (diag.Report, error) {
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, err
	}
	return edgetpu.Check(m), nil
}

func diffEdgeTPU(a, b *Artifact, o *Options) (Output, bool, error) {
	ma, err := a.EdgeTPUModel()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	mb, err := b.EdgeTPUModel()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	r, err := edgetpu.Diff(ma, mb)
	if err != nil {
		return nil, false, err
	}
	return r, r.Identical(), nil
}

// edgeTPUHost resolves the host class of o.
func edgeTPUHost(o *Options) (edgetpu.HostClass, error) {
	name := edgetpu.DefaultHost
	if o != nil && o.EdgeTPUHost != "" {
		name = o.EdgeTPUHost
	}
	h, ok := edgetpu.HostByName(name)
	if !ok {
		var names []string
		for _, h := range edgetpu.Hosts() {
			names = append(names, h.Name)
		}
		return h, fmt.Errorf("unknown host class %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return h, nil
}

// EdgeTPUSimulation is the estimated latency of an Edge TPU or TFLite
// model on a host class (Simulate's Output for those kinds).
type EdgeTPUSimulation struct {
	File string `json:"file"`
	*edgetpu.Latency
	Trace string `json:"trace,omitempty"`
}

func simulateEdgeTPU(a *Artifact, o *Options) (Output, error) {
	h, err := edgeTPUHost(o)
	if err != nil {
		return nil, err
	}
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, err
	}
	lo, err := edgeTPUTwin(a, m, o)
	if err != nil {
		return nil, err
	}
	l, err := edgetpu.EstimateModel(m, h, lo)
	if err != nil {
		return nil, err
	}
	l.AllParts = o.Layers
	out := &EdgeTPUSimulation{File: a.Name, Latency: l}
	if o.TracePath != "" {
		if err := writeEdgeTPUTrace(o.TracePath, a.Name, l); err != nil {
			return nil, fmt.Errorf("the trace: %w", err)
		}
		out.Trace = o.TracePath
	}
	return out, nil
}

// edgeTPUTwin gives the latency options of a compiled model with its
// uncompiled twin: the one given (checked: a model that is not the twin
// is refused, not priced) or, unless o.EdgeTPUNoTwin, the one found
// beside the compiled file (edgetpu.FindTwin).
func edgeTPUTwin(a *Artifact, m *edgetpu.Model, o *Options) (edgetpu.LatencyOptions, error) {
	if o == nil {
		o = &Options{}
	}
	lo := o.EdgeTPULatency
	if tw := lo.Twin; tw != nil || lo.Uncompiled != nil {
		if tw != nil && m.TFLite != nil && len(m.Ops) > 0 {
			if err := edgetpu.CheckTwin(m, tw.Model); err != nil {
				return lo, fmt.Errorf("--uncompiled %s is not the model %s was compiled from: %v", tw.Path, a.Name, err)
			}
		}
		return lo, nil
	}
	if o.EdgeTPUNoTwin || a.path == "" {
		return lo, nil
	}
	lo.Twin, lo.TwinNote = edgetpu.FindTwin(a.path, m)
	return lo, nil
}

// writeEdgeTPUTrace writes one first inference of l as a Perfetto trace.
func writeEdgeTPUTrace(path, name string, l *edgetpu.Latency) error {
	tl, err := sim.Run(l.Timeline(true))
	if err != nil {
		return err
	}
	return trace.WriteFile(path, tl, trace.Options{NanosPerUnit: 1,
		Metadata: [][2]string{{"model", filepath.Base(name)}, {"host", l.Host.Name}, {"timing", "npukit edgetpu latency model"},
			{"first_inference_us", fmt.Sprintf("%.1f", l.FirstInferenceUs)}, {"steady_state_us", fmt.Sprintf("%.1f", l.SteadyStateUs)}},
		Args: func(t sim.TaskID, args *trace.Args) {
			p := l.Parts[tl.Graph.Tasks[t].Tag]
			if p.Bytes > 0 {
				args.Int("bytes", p.Bytes)
			}
			if p.MACs > 0 {
				args.Int("macs", p.MACs)
			}
			if p.Op >= 0 {
				args.Int("op", int64(p.Op))
			}
			if p.Detail != "" {
				args.Str("detail", p.Detail)
			}
		}})
}

// WriteText renders the simulation.
func (s *EdgeTPUSimulation) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n", s.File); err != nil {
		return err
	}
	if err := s.Latency.WriteText(w); err != nil {
		return err
	}
	if s.Trace != "" {
		_, err := fmt.Fprintf(w, "Trace written to %s (open in ui.perfetto.dev)\n", s.Trace)
		return err
	}
	return nil
}
