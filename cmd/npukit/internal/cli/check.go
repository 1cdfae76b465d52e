package cli

import (
	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/spf13/cobra"
)

func init() { registerCommand(20, newCheckCmd) }

func newCheckCmd(env *Env) *cobra.Command {
	var listRules, verbose bool
	var lf lintFlags
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "check FILE|DIR|GLOB...",
		Short: "Verify NPU artifacts with rule-based diagnostics",
		Long:  longHelp("check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if listRules {
				if len(args) > 0 {
					return usageErr("--list-rules lists every rule and takes no FILE (%s given); `npukit check FILE` checks one", args[0])
				}
				return printRules(env)
			}
			if len(args) == 0 {
				return argsErr("needs at least one FILE or directory (or --list-rules)")
			}
			format, err := lf.outputFormat(env)
			if err != nil {
				return err
			}
			policy, err := lf.policy()
			if err != nil {
				return err
			}
			files, skipped, err := inputs(args, lf.skipOther)
			if err != nil {
				return err
			}
			arts, errs := openAll(files)
			if err := refuseInapplicableFlags(cmd.Flags(), arts); err != nil {
				return err
			}
			o, err := options()
			if err != nil {
				return err
			}
			reportSkipped(env, skipped, verbose)
			i := -1
			return runChecks(env, format, &lf, policy, files, len(skipped), func(path string) (diag.Report, error) {
				i++ // runChecks checks files in order
				a, err := arts[i], errs[i]
				if err != nil {
					return nil, err
				}
				rep, err := a.Check(o)
				if err != nil {
					return nil, libErr(path, err)
				}
				return rep, nil
			})
		},
	}
	cmd.Flags().BoolVar(&listRules, "list-rules", false, "list every rule (ID, severity, description) and exit")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the files a directory walk skipped")
	lf.bind(cmd)
	options = bindKindFlags("check", cmd.Flags())
	return acceptsOp(cmd, "check")
}

func printRules(env *Env) error {
	if env.JSON {
		return writeJSON(env.Stdout, diag.Rules()) // never null: Rules returns a list
	}
	return diag.WriteRules(env.Stdout, diag.Rules())
}
