package npukit

import (
	"errors"
	"fmt"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/neffreport"
)

func init() {
	for _, k := range []Kind{detect.NEFF, detect.NEFFDir} {
		Register(Adapter{Kind: k, Inspect: inspectNeff, Check: checkNeff, Report: reportNeffMeasured, Simulate: simulateNeffMeasured, Diff: diffNeff})
	}
}

// ErrNeffTooLarge wraps a NEFF whose members exceed the reading limit
// (Options.NeffLimits): the caller says how to raise it.
var ErrNeffTooLarge = errors.New("the NEFF exceeds the reading limit")

// Neff decodes a NEFF file or an unpacked NEFF directory within the
// reading limits of o (nil: neff.DefaultLimits); a NEFF past them is an
// error matching ErrNeffTooLarge.
func (a *Artifact) Neff(o *Options) (*neff.Model, error) {
	o = orDefault(o)
	lim := o.neffLimits()
	var m *neff.Model
	var err error
	if a.Kind == detect.NEFFDir {
		m, err = neff.OpenDir(a.path, lim)
	} else {
		var b []byte
		if b, err = a.Bytes(); err == nil {
			m, err = neff.OpenBytes(b, lim)
		}
	}
	return m, neffLimitError(err)
}

// NeffFile reads a NEFF file's container (header, hash, payload and
// members) within the reading limits of o (nil: neff.DefaultLimits),
// without decoding its graph; a NEFF past them is an error matching
// ErrNeffTooLarge.
func (a *Artifact) NeffFile(o *Options) (*neff.File, error) {
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	f, err := neff.Read(b, orDefault(o).neffLimits())
	return f, neffLimitError(err)
}

// neffLimitError marks a too-large NEFF so that ErrNeffTooLarge matches
// (the message is the reader's).
func neffLimitError(err error) error {
	var fe *neff.FormatError
	if errors.As(err, &fe) && fe.Rule == neff.RuleTooLarge {
		return neffTooLarge{err}
	}
	return err
}

type neffTooLarge struct{ error }

func (e neffTooLarge) Is(target error) bool { return target == ErrNeffTooLarge }
func (e neffTooLarge) Unwrap() error        { return e.error }

func inspectNeff(a *Artifact, o *Options) (Output, error) {
	m, err := a.Neff(o)
	if err != nil {
		return nil, err
	}
	return neff.Summarize(m), nil
}

// checkNeff reports framing problems as diagnostics too (a NEFF whose
// payload cannot be read still gets its header gates checked), so only an
// unreadable file is an error.
func checkNeff(a *Artifact, o *Options) (diag.Report, error) {
	rep, _, err := checkNeffModel(a, o)
	return rep, err
}

// checkNeffModel checks and returns the decoded model too (nil when the
// payload could not be read).
func checkNeffModel(a *Artifact, o *Options) (diag.Report, *neff.Model, error) {
	var rep diag.Report
	var m *neff.Model
	if a.Kind == detect.NEFFDir {
		var err error
		if m, err = a.Neff(o); err != nil {
			return nil, nil, err
		}
		rep = neff.Check(m, o.neffRuntime())
	} else {
		b, err := a.Bytes()
		if err != nil {
			return nil, nil, err
		}
		rep, m = neff.CheckBytes(b, o.neffLimits(), o.neffRuntime())
	}
	if m != nil {
		rep = append(rep, neffDMAFindings(m)...)
	}
	return rep, m, nil
}

// neffDMAFindings are the DMA efficiency findings of every subgraph, one
// line per rule and subgraph (dma.Findings), so that check, the report
// and `neff dma` give one verdict per file.
func neffDMAFindings(m *neff.Model) diag.Report {
	setup := dmaprog.SetupFor(m)
	var rep diag.Report
	for _, p := range dmaprog.FromModel(m) {
		rep = append(rep, dma.Findings(p.Descriptors, p.Layout, setup.Params)...)
	}
	return rep
}

// reportNeff builds the page of NEFFs, each simulated by simulate.
func reportNeff(files []*Artifact, o *Options, simulate func(*Artifact) (*NeffSimulation, error)) (*report.Page, error) {
	// One NEFF read, checked and simulated at a time: the page builder
	// renders each one's sections before asking for the next.
	return neffreport.PageFunc(len(files), func(i int) (neffreport.File, error) {
		f := files[i]
		rep, m, err := checkNeffModel(f, o)
		if err != nil {
			return neffreport.File{}, fmt.Errorf("%s: %w", f.Name, err)
		}
		nf := neffreport.File{Name: f.Name, Model: m, Diagnostics: rep}
		// The time `npukit sim` predicts, in its own words, so that the
		// report and sim give one answer (issue 32).
		if sim, err := simulate(f); err == nil {
			nf.Predicted = fmt.Sprintf("%s (launch %s + the longest core; %s, see npukit sim)", humanize.Nanos(sim.TotalNs), humanize.Nanos(sim.LaunchNs), sim.Setup.NeuronCore)
		}
		return nf, nil
	})
}

func diffNeff(a, b *Artifact, o *Options) (Output, bool, error) {
	ma, err := a.Neff(o)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	mb, err := b.Neff(o)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	r := neff.Diff(ma, mb, neff.DiffOptions{})
	return r, r.Identical(), nil
}

// neffPrograms decodes a NEFF and the DMA program of every subgraph.
func neffPrograms(a *Artifact, o *Options) (*neff.Model, []*dmaprog.Program, error) {
	m, err := a.Neff(o)
	if err != nil {
		return nil, nil, err
	}
	progs := dmaprog.FromModel(m)
	if len(progs) == 0 {
		return nil, nil, errors.New("the NEFF declares no subgraph")
	}
	return m, progs, nil
}

// IsNeff says whether the artifact is a NEFF, packed or unpacked.
func (a *Artifact) IsNeff() bool { return a.Kind == detect.NEFF || a.Kind == detect.NEFFDir }
