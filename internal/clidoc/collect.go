package clidoc

import (
	"encoding/json"
	"io"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/diag/sarif"
)

// Collector gathers the findings of files checked one at a time into one
// check document: each file's findings named by its path, a rule repeated
// in a file folded into one line (Fold), inline suppressions and the rule
// policy applied, files that could not be checked listed.
type Collector struct {
	Policy *ruleset.Policy // nil keeps every finding
	Fold   bool            // fold more than diag.RepeatLimit findings of one rule in one file
	NoInfo bool            // leave out infos

	kept, hidden diag.Report
	errs         []FileError
}

// Add records the findings of file. lines, when not nil, returns the
// source lines of a file a finding's FILE:LINE names, for the inline
// '# npukit: ignore[RULE]' comments (ruleset.Inline).
func (c *Collector) Add(file string, rep diag.Report, lines func(string) []string) {
	rep = rep.WithFile(file)
	if c.Fold {
		rep = rep.GroupRepeated(diag.RepeatLimit)
	}
	var hidden diag.Report
	if lines != nil {
		rep, hidden = ruleset.Inline(rep, lines)
	}
	if c.Policy != nil {
		var byPolicy diag.Report
		rep, byPolicy = c.Policy.Apply(rep)
		hidden = append(hidden, byPolicy...)
	}
	c.kept, c.hidden = append(c.kept, rep...), append(c.hidden, hidden...)
}

// Fail records a file (or a kernel) that could not be checked.
func (c *Collector) Fail(path string, err error) {
	c.errs = append(c.errs, FileError{Path: path, Message: err.Error()})
}

// Document is the check document of files files (those that failed
// included); skipped counts the files a directory walk left out.
func (c *Collector) Document(files, skipped int) CheckDocument {
	doc := NewCheck(files, c.kept, c.errs, c.NoInfo)
	doc.Suppress(c.hidden)
	doc.Summary.Skipped = skipped
	return doc
}

// Formats are the output formats of a check: text, json (the
// CheckDocument), sarif (SARIF 2.1.0) and github (workflow annotations).
var Formats = []string{"text", "json", "sarif", "github"}

// Write renders d in format (one of Formats): SARIF carries the
// suppressed findings too, with their suppression; GitHub annotations
// only the findings shown; tool names the producer in SARIF.
func (d CheckDocument) Write(w io.Writer, format string, tool sarif.Tool) error {
	switch format {
	case "json":
		return WriteJSON(w, d)
	case "sarif":
		all := append(append(diag.Report{}, d.Diagnostics...), d.Suppressed...)
		return sarif.Write(w, tool, all)
	case "github":
		return sarif.WriteGitHub(w, d.Diagnostics)
	}
	return d.WriteText(w)
}

// WriteJSON writes v as indented JSON followed by a newline, the form of
// every --json document.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "a -> b", not "a -\u003e b": the output is not HTML
	return enc.Encode(v)
}
