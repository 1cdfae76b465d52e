// Command gemsim measures the Gemini timing simulation (gemini/timing):
//
//   - the largest shared Gemini schedule (../shared/corpus/gemini, or
//     NPUKIT_SHARED): reading it, simulating it, and both (the bar:
//     under 0.2 s);
//   - synthetic 64-core schedules (gemini.Synth on an 8x8 mesh) of 10k, 50k
//     and 100k workloads: simulation time (bar: 100k under 5 s) and ns per
//     workload, whose flatness shows linear growth.
//
// The baseline, run in the same invocation, is sorting as many random int64
// keys as the simulation has tasks (the least an event-ordered simulation
// must do); the ratio to it is what compares across machines.
//
//	go run ./bench/gemsim
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/conformance"
)

// median runs f reps times and returns the median wall time; lastCPU is
// the process CPU time (user+system) of the median run's neighbourhood: the
// machine is shared, so CPU time shows the cost when wall time is inflated
// by other processes.
func median(reps int, f func()) time.Duration {
	ds := make([]time.Duration, reps)
	cs := make([]time.Duration, reps)
	for i := range ds {
		c0 := cpuTime()
		t0 := time.Now()
		f()
		ds[i] = time.Since(t0)
		cs[i] = cpuTime() - c0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	lastCPU = cs[reps/2]
	return ds[reps/2]
}

var lastCPU time.Duration

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "gemsim:", err)
	os.Exit(1)
}

func sortBaseline(reps, n int) time.Duration {
	keys := make([]int64, n)
	rng := rand.New(rand.NewPCG(1, 2))
	return median(reps, func() {
		for i := range keys {
			keys[i] = rng.Int64()
		}
		slices.Sort(keys)
	})
}

func largest(dir string) (string, int64) {
	var best string
	var size int64
	ms, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, m := range ms {
		if st, err := os.Stat(m); err == nil && st.Size() > size {
			best, size = m, st.Size()
		}
	}
	return best, size
}

func main() {
	reps := flag.Int("reps", 5, "repetitions (median reported)")
	flag.Parse()

	dir := filepath.Join(conformance.SharedDir(), "corpus", "gemini")
	if f, size := largest(dir); f == "" {
		fmt.Printf("no shared Gemini files under %s: skipping the real-file part\n\n", dir)
	} else {
		var s *gemini.Schedule
		dRead := median(*reps, func() {
			var err error
			if s, err = gemini.ReadFile(f); err != nil {
				die(err)
			}
		})
		var res *timing.Result
		dSim := median(*reps, func() {
			var err error
			if res, err = timing.Simulate(s, timing.Default()); err != nil {
				die(err)
			}
		})
		cSim := lastCPU
		dBoth := median(*reps, func() {
			s, err := gemini.ReadFile(f)
			if err != nil {
				die(err)
			}
			if _, err := timing.Simulate(s, timing.Default()); err != nil {
				die(err)
			}
		})
		cBoth := lastCPU
		tasks := len(res.Timeline.Graph.Tasks)
		dBase := sortBaseline(*reps, tasks)
		fmt.Printf("largest shared file: %s (%d KiB, %d tasks)\n", filepath.Base(f), size>>10, tasks)
		fmt.Printf("  read %s  simulate %s (cpu %s)  read+simulate %s (cpu %s; bar 200ms: %s)\n  sort baseline %s  simulate/baseline %.1f\n\n",
			dRead.Round(time.Microsecond), dSim.Round(time.Microsecond), cSim.Round(time.Microsecond),
			dBoth.Round(time.Microsecond), cBoth.Round(time.Microsecond),
			verdict(dBoth < 200*time.Millisecond), dBase.Round(time.Microsecond), float64(dSim)/float64(dBase))
	}

	fmt.Println("synthetic 64-core schedules (8x8 mesh, gemini.Synth):")
	fmt.Printf("%-10s %-9s %12s %12s %12s %9s %12s %12s\n", "workloads", "tasks", "simulate", "cpu", "baseline", "ratio", "ns/workload", "cpu ns/wl")
	var first, firstCPU float64
	for _, n := range []int{10_000, 50_000, 100_000} {
		s, err := gemini.Synth(gemini.SynthConfig{Cores: 64, Workloads: n / 64, XLen: 8, Seed: 1})
		if err != nil {
			die(err)
		}
		var res *timing.Result
		dSim := median(*reps, func() {
			if res, err = timing.Simulate(s, timing.Default()); err != nil {
				die(err)
			}
		})
		cSim := lastCPU
		w := 64 * (n / 64)
		tasks := len(res.Timeline.Graph.Tasks)
		dBase := sortBaseline(*reps, tasks)
		per := float64(dSim.Nanoseconds()) / float64(w)
		perCPU := float64(cSim.Nanoseconds()) / float64(w)
		if first == 0 {
			first, firstCPU = per, perCPU
		}
		fmt.Printf("%-10d %-9d %12s %12s %12s %9.2f %12.0f %12.0f", w, tasks, dSim.Round(time.Microsecond),
			cSim.Round(time.Microsecond), dBase.Round(time.Microsecond), float64(dSim)/float64(dBase), per, perCPU)
		if n == 100_000 {
			fmt.Printf("\n100k: bar 5s %s; per-workload time vs 10k: wall x%.2f, cpu x%.2f (1.00 = linear)",
				verdict(dSim < 5*time.Second), per/first, perCPU/firstCPU)
		}
		fmt.Println()
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}
