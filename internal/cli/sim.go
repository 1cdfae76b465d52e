package cli

import (
	"strings"

	"github.com/npukit/npukit"
	"github.com/spf13/cobra"
)

func init() { registerCommand(40, newSimCmd) }

func newSimCmd(env *Env) *cobra.Command {
	var tracePath string
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "sim FILE",
		Short: "Simulate an artifact's timing (summary, --trace for a Perfetto timeline)",
		Long: `sim runs a timing model of FILE on the hardware it targets and reports total time,
per-resource busy and stall time. --trace writes a Chrome/Perfetto trace JSON that
opens in ui.perfetto.dev or chrome://tracing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openArg(args[0])
			if err != nil {
				return err
			}
			if msgs := kindFlagsUnused(cmd.Flags(), []*npukit.Artifact{a}); len(msgs) > 0 {
				return usageErr("%s", strings.Join(msgs, "; "))
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
			return render(env, out)
		},
	}
	cmd.Flags().StringVar(&tracePath, "trace", "", "write a Perfetto-compatible trace JSON to this file")
	options = bindKindFlags("sim", cmd.Flags())
	return acceptsOp(cmd, "simulate")
}
