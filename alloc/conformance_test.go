package alloc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/npukit/npukit/internal/conformance"
)

// TestMiniMallocBenchmark solves every problem of MiniMalloc's benchmark at
// capacity 1,048,576 and validates each placement. The time limit is
// generous (the figures that matter come from bench/alloc.sh): each
// problem takes about a second or less, all of them a few seconds.
func TestMiniMallocBenchmark(t *testing.T) {
	dir := conformance.Benchmarks(t, "minimalloc")
	for _, path := range conformance.Files(t, dir, "*.csv") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tb, err := ReadCSV(f, 1048576, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			p := &tb.Problem
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			sol, st, err := Exact(ctx, p, Options{})
			t.Logf("%d buffers: %v in %v", len(p.Buffers), st, time.Since(start).Round(time.Millisecond))
			if st != Solved {
				t.Fatalf("status %v (%v): every benchmark problem is solvable at this capacity", st, err)
			}
			if rep := Validate(p, sol); len(rep) > 0 {
				t.Fatalf("invalid placement: %v", rep)
			}
		})
	}
}
