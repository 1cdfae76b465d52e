package npukit

import (
	"bytes"
	"fmt"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/zebu"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/geminireport"
)

func init() {
	Register(Adapter{Kind: detect.GeminiIR, Inspect: inspectGemini, Check: checkGemini, Report: reportGemini, Simulate: simulateGemini, Diff: diffGemini})
}

// GeminiSchedule reads a Gemini scheduler IR file (compiler or raw
// variant).
func (a *Artifact) GeminiSchedule() (*gemini.Schedule, error) {
	if a.path != "" {
		return gemini.ReadFile(a.path)
	}
	return gemini.Read(bytes.NewReader(a.data))
}

func reportGemini(files []*Artifact, o *Options) (*report.Page, error) {
	var fs []geminireport.File
	for _, f := range files {
		s, err := f.GeminiSchedule()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fs = append(fs, geminireport.File{Name: f.Name, Schedule: s, Sim: geminiSimParams(f.Name, o)})
	}
	if o.ZebuTrace != nil { // --zebu: the run of the one schedule reported
		if len(fs) != 1 {
			return nil, fmt.Errorf("--zebu compares the run of one schedule: give one schedule, not %d", len(fs))
		}
		tr, err := zebu.Parse(bytes.NewReader(o.ZebuTrace))
		if err != nil {
			return nil, fmt.Errorf("the ZeBu trace: %w", err)
		}
		fs[0].Zebu = tr
	}
	return geminireport.Page(fs)
}

func inspectGemini(a *Artifact, o *Options) (Output, error) {
	s, err := a.GeminiSchedule()
	if err != nil {
		return nil, err
	}
	return gemini.Summarize(s, o.Layers), nil
}

func checkGemini(a *Artifact, o *Options) (diag.Report, error) {
	s, err := a.GeminiSchedule()
	if err != nil {
		return nil, err
	}
	return gemini.Check(s), nil
}
