package alloc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// CapacityFromName reads the capacity from the naming conventions of the
// benchmark suites users share: MiniMalloc's NAME.<capacity>.csv and the
// NAME.cap<capacity>.csv of other suites (MiniMalloc_Benchmarking). A
// suffix after a double underscore ("A.1048576__64ec1cd4.csv", a copy kept
// apart from others of the same name) is ignored. ok is false when the name
// has no capacity.
func CapacityFromName(path string) (int64, bool) {
	parts := strings.Split(filepath.Base(path), ".")
	if len(parts) < 3 || !strings.EqualFold(parts[len(parts)-1], "csv") {
		return 0, false
	}
	seg, _, _ := strings.Cut(parts[len(parts)-2], "__")
	if len(seg) > 3 && strings.EqualFold(seg[:3], "cap") {
		seg = seg[3:]
	}
	c, err := strconv.ParseInt(seg, 10, 64)
	if err != nil || c <= 0 {
		return 0, false
	}
	return c, true
}

// Summary describes a problem (and its solution when the file has one).
type Summary struct {
	Buffers    int   `json:"buffers"`
	Capacity   int64 `json:"capacity,omitempty"`
	TimeStart  int64 `json:"time_start"`
	TimeEnd    int64 `json:"time_end"`
	TotalBytes int64 `json:"total_bytes"`
	LargestBuf int64 `json:"largest_buffer"`
	Peak       int64 `json:"peak"` // bytes alive at once: a lower bound on capacity
	Fixed      int   `json:"fixed"`
	Aligned    int   `json:"aligned"`
	WithGaps   int   `json:"with_gaps"`
	// Height is max(offset+size) when the file carries a full offset
	// column (a solution).
	Height *int64 `json:"height,omitempty"`
	// Offsets says how alloc reads the offset column by default
	// (OffsetsAuto): "fixed" pins the offsets given (counted in Fixed),
	// "previous" takes them as a previous solution and places every
	// buffer anew (Fixed is then 0); "" without a column.
	Offsets OffsetUse `json:"offsets,omitempty"`
}

// Summarize describes a table.
func Summarize(t *Table) *Summary {
	p := &t.Problem
	s := &Summary{Buffers: len(p.Buffers), Capacity: p.Capacity, Peak: Peak(p)}
	for i, b := range p.Buffers {
		if i == 0 || b.Lower < s.TimeStart {
			s.TimeStart = b.Lower
		}
		s.TimeEnd = max(s.TimeEnd, b.Upper)
		s.TotalBytes += b.Size
		s.LargestBuf = max(s.LargestBuf, b.Size)
		if b.Fixed {
			s.Fixed++
		}
		if b.Alignment > 1 {
			s.Aligned++
		}
		if len(b.Gaps) > 0 {
			s.WithGaps++
		}
	}
	if sol, ok := t.fullSolution(); ok {
		h := Height(p, sol)
		s.Height = &h
	}
	// Count what alloc pins, as alloc reads the column by default: a
	// previous solution pins nothing.
	if _, o := t.ProblemFor(OffsetsAuto); o.Use != "" {
		s.Offsets = o.Use
		if o.Use == OffsetsPrevious {
			s.Fixed = 0
		}
	}
	return s
}

// fullSolution returns the offset column as a solution when every row has
// an offset.
func (t *Table) fullSolution() (*Solution, bool) {
	if !t.HasOffsetColumn() || len(t.Offsets) == 0 {
		return nil, false
	}
	for _, ok := range t.HasOffset {
		if !ok {
			return nil, false
		}
	}
	return &Solution{Offsets: append([]int64(nil), t.Offsets...)}, true
}

// WriteText renders the summary as an aligned table.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "buffers\t%s\n", humanize.Count(int64(s.Buffers)))
	if s.Capacity > 0 {
		fmt.Fprintf(tw, "capacity\t%s (%s bytes)\n", humanize.Bytes(s.Capacity), humanize.Count(s.Capacity))
	}
	fmt.Fprintf(tw, "time span\t[%d, %d)\n", s.TimeStart, s.TimeEnd)
	fmt.Fprintf(tw, "total size\t%s\n", humanize.Bytes(s.TotalBytes))
	fmt.Fprintf(tw, "largest buffer\t%s\n", humanize.Bytes(s.LargestBuf))
	fmt.Fprintf(tw, "peak alive\t%s (%s bytes, lower bound on capacity)\n", humanize.Bytes(s.Peak), humanize.Count(s.Peak))
	fmt.Fprintf(tw, "fixed / aligned / with gaps\t%d / %d / %d\n", s.Fixed, s.Aligned, s.WithGaps)
	if s.Height != nil {
		fmt.Fprintf(tw, "solution height\t%s (%s bytes)", humanize.Bytes(*s.Height), humanize.Count(*s.Height))
		if s.Offsets == OffsetsPrevious {
			fmt.Fprintf(tw, ", the offset column read as a previous solution: alloc places every buffer anew (--offsets fixed pins them)")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// Check verifies a table: the problem on its own and, when the file
// carries a full offset column, that placement. Without a known capacity
// (0) only the placement's overlaps, alignment and signs are checked.
func Check(t *Table) diag.Report {
	p := t.Problem
	sol, full := t.fullSolution()
	if full {
		// The offset column is the placement under test, not a set of
		// fixed offsets.
		p.Buffers = append([]Buffer(nil), p.Buffers...)
		for i := range p.Buffers {
			p.Buffers[i].Fixed = false
		}
	}
	rep := CheckProblem(&p)
	// Over capacity only under the inclusive reading of `end`: the other
	// convention is the likelier reading, and no proof of infeasibility.
	if q := t.HalfOpenEnds(&p); q != nil && p.Capacity > 0 {
		if pk := Peak(q); pk <= p.Capacity {
			for i, d := range rep {
				if d.Rule == RuleOverPeak {
					rep = slices.Delete(rep, i, i+1)
					rep.Add(RuleEndConvention, "", "with `end` inclusive %s bytes are alive at once, more than the capacity %s; with half-open ends the peak is %s, which fits", humanize.Count(Peak(&p)), humanize.Count(p.Capacity), humanize.Count(pk))
					break
				}
			}
		}
	}
	if full {
		if p.Capacity <= 0 {
			p.Capacity = math.MaxInt64
		}
		rep = append(rep, Validate(&p, sol)...)
	}
	return rep
}

// largeProblem improves best, for a problem too large for the exact
// search, with the incomplete placements: the best-fit greedy unless the
// skyline placements were tried (triedSkyline), the peak-first placements
// (which may also raise best.LowerBound), and, while the answer is more
// than 0.5% above the lower bound, Sweep bisected between the bound and
// the best capacity so far within sweepWork (Sweep helps on
// problems with slack spread evenly; on real traces whose peak is one
// moment it has not beaten the others, so it is not paid for below that).
func largeProblem(ctx context.Context, p *Problem, best *Minimum, opt Options, triedSkyline bool) {
	workers := opt.Workers
	q := *p
	q.Capacity = math.MaxInt64 / 4
	if !triedSkyline || !skylineOK(p) {
		opt.stage("best-fit placement")
		if s := bestFit(ctx, &q); s != nil {
			// Never below the bound: an empty fixed buffer past the
			// height still needs its offset within the capacity.
			if h := max(Height(&q, s), best.LowerBound); h < best.Capacity {
				best.Capacity, best.Solution = h, s
			}
		}
	}
	opt.stage("peak-first placements (the buffers around the live-bytes peak, exactly)")
	peakFirst(ctx, p, best, peakWindowWork, workers)
	lo := best.LowerBound
	if best.Capacity-lo <= lo/200 {
		return
	}
	floor := lo
	left := int64(sweepWork) // shared by the probes
	for probes := 0; floor < best.Capacity && probes < 8 && left > 0 && ctxErr(ctx) == nil; probes++ {
		probe := floor + (best.Capacity-floor)/2
		if probes == 0 {
			probe = lo + lo/1000 // 0.1% above the peak is often reachable
			if probe >= best.Capacity {
				probe = lo
			}
		}
		q.Capacity = probe
		opt.stage("windowed sweep at capacity %s (probe %d of at most 8)", humanize.Count(probe), probes+1)
		budget := left / 2
		left -= budget
		if s := Sweep(ctx, &q, SweepOptions{Budget: budget}); s != nil {
			// The capacity is the placement's height: it may be below
			// the probe.
			best.Capacity, best.Solution = max(Height(&q, s), best.LowerBound), s
		} else {
			floor = probe + 1 // not placed (which proves nothing)
		}
	}
}

// peakWindowWork bounds the exact search of each peak window (work
// units, Options.Budget: about three seconds on one core here).
const peakWindowWork = 1e8

// lowerBound is the simple lower bound on the capacity: the live-bytes
// peak, and the end of every fixed buffer (an empty one included: the
// validator holds its offset to the capacity too).
func lowerBound(p *Problem) int64 {
	lo := Peak(p)
	for _, b := range p.Buffers {
		if b.Fixed {
			lo = max(lo, b.Offset+b.Size)
		}
	}
	return lo
}

// tooLargeForExact reports whether Exact would refuse p as too large
// (its decomposition is cheap next to a placement).
func tooLargeForExact(p *Problem) bool {
	comps, _, _ := decompose(p, &Solution{Offsets: make([]int64, len(p.Buffers))}, true)
	for _, c := range comps {
		if c.tooLarge {
			return true
		}
	}
	return false
}

// BestEffort is the best complete placement the incomplete methods find
// when the exact search cannot decide: the skyline placements, the greedy
// placements (lowest and best-fit holes) and, when they all exceed the
// capacity, Sweep at the capacity. It may exceed the capacity (see Height); nil when ctx ends
// before any placement.
func BestEffort(ctx context.Context, p *Problem) *Solution {
	if ctxErr(ctx) != nil {
		return nil
	}
	q := *p
	q.Capacity = math.MaxInt64 / 4
	var best *Solution
	better := func(s *Solution) {
		if s != nil && (best == nil || Height(&q, s) < Height(&q, best)) {
			best = s
		}
	}
	fits := func() bool { return best != nil && p.Capacity > 0 && Height(&q, best) <= p.Capacity }
	// The skyline first: its cost follows the buffers alive together,
	// while the greedies scan every placed buffer (quadratic: minutes
	// on 10^6 buffers, however few live at once).
	better(skylinePortfolio(ctx, &q, 0))
	if !fits() {
		better(heuristic(ctx, &q))
	}
	if !fits() {
		better(bestFit(ctx, &q))
	}
	if best != nil && !fits() && ctxErr(ctx) == nil && p.Capacity > 0 {
		better(Sweep(ctx, p, SweepOptions{}))
	}
	return best
}

// Minimum is the result of Minimize.
type Minimum struct {
	Capacity int64     // smallest capacity found with a solution
	Solution *Solution // a placement within Capacity
	// Proven is true when no smaller capacity can work: Capacity equals
	// the peak of bytes alive at once, or the solver proved Capacity-1
	// infeasible.
	Proven bool
	// LowerBound is the largest capacity known to be too small, plus one.
	LowerBound int64
	// Stopped says why the minimum is not proven when a probe gave a
	// reason other than the deadline (ErrTooLarge: no probe can decide;
	// ErrBudget: the work budget ran out).
	Stopped error
	// TimeLimited is set when a deadline stopped a probe: the answer may
	// then depend on the machine's speed and load.
	TimeLimited bool
}

// Minimize finds the smallest capacity that holds the problem, by
// bisection between the peak of bytes alive at once (a lower bound) and
// the heuristic's height, each probe decided by solve. When ctx has a
// deadline each probe gets half of the time left; a probe that runs out
// leaves its capacity undecided and the bisection continues above it, so
// a timeout still returns the best capacity found, with Proven false.
// opt.Budget, when set, is shared by the probes: each gets half of what
// the earlier ones left, so the whole minimisation does at most about
// that much work per strategy and stops at the same point on every
// machine. Capacity is the height of the placement found (never below
// LowerBound), so Capacity-LowerBound is the answer's distance to the
// best proven bound.
func Minimize(ctx context.Context, p *Problem, solve Solver, opt Options) (*Minimum, error) {
	q := *p
	lo := lowerBound(p)
	q.Capacity = 1<<62 - 1
	// Past the exact search's reach the skyline placements are the
	// better start (and the greedy's seconds on 10^4 buffers are saved).
	large := tooLargeForExact(p)
	var h *Solution
	if large {
		opt.stage("skyline placements (%s: too many alive together for the exact search)", humanize.Plural(len(p.Buffers), "buffer"))
		h = skylinePortfolio(ctx, &q, opt.Workers)
	}
	if h == nil {
		opt.stage("first placement (greedy)")
		h = heuristic(ctx, &q)
	}
	if h == nil {
		return nil, fmt.Errorf("stopped before a first placement was found: %w", ctxErr(ctx))
	}
	hi := Height(&q, h)
	if hi < lo {
		hi = lo
	}
	if len(Validate(&Problem{Capacity: hi, Buffers: p.Buffers}, h)) > 0 {
		return nil, fmt.Errorf("the fixed offsets conflict: no capacity holds the problem")
	}
	best := &Minimum{Capacity: hi, Solution: h, LowerBound: lo}
	if large {
		// Every exact probe would be refused alike: the incomplete
		// placements and the peak window instead.
		best.Stopped = ErrTooLarge
		largeProblem(ctx, p, best, opt, true)
		best.Proven = best.LowerBound >= best.Capacity
		return best, nil
	}
	floor := lo // smallest capacity not decided yet
	proven := true
	// Try the lower bound first: it is often reachable.
	probe := lo
	pool := opt.Budget
	for floor < best.Capacity {
		if ctxErr(ctx) != nil {
			proven = false
			best.TimeLimited = true
			break
		}
		if opt.Budget > 0 && pool <= 0 {
			proven = false
			best.Stopped = ErrBudget
			break
		}
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok {
			pctx, cancel = context.WithTimeout(ctx, max(time.Until(dl)/2, 10*time.Millisecond))
		}
		q.Capacity = probe
		opt.stage("exact search at capacity %s (bound %s, best %s)", humanize.Count(probe), humanize.Count(best.LowerBound), humanize.Count(best.Capacity))
		popt := opt
		spent := int64(0)
		if opt.Budget > 0 {
			popt.Budget = max(pool/2, 1)
			// A solver that does not report its work is charged its
			// whole share.
			spent = popt.Budget
			popt.charge = func(w int64) { spent = w }
		}
		sol, st, err := solve(pctx, &q, popt)
		cancel()
		pool -= spent
		if st == TimedOut && errors.Is(err, ErrBudget) {
			best.Stopped = err
		} else if st == TimedOut && pctx.Err() != nil {
			best.TimeLimited = true
		}
		if st == TimedOut && errors.Is(err, ErrTooLarge) {
			// Every exact probe would be refused alike: bisect with
			// the incomplete placements instead (nothing proven).
			best.Stopped = err
			proven = false
			largeProblem(ctx, p, best, opt, false)
			break
		}
		switch st {
		case Solved:
			// The placement's height, which may be below the probe.
			best.Capacity, best.Solution = max(min(Height(&q, sol), probe), best.LowerBound), sol
		case Infeasible:
			floor = probe + 1
			if proven {
				best.LowerBound = floor
			}
		default:
			floor = probe + 1 // undecided: look above it
			proven = false
		}
		probe = floor + (best.Capacity-floor)/2
	}
	// LowerBound only ever holds proven bounds (the peak, probes proven
	// infeasible with none undecided below them, a window's minimum).
	best.Proven = best.LowerBound >= best.Capacity
	return best, nil
}
