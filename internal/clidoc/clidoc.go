// Package clidoc holds the JSON documents of the npukit command
// (`inspect --json`, `check --json`); the command line and the browser
// viewer both build them here, so a download from the viewer is the same
// document the command prints.
package clidoc

import (
	"fmt"
	"io"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// InspectEntry is one file of an inspect document (a JSON array of them).
type InspectEntry struct {
	Path    string        `json:"path"`
	Kind    detect.Kind   `json:"kind,omitempty"`
	Variant string        `json:"variant,omitempty"`
	Result  npukit.Output `json:"result,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// FileError is a file that could not be read or recognised.
type FileError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CheckSummary counts a check document's findings.
type CheckSummary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Unreadable counts the files that could not be read or recognised
	// (listed in errors); they are among Files but were not checked.
	Unreadable int `json:"unreadable"`
	// Suppressed counts the findings hidden by rule control.
	Suppressed int `json:"suppressed,omitempty"`
	// Skipped counts the files a directory walk met that are not
	// artifacts npukit checks; they are not among Files.
	Skipped int `json:"skipped,omitempty"`
}

// CheckDocument is the result of checking one or more files.
type CheckDocument struct {
	Diagnostics diag.Report `json:"diagnostics"`
	// Suppressed holds the findings a rule policy or an inline comment
	// hid, each saying why (diag.Diagnostic.Suppressed); not counted in
	// Summary's errors, warnings and infos.
	Suppressed diag.Report  `json:"suppressed,omitempty"`
	Errors     []FileError  `json:"errors,omitempty"`
	Summary    CheckSummary `json:"summary"`
}

// NewCheck sorts the findings of files checked (each already
// carrying its file name, see diag.Report.WithFile), drops infos when
// noInfo, and counts them; unreadable lists the files that could not be
// checked.
func NewCheck(files int, findings diag.Report, unreadable []FileError, noInfo bool) CheckDocument {
	if noInfo {
		findings = findings.WithoutInfos()
	}
	if findings == nil {
		findings = diag.Report{}
	}
	findings.Sort()
	return CheckDocument{
		Diagnostics: findings,
		Errors:      unreadable,
		Summary: CheckSummary{
			Files:      files,
			Errors:     findings.Count(diag.Error),
			Warnings:   findings.Count(diag.Warning),
			Infos:      findings.Count(diag.Info),
			Unreadable: len(unreadable),
		},
	}
}

// Suppress moves the findings a rule policy or inline comments hid into
// Suppressed (sorted, counted in Summary.Suppressed).
func (d *CheckDocument) Suppress(hidden diag.Report) {
	if len(hidden) == 0 {
		return
	}
	hidden.Sort()
	d.Suppressed = append(d.Suppressed, hidden...)
	d.Summary.Suppressed = len(d.Suppressed)
}

// WriteText writes the findings one per line and the summary line.
func (d CheckDocument) WriteText(w io.Writer) error {
	if err := d.Diagnostics.WriteText(w); err != nil {
		return err
	}
	unread := ""
	if d.Summary.Unreadable > 0 {
		unread = fmt.Sprintf("; %s could not be read", humanize.Count(int64(d.Summary.Unreadable)))
	}
	if d.Summary.Suppressed > 0 {
		unread += fmt.Sprintf("; %s suppressed", humanize.Count(int64(d.Summary.Suppressed)))
	}
	if d.Summary.Skipped > 0 {
		unread += fmt.Sprintf("; %s skipped (not artifacts)", humanize.Plural(d.Summary.Skipped, "file"))
	}
	// Grouped lines count what they stand for; say so when the lines
	// above are fewer than the findings.
	lines := ""
	if n := len(d.Diagnostics); n < d.Summary.Errors+d.Summary.Warnings+d.Summary.Infos {
		lines = fmt.Sprintf(" (in %s)", humanize.Plural(n, "line"))
	}
	_, err := fmt.Fprintf(w, "%s checked: %s%s%s\n", humanize.Plural(d.Summary.Files-d.Summary.Unreadable, "file"), diag.Counts(d.Summary.Errors, d.Summary.Warnings, d.Summary.Infos), lines, unread)
	return err
}
