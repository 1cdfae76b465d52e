package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/diag/sarif"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/cobra"
)

// lintFlags are the flags every checking command shares (check, nki check,
// sbuf check): which rules, at what severity, in which output format.
type lintFlags struct {
	disable, enable, severity []string
	config                    string
	noConfig                  bool
	format                    string
	noInfo                    bool
	skipOther                 bool
	all                       bool // no folding of repeated findings
}

func (f *lintFlags) bind(cmd *cobra.Command) {
	f.bindRules(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "output format: text, json, sarif (SARIF 2.1.0) or github (workflow annotations); --json is --format json")
	fl.BoolVar(&f.noInfo, "no-info", false, "leave out info diagnostics")
	fl.BoolVar(&f.skipOther, "skip-other", false, "skip named files that are not artifacts this command checks, as a directory walk does (for pre-commit hooks, which pass every file their pattern matches)")
	fl.BoolVar(&f.all, "all", false, fmt.Sprintf("list every finding: do not fold more than %d of one rule in one file into one line", diag.RepeatLimit))
}

// bindRules binds the rule-control flags alone (for the language server).
func (f *lintFlags) bindRules(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&f.disable, "disable", nil, "leave out the findings of these rules (IDs or patterns such as gemini/*); repeatable")
	fl.StringSliceVar(&f.enable, "enable", nil, "keep the findings of these rules even where the configuration file disables them")
	fl.StringArrayVar(&f.severity, "severity", nil, "re-grade a rule: RULE=error|warning|info (a pattern such as neff/* too); repeatable")
	fl.StringVar(&f.config, "config", "", "rule configuration file (default: the first "+ruleset.ConfigName+" from the working directory up)")
	fl.BoolVar(&f.noConfig, "no-config", false, "do not read a "+ruleset.ConfigName+" file")
}

// policy builds the rule policy: the configuration file's directives,
// then the flags' (a later directive about a rule wins).
func (f *lintFlags) policy() (*ruleset.Policy, error) {
	p := &ruleset.Policy{}
	cfg := f.config
	if cfg == "" && !f.noConfig {
		if wd, err := os.Getwd(); err == nil {
			cfg = ruleset.FindConfig(wd)
		}
	}
	if cfg != "" {
		c, err := ruleset.ReadConfig(cfg)
		if err != nil {
			return nil, usageErr("%v", ioCause(err))
		}
		if err := p.Add(c, cfg); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	sev := map[string]string{}
	for _, s := range f.severity {
		rule, level, ok := strings.Cut(s, "=")
		if !ok {
			return nil, usageErr("--severity %q: want RULE=error|warning|info", s)
		}
		sev[strings.TrimSpace(rule)] = level
	}
	for _, c := range []struct {
		cfg  ruleset.Config
		name string
	}{
		{ruleset.Config{Disable: f.disable}, "--disable"},
		{ruleset.Config{Enable: f.enable}, "--enable"},
		{ruleset.Config{Severity: sev}, "--severity"},
	} {
		if err := p.Add(c.cfg, c.name); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	return p, nil
}

// outputFormat resolves --format against the global --json.
func (f *lintFlags) outputFormat(env *Env) (string, error) {
	switch f.format {
	case "":
		if env.JSON {
			return "json", nil
		}
		return "text", nil
	case "text", "json", "sarif", "github":
		if env.JSON && f.format != "json" {
			return "", usageErr("--json and --format %s: choose one", f.format)
		}
		return f.format, nil
	}
	return "", usageErr("--format %q: want text, json, sarif or github", f.format)
}

// writeFindings renders a check document in the chosen format.
func writeFindings(env *Env, format string, doc clidoc.CheckDocument, text Output) error {
	switch format {
	case "json":
		return writeJSON(env.Stdout, doc)
	case "sarif":
		all := append(append(diag.Report{}, doc.Diagnostics...), doc.Suppressed...)
		return sarif.Write(env.Stdout, sarif.Tool{Name: "npukit", Version: buildVersion().Version, InformationURI: "https://github.com/npukit/npukit"}, all)
	case "github":
		return sarif.WriteGitHub(env.Stdout, doc.Diagnostics)
	}
	return text.WriteText(env.Stdout)
}

// runChecks checks each file with checkOne and renders one check document:
// findings named by file, the rule policy applied, exit 1 on an error
// finding and 2 on a file that could not be checked.
func runChecks(env *Env, format string, lf *lintFlags, policy *ruleset.Policy, files []string, skipped int, checkOne func(path string) (diag.Report, error)) error {
	code := ExitOK
	var all diag.Report
	var ferrs []clidoc.FileError
	for _, path := range files {
		rep, err := checkOne(path)
		if err != nil {
			code = worstCode(code, exitCodeOf(err))
			ferrs = append(ferrs, clidoc.FileError{Path: path, Message: err.Error()})
			if format == "text" {
				fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
			}
			continue
		}
		rep = rep.WithFile(path)
		// Text and JSON fold a rule repeated in a file (issue 32: 736
		// lines of one info); SARIF and annotations keep every location.
		if !lf.all && (format == "text" || format == "json") {
			rep = rep.GroupRepeated(diag.RepeatLimit)
		}
		all = append(all, rep...)
	}
	kept, hidden := policy.Apply(all)
	doc := clidoc.NewCheck(len(files), kept, ferrs, lf.noInfo)
	doc.Suppress(hidden)
	doc.Summary.Skipped = skipped
	if doc.Diagnostics.HasErrors() {
		code = worstCode(code, ExitFindings)
	}
	if err := writeFindings(env, format, doc, doc); err != nil {
		return err
	}
	if code != ExitOK {
		return &ExitError{Code: code}
	}
	return nil
}

// inputs expands check's arguments: a file is itself; a glob pattern that
// names no file is expanded; a directory that is an artifact (an unpacked
// NEFF) is itself, any other directory is walked recursively. Files met
// in a walk are kept when their content is an artifact npukit checks and
// counted as skipped otherwise (listed with -v), as are other kinds than
// kinds when given. A named file is kept, so that a file that is not an
// artifact is reported, not skipped, unless skipOther (--skip-other: a
// pre-commit hook passes every file its pattern matches).
func inputs(args []string, skipOther bool, kinds ...detect.Kind) (files, skipped []string, err error) {
	for _, a := range args {
		if _, statErr := os.Lstat(a); statErr != nil && strings.ContainsAny(a, "*?[") {
			m, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, nil, usageErr("%q: %v", a, gerr)
			}
			if len(m) == 0 {
				return nil, nil, usageErr("%s: no file matches", a)
			}
			for _, p := range m {
				f, s, err := inputs([]string{p}, skipOther, kinds...)
				if err != nil {
					return nil, nil, err
				}
				files, skipped = append(files, f...), append(skipped, s...)
			}
			continue
		}
		st, statErr := os.Stat(a)
		if statErr != nil || !st.IsDir() {
			if skipOther && statErr == nil && !checkable(a, kinds) {
				skipped = append(skipped, a)
				continue
			}
			files = append(files, a)
			continue
		}
		if r, err := detect.Path(a); err == nil && r.Kind != "" {
			files = append(files, a) // an unpacked NEFF directory
			continue
		}
		f, s, err := artifactsUnder(a, kinds)
		if err != nil {
			return nil, nil, err
		}
		if len(f) == 0 {
			// Checking nothing is a mistake worth saying (a wrong path, a
			// tree of sources), not a clean result.
			return nil, nil, usageErr("%s: no artifact npukit checks under this directory (%s skipped)", a, humanize.Plural(len(s), "file"))
		}
		files, skipped = append(files, f...), append(skipped, s...)
	}
	return files, skipped, nil
}

// artifactsUnder lists the artifacts under dir in lexical order; hidden
// directories (.git) are not entered and symbolic links not followed.
func artifactsUnder(dir string, kinds []detect.Kind) (files, skipped []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			skipped = append(skipped, p)
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if p != dir {
				if r, err := detect.Path(p); err == nil && r.Kind != "" && (len(kinds) == 0 || slices.Contains(kinds, r.Kind)) {
					files = append(files, p)
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !d.Type().IsRegular() {
			skipped = append(skipped, p)
			return nil
		}
		if checkable(p, kinds) {
			files = append(files, p) // an artifact, or one that cannot be read: check says which
		} else {
			skipped = append(skipped, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, usageErr("%s: %v", dir, ioCause(err))
	}
	sort.Strings(files)
	return files, skipped, nil
}

// checkable reports whether a file's content is an artifact npukit checks
// (of one of kinds, when given); a file of a recognised kind that cannot
// be read further counts as checkable, so that check says what is wrong.
func checkable(p string, kinds []detect.Kind) bool {
	r, err := detect.Path(p)
	var ue *detect.UnknownError
	switch {
	case errors.As(err, &ue):
		return false
	case err == nil && !npukit.Supports(r.Kind, "check"):
		return false
	case err == nil && len(kinds) > 0 && !slices.Contains(kinds, r.Kind):
		return false
	}
	return true
}

// reportSkipped says how many files a tree walk left out, and with -v which.
func reportSkipped(env *Env, skipped []string, verbose bool) {
	if len(skipped) == 0 || env.Quiet {
		return
	}
	if verbose {
		for _, s := range skipped {
			fmt.Fprintf(env.Stderr, "npukit: skipped %s: not an artifact npukit checks\n", s)
		}
		return
	}
	fmt.Fprintf(env.Stderr, "npukit: skipped %s that npukit does not check (-v lists them)\n", humanize.Plural(len(skipped), "file"))
}
