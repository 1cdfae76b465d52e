package alloc

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// TestPortfolioSameAnswerWhicheverStrategyIsSlowed: the exact search's
// strategies run concurrently, and the placement must not depend on
// which of them the machine runs faster (a busy core, GOMAXPROCS=1). Each
// strategy in turn is slowed down a hundredfold or more (it burns CPU at
// every check point) and the placement must stay the one found with no
// strategy slowed. Taking the first strategy to finish failed this test:
// MiniMalloc's problem K is decided by two strategies with different
// placements. No time is measured.
func TestPortfolioSameAnswerWhicheverStrategyIsSlowed(t *testing.T) {
	path := filepath.Join(conformance.Benchmarks(t, "minimalloc"), "K.1048576.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	tb, err := ReadCSV(f, 1048576, Limits{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	p := &tb.Problem
	defer func() { paceHook = nil }()
	var sink int
	var first []int64
	for slow := -1; slow < len(portfolio); slow++ {
		paceHook = func(strategy int) {
			if strategy == slow {
				for i := range 20_000_000 {
					sink += i
				}
			}
		}
		sol, st, err := Exact(context.Background(), p, Options{Budget: 3e8})
		if st != Solved {
			t.Fatalf("strategy %d slowed: %v %v", slow, st, err)
		}
		if first == nil {
			first = sol.Offsets
			continue
		}
		if !slices.Equal(first, sol.Offsets) {
			t.Errorf("with strategy %d slowed down the placement differs from the unhindered one", slow)
		}
	}
	_ = sink
}
