package cli

import (
	"github.com/npukit/npukit"
	"github.com/spf13/cobra"
)

func init() { registerCommand(30, newDiffCmd) }

func newDiffCmd(env *Env) *cobra.Command {
	return acceptsOp(&cobra.Command{
		Use:   "diff A B",
		Short: "Show the semantic differences between two artifacts of one kind",
		Long: `diff compares two artifacts of the same kind by content, not bytes, and answers in
the terms inspect uses: the verdict first (what changed in memory, I/O, instructions,
DMA, traffic or cycles, numbers exact), then the details. Producer noise (caching
tokens, uuids, timestamps, the hash) is listed apart and not counted as a difference.
Elements are matched by identity, not position, so one inserted element is one
difference: NEFF DMA entries by queue and comment or descriptor content (ids that
only follow the position are counted as renumbered), Edge TPU layers, relocations
and DMA hints by name, Gemini workloads by layer and ofmap range (per core: added,
removed, moved, changed; traffic per kind, L2 peak, simulated cycles).
Exit code 0 when they are the same, 1 when they differ, 2 on unreadable input
(like diff(1)).`,
		Args: cobra.ExactArgs(2),
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
				return usageErr("cannot compare %s (%s) with %s (%s)", args[0], a.Describe(), args[1], b.Describe())
			}
			o, err := libOptions()
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
	}, "diff")
}
