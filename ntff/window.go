package ntff

import "sort"

// WholeCapture is Window's "how" when no window can be placed (format
// 4): the whole capture is counted.
const WholeCapture = "whole capture"

// tickPs is one cycle of the 1.2 GHz clock that stamps trn2 instruction
// events (they come in 833.33 ps steps).
const tickPs = 833

// Window returns the profiled window [start, end] in the capture's
// picoseconds and how it was found: "recorded" (format 6 stores it) or
// "estimated". Captures before format 6 record only the kernel time; on
// them the window is the kernel time from 11 cycles after core 0's Tensor
// engine starts its kernel-entry NOTIFY (Core.KernelEntryNotify: where
// every format 6 capture starts its recorded window, to the picosecond on
// all six shared, and where neuron-profile 2.25 starts its timeline of a
// format 5 capture: see Counting), else from one tick before core 0's
// Sync engine starts its kernel-entry semaphore wait
// (Core.KernelEntryWait), else after the Tensor NOTIFY whose window holds
// the most DMA packets (notifyStart), else the kernel time before the
// last instruction of core 0 ended.
//
// The window is the kernel time the runtime measured (its launch
// included: Core.KernelSpan); what neuron-profile counts of a format 5
// capture runs past it (Counting).
func (p *Profile) Window() (start, end int64, how string) {
	start, end, how, _ = p.window()
	return start, end, how
}

// ToCaptureEnd is Counting's "how" on a capture whose window is estimated
// (format 5): counted from the window's start to the capture's last
// event.
const ToCaptureEnd = "from the estimated window start to the capture's last event"

// Counting returns the span [start, end] neuron-profile counts a
// capture's instructions and DMA packets in, and how it was placed: the
// profiled window where the capture records it ("recorded", format 6)
// or records none to place (WholeCapture, format 4); on a capture whose
// window is estimated (format 5), from the window's start to the
// capture's last event (ToCaptureEnd). neuron-profile 2.25 counts every
// instruction of a format 5 capture that starts after the window's
// start, the runtime's postamble after the kernel time included: so
// counted, the five engines' instruction counts and the static DMA
// packets and bytes equal its summaries on all three shared ones, where
// counting inside the kernel time leaves 1-2 instructions per engine out
// (transpose_1024's Sync engine: 117, two of them after the kernel
// time; the kernel time from the Sync engine's entry wait, the rule
// before, gave 113), and its timeline of
// transpose_1024 (chenhzhu/asst4-trainium2, part1/newplot_transpose_1024.png
// at commit e30a10f) runs 46.73 us, from 11 cycles after the Tensor
// engine's kernel-entry NOTIFY to the capture's last instruction end,
// where the kernel time is 46.47 us.
func (p *Profile) Counting() (start, end int64, how string) {
	start, end, how, anchor := p.window()
	if how != "estimated" || anchor == anchorNone {
		return start, end, how
	}
	if last := p.lastEvent(); last > end {
		end = last
	}
	return start, end, ToCaptureEnd
}

// lastEvent is the time of the capture's last instruction end or DMA
// event (0 when it has none).
func (p *Profile) lastEvent() int64 {
	var last int64
	for i := range p.Cores {
		c := &p.Cores[i]
		for _, in := range c.Instrs {
			last = max(last, in.End)
		}
		for _, pk := range c.Packets {
			last = max(last, pk.End)
		}
		for _, s := range c.DMAStarts {
			last = max(last, s.T)
		}
	}
	return last
}

// How an estimated window was placed (Profile.window).
const (
	anchorNone        = ""                 // recorded, whole capture, or no core
	anchorEntryNotify = "entry-notify"     // after core 0's Tensor kernel-entry NOTIFY
	anchorSyncEntry   = "sync-entry"       // the Sync engine's kernel-entry wait
	anchorNotify      = "notify"           // after the Tensor NOTIFY with the most DMA packets
	anchorLastInstr   = "last-instruction" // before core 0's last instruction ended
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
		// two clocks of different origins (the DMA one in nanoseconds,
		// converted on reading) and records no window: every event is
		// counted, and the engines' times are not the kernel's (Sanity).
		return 0, 1<<63 - 1, WholeCapture, anchorNone
	}
	c := &p.Cores[0]
	total := c.TotalPs
	if s, ok := c.KernelEntryNotify(); ok {
		return s + notifyDelayPs, s + notifyDelayPs + total, "estimated", anchorEntryNotify
	}
	if s, ok := c.KernelEntryWait(); ok {
		return s - tickPs, s - tickPs + total, "estimated", anchorSyncEntry
	}
	if s, ok := p.notifyStart(); ok {
		return s, s + total, "estimated", anchorNotify
	}
	var last int64
	for _, in := range c.Instrs {
		last = max(last, in.End)
	}
	return last - total, last, "estimated", anchorLastInstr
}

// OpCompareBranch is the branch by which an engine's preamble enters the
// kernel.
const OpCompareBranch = 0xa9

// KernelEntryWait returns when the Sync engine (engine 4) started its
// kernel-entry semaphore wait: its last EVENT_SEMAPHORE before its first
// taken branch (a COMPARE_BRANCH whose next instruction is not the one
// after it in the stream). ok is false when the engine takes no branch
// or waits on no semaphore before it (the preamble of runtime 2.30, format
// 6, has no such wait).
func (c *Core) KernelEntryWait() (start int64, ok bool) {
	var sy []Instr
	for _, in := range c.Instrs {
		if in.Engine == 4 && in.PC >= 0 {
			sy = append(sy, in)
		}
	}
	sort.SliceStable(sy, func(i, j int) bool { return sy[i].Start < sy[j].Start })
	wait := -1
	for i, in := range sy {
		if in.Opcode == OpEventSemaphore {
			wait = i
		}
		if in.Opcode == OpCompareBranch && i+1 < len(sy) && sy[i+1].PC != in.PC+1 {
			if wait < 0 {
				return 0, false
			}
			return sy[wait].Start, true
		}
	}
	return 0, false
}

// KernelEntryNotify returns when the Tensor engine (engine 0) started
// its kernel-entry NOTIFY: the first NOTIFY at or after the target of its
// first taken branch (a COMPARE_BRANCH whose next instruction is not the
// one after it in the stream), by which the runtime's preamble enters the
// kernel (on every shared trn2 capture the branch lands on the NOTIFY:
// PC 21 to 45 with runtime 2.27, 35 to 49 with 2.30). ok is false when the
// engine takes no branch or notifies nothing after it.
func (c *Core) KernelEntryNotify() (start int64, ok bool) {
	var te []Instr
	for _, in := range c.Instrs {
		if in.Engine == 0 && in.PC >= 0 {
			te = append(te, in)
		}
	}
	sort.SliceStable(te, func(i, j int) bool { return te[i].Start < te[j].Start })
	for i, in := range te {
		if in.Opcode != OpCompareBranch || i+1 >= len(te) || te[i+1].PC == in.PC+1 {
			continue
		}
		for _, nx := range te[i+1:] {
			if nx.Opcode == OpNotify {
				return nx.Start, true
			}
		}
		return 0, false
	}
	return 0, false
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
// starts after; on the format 5 ones the preamble's NOTIFY before the
// kernel-entry branch, whose window holds every packet too (the reason
// Core.KernelEntryNotify is tried first).
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

// KernelSpan returns when core c's kernel ran inside the window [start,
// end]: the first start and the last end of the instructions whose PC
// lies in their stream's kernel (Stream.KernelStart..KernelEnd), the
// runtime's pre- and postamble left out. ok is false when the capture does
// not lay its streams out or no kernel instruction ran in the window.
// The window less this span is the launch: on the shared trn2 captures
// 14.6-15.7 us (neuroncore.Arch.LaunchNs).
func (c *Core) KernelSpan(start, end int64) (first, last int64, ok bool) {
	for _, in := range c.Instrs {
		if in.Start < start || in.End > end || in.PC < 0 {
			continue
		}
		s := c.stream(in.Engine)
		if s == nil || in.PC < s.KernelStart || in.PC >= s.KernelEnd {
			continue
		}
		if !ok || in.Start < first {
			first = in.Start
		}
		if !ok || in.End > last {
			last = in.End
		}
		ok = true
	}
	return first, last, ok
}
