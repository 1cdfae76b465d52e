// Package diag holds the diagnostics every npukit checker produces: a
// Diagnostic has a severity, a stable rule ID, a location and a message.
// Rules are registered once, by the package that owns them, so that
// `npukit check --list-rules` can list every rule of every format.
//
// JSON form (stable, documented in README.md):
//
//	{"file": "...", "severity": "error"|"warning"|"info",
//	 "rule": "<format>/<kebab-name>", "location": "...", "message": "..."}
//
// A Report is a list of diagnostics; Sort orders it deterministically by
// file, then severity (errors first), then location, rule and message.
package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
)

// Severity of a diagnostic. The zero value is invalid.
type Severity int

const (
	Info Severity = iota + 1
	Warning
	Error
)

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity is the inverse of String.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Diagnostic is one finding of a checker.
type Diagnostic struct {
	// File is the artifact the finding is about; set by the caller that
	// knows the path (checkers usually leave it empty).
	File     string   `json:"file,omitempty"`
	Severity Severity `json:"severity"`
	// Rule is the stable rule ID, "<format>/<kebab-name>".
	Rule string `json:"rule"`
	// Location says where: a byte offset ("offset 0x40"), a member and JSON
	// path ("sg00/def.json: var[3].size") or an IR path ("core 0 / workload 12").
	Location string `json:"location,omitempty"`
	Message  string `json:"message"`
	// Count is how many findings of the rule this line stands for when a
	// checker grouped repeated ones (Report.Group); 0 means one.
	Count int `json:"count,omitempty"`
	// Suppressed says why a finding was hidden (a disabled rule, an inline
	// "# npukit: ignore[...]" comment); empty for a finding that is shown.
	Suppressed string `json:"suppressed,omitempty"`
}

// String renders "FILE: LOCATION: SEVERITY [RULE] MESSAGE", leaving out an
// empty file or location.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.File != "" {
		b.WriteString(d.File)
		b.WriteString(": ")
	}
	if d.Location != "" {
		b.WriteString(d.Location)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s [%s] %s", d.Severity, d.Rule, d.Message)
	return b.String()
}

// Report is an ordered list of diagnostics.
type Report []Diagnostic

// Add appends a diagnostic of a registered rule, taking the severity from
// the registry. Unregistered rules are a programming error and are reported
// as errors so that they cannot go unnoticed.
func (r *Report) Add(rule, location, format string, args ...any) {
	sev := Error
	if rr, ok := Lookup(rule); ok {
		sev = rr.Severity
	}
	*r = append(*r, Diagnostic{Severity: sev, Rule: rule, Location: location, Message: fmt.Sprintf(format, args...)})
}

// Group folds every diagnostic of each given rule into one line: the
// first one (in report order) with its location, its message prefixed by
// how many there are, and Count set. Rules with a single finding are left
// as they are. Checkers use it for repeated findings of one kind (a
// convention every real file follows, a pattern on thousands of
// descriptors), so that one thing is said once.
func (r Report) Group(rules ...string) Report {
	if len(rules) == 0 {
		return r
	}
	n := map[string]int{}
	for _, d := range r {
		if slices.Contains(rules, d.Rule) {
			n[d.Rule]++
		}
	}
	out := r[:0:0]
	done := map[string]bool{}
	for _, d := range r {
		c := n[d.Rule]
		if c <= 1 {
			out = append(out, d)
			continue
		}
		if done[d.Rule] {
			continue
		}
		done[d.Rule] = true
		d.Count = c
		d.Message = fmt.Sprintf("%s findings like this one; the first: %s", humanize.Count(int64(c)), d.Message)
		out = append(out, d)
	}
	return out
}

// RepeatLimit is the most findings of one rule in one file a check lists
// one by one; past it they are folded into one line (GroupRepeated).
const RepeatLimit = 10

// GroupRepeated folds, in each file, every rule with more than limit
// findings into one line, as Group does (the first finding, its message
// prefixed by how many there are, Count set): 736 lines of one info said
// one thing 736 times (issue 32). Lines already grouped are kept. limit
// <= 0 returns r unchanged.
func (r Report) GroupRepeated(limit int) Report {
	if limit <= 0 {
		return r
	}
	type key struct{ file, rule string }
	n := map[key]int{}
	for _, d := range r {
		if d.Count == 0 {
			n[key{d.File, d.Rule}]++
		}
	}
	out := r[:0:0]
	done := map[key]bool{}
	for _, d := range r {
		k := key{d.File, d.Rule}
		c := n[k]
		if d.Count > 0 || c <= limit {
			out = append(out, d)
			continue
		}
		if done[k] {
			continue
		}
		done[k] = true
		d.Count = c
		d.Message = fmt.Sprintf("%s findings like this one (--all lists each); the first: %s", humanize.Count(int64(c)), d.Message)
		out = append(out, d)
	}
	return out
}

// Folds is the one folding rule of every command that prints findings
// (check, sbuf check, nki check, neff dma): its text and JSON fold more
// than RepeatLimit findings of one rule in one file into one line, unless
// all (the commands' --all) asks for each; SARIF and GitHub annotations
// keep every location.
func Folds(format string, all bool) bool {
	return !all && (format == "text" || format == "json")
}

// Fold applies the folding rule (Folds) to r for a command's output
// format: GroupRepeated(RepeatLimit) where it folds, r unchanged else.
func (r Report) Fold(format string, all bool) Report {
	if !Folds(format, all) {
		return r
	}
	return r.GroupRepeated(RepeatLimit)
}

// Findings is how many findings the report stands for: a grouped line
// counts as many as it folded (Count).
func (r Report) Findings() int {
	n := 0
	for _, d := range r {
		n += max(1, d.Count)
	}
	return n
}

// Count returns how many findings of the given severity the report
// holds: a line that stands for several (Group, GroupRepeated, a checker's
// own "N descriptors like this one") counts as its Count, so a folded
// report and the unfolded one give the same counts (issue 32: check said
// "1 info" where the report listed 736).
func (r Report) Count(s Severity) int {
	n := 0
	for _, d := range r {
		if d.Severity == s {
			n += max(1, d.Count)
		}
	}
	return n
}

// WithoutInfos returns the report without its info diagnostics.
func (r Report) WithoutInfos() Report {
	out := r[:0:0]
	for _, d := range r {
		if d.Severity != Info {
			out = append(out, d)
		}
	}
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (r Report) HasErrors() bool { return r.Count(Error) > 0 }

// WithFile sets File on every diagnostic that has none.
func (r Report) WithFile(file string) Report {
	for i := range r {
		if r[i].File == "" {
			r[i].File = file
		}
	}
	return r
}

// Sort orders the report deterministically: file, severity (errors
// first), location (numbers inside compared numerically), rule, message.
func (r Report) Sort() {
	sort.SliceStable(r, func(i, j int) bool {
		a, b := r[i], r[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Location != b.Location {
			return NaturalLess(a.Location, b.Location)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// NaturalLess compares strings so that embedded decimal numbers compare by
// value ("workload 9" < "workload 10").
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		ca, cb := a[0], b[0]
		if isDigit(ca) && isDigit(cb) {
			na, ra := leadingDigits(a)
			nb, rb := leadingDigits(b)
			ta, tb := strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
			if len(ta) != len(tb) {
				return len(ta) < len(tb)
			}
			if ta != tb {
				return ta < tb
			}
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			a, b = ra, rb
			continue
		}
		if ca != cb {
			return ca < cb
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// WriteText writes one line per diagnostic.
func (r Report) WriteText(w io.Writer) error {
	for _, d := range r {
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

// Summary is "N errors, N warnings, N infos" ("1 error", "1 warning",
// "1 info" for one).
func (r Report) Summary() string {
	return Counts(r.Count(Error), r.Count(Warning), r.Count(Info))
}

// Counts says how many errors, warnings and infos there are, each noun
// in the singular for one, with thousands separators as every other
// count: "0 errors, 1 warning, 6,784 infos". Every face
// prints finding counts with it (issue 32: "1 errors", "1 infos").
func Counts(errors, warnings, infos int) string {
	noun := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return humanize.Count(int64(n)) + " " + one + "s"
	}
	return noun(errors, "error") + ", " + noun(warnings, "warning") + ", " + noun(infos, "info")
}
