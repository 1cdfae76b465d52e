// Command sim measures the discrete-event engine and the trace writer on
// synthetic accelerator-shaped graphs (sim/simtest.Pipeline: 64 in-order
// cores, 16 bandwidth-charged DMA engines, flow edges, a counter) of 10k,
// 100k and 1M tasks. The baseline, run in the same invocation, is sorting
// as many random int64 keys (the least any event-ordered simulation must
// do); it prints medians, the ratio to the baseline, time per task (linear
// growth shows as a flat ns/task) and the trace-writing time.
//
//	go run ./bench/sim
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/sim/simtest"
	"github.com/npukit/npukit/trace"
)

func median(reps int, f func()) time.Duration {
	ds := make([]time.Duration, reps)
	for i := range ds {
		t0 := time.Now()
		f()
		ds[i] = time.Since(t0)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[reps/2]
}

func main() {
	reps := flag.Int("reps", 5, "repetitions (median reported)")
	flag.Parse()
	fmt.Printf("%-9s %-10s %12s %12s %9s %10s %12s\n", "tasks", "edges", "sim", "baseline", "ratio", "ns/task", "trace write")
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		g := simtest.Pipeline(n, 64, 16)
		var tl *sim.Timeline
		dSim := median(*reps, func() {
			var err error
			if tl, err = sim.Run(g); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		})
		keys := make([]int64, len(g.Tasks))
		rng := rand.New(rand.NewPCG(1, 2))
		dBase := median(*reps, func() {
			for i := range keys {
				keys[i] = rng.Int64()
			}
			slices.Sort(keys)
		})
		dTrace := median(*reps, func() {
			if err := trace.Write(io.Discard, tl, trace.Options{NanosPerUnit: 40}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		})
		fmt.Printf("%-9d %-10d %12s %12s %9.2f %10.1f %12s\n", len(g.Tasks), len(g.Edges),
			dSim.Round(time.Microsecond), dBase.Round(time.Microsecond), float64(dSim)/float64(dBase),
			float64(dSim.Nanoseconds())/float64(len(g.Tasks)), dTrace.Round(time.Microsecond))
	}
}
