package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
	"github.com/spf13/cobra"
)

func newNkiPlaceCmd(env *Env) *cobra.Command {
	var f nkiFlags
	var out string
	var fewest bool
	cmd := &cobra.Command{
		Use:   "place [KERNEL.py]",
		Short: "Allocate a kernel's automatic tensors and write the kernel back with them (mod_alloc for Beta 1, address= for the current API)",
		Long:  longHelp("nki-place"),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, _, err := f.options(args)
			if err != nil {
				return err
			}
			ck, err := checkOptions(o)
			if err != nil {
				return err
			}
			src, err := nki.ReadSource(filepath.Join(o.Dir, o.File))
			if err != nil {
				return usageErr("%v", ioCause(err))
			}
			p, err := nki.PlaceKernel(ck.Trace, ck, src, neuroncore.PlaceOptions{Fewest: fewest})
			if errors.Is(err, neuroncore.ErrNothingToPlace) {
				// as sbuf place on a placed plan
				return placedAlready(env, "kernel", o.File, src, out, err)
			}
			if err != nil {
				if errors.Is(err, neuroncore.ErrUnplaceable) {
					// the kernel's tiles alive at once do not fit: a
					// finding about the kernel, as in sbuf place
					return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%s: %v", o.File, err)}
				}
				var pe *nki.PlaceError
				if errors.As(err, &pe) {
					return usageErr("%v", err)
				}
				return usageErr("%s: %v", o.File, err)
			}
			res0, err := p.Report(o, ck.Plan.Arch, src)
			if err != nil {
				return &ExitError{Code: ExitUnexpected, Err: err}
			}
			if out != "" {
				if err := atomicfile.WriteFile(out, p.Source, 0o644); err != nil {
					return &ExitError{Code: ExitUsage, Err: err}
				}
				res0.Written, res0.Diff = out, ""
			}
			if err := render(env, res0); err != nil {
				return err
			}
			if res0.Errors > 0 {
				return &ExitError{Code: ExitFindings}
			}
			return nil
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the rewritten kernel to this file instead of printing a diff")
	cmd.Flags().BoolVar(&fewest, "fewest", false, "keep the fewest feasible physical tiles (no search by simulated time)")
	return cmd
}
