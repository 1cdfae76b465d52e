package ntff

import (
	"reflect"
	"testing"
)

// Counted matches a queue's start and data events inside the window in
// order: a packet that started before the window shifts the matching, so
// its queue counts nothing; queues whose packets start inside count them
// all; a packet whose data comes after the window is not counted.
func TestCountedMatchesStartsInOrder(t *testing.T) {
	c := &Core{
		DMAStarts: []DMAStart{
			{DMAEngine: 1, Queue: 14, T: 90}, // before the window
			{DMAEngine: 1, Queue: 14, T: 150},
			{DMAEngine: 2, Queue: 14, T: 110},
			{DMAEngine: 2, Queue: 14, T: 160},
			{DMAEngine: 2, Queue: 14, T: 195},
		},
		Packets: []Packet{
			{DMAEngine: 1, Queue: 14, Start: 120}, // 0: started at 90
			{DMAEngine: 2, Queue: 14, Start: 130}, // 1
			{DMAEngine: 1, Queue: 14, Start: 170}, // 2: no second start inside
			{DMAEngine: 2, Queue: 14, Start: 180}, // 3
			{DMAEngine: 2, Queue: 14, Start: 210}, // 4: after the window
		},
	}
	// Queue 1.14 inside [100, 200]: starts [150], data [120, 170]: 150
	// is matched with 120 (after it), 170 has no start: nothing counted.
	if got, want := c.Counted(100, 200), []int{1, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("Counted = %v, want %v", got, want)
	}
	// Without start events every data event inside the window counts.
	c.DMAStarts = nil
	if got, want := c.Counted(100, 200), []int{0, 1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("without starts: Counted = %v, want %v", got, want)
	}
}

// The kernel-entry wait is the Sync engine's last semaphore wait before
// its first taken branch; waits after the branch (the kernel's own, the
// closing one) and other engines' waits do not move it.
func TestKernelEntryWait(t *testing.T) {
	in := func(e, pc, op int, s int64) Instr { return Instr{Engine: e, PC: pc, Opcode: op, Start: s, End: s + 5} }
	c := &Core{Instrs: []Instr{
		in(4, 10, OpEventSemaphore, 100),
		in(4, 11, 0xa2, 200),
		in(4, 12, OpEventSemaphore, 300), // the entry wait
		in(0, 30, OpEventSemaphore, 310),
		in(4, 13, OpNotify, 400),
		in(4, 14, OpCompareBranch, 500), // taken: next is PC 40
		in(4, 40, OpEventSemaphore, 600),
		in(4, 41, OpCompareBranch, 700),
		in(4, 50, 0xa2, 800),
	}}
	if s, ok := c.KernelEntryWait(); !ok || s != 300 {
		t.Errorf("KernelEntryWait = %d, %v; want 300, true", s, ok)
	}
	// A branch not taken (next PC follows it) does not enter the kernel.
	c.Instrs[6].PC = 15
	if s, ok := c.KernelEntryWait(); !ok || s != 600 {
		t.Errorf("with the first branch not taken: %d, %v; want 600, true", s, ok)
	}
	// No wait before the branch: no entry wait.
	c = &Core{Instrs: []Instr{in(4, 1, OpNotify, 10), in(4, 2, OpCompareBranch, 20), in(4, 9, 0xa2, 30)}}
	if _, ok := c.KernelEntryWait(); ok {
		t.Error("found an entry wait where the Sync engine waits on none")
	}
}

// The kernel-entry NOTIFY is the Tensor engine's first NOTIFY at or after
// the target of its first taken branch: the preamble's NOTIFY before the
// branch, a branch not taken and other engines' NOTIFYs do not move it.
func TestKernelEntryNotify(t *testing.T) {
	in := func(e, pc, op int, s int64) Instr { return Instr{Engine: e, PC: pc, Opcode: op, Start: s, End: s + 5} }
	c := &Core{Instrs: []Instr{
		in(0, 20, OpNotify, 100),
		in(0, 21, OpCompareBranch, 200), // taken: next is PC 45
		in(4, 30, OpNotify, 250),
		in(0, 45, OpNotify, 300), // the entry NOTIFY
		in(0, 46, 0xa5, 400),
		in(0, 47, OpNotify, 500),
	}}
	if s, ok := c.KernelEntryNotify(); !ok || s != 300 {
		t.Errorf("KernelEntryNotify = %d, %v; want 300, true", s, ok)
	}
	// A branch not taken enters nothing; the target need not be the
	// NOTIFY itself.
	c.Instrs[3].PC = 22
	c.Instrs = append(c.Instrs, in(0, 48, OpCompareBranch, 600), in(0, 60, 0xa5, 700), in(0, 61, OpNotify, 800))
	if s, ok := c.KernelEntryNotify(); !ok || s != 800 {
		t.Errorf("with the first branch not taken: %d, %v; want 800, true", s, ok)
	}
	// No NOTIFY after the branch, or no branch taken: none.
	c = &Core{Instrs: []Instr{in(0, 1, OpNotify, 10), in(0, 2, OpCompareBranch, 20), in(0, 9, 0xa2, 30)}}
	if _, ok := c.KernelEntryNotify(); ok {
		t.Error("found an entry NOTIFY where none follows the branch")
	}
	c = &Core{Instrs: []Instr{in(0, 1, OpNotify, 10), in(0, 2, OpCompareBranch, 20), in(0, 3, OpNotify, 30)}}
	if _, ok := c.KernelEntryNotify(); ok {
		t.Error("found an entry NOTIFY where no branch is taken")
	}
}

// A format 5 capture (no recorded window) counts what neuron-profile
// counts: every instruction that starts after the window's start, those
// after the kernel time included; the launch is still taken within the
// kernel time. A recorded window counts inside it.
func TestCountingFormat5ToCaptureEnd(t *testing.T) {
	in := func(e, pc, op int, s, end int64) Instr {
		return Instr{Engine: e, PC: pc, Opcode: op, Start: s, End: end}
	}
	code := make([]byte, 64*100)
	p := &Profile{Format: 5, Cores: []Core{{Name: "sg00", TotalPs: 100_000,
		Streams: []Stream{{Engine: 0, Code: code, KernelStart: 50, KernelEnd: 60}, {Engine: 4, Code: code, KernelStart: 50, KernelEnd: 60}},
		Instrs: []Instr{
			in(4, 10, 0xa2, 0, 1_000), // preamble, before the window
			in(0, 21, OpCompareBranch, 1_000, 2_000),
			in(0, 45, OpNotify, 10_000, 10_500), // the window starts 9.167 ns after it
			in(4, 50, 0xa2, 30_000, 40_000),     // the kernel
			in(4, 51, 0xa2, 100_000, 110_000),
			in(4, 52, 0xa2, 115_000, 125_000), // ends after the kernel time
			in(4, 30, 0xa2, 150_000, 160_000), // the postamble, after it
		}}}}
	ws, we, how := p.Window()
	if ws != 10_000+notifyDelayPs || we != ws+100_000 || how != "estimated" {
		t.Errorf("window %d..%d %s, want %d..%d estimated", ws, we, how, 10_000+notifyDelayPs, 10_000+notifyDelayPs+100_000)
	}
	if cs, ce, how := p.Counting(); cs != ws || ce != 160_000 || how != ToCaptureEnd {
		t.Errorf("counting %d..%d %q, want %d..160000 %q", cs, ce, how, ws, ToCaptureEnd)
	}
	s := Summarize(p, "x")
	if got := s.EngineCounts["Sync"]; got != 4 {
		t.Errorf("Sync %d instructions, want 4 (the kernel's three and the postamble's)", got)
	}
	if c := s.Cores[0]; c.KernelUs != 0.08 || c.LaunchAfterUs != float64(we-110_000)/1e6 {
		t.Errorf("kernel %v us, launch after %v us; want 0.08 and %v", c.KernelUs, c.LaunchAfterUs, float64(we-110_000)/1e6)
	}
	p.Format, p.HasWindow, p.WindowStart, p.WindowEnd = 6, true, 20_000, 130_000
	if cs, ce, how := p.Counting(); cs != 20_000 || ce != 130_000 || how != "recorded" {
		t.Errorf("format 6: counting %d..%d %s, want the recorded window", cs, ce, how)
	}
	if got := Summarize(p, "x").EngineCounts["Sync"]; got != 3 {
		t.Errorf("format 6: Sync %d instructions, want 3", got)
	}
}

// An engine's active time over the capture is the time at least one
// core's engine ran a (non-wait) instruction, the union across cores, as
// neuron-profile's summary counts it; its instruction time is the plain
// sum. Semaphore waits count in neither; a format 4 capture (no window)
// gives neither.
func TestEngineTimesOverCores(t *testing.T) {
	in := func(e, op int, s, end int64) Instr { return Instr{Engine: e, PC: -1, Opcode: op, Start: s, End: end} }
	p := &Profile{Format: 6, HasWindow: true, WindowStart: 0, WindowEnd: 10_000, Cores: []Core{
		{Name: "sg00", TotalPs: 10_000, Instrs: []Instr{in(4, 0xa2, 1_000, 3_000), in(4, OpEventSemaphore, 3_000, 9_000)}},
		{Name: "sg01", TotalPs: 5_000, Instrs: []Instr{in(4, 0xa2, 2_000, 4_000), in(0, 0xa2, 5_000, 6_000)}},
	}}
	s := Summarize(p, "x")
	if got := s.EngineInstructionNs["Sync"]; got != 4 {
		t.Errorf("Sync instruction time %v ns, want 4 (2 + 2 ns, the wait left out)", got)
	}
	if got := s.EngineActiveNs["Sync"]; got != 3 {
		t.Errorf("Sync active time %v ns, want 3 (1..3 us and 2..4 us overlap across cores)", got)
	}
	if got := s.EngineActiveNs["Tensor"]; got != 1 {
		t.Errorf("Tensor active time %v ns, want 1", got)
	}
	p.Format, p.HasWindow = 4, false
	if s := Summarize(p, "x"); len(s.EngineActiveNs) != 0 || len(s.EngineInstructionNs) != 0 {
		t.Errorf("format 4: engine times %v %v, want none", s.EngineInstructionNs, s.EngineActiveNs)
	}
}
