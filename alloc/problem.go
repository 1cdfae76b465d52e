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

// Options tune a solve. The zero value means no time limit beyond ctx.
type Options struct {
	Workers  int                  // parallel workers; 0 = runtime.NumCPU()
	Progress func(explored int64) // optional, called periodically
}

// Solver is the contract every solver in this package meets, so callers
// (the CLI, the SBUF planner, the Gemini re-allocation) can swap them.
// Solve returns (solution, Solved, nil), (nil, Infeasible, nil) with a proof
// of infeasibility, or (nil, TimedOut, ctx.Err()).
type Solver func(ctx context.Context, p *Problem, opt Options) (*Solution, Status, error)
