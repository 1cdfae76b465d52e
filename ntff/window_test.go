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
