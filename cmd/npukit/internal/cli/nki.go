package cli

import (
	"errors"
	"os"
	"runtime/debug"

	"github.com/npukit/npukit/nki"
	"github.com/spf13/cobra"
)

// `npukit nki ...`: NKI kernels as their authors write them (package nki).

func init() { registerCommand(46, newNkiCmd) }

func newNkiCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nki",
		Short: "Trace NKI kernels (Python, Beta 1 and current API): tensors, allocations, loops, engine calls",
		Long:  longHelp("nki"),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newNkiInspectCmd(env), newNkiCheckCmd(env), newNkiSimCmd(env), newNkiReportCmd(env), newNkiPlaceCmd(env))
	return cmd
}

// nkiFlags are the flags every nki command takes to say what to trace.
type nkiFlags struct{ nki.Request }

func (f *nkiFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Function, "kernel", "", "kernel function to trace (default: the file's one @nki.jit function)")
	cmd.Flags().StringArrayVar(&f.Args, "arg", nil, "kernel argument NAME=DTYPE[D0,D1,...] (a tensor), NAME=nl.DTYPE (a dtype), NAME=(1,2) (a tuple) or NAME=VALUE (an int, float, bool, None or string), bound to the parameter NAME (a name the kernel lacks goes to its **kwargs, else is an error); without NAME= (a tensor, dtype, tuple or number) it fills the next parameter; repeatable")
	cmd.Flags().StringVar(&f.Arch, "arch", "", "NeuronCore generation for nisa.get_nc_version(): v2, v3 or v4 (default v2)")
	cmd.Flags().StringVar(&f.API, "api", "", "API generation: beta1 or current (default: from the kernel's imports)")
	cmd.Flags().StringSliceVar(&f.Grid, "grid", nil, "SPMD launch grid, e.g. 2,2")
	cmd.Flags().StringSliceVar(&f.ProgramID, "program-id", nil, "program id of the traced instance, e.g. 0,0 (default all zero)")
	cmd.Flags().StringVar(&f.Manifest, "manifest", "", "manifest file (corpus manifest.json shape) giving file, function and arguments")
	cmd.Flags().StringVar(&f.Entry, "entry", "", "entry id in the manifest")
}

// options turns the flags into trace options (exit 2 on bad usage).
func (f *nkiFlags) options(args []string) (nki.Options, string, error) {
	o, entry, err := f.Request.Options(args)
	if errors.Is(err, nki.ErrKernelCount) {
		return o, "", argsErr("%v", err)
	}
	if err != nil {
		return o, "", usageErr("%v", err)
	}
	return o, entry, nil
}

// kernelErr maps a failure to trace or check a kernel to its exit code:
// a construct npukit cannot evaluate or a kernel that raises is exit 2, a
// bug exit 3.
func kernelErr(err error) error {
	var ie *nki.InternalError
	if errors.As(err, &ie) {
		return &ExitError{Code: ExitUnexpected, Err: err}
	}
	return usageErr("%v", err)
}

// traceKernel runs the trace (kernelErr on failure).
func traceKernel(o nki.Options) (*nki.Result, error) {
	shortRunGC()
	res, err := nki.Trace(o)
	if err != nil {
		return nil, kernelErr(err)
	}
	return res, nil
}

func newNkiInspectCmd(env *Env) *cobra.Command {
	var f nkiFlags
	cmd := &cobra.Command{
		Use:   "inspect [KERNEL.py]",
		Short: "Trace a kernel: its on-chip tensors with allocation and tile locations, loops with trip counts, engine calls with counts",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, entry, err := f.options(args)
			if err != nil {
				return err
			}
			res, err := traceKernel(o)
			if err != nil {
				return err
			}
			res.Entry = entry
			if env.JSON {
				return writeJSON(env.Stdout, res)
			}
			return res.WriteText(env.Stdout)
		},
	}
	f.bind(cmd)
	return cmd
}

// shortRunGC lets the heap grow to three times the live data (GOGC=200)
// instead of twice, unless the user set GOGC. A kernel's trace is a short
// run whose live data (records, plan) only grows, so the collector's
// default pace re-marks it over and over: on the largest corpus kernel the
// setting saves about a tenth of the command's CPU time for a few MB of
// heap (bench/nki.sh).
func shortRunGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}
