package sim_test

import (
	"testing"

	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/sim/simtest"
)

func BenchmarkRun(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		g := simtest.Pipeline(n, 64, 16)
		b.Run(itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := sim.Run(g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(n int) string {
	switch {
	case n >= 1_000_000:
		return itoa(n/1_000_000) + "M"
	case n >= 1000:
		return itoa(n/1000) + "k"
	}
	s := ""
	for ; n > 0 || s == ""; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestPipelineRuns(t *testing.T) {
	g := simtest.Pipeline(5000, 4, 2)
	tl, err := sim.Run(g)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Makespan <= 0 || tl.Counters[0].Points[len(tl.Counters[0].Points)-1].V != 0 {
		t.Fatalf("makespan %d, final buffered %v", tl.Makespan, tl.Counters[0].Points[len(tl.Counters[0].Points)-1])
	}
}
