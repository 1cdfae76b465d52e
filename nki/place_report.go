package nki

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

// PlaceReport is what `npukit nki place` reports of a placed kernel: the
// placement, the declarations rewritten, the kernel's diff or where it
// was written, and the check of the placed kernel traced again.
type PlaceReport struct {
	*neuroncore.Placement
	Sites   []Rewrite   `json:"rewritten"`
	Diff    string      `json:"diff,omitempty"`
	Written string      `json:"written,omitempty"`
	Check   diag.Report `json:"placed_kernel_check"`
	Errors  int         `json:"placed_kernel_errors"`
}

// Report traces and checks the placed kernel of o again (CheckPlaced) and
// reports it; src is the kernel's source before placing, for the diff.
func (p *Placed) Report(o Options, arch *neuroncore.Arch, src []byte) (*PlaceReport, error) {
	ck, err := CheckPlaced(o, p, arch)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(o.File)
	rep := ck.Report.WithFile(name)
	if rep == nil {
		rep = diag.Report{}
	}
	return &PlaceReport{Placement: p.Placement, Sites: p.Rewrites, Check: rep, Errors: rep.Count(diag.Error),
		Diff: UnifiedDiff("a/"+name, "b/"+name, string(src), string(p.Source))}, nil
}

// WriteText writes the diff (unless the kernel was written to a file),
// the sites rewritten and the verdict of the placed kernel's check.
func (o PlaceReport) WriteText(w io.Writer) error {
	if o.Written == "" {
		if _, err := io.WriteString(w, o.Diff); err != nil {
			return err
		}
	}
	if err := (&Placed{Rewrites: o.Sites}).WriteRewrites(w, "# "); err != nil {
		return err
	}
	if o.Written != "" {
		fmt.Fprintf(w, "# placed kernel written to %s\n", o.Written)
	}
	_, err := fmt.Fprintf(w, "# the placed kernel reads back and checks with %s\n", o.Check.Summary())
	return err
}
