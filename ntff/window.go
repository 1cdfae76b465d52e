package ntff

import "sort"

// WholeCapture is Window's "how" when no window can be placed (format
// 4): the whole capture is counted.
const WholeCapture = "whole capture"

// pairTolerancePs bounds how far apart the two Sync-engine instruction
// starts that bracket an estimated window may be from the recorded kernel
// time (a few clock ticks: 833 ps at trn2's 1.2 GHz).
const pairTolerancePs = 10_000

// Window returns the profiled window [start, end] in the capture's
// picoseconds and how it was found: "recorded" (format 6 stores it) or
// "estimated". Captures before format 6 record only the kernel time; on
// them the window is the one whose ends are two starts of core 0's Sync
// engine the kernel time apart (the Sync engine waits on a semaphore at
// the start and at the end of the kernel, which is what the runtime
// times; this reproduces neuron-profile's counts on the published
// summaries), or, when no such pair exists, the kernel time before the
// last instruction of core 0 ended.
func (p *Profile) Window() (start, end int64, how string) {
	if p.HasWindow {
		return p.WindowStart, p.WindowEnd, "recorded"
	}
	if len(p.Cores) == 0 {
		return 0, 0, "estimated"
	}
	if p.Format <= 4 {
		// Format 4 (trn1, 2024) stamps instruction and DMA events from
		// two clocks of different origins and records no window: every
		// event is counted.
		return 0, 1<<63 - 1, WholeCapture
	}
	c := &p.Cores[0]
	total := c.TotalPs
	var syncs []int64
	var last int64
	for _, in := range c.Instrs {
		if in.Engine == 4 {
			syncs = append(syncs, in.Start)
		}
		last = max(last, in.End)
	}
	sort.Slice(syncs, func(i, j int) bool { return syncs[i] < syncs[j] })
	best, bestEnd := int64(pairTolerancePs+1), int64(-1)
	for _, y := range syncs {
		x := y - total
		i := sort.Search(len(syncs), func(i int) bool { return syncs[i] >= x-pairTolerancePs })
		for ; i < len(syncs) && syncs[i] <= x+pairTolerancePs; i++ {
			d := syncs[i] - x
			if d < 0 {
				d = -d
			}
			if d < best {
				best, bestEnd = d, y
			}
		}
	}
	if bestEnd >= 0 {
		return bestEnd - total, bestEnd, "estimated"
	}
	return last - total, last, "estimated"
}

// In reports whether an instruction ran entirely inside [start, end], the
// rule neuron-profile counts by (an instruction that starts in the window
// but ends after it is left out).
func (in Instr) In(start, end int64) bool { return in.Start >= start && in.End <= end }
