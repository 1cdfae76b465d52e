// Command alloc times the exact allocation solver on MiniMalloc-style CSV
// problems: one solve per file, wall seconds per problem and in total,
// each solution validated, as ratios against reference times (MiniMalloc's,
// measured on the same machine type: the baseline cannot run here, so the
// ratio is against recorded figures). Used by bench/alloc.sh.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/npukit/npukit/alloc"
)

func main() {
	capacity := flag.Int64("capacity", 0, "capacity in bytes (default: from NAME.<capacity>.csv)")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit per problem")
	workers := flag.Int("workers", 0, "parallel workers (0 = all cores)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile")
	baseline := flag.String("baseline", "", "reference seconds per problem, NAME=SECONDS,... (NAME is the file name up to the first dot)")
	flag.Parse()
	ref := map[string]float64{}
	for _, kv := range strings.Split(*baseline, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				ref[k] = f
			}
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	var total time.Duration
	var refTotal float64
	failed := false
	fmt.Printf("%-20s %8s %10s %12s %10s %10s %8s  %s\n", "problem", "buffers", "status", "nodes", "seconds", "baseline", "ratio", "placement")
	for _, path := range flag.Args() {
		c := *capacity
		if c == 0 {
			c, _ = alloc.CapacityFromName(path)
		}
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		tb, err := alloc.ReadCSV(f, c, alloc.Limits{})
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(2)
		}
		p := &tb.Problem
		var nodes int64
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		start := time.Now()
		sol, st, _ := alloc.Exact(ctx, p, alloc.Options{Workers: *workers, Progress: func(n int64) { nodes = n }})
		el := time.Since(start)
		cancel()
		total += el
		status := map[alloc.Status]string{alloc.Solved: "solved", alloc.Infeasible: "infeasible", alloc.TimedOut: "timeout"}[st]
		if st == alloc.Solved && len(alloc.Validate(p, sol)) > 0 {
			status = "INVALID"
		}
		if st != alloc.Solved {
			failed = true
		}
		name, _, _ := strings.Cut(filepath.Base(path), ".")
		base, ratio := "-", "-"
		if r, ok := ref[name]; ok {
			refTotal += r
			base, ratio = fmt.Sprintf("%.2f", r), fmt.Sprintf("%.2fx", r/el.Seconds())
		}
		fmt.Printf("%-20s %8d %10s %12d %10.3f %10s %8s  %016x\n", filepath.Base(path), len(p.Buffers), status, nodes, el.Seconds(), base, ratio, placementHash(sol))
	}
	base, ratio := "-", "-"
	if refTotal > 0 {
		base, ratio = fmt.Sprintf("%.2f", refTotal), fmt.Sprintf("%.2fx", refTotal/total.Seconds())
	}
	fmt.Printf("%-20s %8s %10s %12s %10.3f %10s %8s\n", "total", "", "", "", total.Seconds(), base, ratio)
	fmt.Println("ratio = baseline seconds / npukit seconds (above 1x: npukit is faster)")
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if failed {
		os.Exit(1)
	}
}

// placementHash fingerprints a placement (FNV-1a over the offsets), so
// runs on different cores or loads can be compared: the same input must
// give the same placement.
func placementHash(sol *alloc.Solution) uint64 {
	if sol == nil {
		return 0
	}
	h := fnv.New64a()
	var b [8]byte
	for _, o := range sol.Offsets {
		binary.LittleEndian.PutUint64(b[:], uint64(o))
		h.Write(b[:])
	}
	return h.Sum64()
}
