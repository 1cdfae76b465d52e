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
// them the window is the one whose ends are two semaphore waits
// (EVENT_SEMAPHORE) of core 0's Sync engine starting the kernel time apart (the Sync engine waits on a semaphore at
// the start and at the end of the kernel, which is what the runtime
// times; this reproduces neuron-profile's counts on the published
// summaries of two stream kernels), else the kernel time from 11 cycles
// after a NOTIFY of core 0's Tensor engine (notifyStart: how format 6
// captures place their recorded window), else the kernel time before the
// last instruction of core 0 ended.
func (p *Profile) Window() (start, end int64, how string) {
	start, end, how, _ = p.window()
	return start, end, how
}

// How an estimated window was placed (Profile.window).
const (
	anchorNone      = ""                 // recorded, whole capture, or no core
	anchorSyncPair  = "sync-pair"        // two Sync semaphore waits bracket it
	anchorNotify    = "notify"           // after core 0's Tensor NOTIFY
	anchorLastInstr = "last-instruction" // before core 0's last instruction ended
)

// window is Window with the rule that placed an estimated window.
func (p *Profile) window() (start, end int64, how, anchor string) {
	if p.HasWindow {
		return p.WindowStart, p.WindowEnd, "recorded", anchorNone
	}
	if len(p.Cores) == 0 {
		return 0, 0, "estimated", anchorNone
	}
	if p.Format <= 4 {
		// Format 4 (trn1, 2024) stamps instruction and DMA events from
		// two clocks of different origins and records no window: every
		// event is counted.
		return 0, 1<<63 - 1, WholeCapture, anchorNone
	}
	c := &p.Cores[0]
	total := c.TotalPs
	var syncs []int64
	var last int64
	for _, in := range c.Instrs {
		if in.Engine == 4 && in.Opcode == OpEventSemaphore {
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
		return bestEnd - total, bestEnd, "estimated", anchorSyncPair
	}
	if s, ok := p.notifyStart(); ok {
		return s, s + total, "estimated", anchorNotify
	}
	return last - total, last, "estimated", anchorLastInstr
}

// notifyDelayPs is how long after core 0's Tensor-engine NOTIFY starts
// the profiled window begins: 9.166-9.167 ns (11 cycles at 1.2 GHz) on
// every format 6 capture, whose window is recorded (fitted on the six
// shared ones).
const notifyDelayPs = 9_167

// notifyStart places the window's start after one of core 0's Tensor
// NOTIFY instructions: the one whose window (the kernel time long) holds
// the most DMA data packets, the earliest on a tie (a kernel moves its
// data inside its window; the runtime's pre- and post-amble move little).
// On the format 6 captures it picks the NOTIFY their recorded window
// starts after.
func (p *Profile) notifyStart() (int64, bool) {
	c := &p.Cores[0]
	var pk []int64
	for i := range p.Cores {
		for _, x := range p.Cores[i].Packets {
			pk = append(pk, x.Start)
		}
	}
	sort.Slice(pk, func(i, j int) bool { return pk[i] < pk[j] })
	best, bestN, found := int64(0), -1, false
	for _, in := range c.Instrs {
		if in.Engine != 0 || in.Opcode != OpNotify {
			continue
		}
		s := in.Start + notifyDelayPs
		n := sort.Search(len(pk), func(i int) bool { return pk[i] > s+c.TotalPs }) - sort.Search(len(pk), func(i int) bool { return pk[i] >= s })
		if n > bestN || n == bestN && s < best {
			best, bestN, found = s, n, true
		}
	}
	return best, found
}

// In reports whether an instruction ran entirely inside [start, end], the
// rule neuron-profile counts by (an instruction that starts in the window
// but ends after it is left out).
func (in Instr) In(start, end int64) bool { return in.Start >= start && in.End <= end }

// Counted returns the indexes (into c.Packets) of the data packets
// neuron-profile counts inside the window [start, end]: it keeps the
// queue's start and data events that lie inside the window and matches
// them in order, the i-th start with the i-th data event, and counts a
// data event only when its start does not come after it. In a queue whose
// first packet started before the window and sent its data inside it,
// every start is matched one packet late, after its data event, and none
// of the queue's packets is counted. This is what neuron-profile's
// reports show: on the five shared JSON reports (format 6, per-packet
// lists) it leaves out exactly the instruction-fetch packets of the
// queues whose first fetch straddles the window's start, and changes no
// other count (the dynamic queues' and the text summaries' stay equal). A
// core that records no start event (none of the shared captures) counts
// every data event inside the window.
func (c *Core) Counted(start, end int64) []int {
	type qk struct{ e, q int }
	starts := map[qk][]int64{}
	for _, s := range c.DMAStarts {
		if s.T >= start && s.T <= end {
			k := qk{s.DMAEngine, s.Queue}
			starts[k] = append(starts[k], s.T)
		}
	}
	seen := map[qk]int{}
	var out []int
	for i, pk := range c.Packets {
		if pk.Start < start || pk.Start > end {
			continue
		}
		if len(c.DMAStarts) == 0 {
			out = append(out, i)
			continue
		}
		k := qk{pk.DMAEngine, pk.Queue}
		n := seen[k]
		seen[k] = n + 1
		if s := starts[k]; n < len(s) && s[n] <= pk.Start {
			out = append(out, i)
		}
	}
	return out
}
