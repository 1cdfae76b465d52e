package ntff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// synth is a small synthetic capture: one core "sg00" with one DMA queue
// (engine 0, queue 1, qSPIO0) and the given event records.
type synth struct {
	format   byte
	instance string
	window   [2]uint64 // recorded window (format 6); none when zero
	totalPs  uint64
	code     []byte // the Tensor engine's instruction stream (address 0)
	memory   []uint64
	instrs   [][]byte // instruction records
	dma      [][]byte // DMA records
	notes    [][]byte // notification records
}

func pbField(num int, wire int, payload []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(num<<3|wire))
	if wire == 2 {
		b = binary.AppendUvarint(b, uint64(len(payload)))
	}
	return append(b, payload...)
}

func pbVint(num int, v uint64) []byte { return binary.AppendUvarint(pbField(num, 0, nil), v) }

func record(b0, b1, b3, b4 byte, t uint64) []byte {
	r := make([]byte, 16)
	r[0], r[1], r[3], r[4] = b0, b1, b3, b4
	binary.LittleEndian.PutUint64(r[8:], t)
	return r
}

// dmaPacket is a data event of n bytes at t and its completion at c on
// DMA engine 0, queue 1.
func dmaPacket(n uint16, t, c uint64) [][]byte {
	return [][]byte{record(byte(n), byte(n>>8), 0x80, 0x15, t), record(0, 0, 0x80, 0x16, c)}
}

func (s synth) bytes() []byte {
	region := func(kind, sub, off, l int) []byte {
		return pbField(16, 2, bytes.Join([][]byte{pbVint(1, uint64(kind)), pbVint(3, uint64(sub)), pbVint(5, uint64(off)), pbVint(6, uint64(l)), pbVint(7, 0)}, nil))
	}
	core := bytes.Join([][]byte{pbField(1, 2, []byte("sg00")), pbVint(3, 0), pbVint(14, s.totalPs),
		pbField(7, 2, bytes.Join([][]byte{pbVint(1, 0), pbVint(2, 1), pbVint(3, 3), pbField(4, 2, []byte("qSPIO0"))}, nil))}, nil)
	if s.code != nil {
		core = append(core, pbField(4, 2, bytes.Join([][]byte{pbVint(1, 0), pbVint(2, 0), pbField(3, 2, s.code)}, nil))...)
	}
	for i, m := range s.memory {
		core = append(core, pbField(11, 2, append(pbVint(1, uint64(i)), pbVint(2, m)...))...)
	}
	ins, dma, nts := bytes.Join(s.instrs, nil), bytes.Join(s.dma, nil), bytes.Join(s.notes, nil)
	top := bytes.Join([][]byte{pbField(1, 2, []byte("file.neff")), pbField(4, 2, pbField(4, 2, pbField(1, 2, core))),
		pbField(9, 2, []byte(s.instance)), region(0, 0, 0, len(ins)), region(4, 1, len(ins), len(dma)), region(1, 0, len(ins)+len(dma), len(nts))}, nil)
	if s.window != [2]uint64{} {
		top = append(top, pbField(15, 2, append(pbVint(2, s.window[0]), pbVint(3, s.window[1])...))...)
	}
	out := make([]byte, HeaderSize)
	out[0] = s.format
	binary.LittleEndian.PutUint32(out[1:], uint32(len(top)))
	return bytes.Join([][]byte{out, top, ins, dma, nts}, nil)
}

func summarizeSynth(t *testing.T, s synth) (*Profile, *Summary) {
	t.Helper()
	p, err := Parse(s.bytes())
	if err != nil {
		t.Fatal(err)
	}
	return p, Summarize(p, "synth.ntff")
}

// A queue whose bytes would have moved faster than a DMA engine can is
// not given a busy time, in the summary, its JSON or its text; a queue at
// a possible rate keeps its.
func TestSanityQueueRate(t *testing.T) {
	const us = 1_000_000 // ps
	s := synth{format: 6, instance: "trn2.3xlarge", window: [2]uint64{0, 20 * us}, totalPs: 20 * us}
	// 2 x 32000 B, each 100 ns from data event to completion: 320 B/ns.
	s.dma = append(s.dma, dmaPacket(32000, 1*us, 1*us+100_000)...)
	s.dma = append(s.dma, dmaPacket(32000, 2*us, 2*us+100_000)...)
	_, sum := summarizeSynth(t, s)
	q := sum.Cores[0].Queues[0]
	if q.Bytes != 64000 || q.NotMeasured == "" || q.BusyNs != 0 {
		t.Fatalf("64000 B in 200 ns: busy %v ns, not measured %q; want it withdrawn", q.BusyNs, q.NotMeasured)
	}
	j, _ := json.Marshal(sum)
	if strings.Contains(string(j), `"busy_ns":`) || !strings.Contains(string(j), `"busy_not_measured":`) {
		t.Errorf("JSON still gives the withdrawn busy time: %s", j)
	}
	var b strings.Builder
	sum.WriteText(&b)
	if !strings.Contains(b.String(), "busy not measured") || strings.Contains(b.String(), " 0.200") {
		t.Errorf("text prints the withdrawn busy time:\n%s", b.String())
	}

	// The same bytes over 4 us (16 B/ns) are a measurement.
	s.dma = nil
	s.dma = append(s.dma, dmaPacket(32000, 1*us, 3*us)...)
	s.dma = append(s.dma, dmaPacket(32000, 3*us, 5*us)...)
	_, sum = summarizeSynth(t, s)
	if q := sum.Cores[0].Queues[0]; q.NotMeasured != "" || q.BusyNs != 4000 {
		t.Errorf("64000 B in 4 us: busy %v ns, not measured %q; want 4000 ns measured", q.BusyNs, q.NotMeasured)
	}
}

// An engine's semaphore waits adding up to more than the window are not
// a measurement (an engine waits for one semaphore at a time).
func TestSanityWaitLongerThanWindow(t *testing.T) {
	code := make([]byte, 128)
	code[0], code[64] = OpEventSemaphore, OpEventSemaphore
	s := synth{format: 6, instance: "trn2.3xlarge", window: [2]uint64{0, 10_000_000}, totalPs: 10_000_000, code: code}
	// Two overlapping 8 us waits inside a 10 us window.
	s.instrs = [][]byte{record(0, 0, 0x84, 0, 1_000_000), record(1, 0, 0x84, 0, 1_500_000), record(0, 0, 0x85, 0, 9_000_000), record(1, 0, 0x85, 0, 9_500_000)}
	_, sum := summarizeSynth(t, s)
	e := sum.Cores[0].Engines[0]
	if e.Instructions != 2 || e.NotMeasured == "" || e.WaitNs != 0 {
		t.Fatalf("16 us of waits in a 10 us window: %+v; want the times withdrawn", e)
	}
	// One 8 us wait is a measurement.
	s.instrs = [][]byte{record(0, 0, 0x84, 0, 1_000_000), record(0, 0, 0x85, 0, 9_000_000)}
	_, sum = summarizeSynth(t, s)
	if e := sum.Cores[0].Engines[0]; e.NotMeasured != "" || e.WaitNs != 8000 {
		t.Errorf("one 8 us wait: %+v; want 8000 ns measured", e)
	}
}

// Format 4 stamps DMA events in nanoseconds: a packet's times come out
// in picoseconds like the instructions'. Its engine times, counted over
// the whole capture, are not given as measurements, and its memory rows
// are named where format 4's positions are known.
func TestFormat4(t *testing.T) {
	s := synth{format: 4, instance: "trn1.2xlarge", totalPs: 10_000_000, code: make([]byte, 64),
		memory: []uint64{0, 64, 0, 0, 0, 0, 0, 4096, 0, 0, 0, 0, 0, 0, 100 << 20}}
	s.instrs = [][]byte{record(0, 0, 0x84, 0, 1_000_000), record(0, 0, 0x85, 0, 2_000_000)}
	// 16000 B from 1,000 ns to 2,000 ns (16 B/ns).
	s.dma = dmaPacket(16000, 1000, 2000)
	p, sum := summarizeSynth(t, s)
	pk := p.Cores[0].Packets[0]
	if pk.Start != 1_000_000 || pk.End != 2_000_000 {
		t.Errorf("format 4 packet at %d..%d ps, want 1000000..2000000 (its ticks are ns)", pk.Start, pk.End)
	}
	c := sum.Cores[0]
	if q := c.Queues[0]; q.NotMeasured != "" || q.BusyNs != 1000 {
		t.Errorf("format 4 queue: %+v, want 1000 ns busy, measured", q)
	}
	if e := c.Engines[0]; e.Instructions != 1 || e.NotMeasured != Format4NoWindow || e.BusyNs != 0 {
		t.Errorf("format 4 Tensor engine: %+v, want its times withdrawn", e)
	}
	var names []string
	for _, m := range c.Memory {
		if m.Bytes > 0 {
			names = append(names, m.Name)
		}
	}
	if got := strings.Join(names, ","); got != "pe,#7,ucode" {
		t.Errorf("format 4 memory rows %s, want pe,#7,ucode", got)
	}
	// Format 6 keeps its DMA ticks: picoseconds.
	s.format = 6
	p, _ = summarizeSynth(t, s)
	if pk := p.Cores[0].Packets[0]; pk.Start != 1000 {
		t.Errorf("format 6 packet at %d ps, want 1000", pk.Start)
	}
}

// Format 4 stamps one engine's instruction events (the Vector engine's on
// both shared captures) from a clock of another origin; its notification
// events keep the common clock, and the reader moves the engine's
// instructions onto it. An engine whose instructions agree with its
// notifications is left alone.
func TestFormat4EngineClockAligned(t *testing.T) {
	const skew = 1_460_000_000 // ps, the Vector clock's lead
	s := synth{format: 4, instance: "trn1.2xlarge", totalPs: 10_000_000}
	for i := uint64(0); i < 10; i++ {
		t0 := 1_000_000 + i*500_000
		// Tensor (code 0x84) and Vector (0x90) run the same instruction
		// at the same time; Vector's events carry the skew.
		s.instrs = append(s.instrs, record(byte(i), 0, 0x84, 0, t0), record(byte(i), 0, 0x85, 0, t0+200_000),
			record(byte(i), 0, 0x90, 0, t0+skew), record(byte(i), 0, 0x91, 0, t0+skew+200_000))
		// Each notifies 30 ns after its instruction ends.
		s.notes = append(s.notes, record(0, 0, 0x87, 0, t0+230_000), record(0, 0, 0x93, 0, t0+230_000))
	}
	p, _ := summarizeSynth(t, s)
	c := p.Cores[0]
	if _, ok := c.ClockShiftPs[0]; ok {
		t.Errorf("Tensor shifted by %d ps though its notifications agree", c.ClockShiftPs[0])
	}
	if d := c.ClockShiftPs[3] + skew; d < -notifyNearPs || d > notifyNearPs {
		t.Fatalf("Vector shifted by %d ps, want -%d", c.ClockShiftPs[3], skew)
	}
	for _, in := range c.Instrs {
		if in.Engine == 3 && (in.Start < 1_000_000-notifyNearPs || in.Start > 6_000_000) {
			t.Errorf("Vector instruction at %d ps after alignment, outside the Tensor's 1-6 us", in.Start)
		}
	}
	// Format 6 is read as recorded.
	s.format = 6
	p, _ = summarizeSynth(t, s)
	if p.Cores[0].ClockShiftPs != nil {
		t.Errorf("format 6 engines shifted: %v", p.Cores[0].ClockShiftPs)
	}
}
