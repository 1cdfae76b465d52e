package alloc

import (
	"context"
	"time"
)

// ctxErr is ctx.Err(), and also DeadlineExceeded once the deadline has
// passed though the context's timer has not fired yet. Where goroutines
// are not preempted (js/wasm: the browser viewer runs the solver on one
// thread), a search that never blocks gives the timer no chance to fire,
// so the searches compare the clock with the deadline themselves.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
