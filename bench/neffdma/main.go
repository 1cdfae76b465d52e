// Command neffdma measures the DMA executor: copy descriptors moving 256 MiB
// (128 partitions x 2 KiB runs per descriptor, the NeuronCore DMA guidance
// shape) versus one plain copy of 256 MiB, in the same run, and the time to
// simulate one million such descriptors. Prints medians and the ratio.
//
//	go run ./bench/neffdma
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neff/dma"
)

func main() {
	total := flag.Int64("bytes", 256<<20, "bytes to move")
	reps := flag.Int("reps", 7, "repetitions (median reported)")
	flag.Parse()
	const partitions, run, stride = 128, 2048, 262144
	perDesc := int64(partitions * run)
	n := *total / perDesc
	sb := make([]byte, partitions*stride)
	hbm := make([]byte, *total)
	for i := range hbm {
		hbm[i] = byte(i)
	}
	mem := dma.MapMemory{"hbm": hbm, "sb": sb}
	descs := make([]dma.Transfer, n)
	for i := range descs {
		descs[i] = dma.Transfer{Op: dma.OpCopy,
			From: []dma.Side{{Var: "hbm", Pattern: accesspattern.Pattern{Offset: int64(i) * perDesc, Sizes: []int64{run, partitions}, Steps: []int64{1, run}}}},
			To:   dma.Side{Var: "sb", Pattern: accesspattern.Pattern{Offset: int64(i%64) * run, Sizes: []int64{run, partitions}, Steps: []int64{1, stride}}},
		}
	}
	dst := make([]byte, *total)
	var execT, copyT []time.Duration
	for r := 0; r < *reps; r++ {
		t0 := time.Now()
		copy(dst, hbm)
		copyT = append(copyT, time.Since(t0))
		t0 = time.Now()
		for _, d := range descs {
			if err := dma.Execute(mem, d); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		execT = append(execT, time.Since(t0))
	}
	e, c := median(execT), median(copyT)
	fmt.Printf("DMA executor: %d copy descriptors moving %d MiB: median %v\n", n, *total>>20, e)
	fmt.Printf("plain copy of %d MiB: median %v\n", *total>>20, c)
	fmt.Printf("ratio executor/copy: %.2f (limit 3, goal 1.5)\n", float64(e)/float64(c))

	// Timed DMA simulation of one million 128-partition descriptors.
	const million = 1_000_000
	big := make([]dma.Descriptor, million)
	for i := range big {
		big[i] = dma.Descriptor{Engine: "sg00/SP.json", Queue: "qSPIO0", Index: i, Transfer: descs[i%len(descs)]}
	}
	var simT []time.Duration
	for r := 0; r < 3; r++ {
		t0 := time.Now()
		res, _, err := dma.Simulate(big, []dma.QueueSet{{Name: "qSPIO0", NumQueues: 16}}, dma.DefaultSimParams())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		simT = append(simT, time.Since(t0))
		if r == 0 {
			fmt.Printf("simulated DMA time of %d descriptors: %.3f ms at %.1f GB/s\n", million, float64(res.TotalNs)/1e6, res.AchievedGBps)
		}
	}
	fmt.Printf("simulating %d descriptors: median %v (limit 2 s)\n", million, median(simT))
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
