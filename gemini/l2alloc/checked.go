package l2alloc

import (
	"errors"
	"fmt"
	"io"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
)

// ErrNothingToRewrite is RewriteChecked's answer for a schedule whose
// snapshots have no addresses (raw IR).
var ErrNothingToRewrite = errors.New("nothing to rewrite (the schedule's snapshots have no addresses)")

// Oversized returns the first core whose smallest placement found exceeds
// its ring-buffer region (nil when every core fits): its schedule cannot
// be rewritten.
func (r *Report) Oversized() *CoreReport {
	for i, c := range r.Cores {
		if c.RegionBytes > 0 && c.MinCapacity > c.RegionBytes {
			return &r.Cores[i]
		}
	}
	return nil
}

// RewriteChecked applies the report's placements to s (Rewrite) and
// refuses the result when it has more errors of any check rule than the
// input had (a grouped finding counting for the findings it stands for,
// so that a rewrite cannot hide a new error in a group). It returns the
// number of check errors of the input, as check counts them (one per
// line).
func (r *Report) RewriteChecked(s *gemini.Schedule) (int, error) {
	before, total := errorsByRule(gemini.Check(s))
	n, err := r.Rewrite(s)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, ErrNothingToRewrite
	}
	after, _ := errorsByRule(gemini.Check(s))
	for rule, k := range after {
		if k > before[rule] {
			return 0, fmt.Errorf("rewritten schedule fails %s (%d errors, input had %d): not written", rule, k, before[rule])
		}
	}
	return total, nil
}

// errorsByRule counts a report's errors per rule and in all.
func errorsByRule(rep diag.Report) (map[string]int, int) {
	m := map[string]int{}
	for _, d := range rep {
		if d.Severity == diag.Error {
			m[d.Rule] += max(d.Count, 1)
		}
	}
	return m, rep.Count(diag.Error)
}

// FileReport is the re-allocation of a schedule file as `npukit gemini
// realloc` prints it: the per-core report and where the rewritten
// schedule went.
type FileReport struct {
	File string `json:"file"`
	*Report
	Rewritten string `json:"rewritten,omitempty"`
	// InputErrors is the number of check errors of the input schedule
	// (as check counts them); the rewrite is written only if it has no
	// error of any rule beyond the input's.
	InputErrors int `json:"input_check_errors"`
	// NameNote says that the rewrite's name implies another DRAM
	// bandwidth than the input's (bwN, which `npukit sim` reads from the
	// name): simulated as named, the rewrite would look faster or slower
	// for its name alone (audit r3 #14).
	NameNote string `json:"name_note,omitempty"`
}

// WriteText writes the file's name and variant, the per-core table and
// the rewrite's verdict.
func (r *FileReport) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s (%s IR)\n", r.File, r.Variant); err != nil {
		return err
	}
	if err := r.Report.WriteText(w); err != nil {
		return err
	}
	if r.Rewritten != "" {
		verdict := "checked clean"
		if r.InputErrors > 0 {
			verdict = fmt.Sprintf("no new check errors (the input has %s)", humanize.Plural(r.InputErrors, "error"))
		}
		if _, err := fmt.Fprintf(w, "wrote %s: new addresses, %s\n", r.Rewritten, verdict); err != nil {
			return err
		}
		if r.NameNote != "" {
			_, err := fmt.Fprintf(w, "Note: %s\n", r.NameNote)
			return err
		}
	}
	return nil
}

// OversizeError is WriteRewrite's refusal when a core's smallest
// placement found exceeds its ring-buffer region: the schedule would not
// fit, and is not written.
type OversizeError struct {
	Core *CoreReport
	Out  string
}

func (e *OversizeError) Error() string {
	return fmt.Sprintf("core %d: the smallest placement found (%d bytes) exceeds the ring-buffer region (%d bytes): %s not written", e.Core.Key, e.Core.MinCapacity, e.Core.RegionBytes, e.Out)
}

// RewriteError is a rewrite that could not be applied or that adds check
// errors (RewriteChecked): a bug of the re-allocation, not of the input.
type RewriteError struct{ Err error }

func (e *RewriteError) Error() string { return e.Err.Error() }
func (e *RewriteError) Unwrap() error { return e.Err }

// WriteRewrite writes s with the report's placements to out, atomically,
// once RewriteChecked accepts it, and records it in r. An oversized core
// is an *OversizeError, a rejected rewrite a *RewriteError.
func (r *FileReport) WriteRewrite(s *gemini.Schedule, out string) error {
	if c := r.Oversized(); c != nil {
		return &OversizeError{Core: c, Out: out}
	}
	n, err := r.RewriteChecked(s)
	if errors.Is(err, ErrNothingToRewrite) {
		return fmt.Errorf("%s: %w", out, err)
	}
	if err != nil {
		return &RewriteError{err}
	}
	if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return gemini.Write(w, s) }); err != nil {
		return err
	}
	r.Rewritten, r.InputErrors = out, n
	r.NameNote = rewriteNameNote(r.File, out)
	return nil
}

// rewriteNameNote is FileReport.NameNote for a rewrite of in written to
// out ("" when both names imply the same DRAM bandwidth).
func rewriteNameNote(in, out string) string {
	ni, no := timing.BandwidthOfName(in), timing.BandwidthOfName(out)
	if ni.GBps == no.GBps {
		return ""
	}
	return fmt.Sprintf("`npukit sim %s` assumes DRAM %.1f GB/s (%s), `npukit sim %s` %.1f GB/s (%s): the same work would simulate differently for the names alone; name the rewrite with the input's bwN, or give both the same --dram-bw (`npukit diff %s %s` simulates both at the first's)",
		out, no.GBps, no.Source("the file name"), in, ni.GBps, ni.Source("the file name"), in, out)
}
