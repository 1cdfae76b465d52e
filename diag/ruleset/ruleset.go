// Package ruleset decides which diagnostics a user wants to see and at what
// severity: rules disabled, re-enabled or re-graded by command-line flags or
// by a configuration file (.npukit.yaml), and findings suppressed by an
// inline comment in an NKI kernel's source (# npukit: ignore[RULE]).
//
// Every rule is on by default at the severity its checker registered. A
// Policy is built from directives applied in order (the configuration
// file's, then the flags'); for each rule the last directive that names it
// (by ID or by a pattern such as "gemini/*") decides. Findings a policy
// drops are not lost: Apply returns them as suppressed, with the reason,
// so that --json and SARIF can say what was hidden and why.
package ruleset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/inputfile"
	"gopkg.in/yaml.v3"
)

// ConfigName is the file name searched for from the working directory up.
const ConfigName = ".npukit.yaml"

// Config is the rule control a configuration file (or the flags) holds.
type Config struct {
	// Disable lists rule IDs or patterns ("gemini/*") whose findings are dropped.
	Disable []string `yaml:"disable,omitempty" json:"disable,omitempty"`
	// Enable re-enables rules an earlier directive disabled.
	Enable []string `yaml:"enable,omitempty" json:"enable,omitempty"`
	// Severity re-grades rules: RULE (or pattern) -> error, warning or info.
	Severity map[string]string `yaml:"severity,omitempty" json:"severity,omitempty"`
}

type directive struct {
	pattern  string
	on       bool          // enable (true) or disable (false); unused for a severity directive
	severity diag.Severity // non-zero for a severity directive
	source   string        // where it came from: "--disable", ".npukit.yaml", ...
}

// Policy is an ordered list of rule directives. The zero Policy keeps every
// finding as it is.
type Policy struct {
	dirs []directive
}

// Add appends the directives of c, attributed to source (a file path or a
// flag name), after validating every rule name against the registry: a
// misspelt rule must not silently disable nothing.
func (p *Policy) Add(c Config, source string) error {
	for _, r := range c.Disable {
		if err := checkPattern(r); err != nil {
			return fmt.Errorf("%s: %w", where(source, "disable"), err)
		}
		p.dirs = append(p.dirs, directive{pattern: r, on: false, source: source})
	}
	for _, r := range c.Enable {
		if err := checkPattern(r); err != nil {
			return fmt.Errorf("%s: %w", where(source, "enable"), err)
		}
		p.dirs = append(p.dirs, directive{pattern: r, on: true, source: source})
	}
	keys := make([]string, 0, len(c.Severity))
	for k := range c.Severity {
		keys = append(keys, k)
	}
	sort.Strings(keys) // map order must not decide between two patterns
	for _, r := range keys {
		if err := checkPattern(r); err != nil {
			return fmt.Errorf("%s: %w", where(source, "severity"), err)
		}
		s, err := diag.ParseSeverity(strings.TrimSpace(c.Severity[r]))
		if err != nil {
			return fmt.Errorf("%s: severity of %s: %w", source, r, err)
		}
		p.dirs = append(p.dirs, directive{pattern: r, severity: s, source: source})
	}
	return nil
}

// where names a directive's source and key: ".npukit.yaml: disable", but
// "--disable" for the flag, which names the key already ("--disable:
// disable: no rule" said it twice).
func where(source, key string) string {
	if source == "--"+key {
		return source
	}
	return source + ": " + key
}

// Empty reports whether the policy changes nothing.
func (p *Policy) Empty() bool { return p == nil || len(p.dirs) == 0 }

// checkPattern accepts a registered rule ID or a pattern that matches at
// least one registered rule.
func checkPattern(pat string) error {
	if pat == "" {
		return errors.New("empty rule name")
	}
	if _, err := path.Match(pat, ""); err != nil {
		return fmt.Errorf("%q is not a valid pattern", pat)
	}
	if _, ok := diag.Lookup(pat); ok {
		return nil
	}
	for _, r := range diag.Rules() {
		if matches(pat, r.ID) {
			return nil
		}
	}
	return fmt.Errorf("no rule %q (npukit check --list-rules lists them)", pat)
}

// matches reports whether a directive's pattern names rule; "gemini" alone
// names every rule of that format, as "gemini/*" does.
func matches(pat, rule string) bool {
	if pat == rule {
		return true
	}
	if !strings.Contains(pat, "/") && strings.HasPrefix(rule, pat+"/") {
		return true
	}
	ok, _ := path.Match(pat, rule)
	return ok
}

// decide returns whether rule's findings are kept, the severity they take
// (0: unchanged) and, when dropped, the directive that dropped them.
func (p *Policy) decide(rule string) (keep bool, sev diag.Severity, why string) {
	keep = true
	if p == nil {
		return
	}
	for _, d := range p.dirs {
		if !matches(d.pattern, rule) {
			continue
		}
		if d.severity != 0 {
			sev = d.severity
			continue
		}
		keep = d.on
		if !keep {
			why = "disabled by " + d.source
			if d.pattern != rule {
				why += " (" + d.pattern + ")"
			}
		} else {
			why = ""
		}
	}
	return
}

// Apply splits a report into the findings kept (re-graded where a
// directive says so) and those the policy drops, each of the latter with
// its Suppressed reason set.
func (p *Policy) Apply(r diag.Report) (kept, suppressed diag.Report) {
	kept = r[:0:0]
	for _, d := range r {
		keep, sev, why := p.decide(d.Rule)
		if sev != 0 {
			d.Severity = sev
		}
		if !keep {
			d.Suppressed = why
			suppressed = append(suppressed, d)
			continue
		}
		kept = append(kept, d)
	}
	return kept, suppressed
}

// ReadConfig reads a configuration file. Unknown keys are an error, so
// that a misspelt key ("disabled:") does not silently do nothing.
func ReadConfig(file string) (Config, error) {
	var c Config
	// A configuration is a regular file of at most 1 MiB: a FIFO or a
	// device must neither block nor flood the read.
	data, err := inputfile.ReadFileMax(file, 1<<20)
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty file is an empty configuration (the decoder says io.EOF).
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %v", file, err)
	}
	return c, nil
}

// FindConfig looks for .npukit.yaml in dir and each of its parents, as
// other linters look for their files; "" when there is none.
func FindConfig(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(abs, ConfigName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return ""
		}
		abs = parent
	}
}
