package cli

import (
	"io"
	"path/filepath"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/checkinputs"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki"
	"github.com/npukit/npukit/report/sbufreport"
	"github.com/spf13/cobra"
)

// checkKernel traces, lowers and checks the kernel the flags name;
// --emit-plan writes the lowered plan (YAML) next to nothing else.
func checkKernel(f *nkiFlags, args []string, emit string) (*nki.Checked, string, error) {
	o, _, err := f.options(args)
	if err != nil {
		return nil, "", err
	}
	ck, err := checkOptions(o)
	if err != nil {
		return nil, "", err
	}
	if emit != "" {
		data := neuroncore.EncodePlan(ck.Plan)
		if err := atomicfile.Write(emit, 0o644, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return nil, "", &ExitError{Code: ExitUsage, Err: err}
		}
	}
	return ck, filepath.Base(o.File), nil
}

// checkOptions traces and checks one kernel (kernelErr on failure).
func checkOptions(o nki.Options) (*nki.Checked, error) {
	shortRunGC()
	ck, err := nki.TraceCheck(o)
	if err != nil {
		return nil, kernelErr(err)
	}
	return ck, nil
}

func newNkiCheckCmd(env *Env) *cobra.Command {
	var f nkiFlags
	var lf lintFlags
	var emit string
	cmd := &cobra.Command{
		Use:   "check [KERNEL.py|DIR|GLOB...]",
		Short: "Check a kernel's allocations: lower it to the sbuf plan model and run the placement, lifetime and accumulation checks",
		Long:  longHelp("nki-check"),
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := lf.outputFormat(env)
			if err != nil {
				return err
			}
			policy, err := lf.policy()
			if err != nil {
				return err
			}
			if f.ManyKernels(args, lf.skipOther) {
				if emit != "" {
					return usageErr("--emit-plan writes the plan of one kernel; name one (--manifest with --entry, or KERNEL.py with --kernel)")
				}
				return checkKernels(env, &f, &lf, args, format, policy)
			}
			ck, name, err := checkKernel(&f, args, emit)
			if err != nil {
				return err
			}
			o, _, err := f.options(args)
			if err != nil {
				return err
			}
			out := clidoc.NewKernelCheck(ck, name, emit)
			kept, hidden := out.Filter(nki.SourceLines(o.Dir), policy, lf.noInfo, diag.Folds(format, lf.all))
			var werr error
			switch format {
			case "json":
				werr = writeJSON(env.Stdout, out) // nki check's document: the findings and what was traced
			case "text":
				werr = out.WriteText(env.Stdout)
			default:
				// Code scanning wants the kernel's path, not its base name.
				kernel := checkinputs.RelPath(filepath.Join(o.Dir, o.File))
				for _, r := range []diag.Report{kept, hidden} {
					for i := range r {
						r[i].File = kernel
					}
				}
				werr = writeFindings(env, format, clidoc.CheckDocument{Diagnostics: kept, Suppressed: hidden, Summary: out.Summary})
			}
			if werr != nil {
				return werr
			}
			if out.Diagnostics.HasErrors() {
				return &ExitError{Code: ExitFindings}
			}
			return nil
		},
	}
	f.bind(cmd)
	lf.bind(cmd)
	cmd.Flags().StringVar(&emit, "emit-plan", "", "write the lowered plan (YAML, docs/sbuf-plan.md) to this file")
	return cmd
}

func newNkiSimCmd(env *Env) *cobra.Command {
	var f nkiFlags
	var emit, tracePath string
	cmd := &cobra.Command{
		Use:   "sim [KERNEL.py]",
		Short: "Simulate a kernel's lowered body on the engine and DMA model of 'npukit sbuf sim'",
		Long:  longHelp("nki-sim"),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ck, name, err := checkKernel(&f, args, emit)
			if err != nil {
				return err
			}
			r, err := npukit.SbufSimulate(ck.Plan, tracePath)
			if err != nil {
				return usageErr("%s: %v", name, err)
			}
			o, _, _ := f.options(args) // checkKernel succeeded with them
			return render(env, clidoc.KernelCheckNote(r.Summary(), ck, name, nki.SourceLines(o.Dir)))
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVar(&emit, "emit-plan", "", "write the lowered plan (YAML) to this file")
	cmd.Flags().StringVar(&tracePath, "trace", "", "write a Perfetto-compatible trace JSON to this file")
	return cmd
}

func newNkiReportCmd(env *Env) *cobra.Command {
	var f nkiFlags
	var emit, out string
	cmd := &cobra.Command{
		Use:   "report [KERNEL.py] -o x.html",
		Short: "Write the HTML report of a kernel's lowered plan (memory maps, lifetimes, engine timeline, findings)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return argsErr("needs -o FILE.html")
			}
			ck, name, err := checkKernel(&f, args, emit)
			if err != nil {
				return err
			}
			page, err := sbufreport.KernelPage(ck, name)
			if err != nil {
				return usageErr("%s: %v", name, err)
			}
			if err := writePage(out, page); err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return reportWritten(env, out)
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVar(&emit, "emit-plan", "", "write the lowered plan (YAML) to this file")
	cmd.Flags().StringVarP(&out, "output", "o", "", "HTML file to write")
	return cmd
}
