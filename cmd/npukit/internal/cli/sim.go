package cli

import (
	"github.com/npukit/npukit"
	"github.com/npukit/npukit/edgetpu"
	"github.com/spf13/cobra"
)

func init() { registerCommand(40, newSimCmd) }

func newSimCmd(env *Env) *cobra.Command {
	var tracePath string
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "sim FILE",
		Short: "Simulate an artifact's timing (summary, --trace for a Perfetto timeline)",
		Long:  longHelp("sim"),
		Args: func(cmd *cobra.Command, args []string) error {
			if f := cmd.Flags().Lookup("host"); f != nil && f.Value.String() == "help" && len(args) == 0 {
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f := cmd.Flags().Lookup("host"); f != nil && f.Value.String() == "help" {
				return render(env, edgetpu.HostList{})
			}
			a, err := openArg(args[0])
			if err != nil {
				return err
			}
			if err := refuseInapplicableFlags(cmd.Flags(), []*npukit.Artifact{a}); err != nil {
				return err
			}
			o, err := options()
			if err != nil {
				return err
			}
			o.TracePath = tracePath
			out, err := a.Simulate(o)
			if err != nil {
				return libErr(args[0], err)
			}
			return render(env, npukit.WithCheckNote(out, a, o))
		},
	}
	cmd.Flags().StringVar(&tracePath, "trace", "", "write a Perfetto-compatible trace JSON to this file")
	options = bindKindFlags("sim", cmd.Flags())
	return acceptsOp(cmd, "simulate")
}
