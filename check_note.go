package npukit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// CheckNoted is an Output (of sim or inspect) of a file check finds errors
// in, with a line that says so: sim simulated a Gemini schedule whose
// loads name a transfer no core stores, silently and with exit 0, while
// check exits 1 on it (audit item 25). In JSON it is the output's own
// object with "check_errors" and "check_note" added.
type CheckNoted struct {
	Output
	File   string
	Errors int
	// Run is the command that lists the errors, as the note says it
	// ("": `npukit check FILE`).
	Run string
	// DefaultRules: the rule configuration check would read could not be
	// read, so the count is of the default rules (the note says so).
	DefaultRules bool
}

// WithCheckNote returns out, noted with the number of errors check finds
// in a under the rule policy check applies (checkPolicy: the
// .npukit.yaml found from the working directory upward), when
// there are any and check applies to a's kind; out unchanged otherwise (a
// file check cannot read is left to check to explain).
func WithCheckNote(out Output, a *Artifact, o *Options) Output {
	if out == nil || !Supports(a.Kind, "check") {
		return out
	}
	rep, err := a.Check(o)
	if err != nil {
		return out
	}
	return NoteCheckErrors(out, a.Name, rep, "")
}

// NoteCheckErrors returns out noted with the errors among rep, what a
// check of file finds, under the rule policy check applies (checkPolicy);
// run is the command that lists them ("": `npukit check FILE`). out is
// returned unchanged when no error is left.
func NoteCheckErrors(out Output, file string, rep diag.Report, run string) Output {
	p, ok := checkPolicy()
	rep, _ = p.Apply(rep)
	if n := rep.Count(diag.Error); n > 0 {
		return &CheckNoted{Output: out, File: file, Errors: n, DefaultRules: !ok, Run: run}
	}
	return out
}

// Note is the line said: "check finds 1 error in this file (run `npukit
// check FILE`)".
func (c *CheckNoted) Note() string {
	run := c.Run
	if run == "" {
		run = "`npukit check " + c.File + "`"
	}
	rules := ""
	if c.DefaultRules {
		rules = " with the default rules (the rule configuration cannot be read)"
	}
	return fmt.Sprintf("check finds %s in this file%s (run %s)", humanize.Plural(c.Errors, "error"), rules, run)
}

// WriteText writes the output, then the note.
func (c *CheckNoted) WriteText(w io.Writer) error {
	if err := c.Output.WriteText(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Note: %s\n", c.Note())
	return err
}

// MarshalJSON is the output's JSON object with check_errors and
// check_note added (the output alone when it is not an object).
func (c *CheckNoted) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.Output)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return b, nil
	}
	extra, err := json.Marshal(struct {
		Errors int    `json:"check_errors"`
		Note   string `json:"check_note"`
	}{c.Errors, c.Note()})
	if err != nil {
		return nil, err
	}
	inner := bytes.TrimSpace(b[1 : len(b)-1])
	out := append([]byte{'{'}, extra[1:len(extra)-1]...)
	if len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	return append(out, '}'), nil
}
