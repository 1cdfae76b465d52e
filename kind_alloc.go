package npukit

import (
	"bytes"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/report"
	"github.com/npukit/npukit/report/allocreport"
)

func init() {
	Register(Adapter{Kind: detect.MiniMallocCSV, Inspect: inspectAlloc, Check: checkAlloc, Report: reportAlloc})
}

// AllocTable reads an allocation problem CSV. capacity 0 takes it from the
// name (NAME.<capacity>.csv, NAME.cap<capacity>.csv) when it has one.
func (a *Artifact) AllocTable(capacity int64) (*alloc.Table, error) {
	if capacity == 0 {
		capacity, _ = alloc.CapacityFromName(a.Name)
	}
	b, err := a.Bytes()
	if err != nil {
		return nil, err
	}
	return alloc.ReadCSV(bytes.NewReader(b), capacity, alloc.Limits{})
}

func reportAlloc(files []*Artifact, o *Options) (*report.Page, error) {
	t, err := files[0].AllocTable(0)
	if err != nil {
		return nil, err
	}
	return allocreport.Page(files[0].Name, t)
}

func inspectAlloc(a *Artifact, o *Options) (Output, error) {
	t, err := a.AllocTable(0)
	if err != nil {
		return nil, err
	}
	return alloc.Summarize(t), nil
}

func checkAlloc(a *Artifact, o *Options) (diag.Report, error) {
	t, err := a.AllocTable(0)
	if err != nil {
		return nil, err
	}
	return alloc.Check(t), nil
}
