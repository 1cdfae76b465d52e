package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/nki/python"
	"github.com/spf13/cobra"
)

// nkiPlaceOutput is what `nki place` prints.
type nkiPlaceOutput struct {
	*neuroncore.Placement
	Sites   []string    `json:"rewritten"`
	Diff    string      `json:"diff,omitempty"`
	Written string      `json:"written,omitempty"`
	Check   diag.Report `json:"placed_kernel_check"`
	Errors  int         `json:"placed_kernel_errors"`
}

func (o nkiPlaceOutput) WriteText(w io.Writer) error {
	if o.Written == "" {
		if _, err := io.WriteString(w, o.Diff); err != nil {
			return err
		}
	}
	for _, s := range o.Sites {
		fmt.Fprintf(w, "# %s\n", s)
	}
	if o.Written != "" {
		fmt.Fprintf(w, "# placed kernel written to %s\n", o.Written)
	}
	_, err := fmt.Fprintf(w, "# the placed kernel reads back and checks with %s\n", o.Check.Summary())
	return err
}

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
			src, err := inputfile.ReadFileMax(filepath.Join(o.Dir, o.File), python.MaxSource)
			if err != nil {
				return usageErr("%v", ioCause(err))
			}
			p, err := nki.PlaceKernel(ck.Trace, ck, src, neuroncore.PlaceOptions{Fewest: fewest})
			if errors.Is(err, neuroncore.ErrNothingToPlace) {
				// not a failure: the kernel allocates every tensor
				// directly already (as sbuf place on a placed plan); -o
				// still gets it, unchanged
				if out != "" {
					if err := atomicfile.WriteFile(out, src, 0o644); err != nil {
						return &ExitError{Code: ExitUsage, Err: err}
					}
				}
				if env.JSON {
					return writeJSON(env.Stdout, map[string]any{"kernel": o.File, "placed": 0, "message": err.Error(), "written": out})
				}
				fmt.Fprintf(env.Stdout, "%s: %v; kernel unchanged\n", o.File, err)
				return nil
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
			ck2, err := nki.CheckPlaced(o, p, ck.Plan.Arch)
			if err != nil {
				return &ExitError{Code: ExitUnexpected, Err: err}
			}
			rep := ck2.Report.WithFile(filepath.Base(o.File))
			if rep == nil {
				rep = diag.Report{}
			}
			res0 := nkiPlaceOutput{Placement: p.Placement, Sites: p.Sites, Check: rep, Errors: rep.Count(diag.Error)}
			if out != "" {
				if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { _, err := w.Write(p.Source); return err }); err != nil {
					return &ExitError{Code: ExitUsage, Err: err}
				}
				res0.Written = out
			} else {
				name := filepath.Base(o.File)
				res0.Diff = nki.UnifiedDiff("a/"+name, "b/"+name, string(src), string(p.Source))
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
