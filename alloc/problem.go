package alloc

import (
	"context"
	"errors"
	"fmt"
)

// Gap is a time window [Lower, Upper) in which a buffer is inactive. When
// Window is set, the buffer only occupies [Window.Lo, Window.Hi) of its own
// range during the gap (MiniMalloc's `lo-hi@wlo:whi` form); otherwise it
// occupies nothing during the gap.
type Gap struct {
	Lower, Upper int64
	Window       *Window
}

// Window is a sub-range [Lo, Hi) of a buffer's bytes, relative to its offset.
type Window struct{ Lo, Hi int64 }

// Buffer is one buffer to place: it is alive over the half-open time range
// [Lower, Upper) and needs Size bytes.
type Buffer struct {
	ID           string
	Lower, Upper int64
	Size         int64
	Alignment    int64 // offset must be a multiple; 0 or 1 means none
	Gaps         []Gap
	Offset       int64 // fixed offset when Fixed
	Fixed        bool
	Hint         int64 // preferred offset when HasHint
	HasHint      bool
}

// Problem is a static allocation problem: place every buffer within
// [0, Capacity) so that no two buffers alive at the same time overlap.
type Problem struct {
	Capacity int64
	Buffers  []Buffer
}

// Solution holds one offset per buffer, index-aligned with Problem.Buffers.
type Solution struct {
	Offsets []int64
}

// Status is the outcome of a solve.
type Status int

const (
	// Solved: Solution is a valid placement within capacity.
	Solved Status = iota
	// Infeasible: the search proved that no placement exists within capacity.
	Infeasible
	// TimedOut: the search stopped before deciding.
	TimedOut
)

func (s Status) String() string {
	switch s {
	case Solved:
		return "solved"
	case Infeasible:
		return "infeasible"
	case TimedOut:
		return "timed out"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ErrInfeasible is returned when a solver proves that no solution exists
// within the capacity.
var ErrInfeasible = errors.New("no solution exists within capacity")

// Options tune a solve. The zero value means no limit beyond ctx.
type Options struct {
	// Workers is accepted for compatibility and no longer changes the
	// answer: the exact search always runs the same strategies (on as
	// many cores as the Go runtime gives it) and keeps the answer of the
	// one that decided with the least work, so the placement does not
	// depend on the cores, their load or the scheduler.
	Workers int
	// Budget bounds the work of each search strategy (in work units:
	// buffers and sections scanned, about 4*10^7 a second on one core
	// here); 0 = none. A solve stopped by it is TimedOut with ErrBudget.
	// Unlike a deadline it stops at the same point on every machine.
	// Minimize shares it across its probes (see Minimize).
	Budget   int64
	Progress func(explored int64) // optional, called periodically
	// Searched, if set, is told once per exact solve the nodes of the
	// searches whose answers were kept (the same on every run, unlike
	// Progress's count, which includes the strategies that lost).
	Searched func(nodes int64)
	// Stage, if set, is told what the solve is doing when that changes
	// ("first placement", "probe capacity N", "peak window 1 of 2"...),
	// so a long solve can say more than a node count.
	Stage func(stage string)
	// charge, when set, is told the work a solve used (per strategy:
	// the deciding strategy's, or the budget when none decided).
	charge func(work int64)
}

// Charge tells the caller that passed o (Minimize, sharing a budget
// among its probes) how much work a solve used. A Solver that wraps
// another and decides some problems itself charges 0 for those, so they
// do not draw on the shared budget (one that does not report is charged
// its whole share).
func (o Options) Charge(work int64) {
	if o.charge != nil {
		o.charge(work)
	}
}

func (o *Options) stage(format string, args ...any) {
	if o.Stage != nil {
		o.Stage(fmt.Sprintf(format, args...))
	}
}

// ErrBudget is returned with TimedOut when the work budget (Options.Budget)
// ran out before the search decided.
var ErrBudget = errors.New("the search's work budget ran out before it decided")

// Solver is the contract every solver in this package meets, so callers
// (the CLI, the SBUF planner, the Gemini re-allocation) can swap them.
// Solve returns (solution, Solved, nil), (nil, Infeasible, nil) with a proof
// of infeasibility, or (nil, TimedOut, ctx.Err()).
type Solver func(ctx context.Context, p *Problem, opt Options) (*Solution, Status, error)
