package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/spf13/cobra"
)

func init() { registerCommand(20, newCheckCmd) }

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
			var opened []*npukit.Artifact
			defer func() { noteKindFlagsUnused(env, cmd, opened) }()
			var all diag.Report
			var ferrs []npukit.FileError
			for _, path := range args {
				a, err := openArg(path)
				var rep diag.Report
				if err == nil {
					opened = append(opened, a)
					if rep, err = a.Check(o); err != nil {
						err = libErr(path, err)
					}
				}
				if err != nil {
					code = worstCode(code, exitCodeOf(err))
					ferrs = append(ferrs, npukit.FileError{Path: path, Message: err.Error()})
					if !env.JSON {
						fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
					}
					continue
				}
				all = append(all, rep.WithFile(path)...)
			}
			doc := npukit.NewCheckDocument(len(args), all, ferrs, noInfo)
			if doc.Diagnostics.HasErrors() {
				code = worstCode(code, ExitFindings)
			}
			if err := render(env, doc); err != nil {
				return err
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
	return acceptsOp(cmd, "check")
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
