package alloc

import (
	"context"
	"math"
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
// placements. E is decided after the persistent and the dynamic
// restarting strategies' shares have tapered. No time is measured.
func TestPortfolioSameAnswerWhicheverStrategyIsSlowed(t *testing.T) {
	for _, name := range []string{"K", "E"} {
		t.Run(name, func(t *testing.T) { portfolioSlowed(t, name) })
	}
}

func portfolioSlowed(t *testing.T, name string) {
	path := filepath.Join(conformance.Benchmarks(t, "minimalloc"), name+".1048576.csv")
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

// TestTaperAllowanceMatchesWeighed: a strategy that decided with some
// work is compared at the level it weighs; at that level its allowance
// must cover that work (or it could not have decided in that round) and
// one level less must not, on both sides of the taper and near overflow.
func TestTaperAllowanceMatchesWeighed(t *testing.T) {
	for _, taper := range []int64{0, 1, 1000, 300 * 454 * 454, math.MaxInt64 / 4} {
		sl := &strategySlot{idx: 0, scale: 4, taper: taper}
		for _, work := range []int64{1, 999, 1000, 1001, 12345, 1 << 20, 61834003, 1 << 40, 1 << 60} {
			level := sl.weighed(work) >> 2 // drop the index bits
			if level == math.MaxInt64>>2 {
				continue // saturated
			}
			if a := sl.allowance(level); a < work {
				t.Errorf("taper %d work %d: level %d allows only %d", taper, work, level, a)
			}
			if a := sl.allowance(level - sl.scale); a >= work && work > 1 {
				t.Errorf("taper %d work %d: level %d already allows %d", taper, work, level-sl.scale, a)
			}
		}
	}
}
