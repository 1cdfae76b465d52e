package dmaprog

import (
	"container/heap"
	"fmt"
	"sort"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/isa"
	"github.com/npukit/npukit/neuroncore"
)

// Instruction-level timing of a subgraph: every engine runs its decoded
// instruction stream (package isa) in order; an instruction starts when
// its engine is free and its semaphore wait holds, and increments its
// semaphore when it completes. DMA_TRIGGER starts a static entry of a
// queue, DMA_DIRECT2D a DMA the engine describes (DGE); a DMA spreads its
// rows over the core's DMA engines at the per-engine bandwidth and adds
// its completion semaphore increment the fixed latency after its last
// row. Costs (cycles at the engine's clock, neuroncore.Arch):
//   - MATMUL max(N, 64), x4 for float32 inputs, x2 for each of the two
//     passes a float32 matmul is compiled to (matmulCycles); LDWEIGHTS
//     LoadWeightsCycles (LoadStationary runs in the background, behind
//     the previous MATMUL); both at half rate while TensorE warms up
//     (PEWarmupNs);
//   - VectorE N per input (two for TENSOR_TENSOR where the engine does
//     not read its inputs together; a COPY of 16-bit floats N/4 or N/2 on
//     NeuronCore-v3, its performance mode), ScalarE N, with no 64-cycle
//     minimum (streamCycles); GpSimd opcodes whose operands are not understood
//     GpSimdOpNs, 150 cycles where no capture timed them;
//   - plus InstrOverheadNs per VectorE/ScalarE instruction,
//     ActivateOverheadNs per ACTIVATE;
//   - ACT_TABLE_LOAD TableLoadNs; DMA_DIRECT2D occupies its issuing engine
//     DGEIssueNs (Pool: DGEIssuePoolNs, and its DMA starts DGEPoolLagNs
//     later); DMA_TRIGGER DMATriggerNs; waits, drains and other control
//     instructions nothing; an instruction's semaphore increment lands
//     SemaphoreLatencyNs after it ends.
//
// Fitted on the instruction durations of the captures in corpus3/ntff
// (Trn2; first the attention one, baseline_attention, as neuron-profile
// printed them), not on kernel totals:
const (
	// InstrOverheadNs: COPY of 128 and 512 elements per partition took
	// 289 and 691 ns on VectorE, 265 and 584 ns on ScalarE: about one
	// element per cycle plus 156-158 ns.
	InstrOverheadNs = 150
	// ActivateOverheadNs: ACTIVATE on ScalarE costs more than a COPY of
	// the same size on it (the function goes through the activation
	// table): 512 elements per partition took 705-708 ns (medians) on the
	// five trainium-kernel-fusion captures (COPY of 512: 585-587 ns) and
	// 1 element 294 ns on the MoE one (COPY of 1: 160 ns): N cycles at
	// 1.2 GHz plus 279-293 ns. (The MoE capture's ACTIVATEs of 128
	// elements on one partition took 492 ns, 106 ns more than this
	// gives; not understood.)
	ActivateOverheadNs = 285
	// TableLoadNs: the one ACT_TABLE_LOAD took 1,283 ns.
	TableLoadNs = 1283
	// DGEIssueNs: the DMA_DIRECT2D instructions on Sync and Scalar took
	// 559-613 ns each (8 of them; their queues are hardware DGE,
	// qSPDynamicHW and qActDynamicHW).
	DGEIssueNs = 570
	// DGEIssuePoolNs: on GpSimd a DMA_DIRECT2D is software descriptor
	// generation (queue qPoolDynamic): the profiler records the
	// instruction as 31-100 ns, but the engine starts nothing else for
	// about 585 ns. Consecutive DMA_DIRECT2Ds start 580-586 ns apart (MoE
	// v6b capture: 4; baseline_attention: 3), and the instruction after
	// one starts 610-620 ns (medians, 131 of them on the MoE capture)
	// after the instruction before it ended, where Pool instructions
	// otherwise follow each other 36-39 ns apart. It was 50, the recorded
	// duration.
	DGEIssuePoolNs = 585
	// DGEPoolLagNs: software DGE's DMA starts this long after the Pool
	// engine's share, then takes what the model gives any DMA (the fixed
	// latency after its rows). The profiler records the DMA_DIRECT2D
	// itself (descriptors handed to the rings) 548-559 ns (p10-p90, 151
	// of them on the MoE capture) after the next instruction started,
	// about 590 ns after the engine's share; its completion (the last
	// DMA engine's semaphore write) comes a median 1.88 us after that
	// record for the 128 transfers of 128 rows of 1 KiB, where the model
	// gives such a transfer 1.66 us: 590 + 220 ns. (128 rows of 4 KiB:
	// +350 ns, 16 of them; of 2 bytes: +1.0 us, 16; the
	// baseline_attention's first of 2 KiB rows: +260 ns.)
	DGEPoolLagNs = 810
	// DMATriggerNs: the runtime loads a DMA_TRIGGER as WRITE
	// instructions, and the queue's DMA starts after them: runtime 2.30
	// as two (the MoE capture: 33 WRITEs for the 16 triggers of its Pool
	// stream, 19 for the 9 of its Sync stream), 2.27 as one (the
	// transpose and conv2d captures: 68 WRITEs for 65 Sync triggers, 452
	// for 449). A WRITE took 46.7 ns on GpSimd and the next instruction
	// followed 35.8 ns later (MoE, 2.30), 58.3 + 25.0 ns on Sync (2.27):
	// about 83 ns each. A NEFF does not say which runtime runs it; the
	// newer one's two WRITEs, 165 ns, are used (2.27's 83 ns moves the
	// 2.27 captures' predictions by under 0.7%). It was 0.
	DMATriggerNs = 165
	// SemaphoreLatencyNs: an instruction's semaphore increment reaches
	// the instructions waiting on it this long after it completes. An
	// instruction blocked on another engine's increment started 32-53 ns
	// after that engine's instruction ended on every trn2 capture with
	// such waits (medians per pair of engines: Tensor to Scalar 37 ns,
	// 223 waits on conv2d float16; Scalar to Vector 32-33 ns, 203 and 214
	// on conv2d float16 and the MoE; Tensor to Vector 37-38; Vector to
	// Scalar 32-36; to Tensor 51-53, 57 on the MoE). It was 0.
	SemaphoreLatencyNs = 37
	// PEWarmupNs, PEIdleNs, PEColdFactor: TensorE runs its MATMULs and
	// LDWEIGHTS at half rate for about 4.7 us after it starts streaming
	// (the kernel's first ones, and the first after an idle spell of
	// more than about 2.5 us), then at full rate. On every trn2 capture
	// with N = 128-512 matmuls the period from one MATMUL to the next was
	// 1.92-1.99x its later value at the start of the kernel and after
	// idle spells of 2.7-45 us (bf16 N = 512: 427 then 218 ns; float32
	// pass N = 128: 213 then 111 ns; N = 512: 853 then 428 ns), and the
	// half-rate phase lasted 3.8-6.2 us, median 4.8 us (15 phases timed
	// on the five trainium-kernel-fusion, the transpose and six conv2d
	// captures). Idle spells of 0.9-2.3 us did not slow it (MoE;
	// fp32_s1024 after 1.5 us): 2.5 us is a threshold between those and
	// 2.7. The MoE's matmuls of one moving column ran at full rate from
	// the start (the slowdown may depend on how much of the array a
	// matmul drives; the model applies it to every matmul). No public
	// document describes it.
	PEWarmupNs   = 4700
	PEIdleNs     = 2500
	PEColdFactor = 2
	// LoadWeightsCycles: an LDWEIGHTS between two MATMULs adds 3-12
	// cycles (median 7) to the period from one MATMUL to the next, which
	// is otherwise the MATMUL's own cycles: bf16 N = 128, 444 and 512
	// followed each other every 134, 452 and 523 cycles (trainium-kernel-
	// fusion bf16_s1024; 3,660 on conv2d float16; bf16_s1024 after the
	// warm-up), float32 passes of N = 128, 420 and 512 every 268, 846 and
	// 1,027 (2N + 12, 6, 3), one-column matmuls every 64. The stationary
	// load runs behind the previous MATMUL. It was a quarter of a MATMUL
	// of the LDWEIGHTS' free size (32-64 cycles, 13-27 ns).
	LoadWeightsCycles = 8
)

// GpSimdOpNs prices the GpSimd opcodes whose operands npukit does not
// understand (package isa) by what each took on the one capture that runs
// them, the MoE v6b (runtime 2.30, trn2): the profiler's median duration
// plus the median gap to the next instruction when that one does not
// wait, the time from one instruction's start to the next's:
//   - 0xA8: 42.5 + 35.8 ns (416 of them);
//   - 0xCE: 290 + 43.3 ns (144; the runtime loads it, operands unchanged,
//     as the opcode neuron-profile names TENSOR_LOAD);
//   - 0xDA: 45.8 + 39.2 ns (144; a slot after each DMA_DIRECT2D that the
//     runtime fills with an instruction of its own, 0xA7, moving the
//     DMA_DIRECT2D into it). It was priced as a control instruction, 0.
//
// They were priced as an iota-like GpSimd op, 150 cycles (125 ns at 1.2
// GHz), as are GpSimd opcodes no capture has timed. They apply on GpSimd
// only; on another engine the byte is priced by its class (package isa).
var GpSimdOpNs = map[byte]float64{0xA8: 78, 0xCE: 333, 0xDA: 85}

// EngineTiming is one engine's share of an instruction-level simulation.
type EngineTiming struct {
	Engine       string `json:"engine"`
	Instructions int    `json:"instructions"`
	BusyNs       int64  `json:"busy_ns"`
	LastEndNs    int64  `json:"last_end_ns"`
}

// EngineRun is the instruction-level simulation of one subgraph.
type EngineRun struct {
	// KernelNs is the last instruction's or DMA's completion.
	KernelNs int64          `json:"kernel_ns"`
	Engines  []EngineTiming `json:"engines"`
	// DMAs started by instructions: static entries and DGE transfers.
	StaticDMAs int   `json:"static_dmas"`
	DGEDMAs    int   `json:"dge_dmas"`
	DMABytes   int64 `json:"dma_bytes"`
	DMABusyNs  int64 `json:"dma_busy_ns"`
	// Unknown counts instructions whose opcode is not understood (priced
	// as 64-cycle instructions), by name.
	Unknown map[string]int `json:"unknown,omitempty"`
	// Released counts semaphore waits nothing in the subgraph could
	// satisfy (another core's semaphores, or a decoding npukit got wrong):
	// the simulation let them pass.
	Released int `json:"released_waits,omitempty"`
	// Untriggered counts static DMA entries no instruction triggered.
	Untriggered int `json:"untriggered_entries,omitempty"`
	// BadTriggers counts triggers naming an entry the queue does not have.
	BadTriggers int `json:"bad_triggers,omitempty"`
	// Slices is the run as priced, when Setup.Trace asked for it: every
	// instruction that takes time on its engine, every DMA from its
	// trigger to its completion on its queue, and each DMA engine's share.
	Slices []Slice `json:"-"`
}

// Slice is one interval of a simulated subgraph, in ns from its start.
type Slice struct {
	// Track is the engine ("Tensor"), DMA queue ("DMA queue qSPIO0") or
	// DMA engine ("DMA engine 3") it occupies.
	Track string
	Name  string
	// Cat is "instruction", "dma" (trigger to completion, the fixed
	// latency included) or "dma-engine" (a DMA engine's share of one).
	Cat            string
	StartNs, EndNs int64
	Bytes          int64
}

// CatInstruction, CatDMA and CatDMAEngine are the categories of Slice.
const (
	CatInstruction = "instruction"
	CatDMA         = "dma"
	CatDMAEngine   = "dma-engine"
)

func roundNs(t float64) int64 { return int64(t + 0.5) }

// engineKeys are def.json's engine keys in a fixed order, with their
// NeuronCore engine for clocks.
var engineKeys = []struct {
	key  string
	name string
	eng  neuroncore.Engine
}{
	{"pe", neuroncore.TensorName, neuroncore.TensorE},
	{"act", neuroncore.ScalarName, neuroncore.ScalarE},
	{"dve", neuroncore.VectorName, neuroncore.VectorE},
	{"pool", neuroncore.GpSimdName, neuroncore.GpSimdE},
	{"sp", neuroncore.SyncName, neuroncore.GpSimdE}, // the Sync engine: control and DMA triggers
}

// HasInstructions reports whether the subgraph's engines carry
// instruction streams npukit can read.
func (p *Program) HasInstructions() bool {
	return len(p.streams()) > 0
}

type stream struct {
	name   string
	eng    neuroncore.Engine
	pool   bool
	instrs []isa.Instr
}

func (p *Program) streams() []stream {
	if p.sg == nil || p.file == nil {
		return nil
	}
	var out []stream
	for _, k := range engineKeys {
		for _, e := range p.sg.Engines {
			if e.Key != k.key || e.InstrMember == "" {
				continue
			}
			mem, ok := p.file.Member(e.InstrMember)
			if !ok || len(mem.Data) < isa.Size {
				continue
			}
			out = append(out, stream{name: k.name, eng: k.eng, pool: k.key == "pool", instrs: isa.Decode(mem.Data)})
		}
	}
	return out
}

// staticEntry is one dma-list entry of an engine JSON: what it moves.
type staticEntry struct {
	charged, rows, bytes int64
	sem                  int
	inc                  int64
	triggered            bool
	comment              string // the first descriptor's #comment
}

// entries groups the program's descriptors by queue and entry, in the
// order the engine JSONs list them; an entry's id, when given, is its
// index on the queue.
func (p *Program) entries(params dma.SimParams) map[string][]*staticEntry {
	type key struct {
		member string
		index  int
	}
	byEntry := map[key]*staticEntry{}
	queues := map[string][]*staticEntry{}
	sets := map[string]int64{}
	for _, q := range p.Queues {
		sets[q.Name] = int64(max(q.NumQueues, 1))
	}
	if p.sg != nil {
		for _, e := range p.sg.Engines {
			if e.JSON == nil {
				continue
			}
			for i, ent := range e.JSON.DMA {
				if ent == nil {
					continue
				}
				se := &staticEntry{sem: -1, inc: 16}
				if ent.Semaphore != nil {
					se.sem = int(*ent.Semaphore)
				}
				q := ent.QueueName()
				if n, ok := sets[q]; ok {
					se.inc = n
				}
				byEntry[key{e.Member, i}] = se
				idx := len(queues[q])
				if ent.ID != nil && *ent.ID >= 0 && *ent.ID < 1<<20 {
					idx = int(*ent.ID)
				}
				for len(queues[q]) <= idx {
					queues[q] = append(queues[q], nil)
				}
				if queues[q][idx] == nil {
					queues[q][idx] = se
				} else {
					queues[q] = append(queues[q], se)
				}
			}
		}
	}
	for _, d := range p.Descriptors {
		se := byEntry[key{d.Engine, d.Index}]
		if se == nil {
			continue
		}
		moved, charged := dma.ChargedBytes(d.Transfer, params)
		if se.comment == "" {
			se.comment = d.Comment
		}
		se.bytes += moved
		se.charged += charged
		se.rows += dma.Rows(d.Transfer)
	}
	return queues
}

// incHeap orders pending semaphore increments by time.
type inc struct {
	at    float64 // ns
	sem   int
	delta int64
}
type incHeap []inc

func (h incHeap) Len() int           { return len(h) }
func (h incHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h incHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *incHeap) Push(x any)        { *h = append(*h, x.(inc)) }
func (h *incHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dmaRings is the core's DMA engines: when each is free (ns).
type dmaRings struct {
	free       []float64
	bytesPerNs float64
	fixedNs    float64
	minRun     int64
	busy       float64
}

// run starts a DMA of charged bytes over rows rows at t and returns its
// completion: the rows are dealt over up to len(free) engines, each share
// starting when its engine is free; the fixed latency follows the last.
// rec, when not nil, receives each engine's share.
func (r *dmaRings) run(t float64, charged, rows int64, rec func(engine int, start, end float64)) float64 {
	n := int(min(max(rows, 1), int64(len(r.free))))
	idx := make([]int, len(r.free))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.free[idx[a]] < r.free[idx[b]] })
	share := float64(charged) / float64(n) / r.bytesPerNs
	end := t
	for _, e := range idx[:n] {
		s := max(t, r.free[e])
		r.free[e] = s + share
		r.busy += share
		if rec != nil {
			rec(e, s, s+share)
		}
		end = max(end, s+share)
	}
	return end + r.fixedNs
}

// simulateEngines runs the subgraph's instruction streams on the cost
// model of a (nil when the subgraph has no readable instructions); with
// record, the run's Slices are kept.
func (p *Program) simulateEngines(a *neuroncore.Arch, params dma.SimParams, record bool) *EngineRun {
	ss := p.streams()
	if len(ss) == 0 {
		return nil
	}
	queues := p.entries(params)
	rings := &dmaRings{free: make([]float64, max(params.Engines, 1)), bytesPerNs: params.BytesPerNs, fixedNs: float64(params.OverheadNs), minRun: params.MinChargedRun}
	run := &EngineRun{Unknown: map[string]int{}}
	type state struct {
		pc   int
		free float64
		busy float64
		// TensorE: the end of its last matmul-class instruction and when
		// it runs at full rate again (PEWarmupNs)
		peLast, peWarm float64
		peSeen         bool
	}
	st := make([]state, len(ss))
	sems := map[int]int64{}
	h := &incHeap{}
	var now float64
	last := 0.0
	cost := func(s *stream, in *isa.Instr) float64 {
		ns := func(c int64) float64 { return float64(a.CyclesToPs(s.eng, c)) / 1000 }
		// measured on GpSimd: the same byte elsewhere is priced by its class
		if c, ok := GpSimdOpNs[in.Opcode]; ok && s.eng == neuroncore.GpSimdE {
			return c
		}
		switch in.Op.Class {
		case isa.Control:
			return 0
		case isa.DMATrigger:
			return DMATriggerNs
		case isa.Matmul:
			return float64(a.CyclesToPs(neuroncore.TensorE, matmulCycles(a, in))) / 1000
		case isa.LoadWeights:
			return float64(a.CyclesToPs(neuroncore.TensorE, LoadWeightsCycles)) / 1000
		case isa.Vector1, isa.Vector2:
			// No 64-cycle floor under the overhead (streamCycles).
			return ns(streamCycles(a, s.eng, in)) + InstrOverheadNs
		case isa.Activation:
			return ns(streamCycles(a, s.eng, in)) + ActivateOverheadNs
		case isa.TableLoad:
			return TableLoadNs
		case isa.DMADirect:
			if s.pool {
				return DGEIssuePoolNs
			}
			return DGEIssueNs
		case isa.GpSimd:
			return ns(a.GpSimdCycles(0))
		}
		run.Unknown[in.Name()]++
		return ns(a.MinInstrCycles)
	}
	apply := func(t float64) {
		for h.Len() > 0 && (*h)[0].at <= t {
			x := heap.Pop(h).(inc)
			sems[x.sem] += x.delta
		}
	}
	push := func(at float64, sem int, d int64) {
		heap.Push(h, inc{at: at, sem: sem, delta: d})
		last = max(last, at)
	}
	// dmaRec records one DMA: its engine shares and, on its queue's
	// track, the time from its trigger to its completion.
	dmaRec := func(track, name string, bytes, charged, rows int64, at float64) float64 {
		if !record {
			return rings.run(at, charged, rows, nil)
		}
		done := rings.run(at, charged, rows, func(e int, s, t float64) {
			run.Slices = append(run.Slices, Slice{Track: fmt.Sprintf("DMA engine %d", e), Name: name, Cat: CatDMAEngine, StartNs: roundNs(s), EndNs: roundNs(t)})
		})
		run.Slices = append(run.Slices, Slice{Track: track, Name: name, Cat: CatDMA, StartNs: roundNs(at), EndNs: roundNs(done), Bytes: bytes})
		return done
	}
	for {
		progress := false
		for i := range ss {
			s, e := &ss[i], &st[i]
			for e.pc < len(s.instrs) && e.free <= now {
				in := &s.instrs[e.pc]
				if in.WaitCond != 0 && sems[in.WaitSem] < in.WaitValue {
					break
				}
				start := max(now, e.free)
				d := cost(s, in)
				if in.Op.Class == isa.Matmul || in.Op.Class == isa.LoadWeights {
					// half rate for PEWarmupNs after an idle spell
					if !e.peSeen || start-e.peLast >= PEIdleNs {
						e.peWarm = start + PEWarmupNs
					}
					if start < e.peWarm {
						d *= PEColdFactor
					}
					e.peSeen = true
				}
				end := start + d
				if in.Op.Class == isa.Matmul || in.Op.Class == isa.LoadWeights {
					e.peLast = end
				}
				e.free, e.busy = end, e.busy+d
				e.pc++
				progress = true
				last = max(last, end)
				if record && (d > 0 || in.Op.Class == isa.DMATrigger) {
					// a trigger takes no time: an instant where its DMA starts
					name := in.Name()
					if in.Op.Class == isa.DMATrigger {
						name = fmt.Sprintf("%s %s[%d]", name, in.Queue, in.Entry)
					}
					run.Slices = append(run.Slices, Slice{Track: s.name, Name: name, Cat: CatInstruction, StartNs: roundNs(start), EndNs: roundNs(end)})
				}
				if in.UpdKind != 0 {
					push(end+SemaphoreLatencyNs, in.UpdSem, 1)
				}
				switch in.Op.Class {
				case isa.DMATrigger:
					q := queues[in.Queue]
					if in.Entry < 0 || in.Entry >= len(q) || q[in.Entry] == nil {
						run.BadTriggers++
						continue
					}
					se := q[in.Entry]
					se.triggered = true
					run.StaticDMAs++
					run.DMABytes += se.bytes
					name := fmt.Sprintf("%s[%d]", in.Queue, in.Entry)
					if se.comment != "" {
						name += " " + se.comment
					}
					done := dmaRec("DMA queue "+in.Queue, name, se.bytes, max(se.charged, 1), se.rows, end)
					if se.sem >= 0 {
						push(done, se.sem, se.inc)
					}
					last = max(last, done)
				case isa.DMADirect:
					run.DGEDMAs++
					run.DMABytes += in.DMABytes
					row := in.DMABytes / max(in.DMARows, 1)
					at := end
					if s.pool {
						at += DGEPoolLagNs // software DGE: descriptors written after the engine's share
					}
					done := dmaRec("DMA issued by "+s.name+" (DGE)", "DMA_DIRECT2D", in.DMABytes, in.DMARows*max(row, rings.minRun), in.DMARows, at)
					push(done, in.DMASem, in.DMAInc)
					last = max(last, done)
				}
			}
		}
		if progress {
			continue
		}
		// Next event: an engine becoming free or a semaphore increment.
		next, ok := 0.0, false
		done := true
		for i := range ss {
			if st[i].pc < len(ss[i].instrs) {
				done = false
				if st[i].free > now && (!ok || st[i].free < next) {
					next, ok = st[i].free, true
				}
			}
		}
		if done {
			break
		}
		if h.Len() > 0 {
			t := (*h)[0].at
			if !ok || t < next {
				next, ok = t, true
			}
		}
		if ok {
			now = max(now, next)
			apply(now)
			continue
		}
		// Deadlock: release the wait of the first blocked engine.
		for i := range ss {
			if st[i].pc < len(ss[i].instrs) {
				ss[i].instrs[st[i].pc].WaitCond = 0
				run.Released++
				break
			}
		}
	}
	for _, q := range queues {
		for _, se := range q {
			if se != nil && !se.triggered {
				run.Untriggered++
			}
		}
	}
	run.KernelNs = roundNs(last)
	run.DMABusyNs = roundNs(rings.busy)
	for i, s := range ss {
		run.Engines = append(run.Engines, EngineTiming{Engine: s.name, Instructions: len(s.instrs), BusyNs: int64(st[i].busy + 0.5), LastEndNs: int64(st[i].free + 0.5)})
	}
	if len(run.Unknown) == 0 {
		run.Unknown = nil
	}
	return run
}

// streamCycles is a VectorE or ScalarE instruction's streaming cycles: one
// per element per partition (two for a two-input instruction where the
// engine does not read its inputs together), without the 64-cycle minimum
// of the architecture guide: the fixed per-instruction cost
// (InstrOverheadNs, ActivateOverheadNs) was measured on top of N cycles
// and already holds it. Instructions of 1-16 elements took 153-160 ns on
// VectorE and ScalarE (MoE capture: COPY, CAST and TENSOR_TENSOR of 1;
// the four trainium-kernel-fusion captures: TENSOR_REDUCE of 4 and 16),
// where N cycles plus the overhead gives 151-167 ns and max(N, 64) cycles
// plus it 203-217 ns.
func streamCycles(a *neuroncore.Arch, e neuroncore.Engine, in *isa.Instr) int64 {
	n := max(in.Elems, 1)
	if in.Op.Class == isa.Vector2 && e == neuroncore.VectorE && !a.VectorInputsTogether {
		return 2 * n
	}
	if e == neuroncore.VectorE && in.Opcode == opCopy {
		// VectorE's 16-bit performance mode (neuroncore.Arch.VectorPerfMode16)
		all16 := isa.Is16BitFloat(in.DType) && isa.Is16BitFloat(in.OutDType)
		sb := isa.InSBUF(in.InAddr) && isa.InSBUF(in.OutAddr)
		d := a.VectorPerfDivisor(false, all16, sb, in.InStep == 1 && in.OutStep == 1, sb)
		return (n + d - 1) / d
	}
	return n
}

// opCopy is COPY, the opcode of tensor_copy (package isa).
const opCopy = 0x46

// matmulCycles is a TensorE instruction's cycles: max(N, 64), four times
// that for float32 (architecture guide), of which each of the two passes
// the compiler splits a float32 matmul into costs half. On the attention
// capture the float32 pass MATMULs took 593-1,060 ns at N = 512 and from
// 270 ns at N = 128 (2.4 GHz): about 2 cycles per element and pass.
func matmulCycles(a *neuroncore.Arch, in *isa.Instr) int64 {
	c := max(max(in.Elems, 1), a.MMInitLatency)
	switch {
	case in.FP32Pass:
		c *= 2
	case in.Float32:
		c *= 4
	}
	return c
}

// Trusted reports whether the decoding held together: at most 5% of the
// instructions have an unknown opcode and no more than 5% of the waits had
// to be let pass.
func (r *EngineRun) Trusted() bool {
	n := 0
	for _, e := range r.Engines {
		n += e.Instructions
	}
	unknown := 0
	for _, c := range r.Unknown {
		unknown += c
	}
	return 20*unknown <= n && 20*r.Released <= n
}

// UnknownList renders the opcodes not understood, "OP_0x12 x3, ...".
func (r *EngineRun) UnknownList() string {
	names := make([]string, 0, len(r.Unknown))
	for n := range r.Unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s x%s", n, humanize.Count(int64(r.Unknown[n])))
	}
	return s
}
