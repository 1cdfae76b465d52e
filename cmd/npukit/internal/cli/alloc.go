package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/npukit/npukit"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/progress"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/spf13/cobra"
)

func init() {
	registerCommand(50, newAllocCmd)
}

// readAllocTable reads an allocation CSV; capacity 0 means "from the file
// name (NAME.<capacity>.csv) when it has one". Errors do not name the path.
func readAllocTable(path string, capacity int64) (*alloc.Table, error) {
	a, err := npukit.Open(path)
	if err != nil {
		return nil, ioCause(err)
	}
	return a.AllocTable(capacity)
}

func newAllocCmd(env *Env) *cobra.Command {
	var (
		capacity int64
		out      string
		minimize bool
		validate bool
		timeout  time.Duration
		from     string
		fromOpts allocFromOptions
		offsets  string
	)
	cmd := &cobra.Command{
		Use:   "alloc [solve] PROBLEM.csv [--capacity N] [-o SOLUTION.csv] [--minimize] [--timeout D] | --validate PROBLEM.csv SOLUTION.csv | --from SCHEDULE.json [--rewrite OUT.json]",
		Short: "Solve, minimise or validate static memory allocation problems (MiniMalloc CSV)",
		Long:  longHelp("alloc"),
		Args:  cobra.MaximumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			// `alloc solve|minimize|validate ...` spell the modes as words
			// (unless a file of that name is meant).
			if len(args) > 0 {
				if _, err := os.Stat(args[0]); err != nil {
					switch args[0] {
					case "solve":
						args = args[1:]
					case "minimize", "minimise":
						args, minimize = args[1:], true
					case "validate":
						args, validate = args[1:], true
					default:
						if m := closeWord(args[0], "solve", "minimize", "validate"); m != "" {
							return usageErr("%s: no such file, and not a mode: did you mean %q?", args[0], m)
						}
					}
				}
			}
			if len(args) > 2 {
				return argsErr("takes at most two files (PROBLEM.csv [SOLUTION.csv])")
			}
			if from != "" {
				if len(args) != 0 || validate || minimize || out != "" || capacity != 0 {
					return usageErr("--from takes a schedule and no problem, --capacity, -o, --minimize or --validate")
				}
				fromOpts.Timeout = 0
				if cmd.Flags().Changed("timeout") {
					fromOpts.Timeout = timeout
				}
				allocFromWork(cmd.Flags(), &fromOpts)
				return allocFromCmdRun(env, from, fromOpts)
			}
			if len(args) == 0 {
				return argsErr("needs PROBLEM.csv (or --from SCHEDULE.json)")
			}
			// The schedule flags would otherwise be accepted and ignored
			// (--budget 5s on a CSV problem ran the default work budget).
			for _, name := range []string{"budget", "align", "prefetch", "rewrite"} {
				if cmd.Flags().Changed(name) {
					msg := "--%s applies to --from SCHEDULE.json only"
					if name == "budget" {
						msg += "; a CSV problem's search is bounded by --timeout"
					}
					return usageErr(msg, name)
				}
			}
			if validate {
				if len(args) != 2 {
					return argsErr("--validate needs PROBLEM.csv SOLUTION.csv")
				}
				return runAllocValidate(env, args[0], args[1], capacity)
			}
			if len(args) != 1 {
				return usageErr("alloc takes one problem (use --validate to check a solution)")
			}
			use, err := alloc.ParseOffsetUse(offsets)
			if err != nil {
				return usageErr("--offsets %v", err)
			}
			if !cmd.Flags().Changed("timeout") {
				timeout = -1 // a work budget, not a time limit
			}
			return runAlloc(env, args[0], capacity, out, minimize, timeout, use)
		},
	}
	cmd.Flags().Var((*flagvalue.Bytes)(&capacity), "capacity", "capacity in bytes, K, M, G suffixes accepted (powers of 1024: 8M is 8 MiB; default: from NAME.<capacity>.csv or NAME.cap<capacity>.csv, else the smallest that works)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the solution CSV here")
	cmd.Flags().BoolVar(&minimize, "minimize", false, "find the smallest capacity that holds the problem")
	cmd.Flags().BoolVar(&validate, "validate", false, "validate SOLUTION.csv against PROBLEM.csv")
	cmd.Flags().Var((*flagvalue.Seconds)(&timeout), "timeout", "stop the search after this long, e.g. 30s, 2m or 30 (seconds), and not by its work (the answer may then depend on the machine); 0 = no limit; with --from: each exact probe")
	// The one default statement names both defaults (pflag prints it).
	cmd.Flags().Lookup("timeout").DefValue = "none: a work budget, the same on every machine"
	cmd.Flags().StringVar(&offsets, "offsets", "auto", "an offset column is: fixed (pinned), previous (a previous solution; every buffer placed anew) or auto (previous when every row has one and no fixed column, else fixed)")
	cmd.Flags().StringVar(&from, "from", "", "re-allocate the L2 of this Gemini schedule instead of solving a CSV problem")
	flagvalue.MarkRange(cmd.Flags(), flagvalue.Positive, "capacity")
	flagvalue.MarkRange(cmd.Flags(), flagvalue.NonNegative, "timeout")
	allocFromFlags(cmd.Flags(), &fromOpts)
	return acceptsKinds(cmd, detect.MiniMallocCSV, detect.GeminiIR)
}

// allocProgress reports a long solve on stderr unless --quiet
// (progress.Start; a 618 KB trace ran 6-15 s with a node count stuck at 0,
// or nothing at all when piped). Other writers (tests' buffers) get
// nothing.
func allocProgress(env *Env) (func(int64), func(string), func()) {
	w := env.Stderr
	if tw, ok := w.(*termsafe.Writer); ok {
		w = tw.W // the line is redrawn with carriage returns
	}
	if env.Quiet {
		return nil, nil, func() {}
	}
	return progress.Start(w, "alloc")
}

// runAlloc solves a problem file. timeout > 0 bounds the command in time,
// 0 means no limit at all, and a negative one the default work budget
// (npukit.AllocDefaultBudget: the same answer on every machine).
func runAlloc(env *Env, path string, capacity int64, out string, minimize bool, timeout time.Duration, use alloc.OffsetUse) error {
	// --timeout bounds the whole command, reading included: the clock
	// starts before the file is read.
	ctx := context.Background()
	budget := int64(-1) // none
	if timeout < 0 {
		budget = 0 // the default
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if err := refuseOtherKind(path, "allocation problem CSV", detect.MiniMallocCSV); err != nil {
		return err
	}
	t, err := readAllocTable(path, capacity)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	defer npukit.LimitAllocMemory(path)()
	progress, stage, done := allocProgress(env)
	res, err := npukit.SolveAlloc(ctx, path, t, use, npukit.AllocSolveOptions{Minimize: minimize, Budget: budget, Progress: progress, Stage: stage})
	done()
	if errors.Is(err, npukit.ErrInternal) {
		return &ExitError{Code: ExitUnexpected, Err: err}
	}
	if err != nil {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%s: %w", path, err)}
	}
	if res.Solution != nil && out != "" {
		if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return t.WriteSolution(w, res.Solution) }); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", out, err)}
		}
		res.Output = out
	}
	if err := render(env, res); err != nil {
		return err
	}
	if res.Status != "solved" {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// closeWord returns the word of words s most likely misspells ("" if
// none), by cobra's rule for an unknown subcommand (within two edits, or
// a prefix).
func closeWord(s string, words ...string) string {
	c := &cobra.Command{SuggestionsMinimumDistance: 2}
	for _, w := range words {
		c.AddCommand(&cobra.Command{Use: w, Run: func(*cobra.Command, []string) {}})
	}
	if m := c.SuggestionsFor(s); len(m) > 0 {
		return m[0]
	}
	return ""
}

func runAllocValidate(env *Env, problemPath, solutionPath string, capacity int64) error {
	for _, p := range []string{problemPath, solutionPath} {
		if err := refuseOtherKind(p, "allocation problem CSV", detect.MiniMallocCSV); err != nil {
			return err
		}
	}
	pt, err := readAllocTable(problemPath, capacity)
	if err != nil {
		return usageErr("%s: %v", problemPath, err)
	}
	st, err := readAllocTable(solutionPath, pt.Problem.Capacity)
	if err != nil {
		return usageErr("%s: %v", solutionPath, err)
	}
	p := &pt.Problem
	if p.Capacity <= 0 {
		return usageErr("%s: no capacity: give --capacity N", problemPath)
	}
	v, err := alloc.ValidateTable(p, st, solutionPath)
	if err != nil {
		return usageErr("%s: %v", solutionPath, err)
	}
	rep := v.Findings
	if env.JSON {
		if rep == nil {
			rep = diag.Report{}
		}
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else if err := v.WriteText(env.Stdout); err != nil {
		return err
	}
	if rep.HasErrors() {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}
