package clidoc

import (
	"fmt"
	"io"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/nki"
)

// KernelCheck is the document of `nki check` of one kernel: its findings
// and what was traced.
type KernelCheck struct {
	Kernel       string           `json:"kernel"`
	Diagnostics  diag.Report      `json:"diagnostics"`
	Summary      CheckSummary     `json:"summary"`
	Instructions map[string]int64 `json:"instructions"`
	Tensors      int              `json:"tensors"`
	Steps        int              `json:"steps_executed"`
	Plan         string           `json:"plan,omitempty"`
	// Suppressed: findings hidden by an inline comment or rule control.
	Suppressed diag.Report `json:"suppressed,omitempty"`
}

// NewKernelCheck is the document of a checked kernel whose file is name;
// plan is where its lowered plan was written ("" for nowhere).
func NewKernelCheck(ck *nki.Checked, name, plan string) KernelCheck {
	rep := ck.Report.WithFile(name)
	if rep == nil {
		rep = diag.Report{}
	}
	return KernelCheck{Kernel: name, Diagnostics: rep, Instructions: ck.Instructions, Tensors: len(ck.Plan.Tensors), Steps: len(ck.Exec.Events), Plan: plan,
		Summary: CheckSummary{Files: 1, Errors: rep.Count(diag.Error), Warnings: rep.Count(diag.Warning), Infos: rep.Count(diag.Info)}}
}

// SetFindings replaces the findings shown (recounting the summary) and
// records the hidden ones.
func (o *KernelCheck) SetFindings(shown, hidden diag.Report) {
	if shown == nil {
		shown = diag.Report{}
	}
	o.Diagnostics, o.Suppressed = shown, hidden
	o.Summary.Errors, o.Summary.Warnings, o.Summary.Infos = shown.Count(diag.Error), shown.Count(diag.Warning), shown.Count(diag.Info)
	o.Summary.Suppressed = len(hidden)
}

// WriteText writes the findings one per line and a summary line.
func (o KernelCheck) WriteText(w io.Writer) error {
	if err := o.Diagnostics.WriteText(w); err != nil {
		return err
	}
	if o.Plan != "" {
		fmt.Fprintf(w, "plan written to %s\n", o.Plan)
	}
	_, err := fmt.Fprintf(w, "%s checked (%s, %s executed): %s\n",
		o.Kernel, humanize.Plural(o.Tensors, "on-chip tensor"), humanize.Plural(o.Steps, "step"), diag.Counts(o.Summary.Errors, o.Summary.Warnings, o.Summary.Infos))
	return err
}

// Filter hides the findings the kernel's inline '# npukit: ignore[RULE]'
// comments (lines, see nki.SourceLines) and the rule policy hide, and
// the infos when noInfo, folds repeated findings when fold (diag.Folds),
// and returns the findings kept and hidden.
func (o *KernelCheck) Filter(lines func(string) []string, p *ruleset.Policy, noInfo, fold bool) (kept, hidden diag.Report) {
	kept, hidden = ruleset.Inline(o.Diagnostics, lines)
	kept, byPolicy := p.Apply(kept)
	hidden = append(hidden, byPolicy...)
	if noInfo {
		kept = kept.WithoutInfos()
	}
	if fold {
		kept = kept.GroupRepeated(diag.RepeatLimit)
	}
	o.SetFindings(kept, hidden)
	return kept, hidden
}

// KernelCheckNote notes out (of nki sim, of the kernel named name) with
// the errors `nki check` of the same kernel reports with no rule flags:
// the kernel's inline suppressions (lines, see nki.SourceLines) and
// check's rule policy applied (npukit.NoteCheckErrors).
func KernelCheckNote(out npukit.Output, ck *nki.Checked, name string, lines func(string) []string) npukit.Output {
	kept, _ := ruleset.Inline(ck.Report, lines)
	return npukit.NoteCheckErrors(out, name, kept, "`npukit nki check` with the same arguments")
}
