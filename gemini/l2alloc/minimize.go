package l2alloc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/gemini"
)

// Status says how far a minimal capacity is proven.
type Status string

const (
	// Optimal: the solver proved that no smaller capacity holds the
	// schedule (or the capacity equals the live-bytes lower bound).
	Optimal Status = "optimal"
	// BestFound: a probe timed out; Capacity is the smallest found and
	// LowerBound the largest proven bound, with a gap between them.
	BestFound Status = "best found"
)

// SolveOptions tune the minimisation.
type SolveOptions struct {
	// Timeout bounds each exact probe of the binary search; 0 means no
	// limit beyond the context. A probe that times out leaves its capacity
	// undecided and the result is BestFound instead of Optimal.
	Timeout time.Duration
	// Budget bounds the whole minimisation of one core in time; 0 means
	// none. When it runs out the smallest capacity found so far is
	// returned as BestFound.
	Budget time.Duration
	// Work bounds the minimisation of one core in work instead
	// (alloc.Options.Budget, shared by its exact probes as alloc.Minimize
	// shares it): it stops at the same point on every machine, loaded or
	// not, so the answer does not depend on the machine as a Timeout's or
	// Budget's may. 0 means none.
	Work    int64
	Workers int // workers of the solver; 0 = all CPUs
	// Solver decides each probe; nil means alloc.Exact.
	Solver alloc.Solver
	// Probe, when set, is called after every exact probe with the
	// capacity tried, its outcome and its wall time (progress reporting).
	Probe func(capacity int64, st alloc.Status, d time.Duration)
}

// Result is the smallest L2 found for one core.
type Result struct {
	// Capacity is the smallest capacity for which a placement was found
	// (the height of Solution).
	Capacity int64
	// LowerBound is proven: no placement exists below it. It starts at
	// the live-bytes peak and rises with every capacity proven infeasible.
	LowerBound int64
	Status     Status
	Solution   *alloc.Solution
	Probes     int           // exact solves run
	TimedOut   int           // probes that timed out
	Elapsed    time.Duration // wall time of the minimisation
}

// Minimize finds the smallest capacity that holds a core's problem with
// alloc.Minimize (bisection between the live-bytes peak, probed first, and
// the greedy heuristic's height), each probe decided by alloc.Exact within
// opt.Timeout, and the whole within opt.Work (work) and opt.Budget (time). The probes know two facts of the schedule: the file's own
// placement solves every capacity from its extent up (when it is a valid
// solution), and with a common alignment no capacity below the aligned
// lower bound works (see alignedPeak). The problem's Capacity is left as
// it was.
func Minimize(ctx context.Context, cp *CoreProblem, opt SolveOptions) (*Result, error) {
	start := time.Now()
	if opt.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Budget)
		defer cancel()
	}
	p := cp.Problem // a copy: alloc.Minimize sets the capacity per probe
	alb := alignedPeak(&p)
	res := &Result{}
	solve := func(ctx context.Context, q *alloc.Problem, o alloc.Options) (*alloc.Solution, alloc.Status, error) {
		switch {
		case q.Capacity < alb:
			o.Charge(0)
			return nil, alloc.Infeasible, nil
		case cp.FileValid && q.Capacity >= cp.FileExtent:
			o.Charge(0)
			return &alloc.Solution{Offsets: append([]int64(nil), cp.FileSolution.Offsets...)}, alloc.Solved, nil
		}
		res.Probes++
		sol, st, err := probe(ctx, q, opt, o)
		if st == alloc.TimedOut {
			res.TimedOut++
		}
		return sol, st, err
	}
	m, err := alloc.Minimize(ctx, &p, solve, alloc.Options{Workers: opt.Workers, Budget: opt.Work})
	if m == nil {
		if err == nil {
			err = errors.New("no placement")
		}
		return nil, fmt.Errorf("%s: %w", gemini.CoreName(cp.Core, cp.Key), err)
	}
	res.Capacity, res.Solution, res.LowerBound = m.Capacity, m.Solution, max(m.LowerBound, alb)
	if h := alloc.Height(&p, m.Solution); h < res.Capacity {
		res.Capacity = h
	}
	// A timeout ends the bisection early: the file's placement may still
	// be better than the last capacity solved.
	if cp.FileValid && cp.FileExtent < res.Capacity {
		res.Capacity = cp.FileExtent
		res.Solution = &alloc.Solution{Offsets: append([]int64(nil), cp.FileSolution.Offsets...)}
	}
	res.Status = BestFound
	if m.Proven || res.LowerBound >= res.Capacity {
		res.Status, res.LowerBound = Optimal, res.Capacity
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// probe decides one capacity; o carries the probe's share of the work
// budget from alloc.Minimize (and reports the work it used back).
func probe(ctx context.Context, p *alloc.Problem, opt SolveOptions, o alloc.Options) (sol *alloc.Solution, st alloc.Status, err error) {
	if opt.Probe != nil {
		t0 := time.Now()
		defer func() { opt.Probe(p.Capacity, st, time.Since(t0)) }()
	}
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opt.Timeout, errors.New("probe timed out"))
		defer cancel()
	}
	solve := opt.Solver
	if solve == nil {
		solve = alloc.Exact
	}
	o.Workers = opt.Workers
	return solve(ctx, p, o)
}

// alignedPeak is a lower bound for problems whose buffers share one
// alignment a > 1: in any placement the buffers alive at one moment, taken
// in offset order, each take their size rounded up to a (the next offset is
// aligned), except the topmost one. So the capacity is at least the peak of
// the rounded sizes minus the largest rounding slack. 0 when it does not
// apply.
func alignedPeak(p *alloc.Problem) int64 {
	if len(p.Buffers) == 0 {
		return 0
	}
	a := p.Buffers[0].Alignment
	if a <= 1 {
		return 0
	}
	q := alloc.Problem{Buffers: make([]alloc.Buffer, len(p.Buffers))}
	var slack int64
	for i, b := range p.Buffers {
		if b.Alignment != a || b.Fixed || b.Size > (1<<62)-a {
			return 0
		}
		r := (b.Size + a - 1) / a * a
		slack = max(slack, r-b.Size)
		b.Size = r
		q.Buffers[i] = b
	}
	return alloc.Peak(&q) - slack
}
