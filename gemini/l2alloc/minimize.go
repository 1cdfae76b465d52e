package l2alloc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/npukit/npukit/alloc"
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
	// Budget bounds the whole minimisation of one core; 0 means none.
	// When it runs out the smallest capacity found so far is returned as
	// BestFound.
	Budget  time.Duration
	Workers int // workers of alloc.Exact; 0 = all CPUs
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

// Minimize finds the smallest capacity that holds a core's problem by
// binary search with alloc.Exact, between the live-bytes peak (a lower
// bound, probed first) and the best of the greedy heuristic and the file's
// own placement (upper bounds). A probe proven infeasible raises the proven
// lower bound; a solved probe lowers the capacity to the height of its
// placement. The problem's Capacity is left as it was.
func Minimize(ctx context.Context, cp *CoreProblem, opt SolveOptions) (*Result, error) {
	start := time.Now()
	p := cp.Problem // a copy: Capacity changes per probe, Buffers shared read-only
	var lb int64
	for i := range p.Buffers {
		lb = max(lb, p.Buffers[i].Size)
	}
	lb = max(lb, alloc.Peak(&p), alignedPeak(&p))
	res := &Result{LowerBound: lb}

	// Upper bounds: the heuristic's placement and the file's.
	var best *alloc.Solution
	var ub int64
	if h := alloc.Heuristic(&p); h != nil {
		p.Capacity = alloc.Height(&p, h)
		if len(alloc.Validate(&p, h)) == 0 {
			best, ub = h, p.Capacity
		}
	}
	if cp.FileValid && (best == nil || cp.FileExtent < ub) {
		f := &alloc.Solution{Offsets: append([]int64(nil), cp.FileSolution.Offsets...)}
		best, ub = f, alloc.Height(&p, f)
	}
	if best == nil {
		// Neither bound applies (should not happen: the heuristic's
		// placement is valid at its own height); solve at the region.
		p.Capacity = cp.Problem.Capacity
		sol, st, err := probe(ctx, &p, opt)
		res.Probes++
		switch st {
		case alloc.Solved:
			best, ub = sol, alloc.Height(&p, sol)
		case alloc.Infeasible:
			return nil, fmt.Errorf("core %d: no placement fits the ring-buffer region of %d bytes", cp.Key, cp.Problem.Capacity)
		default:
			return nil, fmt.Errorf("core %d: no placement found within the region: %w", cp.Key, err)
		}
	}

	if opt.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Budget)
		defer cancel()
	}
	lo := lb // search floor: proven, or raised past timed-out probes
	first := true
	for lo < ub && ctx.Err() == nil {
		mid := lo + (ub-lo)/2
		if first {
			// The lower bound first: a placement there is optimal
			// at once, and live-bytes peaks are often reachable.
			mid, first = lo, false
		}
		p.Capacity = mid
		sol, st, _ := probe(ctx, &p, opt)
		res.Probes++
		switch st {
		case alloc.Solved:
			best, ub = sol, alloc.Height(&p, sol)
		case alloc.Infeasible:
			// Infeasible at mid proves every capacity <= mid
			// infeasible, whatever earlier probes said.
			lo = mid + 1
			res.LowerBound = max(res.LowerBound, mid+1)
		default:
			res.TimedOut++
			lo = mid + 1
		}
	}
	res.Capacity, res.Solution = ub, best
	res.Status = BestFound
	if res.LowerBound >= ub {
		res.LowerBound = ub
		res.Status = Optimal
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func probe(ctx context.Context, p *alloc.Problem, opt SolveOptions) (sol *alloc.Solution, st alloc.Status, err error) {
	if opt.Probe != nil {
		t0 := time.Now()
		defer func() { opt.Probe(p.Capacity, st, time.Since(t0)) }()
	}
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opt.Timeout, errors.New("probe timed out"))
		defer cancel()
	}
	return alloc.Exact(ctx, p, alloc.Options{Workers: opt.Workers})
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
