package cli

import (
	"errors"
	"fmt"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/spf13/cobra"
)

func init() { registerCommand(10, newInspectCmd) }

func newInspectCmd(env *Env) *cobra.Command {
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "inspect FILE...",
		Short: "Show what is inside NPU artifacts (any supported format)",
		Long:  longHelp("inspect"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arts, errs := openAll(args)
			if err := refuseInapplicableFlags(cmd.Flags(), arts); err != nil {
				return err
			}
			o, err := options()
			if err != nil {
				return err
			}
			code := ExitOK
			var entries []clidoc.InspectEntry
			for i, path := range args {
				e := clidoc.InspectEntry{Path: path}
				a, err := arts[i], errs[i]
				if err == nil {
					e.Kind, e.Variant = a.Kind, a.Variant
					if e.Result, err = a.Inspect(o); err != nil {
						err = libErr(path, err)
					} else {
						e.Result = npukit.WithCheckNote(e.Result, a, o)
					}
				}
				if err != nil {
					code = worstCode(code, exitCodeOf(err))
					e.Error = err.Error()
					if !env.JSON {
						fmt.Fprintf(env.Stderr, "npukit: %v\n", err)
					}
				} else if !env.JSON {
					if len(args) > 1 {
						if i > 0 {
							fmt.Fprintln(env.Stdout)
						}
						fmt.Fprintf(env.Stdout, "== %s: %s\n", path, a.Describe())
					}
					if err := e.Result.WriteText(env.Stdout); err != nil {
						return err
					}
				}
				entries = append(entries, e)
			}
			if env.JSON {
				if err := writeJSON(env.Stdout, entries); err != nil {
					return err
				}
			}
			if code != ExitOK {
				return &ExitError{Code: code}
			}
			return nil
		},
	}
	options = bindKindFlags("inspect", cmd.Flags())
	return acceptsOp(cmd, "inspect")
}

func exitCodeOf(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitUsage
}
