package cli

import (
	"github.com/npukit/npukit/internal/lsp"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/nki"
	"github.com/spf13/cobra"
)

func init() { registerCommand(85, newLspCmd) }

func newLspCmd(env *Env) *cobra.Command {
	var lf lintFlags
	var manifest string
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Language server (stdio): nki check's findings on an NKI kernel as it is edited",
		Long:  longHelp("lsp"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			policy, err := lf.policy()
			if err != nil {
				return err
			}
			s := &lsp.Server{Policy: policy}
			if manifest != "" {
				if s.Manifest, err = nki.ReadManifest(manifest); err != nil {
					return usageErr("%v", ioCause(err))
				}
			}
			// The protocol's framing is binary-exact (\r\n, no trailing
			// newline): write past the terminal-safe text writer.
			out := env.Stdout
			if tw, ok := out.(*termsafe.Writer); ok {
				out = tw.W
			}
			if err := s.Serve(cmd.InOrStdin(), out); err != nil {
				return usageErr("lsp: %v", err)
			}
			return nil
		},
	}
	lf.bindRules(cmd)
	cmd.Flags().StringVar(&manifest, "manifest", "", "manifest giving the function and arguments of kernels without a '# npukit: check' comment")
	return cmd
}
