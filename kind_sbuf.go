package npukit

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/sbufreport"
	"github.com/npukit/npukit/trace"
)

func init() {
	Register(Adapter{Kind: detect.SBUFPlan, Inspect: inspectSbuf, Check: checkSbuf, Report: reportSbuf, Simulate: simulateSbuf})
}

// SbufPlan reads a NeuronCore SBUF/PSUM allocation plan (YAML or JSON,
// docs/sbuf-plan.md).
func (a *Artifact) SbufPlan() (*neuroncore.Plan, error) {
	if a.path != "" {
		return neuroncore.ReadPlanFile(a.path)
	}
	return neuroncore.ParsePlan(a.data)
}

func reportSbuf(files []*Artifact, o *Options) (*report.Page, error) {
	if len(files) != 1 {
		return nil, fmt.Errorf("a report covers one plan at a time (%d given)", len(files))
	}
	p, err := files[0].SbufPlan()
	if err != nil {
		return nil, err
	}
	page, err := sbufreport.Page(p)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(files[0].Name)
	page.Subtitle = base + " (" + files[0].Kind.Describe() + ")"
	page.Diagnostics = page.Diagnostics.WithFile(base)
	return page, nil
}

func inspectSbuf(a *Artifact, o *Options) (Output, error) {
	p, err := a.SbufPlan()
	if err != nil {
		return nil, err
	}
	return neuroncore.Summarize(p)
}

func checkSbuf(a *Artifact, o *Options) (diag.Report, error) {
	p, err := a.SbufPlan()
	if err != nil {
		return nil, err
	}
	rep, _, err := neuroncore.Check(p)
	return rep, err
}

func simulateSbuf(a *Artifact, o *Options) (Output, error) {
	p, err := a.SbufPlan()
	if err != nil {
		return nil, err
	}
	res, err := SbufSimulate(p, o.TracePath)
	if err != nil {
		return nil, err
	}
	return res.Summary(), nil
}

// sbufTraceCheckTasks bounds the traces validated in memory before they
// are kept: a 600,000-step loop has millions of DMA transfers, a 900 MB
// trace, and parsing it back took 7 GB.
const sbufTraceCheckTasks = 200000

// SbufSimulate simulates a plan (one read with Artifact.SbufPlan, or
// one an NKI kernel was traced to) and, when tracePath is not "", writes
// its Perfetto trace there: a trace of up to 200,000 tasks is validated
// by package trace before it is kept, a larger one is streamed to the
// file.
func SbufSimulate(p *neuroncore.Plan, tracePath string) (*neuroncore.SimResult, error) {
	r, err := neuroncore.Simulate(p)
	if err != nil {
		return nil, err
	}
	if tracePath != "" {
		// the kernel body with the DMA completion latencies and any
		// spill, ending at the printed body; the launch is said left out
		tl := r.TraceTimeline()
		opt := trace.Options{NanosPerUnit: 0.001, Metadata: [][2]string{{"plan", p.Name}, {"arch", "NeuronCore-" + p.Arch.Name},
			{"covers", r.TraceNote()}, {"kernel_body_ns", fmt.Sprintf("%.3f", r.KernelNs())}, {"launch_overhead_ns_not_drawn", fmt.Sprintf("%.3f", p.Arch.LaunchNs)}}}
		r.TracePath = tracePath
		if len(tl.Graph.Tasks) > sbufTraceCheckTasks {
			if err := atomicfile.Write(tracePath, 0o644, func(w io.Writer) error { return trace.Write(w, tl, opt) }); err != nil {
				return nil, err
			}
			return r, nil
		}
		var buf bytes.Buffer
		if err := trace.Write(&buf, tl, opt); err != nil {
			return nil, err
		}
		if _, err := trace.Validate(bytes.NewReader(buf.Bytes())); err != nil {
			return nil, fmt.Errorf("internal: invalid trace: %w", err)
		}
		if err := atomicfile.WriteFile(tracePath, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return r, nil
}
