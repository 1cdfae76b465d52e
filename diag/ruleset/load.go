package ruleset

import (
	"fmt"
	"os"
	"strings"
)

// Sources are where a checker's rule directives come from, in the order
// they apply: a configuration file, then the disable, enable and severity
// directives of the command line (a later directive about a rule wins).
type Sources struct {
	// Config names the configuration file; "" looks for ConfigName from
	// the working directory upward unless NoConfig.
	Config   string
	NoConfig bool
	Disable  []string // rule IDs or patterns
	Enable   []string
	Severity []string // RULE=error|warning|info
}

// Load builds the policy of s: the configuration file's directives, then
// Disable's, Enable's and Severity's, each attributed to its flag
// (--disable, --enable, --severity) in error messages.
func Load(s Sources) (*Policy, error) {
	p := &Policy{}
	cfg := s.Config
	if cfg == "" && !s.NoConfig {
		if wd, err := os.Getwd(); err == nil {
			cfg = FindConfig(wd)
		}
	}
	if cfg != "" {
		c, err := ReadConfig(cfg)
		if err != nil {
			return nil, err
		}
		if err := p.Add(c, cfg); err != nil {
			return nil, err
		}
	}
	sev := map[string]string{}
	for _, x := range s.Severity {
		rule, level, ok := strings.Cut(x, "=")
		if !ok {
			return nil, fmt.Errorf("--severity %q: want RULE=error|warning|info", x)
		}
		sev[strings.TrimSpace(rule)] = level
	}
	for _, c := range []struct {
		cfg  Config
		name string
	}{
		{Config{Disable: s.Disable}, "--disable"},
		{Config{Enable: s.Enable}, "--enable"},
		{Config{Severity: sev}, "--severity"},
	} {
		if err := p.Add(c.cfg, c.name); err != nil {
			return nil, err
		}
	}
	return p, nil
}
