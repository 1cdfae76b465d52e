// Package sarif writes npukit diagnostics as a SARIF 2.1.0 log (OASIS
// Static Analysis Results Interchange Format, the input of code-scanning
// services), and as GitHub Actions workflow annotations.
//
// A finding on a source line (an NKI kernel's "FILE:LINE") becomes a
// physical location with a region; a finding inside a binary artifact (a
// NEFF member, a workload of a schedule) becomes the artifact's physical
// location plus a logical location naming where inside it. Suppressed
// findings (diag.Diagnostic.Suppressed) are kept with a suppression, as
// SARIF intends: "inSource" for an inline comment, "external" for a rule
// disabled by a flag or a configuration file.
package sarif

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
)

// SchemaURI is the schema a log names in its "$schema".
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Tool names the producer of a log.
type Tool struct {
	Name, Version, InformationURI string
}

type log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []run  `json:"runs"`
}

type run struct {
	Tool    tool     `json:"tool"`
	Results []result `json:"results"`
}

type tool struct {
	Driver driver `json:"driver"`
}

type driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []rule `json:"rules"`
}

type message struct {
	Text string `json:"text"`
}

type rule struct {
	ID                   string  `json:"id"`
	ShortDescription     message `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type result struct {
	RuleID       string        `json:"ruleId"`
	RuleIndex    int           `json:"ruleIndex"`
	Level        string        `json:"level"`
	Message      message       `json:"message"`
	Locations    []location    `json:"locations,omitempty"`
	Suppressions []suppression `json:"suppressions,omitempty"`
	// Count of grouped findings this result stands for (diag's Count).
	Properties map[string]any `json:"properties,omitempty"`
}

type location struct {
	PhysicalLocation *physicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []logicalLocation `json:"logicalLocations,omitempty"`
}

type physicalLocation struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Region           *region          `json:"region,omitempty"`
}

type artifactLocation struct {
	URI string `json:"uri"`
}

type region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type logicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

type suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// Level maps a severity to SARIF's result level.
func Level(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "note"
}

// uri turns a file path into a relative (or absolute file:) URI reference.
func uri(p string) string {
	p = filepath.ToSlash(p)
	if path.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// Write writes findings (shown and suppressed alike) as a SARIF log with
// one run. Every rule a result names is described in the driver, with its
// registered description and default level.
func Write(w io.Writer, t Tool, findings diag.Report) error {
	var ids []string
	seen := map[string]bool{}
	for _, d := range findings {
		if !seen[d.Rule] {
			seen[d.Rule] = true
			ids = append(ids, d.Rule)
		}
	}
	sort.Strings(ids)
	index := map[string]int{}
	rules := make([]rule, len(ids))
	for i, id := range ids {
		index[id] = i
		rules[i].ID = id
		r, ok := diag.Lookup(id)
		rules[i].ShortDescription.Text = id
		lvl := "error"
		if ok {
			rules[i].ShortDescription.Text = r.Description
			lvl = Level(r.Severity)
		}
		rules[i].DefaultConfiguration.Level = lvl
	}
	results := make([]result, 0, len(findings))
	for _, d := range findings {
		res := result{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: Level(d.Severity), Message: message{d.Message}}
		if res.Message.Text == "" {
			res.Message.Text = d.Rule
		}
		res.Locations = locations(d)
		if d.Suppressed != "" {
			kind := "external"
			if ruleset.InSource(d.Suppressed) {
				kind = "inSource"
			}
			res.Suppressions = []suppression{{Kind: kind, Justification: d.Suppressed}}
		}
		if d.Count > 1 {
			res.Properties = map[string]any{"count": d.Count}
		}
		results = append(results, res)
	}
	l := log{Schema: SchemaURI, Version: "2.1.0", Runs: []run{{
		Tool:    tool{Driver: driver{Name: t.Name, Version: t.Version, InformationURI: t.InformationURI, Rules: rules}},
		Results: results,
	}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(l)
}

// locations places a finding: a source line of the file it is about (or a
// module beside it), or the artifact plus a logical location.
func locations(d diag.Diagnostic) []location {
	if file, line, col, ok := ruleset.SourcePosition(d.Location); ok {
		p := sourcePath(d, file)
		return []location{{PhysicalLocation: &physicalLocation{ArtifactLocation: artifactLocation{uri(p)}, Region: &region{StartLine: line, StartColumn: col}}}}
	}
	var loc location
	if d.File != "" {
		loc.PhysicalLocation = &physicalLocation{ArtifactLocation: artifactLocation{uri(d.File)}}
	}
	if d.Location != "" {
		loc.LogicalLocations = []logicalLocation{{FullyQualifiedName: d.Location}}
	}
	if loc.PhysicalLocation == nil && loc.LogicalLocations == nil {
		return nil
	}
	return []location{loc}
}

// sourcePath is the path of the source file a finding's FILE:LINE names:
// the finding's own file, or a helper module beside it.
func sourcePath(d diag.Diagnostic, file string) string {
	switch {
	case d.File == "":
		return file
	case filepath.Base(d.File) == file:
		return d.File
	}
	return filepath.Join(filepath.Dir(d.File), file)
}

// WriteGitHub writes one workflow command per shown finding
// (::error file=F,line=N,title=RULE::MESSAGE), which GitHub Actions turns
// into annotations on the file; suppressed findings are left out.
func WriteGitHub(w io.Writer, findings diag.Report) error {
	for _, d := range findings {
		if d.Suppressed != "" {
			continue
		}
		cmd := "notice"
		switch d.Severity {
		case diag.Error:
			cmd = "error"
		case diag.Warning:
			cmd = "warning"
		}
		var props []string
		msg := d.Message
		if file, line, col, ok := ruleset.SourcePosition(d.Location); ok {
			p := sourcePath(d, file)
			props = append(props, "file="+escapeProperty(filepath.ToSlash(p)), fmt.Sprintf("line=%d", line))
			if col > 0 {
				props = append(props, fmt.Sprintf("col=%d", col))
			}
		} else {
			if d.File != "" {
				props = append(props, "file="+escapeProperty(filepath.ToSlash(d.File)))
			}
			if d.Location != "" {
				msg = d.Location + ": " + msg
			}
		}
		props = append(props, "title="+escapeProperty(d.Rule))
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// escapeData and escapeProperty follow the workflow-command encoding
// GitHub's actions/toolkit documents: % CR LF in data, and also : and , in
// properties.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
