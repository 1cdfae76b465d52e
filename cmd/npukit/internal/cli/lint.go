package cli

import (
	"fmt"
	"slices"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/diag/sarif"
	"github.com/npukit/npukit/internal/checkinputs"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/cobra"
)

// lintFlags are the flags every checking command shares (check, nki check,
// sbuf check): which rules, at what severity, in which output format.
type lintFlags struct {
	rules     ruleset.Sources
	format    string
	noInfo    bool
	skipOther bool
	all       bool // no folding of repeated findings
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
	fl.StringSliceVar(&f.rules.Disable, "disable", nil, "leave out the findings of these rules (IDs or patterns such as gemini/*); repeatable")
	fl.StringSliceVar(&f.rules.Enable, "enable", nil, "keep the findings of these rules even where the configuration file disables them")
	fl.StringArrayVar(&f.rules.Severity, "severity", nil, "re-grade a rule: RULE=error|warning|info (a pattern such as neff/* too); repeatable")
	fl.StringVar(&f.rules.Config, "config", "", "rule configuration file (default: the first "+ruleset.ConfigName+" from the working directory up)")
	fl.BoolVar(&f.rules.NoConfig, "no-config", false, "do not read a "+ruleset.ConfigName+" file")
}

// policy builds the rule policy: the configuration file's directives,
// then the flags' (a later directive about a rule wins).
func (f *lintFlags) policy() (*ruleset.Policy, error) {
	p, err := ruleset.Load(f.rules)
	if err != nil {
		return nil, usageErr("%v", ioCause(err))
	}
	return p, nil
}

// collector gathers the findings of a check in the chosen format, folded
// by the one folding rule (diag.Folds; issue 32: 736 lines of one info).
func (f *lintFlags) collector(policy *ruleset.Policy, format string) *clidoc.Collector {
	return &clidoc.Collector{Policy: policy, NoInfo: f.noInfo, Fold: diag.Folds(format, f.all)}
}

// outputFormat resolves --format against the global --json.
func (f *lintFlags) outputFormat(env *Env) (string, error) {
	switch {
	case f.format == "" && env.JSON:
		return "json", nil
	case f.format == "":
		return "text", nil
	case !slices.Contains(clidoc.Formats, f.format):
		return "", usageErr("--format %q: want text, json, sarif or github", f.format)
	case env.JSON && f.format != "json":
		return "", usageErr("--json and --format %s: choose one", f.format)
	}
	return f.format, nil
}

// writeFindings renders a check document in the chosen format.
func writeFindings(env *Env, format string, doc clidoc.CheckDocument) error {
	return doc.Write(env.Stdout, format, sarif.Tool{Name: "npukit", Version: buildVersion().Version, InformationURI: "https://github.com/npukit/npukit"})
}

// runChecks checks each file with checkOne and renders one check document:
// findings named by file, the rule policy applied, exit 1 on an error
// finding and 2 on a file that could not be checked.
func runChecks(env *Env, format string, lf *lintFlags, policy *ruleset.Policy, files []string, skipped int, checkOne func(path string) (diag.Report, error)) error {
	code := ExitOK
	c := lf.collector(policy, format)
	for _, path := range files {
		rep, err := checkOne(path)
		if err != nil {
			code = worstCode(code, exitCodeOf(err))
			c.Fail(path, err)
			if format == "text" {
				fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
			}
			continue
		}
		c.Add(path, rep, nil)
	}
	return finishChecks(env, format, c.Document(len(files), skipped), code)
}

// finishChecks writes a check document and returns the exit code of the
// check: 1 on an error finding, code when worse.
func finishChecks(env *Env, format string, doc clidoc.CheckDocument, code int) error {
	if doc.Diagnostics.HasErrors() {
		code = worstCode(code, ExitFindings)
	}
	if err := writeFindings(env, format, doc); err != nil {
		return err
	}
	if code != ExitOK {
		return &ExitError{Code: code}
	}
	return nil
}

// inputs expands a checking command's arguments (checkinputs.Artifacts).
func inputs(args []string, skipOther bool, kinds ...detect.Kind) (files, skipped []string, err error) {
	files, skipped, err = checkinputs.Artifacts(args, skipOther, kinds...)
	if err != nil {
		return nil, nil, usageErr("%v", err)
	}
	return files, skipped, nil
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
