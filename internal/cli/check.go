package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/cobra"
)

func init() { registerCommand(20, newCheckCmd) }

type checkJSON struct {
	Diagnostics diag.Report  `json:"diagnostics"`
	Errors      []fileError  `json:"errors,omitempty"`
	Summary     checkSummary `json:"summary"`
}

type fileError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

type checkSummary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Unreadable counts the files that could not be read or recognised
	// (listed in errors); they are among Files but were not checked.
	Unreadable int `json:"unreadable"`
}

func newCheckCmd(env *Env) *cobra.Command {
	var listRules, noInfo bool
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Verify NPU artifacts with rule-based diagnostics",
		Long: `check reads each FILE and verifies it against the rules of its format: the checks
its runtime performs at load time and the consistency rules of the format. Every
finding is printed as

    FILE: LOCATION: SEVERITY [RULE] MESSAGE

sorted by file, severity, location and rule. --list-rules lists every rule.
Exit code 1 when any error is found, 2 when a file cannot be read or recognised.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listRules {
				return printRules(env)
			}
			if len(args) == 0 {
				return usageErr("check needs at least one FILE (or --list-rules)")
			}
			o, err := options()
			if err != nil {
				return err
			}
			code := ExitOK
			var all diag.Report
			var ferrs []fileError
			for _, path := range args {
				a, err := openArg(path)
				var rep diag.Report
				if err == nil {
					if rep, err = a.Check(o); err != nil {
						err = libErr(path, err)
					}
				}
				if err != nil {
					code = worstCode(code, exitCodeOf(err))
					ferrs = append(ferrs, fileError{path, err.Error()})
					if !env.JSON {
						fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
					}
					continue
				}
				all = append(all, rep.WithFile(path)...)
			}
			if noInfo {
				kept := all[:0]
				for _, d := range all {
					if d.Severity != diag.Info {
						kept = append(kept, d)
					}
				}
				all = kept
			}
			all.Sort()
			if all.HasErrors() {
				code = worstCode(code, ExitFindings)
			}
			sum := checkSummary{Files: len(args), Errors: all.Count(diag.Error), Warnings: all.Count(diag.Warning), Infos: all.Count(diag.Info), Unreadable: len(ferrs)}
			if env.JSON {
				if all == nil {
					all = diag.Report{}
				}
				if err := writeJSON(env.Stdout, checkJSON{all, ferrs, sum}); err != nil {
					return err
				}
			} else {
				if err := all.WriteText(env.Stdout); err != nil {
					return err
				}
				unread := ""
				if sum.Unreadable > 0 {
					unread = fmt.Sprintf("; %d could not be read", sum.Unreadable)
				}
				fmt.Fprintf(env.Stdout, "%s checked: %d errors, %d warnings, %d infos%s\n", humanize.Plural(sum.Files, "file"), sum.Errors, sum.Warnings, sum.Infos, unread)
			}
			if code != ExitOK {
				return &ExitError{Code: code}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&listRules, "list-rules", false, "list every rule (ID, severity, description) and exit")
	cmd.Flags().BoolVar(&noInfo, "no-info", false, "leave out info diagnostics")
	options = bindKindFlags("check", cmd.Flags())
	return cmd
}

func printRules(env *Env) error {
	rules := diag.Rules()
	if env.JSON {
		if rules == nil {
			rules = []diag.Rule{}
		}
		return writeJSON(env.Stdout, rules)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tDESCRIPTION")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Description)
	}
	return tw.Flush()
}
