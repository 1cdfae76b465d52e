package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/l2alloc"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/progress"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allocFromOptions are the settings of a schedule re-allocation
// (`npukit gemini realloc`, and `npukit alloc --from` once hooked there).
type allocFromOptions struct {
	Rewrite string        // write the schedule with new addresses here ("" = no)
	Timeout time.Duration // per exact probe; 0 = no limit
	Budget  time.Duration // per core; 0 = no limit
	// Work bounds each core's minimisation in work (l2alloc.SolveOptions.Work):
	// the default, npukit.AllocDefaultBudget, unless a time limit
	// (--timeout, --budget) is given. The same schedule then gives the
	// same addresses on every machine, loaded or not.
	Work     int64
	Align    int64  // offset alignment in bytes; 0/1 = none
	Prefetch string // DRAM load policy: none, all or file (l2alloc.ParsePrefetch)
}

// allocFromCmdRun re-allocates the L2 of every core of a Gemini schedule:
// it prints the file's peak, the live peak and the smallest L2 found per
// core, and with opts.Rewrite writes the schedule with the new addresses
// (atomically), after verifying that the rewrite adds no check error.
func allocFromCmdRun(env *Env, path string, opts allocFromOptions) error {
	if err := refuseOtherKind(path, detect.GeminiIR.Describe(), detect.GeminiIR); err != nil {
		return err
	}
	s, err := gemini.ReadFile(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", path, ioCause(err))}
	}
	if opts.Align < 0 {
		return usageErr("--align must be >= 0")
	}
	pf, err := l2alloc.ParsePrefetch(opts.Prefetch)
	if err != nil {
		return usageErr("--prefetch: %v", err)
	}
	sopt := l2alloc.SolveOptions{Timeout: opts.Timeout, Budget: opts.Budget, Work: opts.Work}
	if !env.Quiet && progress.IsTerminal(env.Stderr) {
		sopt.Probe = func(c int64, st alloc.Status, d time.Duration) {
			fmt.Fprintf(env.Stderr, "probe capacity %d: %s in %v\n", c, st, d.Round(time.Millisecond))
		}
	}
	rep, err := l2alloc.Reallocate(context.Background(), s, l2alloc.Options{Align: opts.Align, Prefetch: pf}, sopt)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", path, err)}
	}
	res := &l2alloc.FileReport{File: path, Report: rep}
	var rewriteErr error
	if opts.Rewrite != "" {
		err := res.WriteRewrite(s, opts.Rewrite)
		var oe *l2alloc.OversizeError
		var re *l2alloc.RewriteError
		switch {
		case errors.As(err, &oe):
			rewriteErr = &ExitError{Code: ExitFindings, Err: err} // after the report
		case errors.As(err, &re):
			return &ExitError{Code: ExitUnexpected, Err: err}
		case err != nil:
			return usageErr("%v", err)
		}
	}
	if err := render(env, res); err != nil {
		return err
	}
	return rewriteErr
}

// allocFromWork sets the work budget of a re-allocation: the default
// one unless the user bounded it in time (--timeout, --budget), when the
// answer may depend on the machine.
func allocFromWork(f *pflag.FlagSet, opts *allocFromOptions) {
	opts.Work = 0
	if !f.Changed("timeout") && !f.Changed("budget") {
		opts.Work = npukit.AllocDefaultBudget
	}
}

// newGeminiReallocCmd registers the re-allocation as `npukit gemini
// realloc`, the same job as `npukit alloc --from SCHEDULE.json`, for users
// who look for it under the format's group.
func newGeminiReallocCmd(env *Env) *cobra.Command {
	var opts allocFromOptions
	cmd := &cobra.Command{
		Use:   "realloc SCHEDULE.json [--rewrite OUT.json] [--timeout D]",
		Short: "Smallest L2 per core for a schedule (exact solver) and a rewrite with new addresses",
		Long:  longHelp("gemini-realloc"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			allocFromWork(cmd.Flags(), &opts)
			return allocFromCmdRun(env, args[0], opts)
		},
	}
	f := cmd.Flags()
	f.Var((*flagvalue.Seconds)(&opts.Timeout), "timeout", "time limit of each exact probe, e.g. 30s, 2m or 30 (seconds), instead of the work budget (the answer may then depend on the machine); 0 = no limit")
	f.Lookup("timeout").DefValue = "none: a work budget, the same on every machine"
	flagvalue.MarkRange(f, flagvalue.NonNegative, "timeout")
	allocFromFlags(f, &opts)
	return acceptsKinds(cmd, detect.GeminiIR)
}

// allocFromFlags adds the re-allocation flags other than --timeout (which
// `npukit alloc` already has) to a command, so `alloc --from` can take them:
//
//	var from string
//	cmd.Flags().StringVar(&from, "from", "", "re-allocate the L2 of a Gemini schedule")
//	allocFromFlags(cmd.Flags(), &fromOpts)
//	// in RunE: if from != "" { fromOpts.Timeout = timeout; return allocFromCmdRun(env, from, fromOpts) }
func allocFromFlags(f *pflag.FlagSet, opts *allocFromOptions) {
	f.StringVar(&opts.Rewrite, "rewrite", "", "schedules: write the schedule with the new addresses to this file")
	f.Var((*flagvalue.Seconds)(&opts.Budget), "budget", "schedules: time limit of each core's minimisation, e.g. 30s, 2m or 30 (seconds), instead of the work budget (the answer may then depend on the machine); 0 = no limit")
	f.Lookup("budget").DefValue = "none: a work budget, the same on every machine"
	flagvalue.MarkRange(f, flagvalue.NonNegative, "budget")
	f.Var((*flagvalue.Bytes)(&opts.Align), "align", "schedules: align every address to this many bytes (K, M, G suffixes; default: none)")
	f.StringVar(&opts.Prefetch, "prefetch", "none", "schedules: DRAM loads whose region stays free during the previous workload: none, all or file (those that do not wait in the file)")
}

func init() {
	registerGeminiCommand(newGeminiReallocCmd)
}
