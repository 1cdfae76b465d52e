package cli

import (
	"github.com/npukit/npukit/detect"
	"github.com/spf13/cobra"
)

func init() { registerCommand(30, newDiffCmd) }

// Differ compares two artifacts of one kind semantically. identical is
// true when they differ in nothing but producer noise (tokens, uuids,
// timestamps) unless the differ was asked to count those.
type Differ func(env *Env, a, b detect.Result) (out Output, identical bool, err error)

var differs = map[detect.Kind]Differ{}

func registerDiffer(k detect.Kind, d Differ) {
	if _, dup := differs[k]; dup {
		panic("cli: differ registered twice: " + string(k))
	}
	differs[k] = d
}

func newDiffCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Show the semantic differences between two artifacts of one kind",
		Long: `diff compares two artifacts of the same kind by content, not bytes: it ignores
producer noise (caching tokens, uuids, timestamps) unless told otherwise.
Exit code 0 when they are the same, 1 when they differ, 2 on unreadable input
(like diff(1)).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ra, _, err := detectFile(args[0])
			if err != nil {
				return err
			}
			rb, _, err := detectFile(args[1])
			if err != nil {
				return err
			}
			if ra.Kind != rb.Kind {
				return usageErr("cannot compare %s (%s) with %s (%s)", args[0], describe(ra), args[1], describe(rb))
			}
			d, ok := differs[ra.Kind]
			if !ok {
				return usageErr("diff is not supported yet for %s", describe(ra))
			}
			out, identical, err := d(env, ra, rb)
			if err != nil {
				return usageErr("%v", err)
			}
			if env.JSON {
				if err := writeJSON(env.Stdout, out); err != nil {
					return err
				}
			} else if err := out.WriteText(env.Stdout); err != nil {
				return err
			}
			if !identical {
				return &ExitError{Code: ExitFindings}
			}
			return nil
		},
	}
}
