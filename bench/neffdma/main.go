// Command neffdma measures the DMA executor: copy descriptors moving 256 MiB
// (128 partitions x 2 KiB runs per descriptor, the NeuronCore DMA guidance
// shape) versus one plain copy of 256 MiB, in the same run, both as bare
// transfers and as the DMA program of a NEFF built with neff.Builder (read
// back, converted by dmaprog, executed in its memory), and the time to
// simulate one million such descriptors. Prints medians and the ratios.
//
//	bench/neffdma.sh   (go run ./bench/neffdma)
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
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

	// The same traffic as a NEFF's DMA program, through the reader and dmaprog.
	prog, err := neffProgram(*total, n, perDesc, partitions, run, stride)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// One memory for every repetition (inputs loaded, state buffer
	// allocated outside the timing), as the bare run reuses its buffers.
	pmem := prog.NewMemory(0)
	if err := pmem.SetInput("hbm", hbm); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, v := range []string{"hbm", "SB"} {
		if _, err := pmem.Var(v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	src, _ := pmem.Bytes("hbm")
	runtime.GC()
	var progT, copy2T []time.Duration
	for r := 0; r < *reps; r++ {
		t0 := time.Now()
		copy(dst, src)
		copy2T = append(copy2T, time.Since(t0))
		t0 = time.Now()
		if _, err := prog.Execute(pmem); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		progT = append(progT, time.Since(t0))
	}
	pe, c2 := median(progT), median(copy2T)
	fmt.Printf("NEFF DMA program (%d descriptors, 256 MiB): median %v; plain copy %v; ratio %.2f (limit 3, goal 1.5)\n", len(prog.Descriptors), pe, c2, float64(pe)/float64(c2))

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

// neffProgram builds a NEFF whose program copies the input hbm into the
// state buffer with the same descriptors as the bare benchmark.
func neffProgram(total, n, perDesc int64, partitions, run, stride int64) (*dmaprog.Program, error) {
	b := neff.NewBuilder("bench.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("hbm", "input", total)
	sg.AddVar("out", "output", 4)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	for i := int64(0); i < n; i++ {
		sp.AddDMA("qSPIO0", "load", neff.Copy("hbm", i*perDesc, []int64{run, partitions}, []int64{1, run}, "SB", i%64*run, []int64{run, partitions}, []int64{1, stride}))
	}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		return nil, err
	}
	m, err := neff.OpenBytes(raw, neff.DefaultLimits())
	if err != nil {
		return nil, err
	}
	p := dmaprog.FromModel(m)[0]
	if len(p.Problems) > 0 {
		return nil, fmt.Errorf("%v", p.Problems)
	}
	return p, nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
