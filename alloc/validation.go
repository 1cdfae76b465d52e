package alloc

import (
	"fmt"
	"io"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// Validation is a solution file checked against its problem (`npukit
// alloc --validate`): the findings, and what a valid solution holds.
type Validation struct {
	File     string // the solution's file, named by the findings
	Findings diag.Report
	Buffers  int
	Capacity int64
	Height   int64
}

// ValidateTable checks the offsets of t, a solution file named file, as a
// placement of p (Validate); the findings are sorted.
func ValidateTable(p *Problem, t *Table, file string) (*Validation, error) {
	sol, err := SolutionFrom(p, t)
	if err != nil {
		return nil, err
	}
	rep := Validate(p, sol).WithFile(file)
	rep.Sort()
	return &Validation{File: file, Findings: rep, Buffers: len(p.Buffers), Capacity: p.Capacity, Height: Height(p, sol)}, nil
}

// WriteText writes the findings, or the solution's verdict when there
// are none.
func (v *Validation) WriteText(w io.Writer) error {
	if err := v.Findings.WriteText(w); err != nil {
		return err
	}
	if len(v.Findings) == 0 {
		_, err := fmt.Fprintf(w, "%s: valid: %d buffers within %s, height %s\n", v.File, v.Buffers, humanize.Bytes(v.Capacity), humanize.Bytes(v.Height))
		return err
	}
	return nil
}
