package npukit

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/npukit/npukit/alloc"
)

// A time limit that runs out before any placement says so in words, and
// is still a deadline to errors.Is: it said "stopped before a first
// placement was found: context deadline exceeded".
func TestSolveAllocTimeLimitBeforeAnyPlacement(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := range 2000 {
		lo := i % 97
		b.WriteString("b" + strconv.Itoa(i) + "," + strconv.Itoa(lo) + "," + strconv.Itoa(lo+50) + "," + strconv.Itoa(64+i%31) + "\n")
	}
	tab, err := alloc.ReadCSV(strings.NewReader(b.String()), 0, alloc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = SolveAlloc(ctx, "p.csv", tab, alloc.OffsetsAuto, AllocSolveOptions{Minimize: true})
	if err == nil {
		t.Skip("a placement was found before the deadline was looked at")
	}
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "context deadline exceeded") || !strings.Contains(err.Error(), "time limit") {
		t.Errorf("got %v", err)
	}
}
