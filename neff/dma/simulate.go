package dma

import (
	"fmt"
	"sort"
	"strings"

	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/sim"
)

// SimParams is the DMA timing model of one NeuronCore. Defaults come from
// ../shared/notes/neuroncore.md: 16 DMA engines per core, one transfer
// each at a time, 27 GiB/s per engine, a fixed per-transfer overhead of
// about 1.3 us, and contiguous runs under 512 B being overhead-bound (each
// is charged as 512 B). ParamsFor takes them from a NeuronCore generation,
// whose shortest charged run (256 B, neuroncore.Arch.DMAMinChargedBytes)
// was fitted on captured runs.
type SimParams struct {
	Engines         int     `json:"engines"`           // DMA engines per core
	BytesPerNs      float64 `json:"bytes_per_ns"`      // per-engine bandwidth
	OverheadNs      int64   `json:"overhead_ns"`       // per descriptor
	MinChargedRun   int64   `json:"min_charged_run"`   // a run shorter than this costs as much as this
	FirstEngineBase int     `json:"first_engine_base"` // engine the first queue set starts at
	// TransposeBlock is how many elements a DMA transpose writes in one
	// contiguous run of its destination. A transpose reorders elements,
	// so it cannot stream its destination as a copy does; npukit charges
	// it as runs of TransposeBlock elements (each at least MinChargedRun
	// bytes). The default, 16, is the block of 16 source rows the
	// hardware transpose of nki.isa.dma_transpose works on (its hwdge mode
	// requires src.shape[0] == 16, NKI API reference); no public source
	// gives the engine's transpose throughput, so this is an assumption,
	// stated in every simulation's output.
	TransposeBlock int64 `json:"transpose_block"`
}

// DefaultSimParams returns the documented defaults (NeuronCore-v2).
func DefaultSimParams() SimParams {
	return SimParams{Engines: 16, BytesPerNs: 27 * float64(1<<30) / 1e9, OverheadNs: 1300, MinChargedRun: MinEfficientRun, TransposeBlock: 16}
}

// ParamsFor returns the DMA model of a NeuronCore architecture: its DMA
// engine count, per-engine bandwidth and per-transfer overhead, with the
// default run and transpose charges.
func ParamsFor(a *neuroncore.Arch) SimParams {
	p := DefaultSimParams()
	p.Engines, p.BytesPerNs, p.OverheadNs = a.DMAEngines, a.DMABytesPerNs, int64(a.DMAFixedNs)
	p.MinChargedRun = a.DMAMinChargedBytes
	p.TransposeBlock = a.DMATransposeBlock
	return p
}

// QueueSet is a dma_queue entry of def.json: a name and how many hardware
// queues (engines) it spreads over.
type QueueSet struct {
	Name      string
	NumQueues int
}

// SimResult summarises a simulated DMA program (times in ns).
type SimResult struct {
	TotalNs      int64         `json:"total_ns"`
	Bytes        int64         `json:"bytes"`
	Descriptors  int           `json:"descriptors"`
	AchievedGBps float64       `json:"achieved_gb_per_s"`
	Engines      []EngineStats `json:"engines"`
	Queues       []QueueTiming `json:"queues"`
	Params       SimParams     `json:"params"`
}

// EngineStats is one DMA engine's load.
type EngineStats struct {
	Engine      int     `json:"engine"`
	BusyNs      int64   `json:"busy_ns"`
	Descriptors int     `json:"descriptors"`
	Bytes       int64   `json:"bytes"`
	Utilisation float64 `json:"utilisation"`
}

// QueueTiming is one queue set's share.
type QueueTiming struct {
	Queue        string  `json:"queue"`
	Engines      []int   `json:"engines"`
	Descriptors  int     `json:"descriptors"`
	Bytes        int64   `json:"bytes"`
	BusyNs       int64   `json:"busy_ns"`
	FirstStartNs int64   `json:"first_start_ns"`
	LastEndNs    int64   `json:"last_end_ns"`
	AchievedGBps float64 `json:"achieved_gb_per_s"`
}

// Rows is how many contiguous runs a descriptor moves, on its more
// fragmented side (at least 1): the pieces the DMA engines share out.
func Rows(t Transfer) int64 {
	n := t.To.Pattern.Summarize().Runs
	for _, f := range t.From {
		n = max(n, f.Pattern.Summarize().Runs)
	}
	return max(n, 1)
}

// ChargedBytes is what a descriptor moves and what it costs the engines
// in bytes under p (see chargedBytes).
func ChargedBytes(t Transfer, p SimParams) (moved, charged int64) { return chargedBytes(t, p) }

// chargedBytes is what a descriptor costs in bytes: the larger side, with
// every run shorter than MinChargedRun counted as MinChargedRun; a
// transpose's destination counts as runs of p.TransposeBlock elements.
func chargedBytes(t Transfer, p SimParams) (moved, charged int64) {
	minRun := p.MinChargedRun
	side := func(s Side) int64 {
		sum := s.Pattern.Summarize()
		if sum.Runs == 0 {
			return 0
		}
		if sum.MinRun >= minRun {
			return sum.Bytes
		}
		if sum.MinRun == sum.MaxRun {
			return sum.Runs * minRun
		}
		var c int64
		for r := range s.Pattern.Runs() {
			c += max(r.Len, minRun)
		}
		return c
	}
	moved = t.To.Pattern.Bytes()
	charged = side(t.To)
	for _, f := range t.From {
		charged = max(charged, side(f))
	}
	if t.Op == OpTranspose && p.TransposeBlock > 0 {
		es := int64(t.TransposeElemSize)
		if es <= 0 {
			es = int64(t.To.DType.Size())
		}
		run := max(es*p.TransposeBlock, 1)
		runs := (moved + run - 1) / run
		charged = max(charged, runs*max(run, minRun))
	}
	return moved, charged
}

// Lower builds the simulation graph: one in-order resource per DMA engine;
// each queue set owns NumQueues consecutive engines (wrapping around the
// core's engines). A descriptor's contiguous runs (a partition's row each)
// are spread over up to all of its queue's engines, as the hardware
// parallelises one DMA over up to 16 engines depending on its shape (NKI
// DMA overview): so halving the descriptor count of a program does not
// double its time. Task Tag is the descriptor's index in descs. The fixed
// per-transfer cost (OverheadNs) is latency, not engine time: Simulate
// adds it once after the last transfer.
func Lower(descs []Descriptor, sets []QueueSet, p SimParams) (*sim.Graph, [][]int, error) {
	if p.Engines < 1 || p.BytesPerNs <= 0 || p.OverheadNs < 0 {
		return nil, nil, fmt.Errorf("invalid DMA parameters %+v", p)
	}
	g := &sim.Graph{Unit: "ns"}
	for e := 0; e < p.Engines; e++ {
		g.AddResource(sim.Resource{Name: fmt.Sprintf("DMA engine %d", e), Group: "DMA engines", Bandwidth: p.BytesPerNs, InOrder: true})
	}
	engines := map[string][]int{}
	next := p.FirstEngineBase
	names := make([]string, 0, len(sets))
	for _, s := range sets {
		n := s.NumQueues
		if n < 1 {
			n = 1
		}
		n = min(n, p.Engines)
		for k := 0; k < n; k++ {
			engines[s.Name] = append(engines[s.Name], (next+k)%p.Engines)
		}
		next = (next + n) % p.Engines
		names = append(names, s.Name)
	}
	// Queues used by descriptors but not declared get one engine each.
	type queueState struct {
		engines []int
		rot     int
	}
	states := map[string]*queueState{}
	g.Tasks = make([]sim.Task, 0, len(descs))
	for i := range descs {
		d := &descs[i]
		q := states[d.Queue]
		if q == nil {
			es, ok := engines[d.Queue]
			if !ok {
				es = []int{next % p.Engines}
				engines[d.Queue] = es
				next++
				names = append(names, d.Queue)
			}
			q = &queueState{engines: es}
			states[d.Queue] = q
		}
		_, charged := chargedBytes(d.Transfer, p)
		charged = max(charged, 1)
		runs := Rows(d.Transfer)
		n := int(min(runs, int64(len(q.engines))))
		per := (charged + int64(n) - 1) / int64(n)
		for k := 0; k < n; k++ {
			e := q.engines[(q.rot+k)%len(q.engines)]
			g.Tasks = append(g.Tasks, sim.Task{Name: d.Comment, Cat: d.Queue, Resource: sim.ResourceID(e), Bytes: per, Tag: int32(i)})
		}
		q.rot = (q.rot + n) % len(q.engines)
	}
	sort.Strings(names)
	owned := make([][]int, 0, len(names))
	for _, n := range names {
		owned = append(owned, engines[n])
	}
	return g, owned, nil
}

// Simulate lowers and runs the DMA program.
func Simulate(descs []Descriptor, sets []QueueSet, p SimParams) (*SimResult, *sim.Timeline, error) {
	g, _, err := Lower(descs, sets, p)
	if err != nil {
		return nil, nil, err
	}
	tl, err := sim.Run(g)
	if err != nil {
		return nil, nil, err
	}
	res := &SimResult{TotalNs: tl.Makespan, Descriptors: len(descs), Params: p}
	if len(descs) > 0 {
		res.TotalNs += p.OverheadNs
	}
	for e := 0; e < p.Engines; e++ {
		res.Engines = append(res.Engines, EngineStats{Engine: e, Utilisation: tl.Utilisation(sim.ResourceID(e))})
	}
	qs := map[string]*QueueTiming{}
	pieces := make([]int32, len(descs))
	for _, t := range g.Tasks {
		pieces[t.Tag]++
	}
	prev := int32(-1)
	for i, t := range g.Tasks {
		d := descs[t.Tag]
		first := t.Tag != prev // the descriptor's first piece
		prev = t.Tag
		moved := d.Transfer.To.Pattern.Bytes()
		e := &res.Engines[t.Resource]
		e.BusyNs += tl.Duration(sim.TaskID(i))
		e.Descriptors++
		e.Bytes += moved / int64(max(pieces[t.Tag], 1))
		q := qs[d.Queue]
		if q == nil {
			q = &QueueTiming{Queue: d.Queue, FirstStartNs: tl.Start[i]}
			qs[d.Queue] = q
		}
		if first {
			res.Bytes += moved
			q.Descriptors++
			q.Bytes += moved
		}
		q.BusyNs += tl.Duration(sim.TaskID(i))
		q.FirstStartNs = min(q.FirstStartNs, tl.Start[i])
		q.LastEndNs = max(q.LastEndNs, tl.End[i])
		if len(q.Engines) == 0 || q.Engines[len(q.Engines)-1] != int(t.Resource) {
			q.Engines = appendUnique(q.Engines, int(t.Resource))
		}
	}
	for _, q := range qs {
		sort.Ints(q.Engines)
		if span := q.LastEndNs - q.FirstStartNs; span > 0 {
			q.AchievedGBps = float64(q.Bytes) / float64(span)
		}
		res.Queues = append(res.Queues, *q)
	}
	sort.Slice(res.Queues, func(i, j int) bool { return res.Queues[i].Queue < res.Queues[j].Queue })
	if res.TotalNs > 0 {
		res.AchievedGBps = float64(res.Bytes) / float64(res.TotalNs)
	}
	return res, tl, nil
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// GenerationDefault renders, as a flag's default, one figure of each
// NeuronCore generation's DMA model (ParamsFor), consecutive generations
// with the same figure joined: "(default: the NEFF's NeuronCore
// generation's, 256 B on NeuronCore-v1 to v4)". Help texts print it so
// that the text is the model's own figure, not a copy.
func GenerationDefault(figure func(p SimParams) string) string {
	var parts []string
	gens := neuroncore.Generations
	for i := 0; i < len(gens); {
		v := figure(ParamsFor(gens[i].Arch))
		j := i + 1
		for j < len(gens) && figure(ParamsFor(gens[j].Arch)) == v {
			j++
		}
		s := v + " on " + gens[i].Name
		if j-i > 1 {
			s += fmt.Sprintf(" to v%d", gens[j-1].Version)
		}
		parts = append(parts, s)
		i = j
	}
	return "(default: the NEFF's NeuronCore generation's, " + strings.Join(parts, ", ") + ")"
}
