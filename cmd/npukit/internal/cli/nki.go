package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/nki"
	"github.com/spf13/cobra"
)

// `npukit nki ...`: NKI kernels as their authors write them (package nki).

func init() { registerCommand(46, newNkiCmd) }

func newNkiCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nki",
		Short: "Trace NKI kernels (Python, Beta 1 and current API): tensors, allocations, loops, engine calls",
		Long: `nki reads an NKI kernel as written (@nki.jit Python) and evaluates what the NKI
tracer evaluates at compile time: shapes, trip counts, allocations and addresses. Give the
kernel file, the function and its arguments, or a manifest entry:

  npukit nki inspect kernel.py --kernel my_kernel --arg a=bfloat16[128,512] --arg n=4
  npukit nki inspect --manifest manifest.json --entry samples.tensor_add

Constructs npukit cannot evaluate honestly are refused (exit 2) naming file:line:column.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newNkiInspectCmd(env), newNkiCheckCmd(env), newNkiSimCmd(env), newNkiReportCmd(env), newNkiPlaceCmd(env))
	return cmd
}

// nkiFlags are the flags every nki command takes to say what to trace.
type nkiFlags struct {
	kernel, manifest, entry, arch, api string
	args, grid, pid                    []string
}

func (f *nkiFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kernel, "kernel", "", "kernel function to trace (default: the file's one @nki.jit function)")
	cmd.Flags().StringArrayVar(&f.args, "arg", nil, "kernel argument NAME=DTYPE[D0,D1,...] (a tensor) or NAME=VALUE (an int, float, bool, None or string); repeatable")
	cmd.Flags().StringVar(&f.arch, "arch", "", "NeuronCore generation for nisa.get_nc_version(): v2, v3 or v4 (default v2)")
	cmd.Flags().StringVar(&f.api, "api", "", "API generation: beta1 or current (default: from the kernel's imports)")
	cmd.Flags().StringSliceVar(&f.grid, "grid", nil, "SPMD launch grid, e.g. 2,2")
	cmd.Flags().StringSliceVar(&f.pid, "program-id", nil, "program id of the traced instance, e.g. 0,0 (default all zero)")
	cmd.Flags().StringVar(&f.manifest, "manifest", "", "manifest file (corpus manifest.json shape) giving file, function and arguments")
	cmd.Flags().StringVar(&f.entry, "entry", "", "entry id in the manifest")
}

var archVersion = map[string]string{"v2": "gen2", "v3": "gen3", "v4": "gen4", "": ""}

// options turns the flags into trace options (exit 2 on bad usage).
func (f *nkiFlags) options(args []string) (nki.Options, string, error) {
	var o nki.Options
	ver, ok := archVersion[f.arch]
	if !ok {
		return o, "", usageErr("--arch %q: want v2, v3 or v4", f.arch)
	}
	if f.manifest != "" {
		if len(args) > 0 || f.kernel != "" || len(f.args) > 0 {
			return o, "", usageErr("--manifest takes the file, kernel and arguments from the entry; give no KERNEL.py, --kernel or --arg")
		}
		if f.entry == "" {
			return o, "", usageErr("--manifest needs --entry ID")
		}
		m, err := nki.ReadManifest(f.manifest)
		if err != nil {
			return o, "", usageErr("%v", ioCause(err))
		}
		e, err := m.Entry(f.entry)
		if err != nil {
			return o, "", usageErr("%s: %v", f.manifest, err)
		}
		o = nki.OptionsFor(m, e)
		if ver != "" {
			o.NCVersion = ver
		}
		if f.api != "" {
			o.API = f.api
		}
		return o, e.ID, nil
	}
	if len(args) != 1 {
		return o, "", usageErr("give one KERNEL.py (or --manifest FILE --entry ID)")
	}
	abs, err := filepath.Abs(args[0])
	if err != nil {
		return o, "", usageErr("%v", err)
	}
	kernel := f.kernel
	if kernel == "" {
		// the file's one @nki.jit function, or the list to choose from
		ks, err := nki.KernelFunctions(abs)
		if err != nil {
			return o, "", usageErr("%v", ioCause(err))
		}
		switch len(ks) {
		case 1:
			kernel = ks[0]
		case 0:
			return o, "", usageErr("%s has no @nki.jit function: give --kernel NAME", args[0])
		default:
			return o, "", usageErr("%s has %d kernels (%s): give --kernel NAME", args[0], len(ks), strings.Join(ks, ", "))
		}
	}
	o = nki.Options{Dir: filepath.Dir(abs), File: filepath.Base(abs), Function: kernel, API: f.api, NCVersion: ver}
	if o.NCVersion == "" {
		o.NCVersion = "gen2"
	}
	for _, a := range f.args {
		arg, err := nki.ParseArg(a)
		if err != nil {
			return o, "", usageErr("--arg %q: %v", a, err)
		}
		o.Args = append(o.Args, arg)
	}
	if o.Grid, err = parseInts(f.grid); err != nil {
		return o, "", usageErr("--grid: %v", err)
	}
	if o.ProgramID, err = parseInts(f.pid); err != nil {
		return o, "", usageErr("--program-id: %v", err)
	}
	if o.ProgramID == nil {
		o.ProgramID = make([]int64, len(o.Grid))
	}
	return o, "", nil
}

func parseInts(s []string) ([]int64, error) {
	var out []int64
	for _, x := range s {
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", x)
		}
		out = append(out, n)
	}
	return out, nil
}

// traceKernel runs the trace, mapping failures to exit codes: a construct
// npukit cannot evaluate or a kernel that raises is exit 2, a bug exit 3.
func traceKernel(o nki.Options) (*nki.Result, error) {
	shortRunGC()
	res, err := nki.Trace(o)
	if err == nil {
		return res, nil
	}
	var ie *nki.InternalError
	if errors.As(err, &ie) {
		return nil, &ExitError{Code: ExitUnexpected, Err: err}
	}
	return nil, usageErr("%v", err)
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
			return renderNkiInspect(env.Stdout, res)
		},
	}
	f.bind(cmd)
	return cmd
}

func renderNkiInspect(w io.Writer, r *nki.Result) error {
	fmt.Fprintf(w, "%s  %s  (API %s, NeuronCore %s", r.File, r.Function, r.API, r.NCVersion)
	if len(r.Grid) > 0 {
		fmt.Fprintf(w, ", grid %v", r.Grid)
	}
	// A site in the kernel's own file is its line:column (issue 32: a
	// 100-character file name repeated on every row).
	own := filepath.Base(r.File) + ":"
	short := func(site string) string { return strings.TrimPrefix(site, own) }
	fmt.Fprintf(w, ")\nSITE is line:column in %s unless another file is named.\n\nTensors\n", filepath.Base(r.File))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tNAME\tSHAPE\tDTYPE\tBUFFER\tALLOCATION\tDECLARED\tAT RUNTIME\tSITE")
	for _, t := range r.Tensors {
		site := ""
		if t.Site != nil {
			site = short(t.Site.String())
		}
		fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\t%s\t%s\t%d\t%d\t%s\n", t.ID, t.Name, t.Shape, t.DType, t.Buffer, allocText(t.Alloc), t.Declared, t.Instances, site)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nLoops\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tTRIPS\tENTRIES (TRACED/RUNTIME)\tPARENT\tSITE\tITER")
	for _, l := range r.Loops {
		var trips []string
		keys := make([]int64, 0, len(l.TripCounts))
		for k := range l.TripCounts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			trips = append(trips, fmt.Sprintf("%dx%d", k, l.TripCounts[k]))
		}
		kind := l.Kind
		if l.Symbolic {
			kind += " (symbolic)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", l.ID, kind, strings.Join(trips, ","), l.Entries, l.Executed, l.Parent, short(fmt.Sprint(l.Site)), l.Iter)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nEngine calls\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  CALL\tTRACED\tAT RUNTIME\tLOOP\tREADS\tWRITES\tSITE")
	for _, c := range r.Calls {
		fn := c.Fn
		if c.Accumulate {
			fn += " (+=)"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\n", fn, c.Traced, c.Executed, c.Loop, strings.Join(c.Reads, ","), strings.Join(c.Writes, ","), short(fmt.Sprint(c.Site)))
	}
	return tw.Flush()
}

func allocText(a *nki.Alloc) string {
	if a == nil {
		return "-"
	}
	switch {
	case a.Partition != nil:
		return fmt.Sprintf("address=(%d, %d)", *a.Partition, *a.Offset)
	case len(a.Tiles) > 0:
		s := fmt.Sprintf("%s: %s on %s", a.Kind, humanize.Plural(len(a.Tiles), "tile"), humanize.Plural(a.PhysicalTiles, "location"))
		if len(a.Tiles) <= 4 {
			s += fmt.Sprint(" ", a.Tiles)
		}
		return s
	}
	return a.Kind
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
