package cli

import (
	"sort"

	"github.com/npukit/npukit/detect"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() { registerCommand(40, newSimCmd) }

// Simulator times one kind of artifact. Flags adds the kind's own flags to
// the shared `sim` command (names must not clash with other kinds'; prefix
// them with the format when in doubt); Run reads the file and simulates,
// writing a Perfetto trace to opts.Trace when it is set.
type Simulator struct {
	Kind  detect.Kind
	Flags func(fs *pflag.FlagSet)
	Run   func(env *Env, r detect.Result, opts SimOptions) (Output, error)
}

// SimOptions are the flags every simulator shares.
type SimOptions struct {
	Trace string // --trace: Perfetto/Chrome trace JSON output path ("" = none)
}

var simulators = map[detect.Kind]Simulator{}

func registerSimulator(s Simulator) {
	if _, dup := simulators[s.Kind]; dup {
		panic("cli: simulator registered twice: " + string(s.Kind))
	}
	simulators[s.Kind] = s
}

func newSimCmd(env *Env) *cobra.Command {
	var opts SimOptions
	cmd := &cobra.Command{
		Use:   "sim FILE",
		Short: "Simulate an artifact's timing (summary, --trace for a Perfetto timeline)",
		Long: `sim runs a timing model of FILE on the hardware it targets and reports total time,
per-resource busy and stall time. --trace writes a Chrome/Perfetto trace JSON that
opens in ui.perfetto.dev or chrome://tracing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := detectFile(args[0])
			if err != nil {
				return err
			}
			s, ok := simulators[r.Kind]
			if !ok {
				return usageErr("%s: simulation is not supported for %s", args[0], describe(r))
			}
			out, err := s.Run(env, r, opts)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			if env.JSON {
				return writeJSON(env.Stdout, out)
			}
			return out.WriteText(env.Stdout)
		},
	}
	cmd.Flags().StringVar(&opts.Trace, "trace", "", "write a Perfetto-compatible trace JSON to this file")
	kinds := make([]detect.Kind, 0, len(simulators))
	for k := range simulators {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	for _, k := range kinds {
		if f := simulators[k].Flags; f != nil {
			f(cmd.Flags())
		}
	}
	return cmd
}
