package ntff

import (
	"fmt"

	"github.com/npukit/npukit/sim"
)

// OpcodeNames name the first byte of the 64-byte engine instructions the
// captures hold, as neuron-profile's JSON reports of the same runs name
// them (every instruction of the shared reports: one name per byte).
var OpcodeNames = map[int]string{
	0x01: "LDWEIGHTS", 0x02: "MATMUL", 0x21: "ACTIVATE", 0x23: "ACT_TABLE_LOAD",
	0x42: "TENSOR_REDUCE", 0x43: "TENSOR_SCALAR", 0x46: "COPY", 0x47: "CAST", 0x48: "RECIPROCAL",
	0xa0: "EVENT_SEMAPHORE", 0xa2: "DRAIN", 0xa4: "NOP", 0xa5: "WRITE", 0xa6: "NOTIFY",
	0xa9: "COMPARE_BRANCH", 0xaa: "TENSOR_LOAD", 0xb0: "EVENT_SEMAPHORE_RANGE_CLEAR",
	0xb1: "SET_ORDERING_MODE", 0xb8: "DMA_DIRECT2D",
}

// Opcodes the reader relies on: a semaphore wait (its duration is the
// wait) and a notification.
const (
	OpEventSemaphore = 0xa0
	OpNotify         = 0xa6
)

// OpName names an instruction: its opcode's name, "op 0xNN" when the
// opcode is not named, "" when the instruction is outside its stream.
func (in Instr) OpName() string {
	if in.Opcode < 0 {
		return ""
	}
	if n, ok := OpcodeNames[in.Opcode]; ok {
		return n
	}
	return fmt.Sprintf("op %#02x", in.Opcode)
}

// Replay is a capture's profiled window as a sim.Timeline (time unit:
// picoseconds from the window's start): one track per engine and per DMA
// queue of each core, each measured instruction and packet placed where
// it ran. Tags index Instrs (engines) or Packets (queues) of the core
// named by the resource's group.
type Replay struct {
	Timeline *sim.Timeline
	// Items say what each task was: core index, and instruction or packet
	// index in that core.
	Items []ReplayItem
}

// ReplayItem locates a replayed task in the profile.
type ReplayItem struct {
	Core   int
	Instr  int // -1 for a packet
	Packet int // -1 for an instruction
}

// Timeline lays what the capture measured out for the trace writer and
// the report: the span neuron-profile counts (Profile.Counting), each
// instruction and packet where it ran (sim.Recorder). Events on one
// engine or queue that overlap in the capture (a queue moves several
// packets at once) take further lanes of its track.
func (p *Profile) Timeline() (*Replay, error) {
	start, end, how := p.Counting()
	rec := sim.NewRecorder("ps")
	// Without a window each clock starts at its first event.
	insOrigin, dmaOrigin := start, start
	if how == WholeCapture {
		insOrigin, dmaOrigin = p.FirstEvents()
	}
	r := &Replay{}
	for ci := range p.Cores {
		c := &p.Cores[ci]
		group := c.Name + " engines"
		for ii, in := range c.Instrs {
			if !in.In(start, end) {
				continue
			}
			name := in.OpName()
			if name == "" {
				name = EngineName(in.Engine)
			}
			rec.Add(rec.Resource(group, EngineName(in.Engine)), sim.Task{Name: name, Cat: "instruction", Tag: int32(len(r.Items))}, in.Start-insOrigin, in.End-insOrigin)
			r.Items = append(r.Items, ReplayItem{Core: ci, Instr: ii, Packet: -1})
		}
		for pi, pk := range c.Packets {
			if pk.Start < start || pk.Start > end {
				continue
			}
			qn := fmt.Sprintf("%s (%d.%d)", c.QueueName(pk), pk.DMAEngine, pk.Queue)
			rec.Add(rec.Resource(c.Name+" DMA", qn), sim.Task{Name: fmt.Sprintf("%d B", pk.Bytes), Cat: "dma", Tag: int32(len(r.Items))}, pk.Start-dmaOrigin, pk.End-dmaOrigin)
			r.Items = append(r.Items, ReplayItem{Core: ci, Instr: -1, Packet: pi})
		}
	}
	r.Timeline = rec.Timeline()
	return r, nil
}

// FirstEvents returns the earliest instruction start and packet of the
// capture.
func (p *Profile) FirstEvents() (ins, dma int64) {
	ins, dma = 1<<63-1, 1<<63-1
	for i := range p.Cores {
		for _, in := range p.Cores[i].Instrs {
			ins = min(ins, in.Start)
		}
		for _, pk := range p.Cores[i].Packets {
			dma = min(dma, pk.Start)
		}
	}
	return ins, dma
}
