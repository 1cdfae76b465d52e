package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/l2alloc"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allocFromOptions are the settings of a schedule re-allocation
// (`npukit gemini realloc`, and `npukit alloc --from` once hooked there).
type allocFromOptions struct {
	Rewrite  string        // write the schedule with new addresses here ("" = no)
	Timeout  time.Duration // per exact probe; 0 = no limit
	Budget   time.Duration // per core; 0 = no limit
	Align    int64         // offset alignment in bytes; 0/1 = none
	Prefetch string        // DRAM load policy: none, all or file (l2alloc.ParsePrefetch)
}

// allocFromResult is the output: the per-core report and where the
// rewritten schedule went.
type allocFromResult struct {
	File string `json:"file"`
	*l2alloc.Report
	Rewritten string `json:"rewritten,omitempty"`
	// InputErrors is the number of check errors of the input schedule
	// (as check counts them); the rewrite is written only if it has no
	// error of any rule beyond the input's.
	InputErrors int `json:"input_check_errors"`
}

func (r *allocFromResult) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s (%s IR)\n", r.File, r.Variant); err != nil {
		return err
	}
	if err := r.Report.WriteText(w); err != nil {
		return err
	}
	if r.Rewritten != "" {
		verdict := "checked clean"
		if r.InputErrors > 0 {
			verdict = fmt.Sprintf("no new check errors (the input has %s)", humanize.Plural(r.InputErrors, "error"))
		}
		_, err := fmt.Fprintf(w, "wrote %s: new addresses, %s\n", r.Rewritten, verdict)
		return err
	}
	return nil
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
	sopt := l2alloc.SolveOptions{Timeout: opts.Timeout, Budget: opts.Budget}
	if !env.Quiet && isTerminal(env.Stderr) {
		sopt.Probe = func(c int64, st alloc.Status, d time.Duration) {
			fmt.Fprintf(env.Stderr, "probe capacity %d: %s in %v\n", c, probeStatus(st), d.Round(time.Millisecond))
		}
	}
	rep, err := l2alloc.Reallocate(context.Background(), s, l2alloc.Options{Align: opts.Align, Prefetch: pf}, sopt)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", path, err)}
	}
	res := &allocFromResult{File: path, Report: rep}
	var rewriteErr error
	if opts.Rewrite != "" {
		for _, c := range rep.Cores {
			if c.RegionBytes > 0 && c.MinCapacity > c.RegionBytes {
				rewriteErr = &ExitError{Code: ExitFindings, Err: fmt.Errorf("core %d: the smallest placement found (%d bytes) exceeds the ring-buffer region (%d bytes): %s not written", c.Key, c.MinCapacity, c.RegionBytes, opts.Rewrite)}
				break
			}
		}
		if rewriteErr == nil {
			n, err := rewriteSchedule(s, rep, opts.Rewrite)
			if err != nil {
				return err
			}
			res.Rewritten, res.InputErrors = opts.Rewrite, n
		}
	}
	if env.JSON {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else if err := res.WriteText(env.Stdout); err != nil {
		return err
	}
	return rewriteErr
}

// rewriteSchedule applies the report's placements to s and writes it,
// refusing when the result has more errors of any check rule than the
// input had. It returns the number of check errors of the input.
func rewriteSchedule(s *gemini.Schedule, rep *l2alloc.Report, out string) (int, error) {
	before, total := errorsByRule(gemini.Check(s))
	n, err := rep.Rewrite(s)
	if err != nil {
		return 0, &ExitError{Code: ExitUnexpected, Err: err}
	}
	if n == 0 {
		return 0, usageErr("%s: nothing to rewrite (the schedule's snapshots have no addresses)", out)
	}
	after, _ := errorsByRule(gemini.Check(s))
	for rule, k := range after {
		if k > before[rule] {
			return 0, &ExitError{Code: ExitUnexpected, Err: fmt.Errorf("rewritten schedule fails %s (%d errors, input had %d): not written", rule, k, before[rule])}
		}
	}
	if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return gemini.Write(w, s) }); err != nil {
		return 0, &ExitError{Code: ExitUsage, Err: err}
	}
	return total, nil
}

// errorsByRule counts a report's errors per rule, a grouped line counting
// for the findings it stands for (so that a rewrite cannot hide a new
// error in a group), and in all as check counts them (one per line).
func errorsByRule(rep diag.Report) (map[string]int, int) {
	m := map[string]int{}
	for _, d := range rep {
		if d.Severity == diag.Error {
			m[d.Rule] += max(d.Count, 1)
		}
	}
	return m, rep.Count(diag.Error)
}

func probeStatus(st alloc.Status) string {
	switch st {
	case alloc.Solved:
		return "solved"
	case alloc.Infeasible:
		return "infeasible"
	}
	return "timed out"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// allocFromDefaultTimeout bounds each exact probe of a re-allocation
// when --timeout is not given.
const allocFromDefaultTimeout = 10 * time.Second

// newGeminiReallocCmd registers the re-allocation as `npukit gemini
// realloc`, the same job as `npukit alloc --from SCHEDULE.json`, for users
// who look for it under the format's group.
func newGeminiReallocCmd(env *Env) *cobra.Command {
	var opts allocFromOptions
	cmd := &cobra.Command{
		Use:   "realloc SCHEDULE.json [--rewrite OUT.json] [--timeout D]",
		Short: "Smallest L2 per core for a schedule (exact solver) and a rewrite with new addresses",
		Long: `realloc builds each core's L2 allocation problem from the buffer snapshots (one
buffer per tensor_id, alive over the workloads whose snapshots list it; the ring-buffer
region is the capacity) and finds the smallest capacity that holds it: a binary search
with the exact solver between the live-bytes peak and the file's own extent. "optimal"
means proven minimal; "best found" means a probe timed out (--timeout) and the lower
bound is the largest proven one. "load waits" counts the DRAM loads whose region is still
held by the previous workload (file -> new placement). --prefetch all keeps every load's
region free one workload early (no waits, larger L2); --prefetch file keeps every load that
does not wait in the file from waiting (never more L2 than the file's own placement).

--rewrite writes the schedule with the new addresses (no tensor wraps; every entry of a
tensor_id at one address); it is written only if it adds no check error. The raw IR has
no addresses: only its live peak is shown and there is nothing to rewrite.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return allocFromCmdRun(env, args[0], opts)
		},
	}
	f := cmd.Flags()
	opts.Timeout = allocFromDefaultTimeout
	f.Var((*secondsOrDuration)(&opts.Timeout), "timeout", "time limit of each exact probe, e.g. 30s, 2m or 30 (seconds); 0 = no limit")
	markRange(f, "non-negative", "timeout")
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
	opts.Budget = time.Minute
	f.Var((*secondsOrDuration)(&opts.Budget), "budget", "schedules: time limit of each core's minimisation, e.g. 30s, 2m or 30 (seconds); 0 = no limit")
	markRange(f, "non-negative", "budget")
	f.Var((*byteSize)(&opts.Align), "align", "schedules: align every address to this many bytes (K, M, G suffixes; default: none)")
	f.StringVar(&opts.Prefetch, "prefetch", "none", "schedules: DRAM loads whose region stays free during the previous workload: none, all or file (those that do not wait in the file)")
}

func init() {
	registerGeminiCommand(newGeminiReallocCmd)
	registerDemoStep(demoStep{order: 40, kind: detect.GeminiIR, name: "gemini realloc (minimal L2 per core, rewrite)", run: geminiDemoRealloc})
}

// geminiDemoRealloc re-allocates the example schedule's L2 and writes the
// rewrite beside the demo's other outputs.
func geminiDemoRealloc(env *Env, path, outDir string) error {
	out := filepath.Join(outDir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".realloc.json")
	return allocFromCmdRun(env, path, allocFromOptions{Rewrite: out, Timeout: 2 * time.Second, Budget: 5 * time.Second})
}
