package neuroncore

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/simhook"
	"github.com/npukit/npukit/sim"
)

// Timing model (documented in docs/sbuf-plan.md):
//   - Each compute engine runs its instructions in program order, one at a
//     time, for the cycles of the architecture guide's cost formulas at the
//     engine's clock (matmul max(N, 64), x4 for fp32; VectorE N per input
//     with a 64-cycle floor; ScalarE max(64, N); GpSimdE 150 + N).
//     A memset of a fresh buffer is the exception: it goes to its engine
//     one iteration of its loop early (hoistZeros).
//   - A load or store is split into one transfer per DMA engine (at most one
//     per partition); each transfer occupies its engine for bytes at the
//     engine bandwidth, and the data lands the DMA fixed latency after the
//     last transfer ends (latency that several outstanding DMAs overlap).
//   - Dependencies follow physical memory: a read waits for the last write
//     of every overlapping physical tile (read after write); a write waits
//     for the earlier reads and writes of every overlapping physical tile
//     (write after read / write), which is what serialises a loop whose
//     tensor has one physical tile. Tensors left automatic get a private
//     location per logical tile (unbounded memory).
//   - Not modelled: the ~60-cycle SBUF/PSUM access overhead (hidden by
//     pipelining), shared SBUF/PSUM ports between engines, semaphores.
//
// Time is in picoseconds.

// SimResult is the outcome of simulating a plan.
type SimResult struct {
	Plan     *Plan
	Exec     *Execution
	Graph    *sim.Graph
	Timeline *sim.Timeline
	// Engine resources, indexed by Engine.
	Resources [numEngines]sim.ResourceID
	// Done is, per event, the task whose end means the step is complete
	// (the join of a DMA's transfers, or the compute task).
	Done []sim.TaskID
	// Spill: when the automatic SBUF tiles alive together need more bytes
	// per partition than SBUF holds, the compiler must store some to HBM
	// and load them back. SpillBytes is that traffic (each spilled tile
	// stored once and reloaded once), SpillPs its time on all the DMA
	// engines, added to the kernel's time.
	SpillBytes int64
	SpillPs    int64
	// LiveBytes is the largest number of bytes per partition the automatic
	// SBUF tiles alive together need.
	LiveBytes int64
	// Vectorized is how many events joined the merged instruction of an
	// earlier iteration of their loop (Vectorization): the instructions
	// the engines run are len(Exec.Events) minus this.
	Vectorized int
	// VectorizedWidest is the most iterations one merged instruction
	// holds.
	VectorizedWidest int64
	// PSUMZerosElided is how many memsets of PSUM tiles cost nothing: the
	// next access of each tile is a matmul accumulating into it, whose
	// first write overwrites (psumZerosElided).
	PSUMZerosElided int
	// SBUFZerosElided is how many memsets of SBUF tiles cost nothing:
	// later writes fill each tile before anything reads it, and the
	// compiler removes the dead store (sbufZerosElided).
	SBUFZerosElided int
	// ZerosHoisted is how many memsets of fresh buffers went to their
	// engine before the previous iteration of their loop (hoistZeros).
	ZerosHoisted int
	// TracePath is the file a trace of the run was written to, if any
	// (the summary names it).
	TracePath string
}

// spill estimates the SBUF spill traffic of the automatic tiles: sweeping
// the lifetimes in order, a tile that would take the live set past SBUF's
// usable bytes per partition is spilled (stored after it is written,
// reloaded before it is read: twice its bytes over its partitions) and
// does not count toward the live set. Tensors at one location per tile
// (Plan.SharedLocation) and direct ones are where they are; they are not
// counted.
func (r *SimResult) spill() {
	x, p := r.Exec, r.Plan
	a := p.Arch
	type edge struct {
		t     int
		bytes int64
		parts int64
		id    int
	}
	var es []edge
	for i, l := range x.Lifetimes {
		t := p.Tensors[l.Key.Tensor]
		if t.Direct() || t.Buffer != SBUF || l.End <= l.Start || p.SharedLocation(t) {
			continue
		}
		b := t.TileBytes()
		if b > a.SBUFUsableBytes {
			continue // sbuf/tile-too-large
		}
		es = append(es, edge{l.Start, b, t.Partitions, i}, edge{l.End, -b, t.Partitions, i})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].t != es[j].t {
			return es[i].t < es[j].t
		}
		return es[i].bytes < es[j].bytes // ends first: [Start, End)
	})
	var cur int64
	spilled := map[int]bool{}
	for _, e := range es {
		if e.bytes < 0 {
			if !spilled[e.id] {
				cur += e.bytes
			}
			continue
		}
		if cur+e.bytes > a.SBUFUsableBytes {
			spilled[e.id] = true
			r.SpillBytes += 2 * e.bytes * e.parts
			r.LiveBytes = max(r.LiveBytes, cur+e.bytes)
			continue
		}
		cur += e.bytes
		r.LiveBytes = max(r.LiveBytes, cur)
	}
	if r.SpillBytes > 0 {
		ns := float64(r.SpillBytes) / (float64(a.DMAEngines) * a.DMABytesPerNs)
		r.SpillPs = int64(ns * 1000)
	}
}

// Simulate runs the plan's body on the engine and DMA model.
func Simulate(p *Plan) (*SimResult, error) {
	x, err := p.Execute()
	if err != nil {
		return nil, err
	}
	return SimulateExecution(x)
}

// SimulateExecution is Simulate on an unrolled body.
func SimulateExecution(x *Execution) (*SimResult, error) {
	return simulateExecution(x, false)
}

// simulateExecution is SimulateExecution; with allReaders every write waits
// for every reader since the last write of each overlapping slot, even
// those an earlier write of its slot already waited for (the redundant
// edges memState leaves out; tests compare the two).
func simulateExecution(x *Execution, allReaders bool) (*SimResult, error) {
	p := x.Plan
	a := p.Arch
	simhook.Simulated(p)
	// Size the graph up front (a DMA is a join plus one task per queue):
	// Place simulates a plan many times.
	tasks := 0
	for i := range x.Events {
		if e := &x.Events[i]; e.Step.Engine == DMA {
			rows, _ := dmaShape(p, e)
			tasks += 1 + int(a.DMATransfers(rows))
		} else {
			tasks++
		}
	}
	g := &sim.Graph{Unit: "ps", Tasks: make([]sim.Task, 0, tasks), Edges: make([]sim.Edge, 0, 3*tasks)}
	r := &SimResult{Plan: p, Exec: x, Graph: g, Done: make([]sim.TaskID, len(x.Events))}
	for _, e := range Engines() {
		res := sim.Resource{Name: e.Title() + " engine", Group: "NeuronCore " + a.Name, InOrder: true}
		if e == DMA {
			res = sim.Resource{Name: "DMA", Group: "NeuronCore " + a.Name, Capacity: a.DMAEngines, Bandwidth: a.DMABytesPerNs / 1000}
		}
		r.Resources[e] = g.AddResource(res)
	}
	mem := newMemState(x)
	mem.allReaders = allReaders
	vec := newVectorizer(p)
	elided, nElided := psumZerosElided(x)
	nDead := sbufZerosElided(x, elided)
	var deps []depEdge
	order, hoisted := hoistZeros(x, mem, vec, elided)
	for _, ev := range order {
		e := &x.Events[ev]
		s := e.Step
		deps = mem.deps(e, deps[:0])
		var done sim.TaskID
		if s.Engine == DMA {
			rows, rowBytes := dmaShape(p, e)
			n := a.DMATransfers(rows)
			join := g.AddTask(sim.Task{Name: s.Name, Cat: "dma-done", Resource: sim.None, Tag: int32(ev)})
			// Rows are dealt over n engines; the transfer completes the
			// fixed latency after its last row.
			for i := int64(0); i < n; i++ {
				share := rows / n
				if i < rows%n {
					share++
				}
				tr := g.AddTask(sim.Task{Name: s.Name, Cat: string(s.Op), Resource: r.Resources[DMA], Bytes: a.DMAChargedRuns(share, rowBytes, s.HBMRun), Priority: int64(ev), Tag: int32(ev)})
				for _, d := range deps {
					g.AddEdge(sim.Edge{From: d.from, To: tr, Flow: d.flow && i == 0})
				}
				g.AddEdge(sim.Edge{From: tr, To: join, Lag: int64(a.DMAFixedNs * 1000)})
			}
			done = join
		} else if elided[ev] {
			// no instruction: a dependency marker
			done = g.AddTask(sim.Task{Name: s.Name, Cat: string(s.Op), Resource: sim.None, Priority: int64(ev), Tag: int32(ev)})
			for _, d := range deps {
				g.AddEdge(sim.Edge{From: d.from, To: done, Flow: d.flow})
			}
		} else if vg := vec.group(e, deps); vg != nil {
			// the next iteration of a merged instruction: it widens
			done = vg.task
			for _, d := range deps {
				if d.from != done {
					g.AddEdge(sim.Edge{From: d.from, To: done, Flow: d.flow})
				}
			}
			vec.join(vg, e)
			g.Tasks[done].Duration = a.CyclesToPs(s.Engine, stepCycles(p, s, vg.members))
		} else {
			done = g.AddTask(sim.Task{Name: s.Name, Cat: string(s.Op), Resource: r.Resources[s.Engine], Duration: StepPs(p, e), Priority: int64(ev), Tag: int32(ev)})
			for _, d := range deps {
				g.AddEdge(sim.Edge{From: d.from, To: done, Flow: d.flow})
			}
			vec.start(ev, e, done)
		}
		r.Done[ev] = done
		mem.update(e, done)
	}
	tl, err := sim.Run(g)
	if err != nil {
		return nil, err
	}
	r.Timeline = tl
	r.Vectorized = vec.merged
	r.VectorizedWidest = vec.widest
	r.PSUMZerosElided = nElided
	r.SBUFZerosElided = nDead
	r.ZerosHoisted = hoisted
	r.spill()
	return r, nil
}

// dmaShape is the rows (partitions) of a load or store and the bytes of
// each row: its on-chip operand's, the slice when the step names one.
func dmaShape(p *Plan, e *Event) (rows, rowBytes int64) {
	if s := e.Step; s.Op == OpCopyHBM {
		// HBM to HBM: the runs are the rows the engines share out
		if s.HBMRun <= 0 || s.HBMRun >= s.CopyBytes {
			// one contiguous run (or none known): rows as a load of the
			// same bytes into the partitions would have (the NEFF side's
			// descriptors move a partition row each, dma.Rows), none
			// under DMAMinChargedBytes, so the copy spreads over the
			// engines instead of holding one for all of it
			rows = min(int64(p.Arch.Partitions), max(1, s.CopyBytes/p.Arch.DMAMinChargedBytes))
			return rows, (s.CopyBytes + rows - 1) / rows
		}
		return (s.CopyBytes + s.HBMRun - 1) / s.HBMRun, s.HBMRun
	}
	var r Ref
	switch {
	case len(e.Step.Writes) > 0 && (len(e.Writes) > 0 || len(e.Reads) == 0):
		r = e.Step.Writes[0]
	case len(e.Step.Reads) > 0:
		r = e.Step.Reads[0]
	default:
		return 1, 0
	}
	t := p.Tensors[r.Tensor]
	return refPartitions(p, r), refFree(p, r) * int64(t.DType.Size())
}

// refFree is the free elements per partition a reference touches: its
// slice when it names one (an operation on a slice of a wider tile streams
// only the slice), else the whole tile.
func refFree(p *Plan, r Ref) int64 {
	t := p.Tensors[r.Tensor]
	if r.Free > 0 && r.Free < t.FreeElems() {
		return r.Free
	}
	return t.FreeElems()
}

// refBytes is the bytes a reference touches over all its partitions.
func refBytes(p *Plan, r Ref) int64 {
	t := p.Tensors[r.Tensor]
	parts := t.Partitions
	if r.Free > 0 && r.Part > 0 && r.Part*r.Free < t.Partitions*t.FreeElems() {
		return r.Part * r.Free * int64(t.DType.Size())
	}
	return parts * t.TileBytes()
}

// refPartitions is the partitions a reference touches.
func refPartitions(p *Plan, r Ref) int64 {
	t := p.Tensors[r.Tensor]
	if r.Free > 0 && r.Part > 0 && r.Part < t.Partitions {
		return r.Part
	}
	return t.Partitions
}

// StepCycles is the cost in engine cycles of a compute step (0 for DMA).
// The size is the first operand's (a read, else a write), its slice when
// the step names one.
func StepCycles(p *Plan, s *Step) int64 { return stepCycles(p, s, 1) }

// stepCycles is StepCycles of one instruction that does iterations
// iterations of the step at once (Vectorization): the free size of each
// operand times iterations.
func stepCycles(p *Plan, s *Step, iterations int64) int64 {
	a := p.Arch
	var r Ref
	switch {
	case len(s.Reads) > 0:
		r = s.Reads[0]
	case len(s.Writes) > 0:
		r = s.Writes[0]
	default:
		return 0
	}
	n := refFree(p, r) * max(iterations, 1)
	switch s.Op {
	case OpMatmul:
		mv := p.Tensors[s.Reads[1].Tensor]
		return a.MatmulCycles(mv.DType, refFree(p, s.Reads[1]))
	case OpTranspose:
		if s.Engine == TensorE {
			return a.TransposeCycles(refPartitions(p, r), n)
		}
	case OpLoad, OpStore, OpCopyHBM:
		return 0
	}
	switch s.Engine {
	case ScalarE:
		return a.ActivationCycles(n)
	case GpSimdE:
		return a.GpSimdCycles(n)
	case TensorE:
		return a.MatmulCycles(dtype.BFloat16, n)
	}
	inputs := len(s.Reads)
	if s.Op == OpTensorScalar {
		// its operands are scalars or one element per partition, not
		// streamed: "if there is only one input tile, most VectorE
		// instructions can execute in roughly N cycles (example:
		// nki.isa.tensor_scalar)" (architecture guide)
		inputs = 1
	}
	if s.Op == OpSoftmax {
		inputs = 3 // max, exp-sum and divide passes
	}
	if d := vectorPerfDivisor(p, s); d > 1 {
		n = (n + d - 1) / d
	}
	return a.VectorCycles(inputs, n, false)
}

// vectorPerfDivisor is how many times faster VectorE streams step s in
// its 16-bit performance mode (Arch.VectorPerfDivisor): tensor_copy and
// tensor_scalar, and tensor_tensor, whose operands are all bf16/fp16. An
// operand that is a slice of a wider tile may be strided (a plan does not
// say), so it counts as not contiguous: 2x, not 4x.
func vectorPerfDivisor(p *Plan, s *Step) int64 {
	if s.Op != OpTensorCopy && s.Op != OpTensorScalar && s.Op != OpTensorTensor {
		return 1
	}
	all16, allSBUF, inSBUF, contiguous := true, true, true, true
	check := func(r Ref, input bool) {
		t := p.Tensors[r.Tensor]
		if t.DType != dtype.BFloat16 && t.DType != dtype.Float16 {
			all16 = false
		}
		if t.Buffer != SBUF {
			allSBUF = false
			if input {
				inSBUF = false
			}
		}
		if r.Free > 0 && r.Free < t.FreeElems() && len(t.Free) > 1 {
			contiguous = false
		}
	}
	for _, r := range s.Reads {
		check(r, true)
	}
	for _, r := range s.Writes {
		check(r, false)
	}
	return p.Arch.VectorPerfDivisor(s.Op == OpTensorTensor, all16, allSBUF, contiguous, inSBUF)
}

// StepPs is the duration of a compute step in picoseconds.
func StepPs(p *Plan, e *Event) int64 {
	return p.Arch.CyclesToPs(e.Step.Engine, StepCycles(p, e.Step))
}

type depEdge struct {
	from sim.TaskID
	flow bool
}

// memState tracks, per physical slot (a distinct rectangle of a buffer, or
// a logical tile of an automatically allocated tensor), the last writer and
// the readers since.
//
// A write waits for the readers of every overlapping slot, but only for
// those it is not already ordered after: readers a previous write of the
// same slot waited for precede that write, which the new write waits for
// (the lag-free chain gives the same ready time). covered keeps, per
// (slot, overlapping slot), how many readers of the overlapping slot
// earlier writes of the slot waited for, so that a slot read many times
// between writes of a partly overlapping one (a placed plan's tensors
// sharing bytes) costs an edge per read, not one per read per write (on
// a placed 64k-step kernel, 7.9 million edges instead of 0.2 million).
type memState struct {
	x        *Execution
	slotOf   map[TileKey]int
	overlaps [][]int // per slot: slots overlapping it, itself included
	writer   []sim.TaskID
	readers  [][]sim.TaskID
	// readBase is, per slot, the readers dropped by its writes (so that
	// readBase+len(readers) counts every read of the slot); covered is,
	// per slot and index into overlaps, that count when the slot was
	// last written.
	readBase   []int
	covered    [][]int
	allReaders bool // ignore covered (tests)
	seen       map[sim.TaskID]bool
}

func newMemState(x *Execution) *memState {
	p := x.Plan
	m := &memState{x: x, slotOf: map[TileKey]int{}, seen: map[sim.TaskID]bool{}}
	type rk struct {
		buf            Buffer
		p0, p1, b0, b1 int64
	}
	rects := map[rk]int{}
	var rs []placed
	serial := map[TileKey]int{}
	shared := map[int]bool{}
	for i, t := range p.Tensors {
		shared[i] = p.SharedLocation(t)
	}
	for _, l := range x.Lifetimes {
		t := p.Tensors[l.Key.Tensor]
		pl, ok := rectOf(p.Arch, t, l.Key.Tile)
		if !ok && shared[l.Key.Tensor] {
			// One location per automatic tensor tile, whatever the
			// iteration that declared it.
			k := TileKey{Tensor: l.Key.Tensor, Tile: l.Key.Tile}
			if id, seen := serial[k]; seen {
				m.slotOf[l.Key] = id
				continue
			}
			serial[k] = len(m.overlaps)
		}
		if !ok {
			m.slotOf[l.Key] = len(m.overlaps)
			m.overlaps = append(m.overlaps, []int{len(m.overlaps)})
			rs = append(rs, placed{})
			continue
		}
		k := rk{pl.buf, pl.p0, pl.p1, pl.b0, pl.b1}
		id, ok := rects[k]
		if !ok {
			id = len(m.overlaps)
			rects[k] = id
			m.overlaps = append(m.overlaps, nil)
			pl.lt = &Lifetime{} // marks a placed slot
			rs = append(rs, pl)
		}
		m.slotOf[l.Key] = id
	}
	// Overlapping placed slots: sweep by start byte per buffer.
	var ids []int
	for id, r := range rs {
		if r.lt != nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := rs[ids[i]], rs[ids[j]]
		if a.buf != b.buf {
			return a.buf < b.buf
		}
		return a.b0 < b.b0
	})
	for i, id := range ids {
		m.overlaps[id] = append(m.overlaps[id], id)
		for _, jd := range ids[i+1:] {
			if rs[jd].buf != rs[id].buf || rs[jd].b0 >= rs[id].b1 {
				break
			}
			if rs[id].overlaps(rs[jd]) {
				m.overlaps[id] = append(m.overlaps[id], jd)
				m.overlaps[jd] = append(m.overlaps[jd], id)
			}
		}
	}
	m.writer = make([]sim.TaskID, len(m.overlaps))
	for i := range m.writer {
		m.writer[i] = sim.None
	}
	m.readers = make([][]sim.TaskID, len(m.overlaps))
	m.readBase = make([]int, len(m.overlaps))
	m.covered = make([][]int, len(m.overlaps))
	for i, o := range m.overlaps {
		m.covered[i] = make([]int, len(o))
	}
	return m
}

func (m *memState) deps(e *Event, out []depEdge) []depEdge {
	clear(m.seen)
	add := func(t sim.TaskID, flow bool) {
		if t == sim.None || m.seen[t] {
			return
		}
		m.seen[t] = true
		out = append(out, depEdge{t, flow})
	}
	for _, k := range e.Reads {
		for _, s := range m.overlaps[m.slotOf[k]] {
			add(m.writer[s], true)
		}
	}
	for _, k := range e.Writes {
		w := m.slotOf[k]
		for j, s := range m.overlaps[w] {
			add(m.writer[s], false)
			from := max(m.covered[w][j]-m.readBase[s], 0)
			if m.allReaders {
				from = 0
			}
			for _, r := range m.readers[s][from:] {
				add(r, false)
			}
			m.covered[w][j] = m.readBase[s] + len(m.readers[s])
		}
	}
	return out
}

func (m *memState) update(e *Event, done sim.TaskID) {
	for _, k := range e.Reads {
		s := m.slotOf[k]
		m.readers[s] = append(m.readers[s], done)
	}
	for _, k := range e.Writes {
		s := m.slotOf[k]
		m.writer[s] = done
		m.readBase[s] += len(m.readers[s])
		m.readers[s] = m.readers[s][:0]
	}
}

// ModelNotes says what a prediction of p includes and assumes.
func ModelNotes(p *Plan) []string {
	a := p.Arch
	notes := []string{
		fmt.Sprintf("launch overhead %s (measured: a capture's window less its kernel instructions, 14.6-15.7 us on 15 trn2 captures)", humanize.Micros(a.LaunchNs/1000)),
		fmt.Sprintf("DMA: each load/store spreads its partition rows over %d engines of %.0f GB/s (rows, or the HBM side's contiguous runs where a strided slice makes them shorter, under %d B cost %d B each) and completes %.0f ns after its last row (NKI DMA bandwidth guide)", a.DMAEngines, a.DMABytesPerNs, a.DMAMinChargedBytes, a.DMAMinChargedBytes, a.DMAFixedNs),
		"compute: each engine runs its instructions in order at the architecture guide's cycle formulas; an instruction on a slice costs the slice",
	}
	if a.DefaultLNC > 1 {
		notes = append(notes, fmt.Sprintf("one physical NeuronCore: a kernel launched without a core count runs on one, also under LNC=%d, the instances' default (NKI guide to logical NeuronCores)", a.DefaultLNC))
	}
	if a.Assumed != "" {
		notes = append(notes, fmt.Sprintf("NeuronCore-%s: %s are not published; NeuronCore-v2's are used", a.Name, a.Assumed))
	}
	return notes
}

// SimSummary is what `npukit sbuf sim` prints.
type SimSummary struct {
	Plan string `json:"plan"`
	Arch string `json:"arch"`
	// Instructions is what the device runs: the sum of Engines' steps.
	// Steps is the traced steps, one per loop iteration; they differ by
	// the affine_range iterations merged into an earlier iteration's
	// instruction (Merged) and the zeros that run no instruction (Elided)
	// (audit5 F7: the header gave the traced steps, the table the
	// instructions).
	Instructions int `json:"instructions"`
	Steps        int `json:"steps"`
	Merged       int `json:"iterations_merged,omitempty"`
	Elided       int `json:"zeros_elided,omitempty"`
	// TimeNs is the predicted kernel time: KernelNs, the body's critical
	// path on the engines and DMA queues, plus LaunchNs, the fixed launch
	// overhead around it.
	TimeNs   float64 `json:"time_ns"`
	KernelNs float64 `json:"kernel_ns"`
	LaunchNs float64 `json:"launch_ns"`
	// Model says what the prediction includes and assumes.
	Model []string `json:"model"`
	// SpillBytes is the SBUF spill traffic included in KernelNs (see
	// SimResult.SpillBytes); SpillNs its time.
	SpillBytes int64         `json:"spill_bytes,omitempty"`
	SpillNs    float64       `json:"spill_ns,omitempty"`
	DMABytes   int64         `json:"dma_bytes"`
	Engines    []EngineStats `json:"engines"`
	Bottleneck string        `json:"bottleneck"`
	// Memory says what the time assumed of the plan's automatic tensors
	// (issue 32: sim and report gave different times without saying
	// why). Every face prints it beside the time.
	Memory string `json:"memory"`
	// SPMD, for a kernel launched on a grid, says what the time prices:
	// one program instance (audit r3 #26: grids of 1, 4 and 64 instances
	// printed the same time and nothing said so).
	SPMD *SPMDLaunch `json:"spmd,omitempty"`
	// Trace is the file the trace was written to, TraceNote what it
	// covers (audit r3 #20: written silently).
	Trace     string `json:"trace,omitempty"`
	TraceNote string `json:"trace_note,omitempty"`
}

// SPMDLaunch is what a simulation of an SPMD kernel prices. The NKI
// programming model ("SPMD: Launching multiple instances of a kernel",
// https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/nki/programming_model.html):
// the compiler translates the launch grid into nested loops of kernel
// invocations in one executable for one NeuronCore, and the instances run
// serially on it. Grid dimensions marked nl.nc(N) on Trainium2 are spread
// over N physical NeuronCores (nki.language.nc); npukit's grids carry no
// such mark.
type SPMDLaunch struct {
	Grid      []int64 `json:"grid"`
	ProgramID []int64 `json:"program_id"`
	Instances int64   `json:"instances"`
	// InstancesSimulated is 1: TimeNs and KernelNs are ProgramID's.
	InstancesSimulated int64 `json:"instances_simulated"`
	// SerialNs estimates the whole launch: Instances times the simulated
	// instance's body, in sequence, plus one launch overhead, assuming
	// every instance costs what the simulated one does.
	SerialNs float64 `json:"serial_estimate_ns"`
	Note     string  `json:"note"`
}

// spmdLaunch describes the grid of p for a simulated body of kernelNs.
func spmdLaunch(p *Plan, kernelNs float64) *SPMDLaunch {
	if len(p.Grid) == 0 {
		return nil
	}
	pid := p.ProgramID
	if len(pid) != len(p.Grid) {
		pid = make([]int64, len(p.Grid))
	}
	n := p.Instances()
	l := &SPMDLaunch{Grid: p.Grid, ProgramID: pid, Instances: n, InstancesSimulated: 1, SerialNs: float64(n)*kernelNs + p.Arch.LaunchNs}
	grid, id := intsJoined(p.Grid, "x"), intsJoined(pid, ",")
	if n == 1 {
		l.Note = fmt.Sprintf("SPMD grid %s: one program instance (program_id %s), the whole launch", grid, id)
		return l
	}
	l.Note = fmt.Sprintf("SPMD grid %s: the time is one program instance's (program_id %s) of %s; NKI runs a grid's instances serially on one NeuronCore (NKI programming model, SPMD), so the whole launch is about %s x %s + launch %s = %s if each instance costs what this one does (grid dims marked nl.nc(N) on Trainium2 run on N cores: not modelled)",
		grid, id, humanize.Count(n), humanize.Count(n), humanize.Micros(kernelNs/1000), humanize.Micros(p.Arch.LaunchNs/1000), humanize.Micros(l.SerialNs/1000))
	return l
}

func intsJoined(v []int64, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}

// MemoryAssumption says how Simulate treats the plan's tensors: the
// direct ones at their addresses, the automatic ones (if any) at a private
// location per logical tile, the one default of every face (`sim`,
// `report`, `nki sim`, `nki report`).
func MemoryAssumption(p *Plan) string {
	auto := 0
	for _, t := range p.Tensors {
		if !t.Direct() {
			auto++
		}
	}
	shared := 0
	for _, t := range p.Tensors {
		if p.SharedLocation(t) {
			shared++
		}
	}
	switch {
	case auto == 0:
		return "every tensor at its direct allocation"
	case p.SerialTiles && shared > 0:
		return fmt.Sprintf("%s of the %s automatic tensors at one location per tile, reused by every loop iteration (skip_middle_end_transformations: declared more than %s times, which the compiler does not unroll into private locations; iterations wait for each other), the others at a location per declaration", humanize.Count(int64(shared)), humanize.Count(int64(auto)), humanize.Count(MaxPrivateDeclarations))
	case p.SerialTiles:
		return fmt.Sprintf("automatic tensors (%s) at a location per declaration (skip_middle_end_transformations: the compiler unrolls loops of up to %s declarations into private locations, as in the captured NEFFs, and iterations overlap)", humanize.Count(int64(auto)), humanize.Count(MaxPrivateDeclarations))
	case auto == len(p.Tensors):
		return fmt.Sprintf("automatic tensors (all %s) given unlimited memory: a private location per logical tile", humanize.Count(int64(auto)))
	}
	return fmt.Sprintf("direct tensors at their allocation; the %s automatic ones given unlimited memory: a private location per logical tile", humanize.Count(int64(auto)))
}

// EngineStats is one engine's share of a simulation.
type EngineStats struct {
	Engine      string  `json:"engine"`
	Steps       int     `json:"steps"`
	BusyNs      float64 `json:"busy_ns"`
	Utilisation float64 `json:"utilisation"`
}

// KernelNs is the simulated kernel body: the critical path on the engines
// and DMA queues plus any spill traffic.
func (r *SimResult) KernelNs() float64 { return float64(r.Timeline.Makespan+r.SpillPs) / 1000 }

// TimeNs is the predicted time `npukit sbuf sim` prints: the kernel body
// plus the architecture's launch overhead. Every command that prints a
// simulated time of a plan (sim, sbuf sim, sbuf place, sbuf report) uses
// it, so one quantity has one number.
func (r *SimResult) TimeNs() float64 { return r.KernelNs() + r.Plan.Arch.LaunchNs }

// Summary condenses a simulation.
func (r *SimResult) Summary() *SimSummary {
	a := r.Plan.Arch
	k := r.KernelNs()
	s := &SimSummary{Plan: r.Plan.Name, Arch: a.Name, Steps: len(r.Exec.Events), Merged: r.Vectorized, Elided: r.PSUMZerosElided + r.SBUFZerosElided, TimeNs: k + a.LaunchNs, KernelNs: k, LaunchNs: a.LaunchNs, Memory: MemoryAssumption(r.Plan)}
	s.Model = ModelNotes(r.Plan)
	s.SPMD = spmdLaunch(r.Plan, k)
	if r.TracePath != "" {
		s.Trace, s.TraceNote = r.TracePath, r.TraceNote()
	}
	if r.PSUMZerosElided > 0 {
		s.Model = append(s.Model, fmt.Sprintf("PSUM zeros: %s memsets of PSUM tiles that a matmul accumulates into next run no instruction (the group's first matmul overwrites, architecture guide)", humanize.Count(int64(r.PSUMZerosElided))))
	}
	if r.SBUFZerosElided > 0 {
		s.Model = append(s.Model, fmt.Sprintf("SBUF zeros: %s memsets of SBUF tiles that later writes fill before any read run no instruction (dead stores the compiler removes, as the compiled conv2d NEFFs show)", humanize.Count(int64(r.SBUFZerosElided))))
	}
	if r.ZerosHoisted > 0 {
		s.Model = append(s.Model, fmt.Sprintf("zeros hoisted: %s memsets of a fresh buffer run before the previous iteration of their loop (they wait for nothing; the scheduler need not keep program order)", humanize.Count(int64(r.ZerosHoisted))))
	}
	if r.Vectorized > 0 {
		s.Model = append(s.Model, fmt.Sprintf("vectorised: %s affine_range iterations run inside the instruction of an earlier iteration (the compiler merges a loop's iterations into one instruction of up to %d elements per partition, VectorE and ScalarE, as the compiled NEFFs show)", humanize.Count(int64(r.Vectorized)), VectorizeMaxFree))
		if r.VectorizedWidest > VectorizeSeenTrips {
			s.Model = append(s.Model, fmt.Sprintf("vectorised: an instruction merges %d iterations, an extrapolation: the compiled NEFFs show 4-%d merged, none more", r.VectorizedWidest, VectorizeSeenTrips))
		}
	}
	if r.SpillBytes > 0 {
		s.SpillBytes, s.SpillNs = r.SpillBytes, float64(r.SpillPs)/1000
		s.Model = append(s.Model, fmt.Sprintf("SBUF spill: the automatic tiles alive together need %s bytes per partition, more than the %s usable; %s bytes stored and reloaded add %s of DMA time", humanize.Count(r.LiveBytes), humanize.Count(a.SBUFUsableBytes), humanize.Count(r.SpillBytes), humanize.Micros(s.SpillNs/1000)))
	}
	best := -1.0
	for _, e := range Engines() {
		id := r.Resources[e]
		st := r.Timeline.Resources[id]
		steps := st.Tasks
		if e == DMA {
			steps = 0
			for i := range r.Exec.Events {
				if r.Exec.Events[i].Step.Engine == DMA {
					steps++
				}
			}
			s.DMABytes = st.Bytes
		}
		u := r.Timeline.Utilisation(id)
		s.Engines = append(s.Engines, EngineStats{Engine: e.Title(), Steps: steps, BusyNs: float64(st.Busy) / 1000, Utilisation: u})
		s.Instructions += steps
		if steps > 0 && u > best {
			best, s.Bottleneck = u, e.Title()
		}
	}
	return s
}

// CountText is the header's count: the instructions the device runs and,
// where they differ, the traced steps and why.
func (s *SimSummary) CountText() string {
	n := humanize.Plural(s.Instructions, "instruction")
	if s.Instructions == s.Steps {
		return n
	}
	var why []string
	if s.Merged > 0 {
		why = append(why, humanize.Plural(s.Merged, "iteration")+" merged")
	}
	if s.Elided > 0 {
		why = append(why, humanize.Plural(s.Elided, "zero")+" elided")
	}
	in := humanize.Plural(s.Steps, "traced step")
	if len(why) > 0 {
		in += "; " + strings.Join(why, ", ")
	}
	return n + " (" + in + ")"
}

// WriteText renders the summary as aligned text.
func (s *SimSummary) WriteText(w io.Writer) error {
	name := s.Plan
	if name == "" {
		name = "plan"
	}
	fmt.Fprintf(w, "%s on NeuronCore-%s: %s, %s (kernel body %s + launch %s)", name, s.Arch, s.CountText(), humanize.Micros(s.TimeNs/1000), humanize.Micros(s.KernelNs/1000), humanize.Micros(s.LaunchNs/1000))
	if s.Bottleneck != "" {
		fmt.Fprintf(w, ", busiest engine %s", s.Bottleneck)
	}
	fmt.Fprintln(w)
	if s.Memory != "" {
		fmt.Fprintf(w, "assumes %s\n", s.Memory)
	}
	if s.SPMD != nil {
		fmt.Fprintf(w, "%s\n", s.SPMD.Note)
	}
	for _, m := range s.Model {
		fmt.Fprintf(w, "  model: %s\n", m)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ENGINE\tINSTRUCTIONS\tBUSY (us)\tUTILISATION\t")
	for _, e := range s.Engines {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.1f%%\t\n", e.Engine, humanize.Count(int64(e.Steps)), e.BusyNs/1000, e.Utilisation*100)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "(DMA utilisation is over all DMA queues; busy is queue-time)")
	if err == nil && s.Trace != "" {
		_, err = fmt.Fprintf(w, "\nTrace written to %s (open in ui.perfetto.dev): %s\n", s.Trace, s.TraceNote)
	}
	return err
}
