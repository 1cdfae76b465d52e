package npukit

import (
	"fmt"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/edgetpureport"
)

func init() {
	// A plain TFLite model (no Edge TPU op) reads through the same model:
	// its operators all run on the CPU.
	for _, k := range []Kind{detect.EdgeTPU, detect.DarwiNN, detect.TFLite} {
		Register(Adapter{Kind: k, Inspect: inspectEdgeTPU, Check: checkEdgeTPU, Report: reportEdgeTPU, Diff: diffEdgeTPU})
	}
}

// EdgeTPUModel reads an Edge TPU model, a plain TFLite model or a raw
// DarwiNN package.
func EdgeTPUModel(a *Artifact) (*edgetpu.Model, error) {
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	return edgetpu.Read(b)
}

func reportEdgeTPU(files []*Artifact, o *Options) (*report.Page, error) {
	var named []edgetpu.NamedModel
	for _, f := range files {
		m, err := EdgeTPUModel(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		named = append(named, edgetpu.NamedModel{Path: f.Name, Model: m})
	}
	return edgetpureport.Page(named)
}

func inspectEdgeTPU(a *Artifact, o *Options) (Output, error) {
	m, err := EdgeTPUModel(a)
	if err != nil {
		return nil, err
	}
	return edgetpu.Summarize(m), nil
}

func checkEdgeTPU(a *Artifact, o *Options) (diag.Report, error) {
	m, err := EdgeTPUModel(a)
	if err != nil {
		return nil, err
	}
	return edgetpu.Check(m), nil
}

func diffEdgeTPU(a, b *Artifact, o *Options) (Output, bool, error) {
	ma, err := EdgeTPUModel(a)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", a.Name, err)
	}
	mb, err := EdgeTPUModel(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", b.Name, err)
	}
	r, err := edgetpu.Diff(ma, mb)
	if err != nil {
		return nil, false, err
	}
	return r, r.Identical(), nil
}
