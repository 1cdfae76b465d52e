package cli

import (
	"github.com/npukit/npukit"
	"github.com/spf13/cobra"
)

func init() { registerCommand(30, newDiffCmd) }

func newDiffCmd(env *Env) *cobra.Command {
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show the semantic differences between two artifacts of one kind",
		Long:  longHelp("diff"),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openArg(args[0])
			if err != nil {
				return err
			}
			b, err := openArg(args[1])
			if err != nil {
				return err
			}
			if !npukit.Comparable(a, b) {
				if h := npukit.IncomparableHint(a, b, args[0], args[1]); h != "" {
					return usageErr("cannot compare %s (%s) with %s (%s); %s", args[0], a.Describe(), args[1], b.Describe(), h)
				}
				return usageErr("cannot compare %s (%s) with %s (%s)", args[0], a.Describe(), args[1], b.Describe())
			}
			if err := refuseInapplicableFlags(cmd.Flags(), []*npukit.Artifact{a, b}); err != nil {
				return err
			}
			o, err := options()
			if err != nil {
				return err
			}
			out, identical, err := npukit.Diff(a, b, o)
			if err != nil {
				return libErr("", err)
			}
			if err := render(env, out); err != nil {
				return err
			}
			if !identical {
				return &ExitError{Code: ExitFindings}
			}
			return nil
		},
	}
	options = bindKindFlags("diff", cmd.Flags())
	return acceptsOp(cmd, "diff")
}
