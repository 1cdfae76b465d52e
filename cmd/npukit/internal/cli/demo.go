package cli

import (
	"fmt"
	"os"

	"github.com/npukit/npukit/internal/demo"
	"github.com/spf13/cobra"
)

func init() { registerCommand(80, newDemoCmd) }

func newDemoCmd(env *Env) *cobra.Command {
	var dir string
	var force bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the main job on built-in example artifacts",
		Long:  longHelp("demo"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if env.JSON { // the demo shows the text output (audit r3 #5: --json was ignored)
				return usageErr("demo shows each command's text output: --json does not apply (run the commands it prints with --json)")
			}
			if dir == "" {
				d, err := os.MkdirTemp("", "npukit-demo-")
				if err != nil {
					return err
				}
				dir = d
			} else if err := refuseNonEmptyDir("--dir", dir, force); err != nil {
				return err
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			o, err := libOptions()
			if err != nil {
				return err
			}
			// The demo shows the text output, never --json.
			failed, err := demo.Run(env.Stdout, dir, o)
			if err != nil {
				return err
			}
			if failed > 0 {
				return &ExitError{Code: ExitUnexpected, Err: fmt.Errorf("demo: %d steps failed", failed)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the examples and results into, empty or new (default: a new temporary directory)")
	cmd.Flags().BoolVar(&force, "force", false, "write into a non-empty --dir, replacing files of the demo's names")
	return cmd
}
