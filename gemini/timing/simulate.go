package timing

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/sim"
)

// Task kinds, kept in the sim.Task Cat so renderers can colour them.
const (
	CatCompute = "compute"
	CatLoad    = "load"  // DRAM to L2 (fmap or weight)
	CatWeight  = "wload" // DRAM straight to the weight buffer (WL0/WL1)
	CatStore   = "store" // L2 to DRAM
	CatNoC     = "noc"   // one hop of a core-to-core transfer
)

// Result is a simulated schedule.
type Result struct {
	Unit        string `json:"unit"`
	TotalCycles int64  `json:"total_cycles"`
	// Micros is the total at the model's nominal core clock (CoreGHz).
	Micros    float64        `json:"total_us"`
	Params    Params         `json:"params"`
	Cores     []CoreStats    `json:"cores"`
	DRAM      DRAMStats      `json:"dram"`
	Links     []LinkStats    `json:"links"`
	Layers    []LayerStats   `json:"layers"`
	Workloads []WorkloadSpan `json:"workloads"`
	// QueueOrderRelaxed says the file's DRAM access order (tensor_order)
	// could not be honoured: served in that order, a transfer would wait
	// for work that waits for it. The transfers were then served by
	// priority as they became ready.
	QueueOrderRelaxed bool `json:"dram_queue_order_relaxed,omitempty"`

	// Timeline is the engine's result; Tasks describes each task of it
	// (indexed by the task's Tag).
	Timeline *sim.Timeline `json:"-"`
	Tasks    []TaskInfo    `json:"-"`
	xfers    []int64
}

// TaskTransfers returns the transfer IDs a task moves (DRAM and NoC tasks).
func (r *Result) TaskTransfers(in *TaskInfo) []int64 {
	return r.xfers[in.xoff : in.xoff+in.xlen : in.xoff+in.xlen]
}

// CoreStats is where a core's time went. Busy + WaitDRAM + WaitCores +
// Overhead + Idle = TotalCycles.
type CoreStats struct {
	Core      int   `json:"core"`
	Key       int64 `json:"key"`
	X         int64 `json:"x"`
	Y         int64 `json:"y"`
	Workloads int   `json:"workloads"`
	Busy      int64 `json:"busy_cycles"`
	WaitDRAM  int64 `json:"wait_dram_cycles"`
	WaitCores int64 `json:"wait_cores_cycles"`
	// Overhead is unit configuration between workloads and the startup.
	Overhead int64 `json:"overhead_cycles"`
	// Idle is the time after the core's last workload.
	Idle int64 `json:"idle_cycles"`
}

// DRAMStats is the DRAM channel's traffic.
type DRAMStats struct {
	GBps          float64 `json:"bandwidth_gb_per_s"`
	BytesPerCycle float64 `json:"bytes_per_cycle"`
	Loads         int     `json:"loads"`
	Stores        int     `json:"stores"`
	ReadBytes     int64   `json:"read_bytes"`
	WeightBytes   int64   `json:"weight_bytes"` // part of ReadBytes
	WriteBytes    int64   `json:"write_bytes"`
	// The feature-map loads (the loads that are not weights) by where
	// their data came from, as inspect's DRAM routes count deliveries:
	// another core's ofmap written to DRAM (inter-core traffic through
	// DRAM; a load counts here when any write its read depends on came
	// from another core), the loading core's own write, or data no write
	// of the schedule produced (inputs).
	FromOtherCoreLoads int   `json:"from_other_core_loads"`
	FromOtherCoreBytes int64 `json:"from_other_core_load_bytes"`
	FromSameCoreLoads  int   `json:"from_same_core_loads"`
	FromSameCoreBytes  int64 `json:"from_same_core_load_bytes"`
	InputLoads         int   `json:"input_loads"`
	InputBytes         int64 `json:"input_load_bytes"`
	// The stores by who loads them back: another core, only the storing
	// core, or nobody (outputs, plain write-back).
	ToOtherCoreStores int   `json:"to_other_core_stores"`
	ToOtherCoreBytes  int64 `json:"to_other_core_store_bytes"`
	ToSameCoreStores  int   `json:"to_same_core_stores"`
	ToSameCoreBytes   int64 `json:"to_same_core_store_bytes"`
	NotReadBackStores int   `json:"not_read_back_stores"`
	NotReadBackBytes  int64 `json:"not_read_back_store_bytes"`
	Busy              int64 `json:"busy_cycles"`
	// Achieved is the bytes moved over the whole run, in GB/s at the
	// nominal clock, like the bandwidth (GBps).
	Achieved    float64 `json:"achieved_gb_per_s"`
	Utilisation float64 `json:"utilisation"`
}

// LinkStats is one directed mesh link's traffic.
type LinkStats struct {
	Name      string `json:"name"`
	Transfers int    `json:"transfers"`
	Bytes     int64  `json:"bytes"`
	Busy      int64  `json:"busy_cycles"`
}

// LayerStats is a layer's extent over all cores running it.
type LayerStats struct {
	Name      string `json:"name"`
	Workloads int    `json:"workloads"`
	Start     int64  `json:"start_cycle"`
	End       int64  `json:"end_cycle"`
	Compute   int64  `json:"compute_cycles"`
	WaitDRAM  int64  `json:"wait_dram_cycles"`
	WaitCores int64  `json:"wait_cores_cycles"`
}

// WorkloadSpan is when one workload computed and what it waited for.
type WorkloadSpan struct {
	Core      int    `json:"core"`
	ID        int64  `json:"workload_id"`
	Layer     string `json:"layer"`
	Start     int64  `json:"start_cycle"`
	End       int64  `json:"end_cycle"`
	Compute   int64  `json:"compute_cycles"`
	WaitDRAM  int64  `json:"wait_dram_cycles"`
	WaitCores int64  `json:"wait_cores_cycles"`
	Overhead  int64  `json:"overhead_cycles"`
}

// TaskInfo says what a task of the timeline stands for. It holds no
// pointers (the transfer IDs live in one pool, see Result.TaskTransfers) so
// that the collector does not scan a million of them.
type TaskInfo struct {
	Cat      string
	Core     int // issuing core (producer for stores and NoC hops)
	Workload int // index in the core's workloads (consumer for loads, producer for stores)
	Tile     int // intra-core tile of a compute task
	// Transfers is only set while building; add moves it to the pool.
	Transfers  []int64
	xoff, xlen int32
	Bytes      int64
	Order      int64 // tensor_order, -1 when none
}

// Simulate lowers s onto the discrete-event engine and runs it.
func Simulate(s *gemini.Schedule, p Params) (*Result, error) {
	if p.DRAMGBps == 0 {
		p.DRAMGBps = DefaultDRAMGBps
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	l := newLowering(s, p)
	if err := l.build(); err != nil {
		return nil, err
	}
	tl, err := sim.Run(l.g)
	if err != nil {
		// Each core's DRAM queue is served in its own order; should the
		// orders of several cores, or one core's queue order and its
		// program order, contradict each other through their data (a
		// deadlock), serve the transfers by priority alone.
		l = newLowering(s, p)
		l.unchained = true
		if err := l.build(); err != nil {
			return nil, err
		}
		tl, err = sim.Run(l.g)
	}
	relaxed := l.unchained
	if err != nil {
		// What remains is a deadlock of the data itself: program order and
		// data edges form a cycle (npukit check reports it as gemini/cycle).
		return nil, fmt.Errorf("simulate: the schedule deadlocks, no total exists (program order and data edges form a cycle; run npukit check): %w", err)
	}
	res := l.result(tl)
	res.QueueOrderRelaxed = relaxed
	return res, nil
}

type lowering struct {
	// unchained leaves out the per-core order of DRAM transfers.
	unchained bool
	s         *gemini.Schedule
	ix        *gemini.Index
	tn        *gemini.Tensors // which snapshot entries are one tensor
	p         Params
	g         *sim.Graph
	inf       []TaskInfo
	xfers     []int64 // transfer IDs of the tasks (TaskInfo.xoff, xlen)

	dram    sim.ResourceID
	compute [][]sim.TaskID // [core][workload]: the first tile's task
	ntiles  [][]int32      // tiles per workload (consecutive tasks)
	lag     [][]int64      // configuration (or startup) before each workload
	// loads per core: transfer id -> tasks carrying it with the workload
	// index that first listed it.
	loads  []map[int64]int32 // index+1 of the newest carrier in carr
	carr   []carrier
	stores map[int64]sim.TaskID // DRAM write transfer id -> its store
	links  map[[4]int64]sim.ResourceID
	linkRs []sim.ResourceID
}

type carrier struct {
	k    int
	task sim.TaskID
	next int32 // index+1 of the previous carrier of the same transfer
}

func (l *lowering) addCarrier(core int, id int64, k int, t sim.TaskID) {
	l.carr = append(l.carr, carrier{k: k, task: t, next: l.loads[core][id]})
	l.loads[core][id] = int32(len(l.carr))
}

// carrierFor returns the load that brings transfer id to workload k of a
// core: the one first listed latest at or before k, else the earliest.
func (l *lowering) carrierFor(core int, id int64, k int) (sim.TaskID, bool) {
	best, early := -1, -1
	for i := l.loads[core][id]; i != 0; i = l.carr[i-1].next {
		c := &l.carr[i-1]
		if c.k <= k && (best < 0 || c.k > l.carr[best].k) {
			best = int(i - 1)
		}
		if early < 0 || c.k <= l.carr[early].k {
			early = int(i - 1)
		}
	}
	if best < 0 {
		best = early
	}
	if best < 0 {
		return sim.None, false
	}
	return l.carr[best].task, true
}

func newLowering(s *gemini.Schedule, p Params) *lowering {
	return &lowering{
		s:      s,
		ix:     gemini.NewIndex(s),
		tn:     gemini.IdentifyTensors(s),
		p:      p,
		g:      &sim.Graph{Unit: "cycles"},
		stores: make(map[int64]sim.TaskID, len(s.DRAMWrites)),
		links:  map[[4]int64]sim.ResourceID{},
	}
}

func (l *lowering) add(t sim.Task, info TaskInfo) sim.TaskID {
	t.Tag = int32(len(l.inf))
	info.xoff, info.xlen = int32(len(l.xfers)), int32(len(info.Transfers))
	l.xfers = append(l.xfers, info.Transfers...)
	info.Transfers = nil
	l.inf = append(l.inf, info)
	return l.g.AddTask(t)
}

// unit is the compute unit a layer type runs on (pe, vp, dt).
func unit(layerType string) string {
	switch layerType = strings.ToLower(layerType); layerType {
	case "pe", "conv2d", "fc":
		return "pe"
	case "vp", "pool", "element_wise":
		return "vp"
	case "dt", "point_to_point":
		return "dt"
	}
	return layerType
}

func (p *Params) config(u string) int64 {
	switch u {
	case "pe":
		return p.PEConfig
	case "vp":
		return p.VPConfig
	case "dt":
		return p.DTConfig
	}
	return 0
}

// tiles counts the intra-core tiles of a workload: the tile_num_* members of
// tile_info (the name appears nowhere else in it); at least 1.
func tiles(w *gemini.Workload) int64 {
	return max(int64(bytes.Count(w.TileInfo, tileKey)), 1)
}

var tileKey = []byte(`"tile_num`)

// checkMesh bounds the mesh the cores' positions span: routes take one
// task per hop, so a core key placing a core millions of rows away (a
// corrupted key, or keys that follow neither layout) must be an error, not
// millions of tasks. The bound admits any mesh the header's xlen x ylen
// describes (up to 4096 a side) and any layout about as large as its cores.
func (l *lowering) checkMesh() error {
	s := l.s
	nc := int64(len(s.Cores))
	if nc < 2 {
		return nil
	}
	var w, h int64
	for _, c := range s.Cores {
		x, y := l.pos(c)
		w, h = max(w, x+1), max(h, y+1)
	}
	limit := 2*nc + 2
	if s.XLen > 0 && s.YLen > 0 && s.XLen <= 4096 && s.YLen <= 4096 {
		limit = max(limit, s.XLen+s.YLen)
	}
	if w+h > limit {
		for _, c := range s.Cores {
			if x, y := l.pos(c); x+y+2 > limit {
				return fmt.Errorf("core key %d lies at mesh position (%d, %d), outside a %dx%d mesh of %d cores: its key fits neither core numbering", c.Key, x, y, s.XLen, s.YLen, nc)
			}
		}
		return fmt.Errorf("the cores span a %dx%d mesh, too large for %d cores and xlen %d, ylen %d", w, h, nc, s.XLen, s.YLen)
	}
	return nil
}

func (l *lowering) build() error {
	s, p, g := l.s, &l.p, l.g
	nc := len(s.Cores)
	if err := l.checkMesh(); err != nil {
		return err
	}
	// Size the graph up front (growing the slices of a million tasks
	// dominated the lowering): tiles, plus an upper estimate of the DRAM
	// transfers and NoC hops from the workloads' inputs and outputs.
	n := 0
	for _, c := range s.Cores {
		portHops := 0
		if nc > 1 {
			x, _ := l.pos(c)
			px, _ := l.port(c)
			portHops = int(max(x-px, px-x))
		}
		for k := range c.Workloads {
			w := &c.Workloads[k]
			n += int(tiles(w))
			for i := range w.Ifmaps {
				n += len(w.Ifmaps[i].TransferIDs) * (1 + portHops)
			}
			if w.Weight != nil {
				n += len(w.Weight.TransferIDs) * (1 + portHops)
			}
			for i := range w.Ofmaps {
				n += len(w.Ofmaps[i].Destinations) * (1 + portHops)
			}
		}
	}
	g.Tasks = make([]sim.Task, 0, n)
	g.Edges = make([]sim.Edge, 0, 3*n)
	l.inf = make([]TaskInfo, 0, n)
	l.compute = make([][]sim.TaskID, nc)
	l.loads = make([]map[int64]int32, nc)
	l.ntiles = make([][]int32, nc)
	l.lag = make([][]int64, nc)
	for _, c := range s.Cores {
		r := g.AddResource(sim.Resource{Name: fmt.Sprintf("core %d", c.ID), Group: "cores", InOrder: true})
		ts := make([]sim.TaskID, len(c.Workloads))
		nt := make([]int32, len(c.Workloads))
		lags := make([]int64, len(c.Workloads))
		prev := sim.TaskID(sim.None)
		prevUnit, prevShape := map[string]bool{}, map[string]uint64{}
		lastUnit := ""
		for k := range c.Workloads {
			w := &c.Workloads[k]
			n := tiles(w)
			tm := max(w.Time, 0)
			u := unit(w.LayerType)
			sh := shape(w, n)
			lag := int64(0)
			if k > 0 && u == lastUnit {
				lag = p.config(u)
				if prevUnit[u] && prevShape[u] != sh {
					lag += p.ShapeConfig
				}
			}
			for i := int64(0); i < n; i++ {
				dur := tm/n + p.TileOverhead
				if i < tm%n {
					dur++
				}
				name := w.LayerName
				if n > 1 {
					name = fmt.Sprintf("%s tile %d", w.LayerName, i)
				}
				t := l.add(sim.Task{
					Name: name, Cat: CatCompute, Resource: r, Duration: dur, Earliest: p.Startup,
				}, TaskInfo{Cat: CatCompute, Core: c.ID, Workload: k, Tile: int(i), Order: -1})
				if i == 0 {
					ts[k] = t
				}
				if prev != sim.None {
					if i == 0 {
						g.AddEdge(sim.Edge{From: prev, To: t, Lag: lag})
					} else {
						g.AddDep(prev, t)
					}
				}
				prev = t
			}
			nt[k] = int32(n)
			lags[k] = lag
			if k == 0 {
				lags[k] = p.Startup
			}
			prevUnit[u], prevShape[u] = true, sh
			lastUnit = u
		}
		l.compute[c.ID] = ts
		l.ntiles[c.ID] = nt
		l.lag[c.ID] = lags
		l.loads[c.ID] = make(map[int64]int32, 2*len(c.Workloads))
	}
	l.dram = g.AddResource(sim.Resource{
		Name: "DRAM", Group: "DRAM",
		Bandwidth: p.bytesPerCycle(p.DRAMGBps), Overhead: p.DRAMOverhead,
	})
	// A tensor_order copied from a tensor_id that is no identity (one
	// writer numbers each snapshot's entries) orders no DRAM queue: the
	// loads are then made in program order, as for the raw IR.
	if !l.tn.OrderCopiesID {
		var q queueScratch
		for _, c := range s.Cores {
			l.queue(c, &q)
		}
	}
	l.unqueued()
	l.weightPort()
	l.related()
	l.consumers()
	l.noc()
	l.occupancy()
	return nil
}

// queueScratch is reused from core to core.
type queueScratch struct {
	items []item
	seen  map[int64]bool
}

// item is one entry of a core's DRAM access queue (compiler IR).
type item struct {
	order int64
	k     int // workload whose snapshot first lists it
	store bool
	wl    bool
	e     *gemini.BufferEntry
	ei    int // index of e in its snapshot
}

// queue adds the DRAM transfers of a core's access queue (tensor_order of
// its snapshots), chained in that order.
func (l *lowering) queue(c *gemini.Core, q *queueScratch) {
	if q.seen == nil {
		q.seen = map[int64]bool{}
	}
	clear(q.seen)
	items, seen := q.items[:0], q.seen
	defer func() { q.items = items[:0] }()
	for k := range c.Workloads {
		w := &c.Workloads[k]
		for i := range w.Buffer {
			e := &w.Buffer[i]
			if !e.HasTensorOrder || seen[e.TensorOrder] {
				continue
			}
			switch {
			case e.Type == "ofmap":
				items = append(items, item{order: e.TensorOrder, k: k, store: true, e: e, ei: i})
			case e.FromDRAM():
				items = append(items, item{order: e.TensorOrder, k: k, e: e, ei: i})
			default:
				continue
			}
			seen[e.TensorOrder] = true
		}
		for i := range w.WeightBuffer {
			e := &w.WeightBuffer[i]
			if !e.HasTensorOrder || e.SourceKind != "DRAM" || seen[e.TensorOrder] {
				continue
			}
			items = append(items, item{order: e.TensorOrder, k: k, wl: true, e: e, ei: i})
			seen[e.TensorOrder] = true
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.order < b.order:
			return -1
		case a.order > b.order:
			return 1
		}
		return 0
	})
	prev := sim.TaskID(sim.None)
	for _, it := range items {
		var t sim.TaskID
		if it.store {
			// The producer lists its DRAM-bound ofmap in its own
			// snapshot; look a few workloads back should a file list it
			// later.
			t = sim.None
			for j := it.k; j >= 0 && j >= it.k-storeScan && t == sim.None; j-- {
				t = l.store(c, j, it.order)
			}
		} else {
			t = l.load(c, it)
		}
		if t == sim.None {
			continue
		}
		if prev != sim.None && !l.unchained {
			l.g.AddDep(prev, t)
		}
		prev = t
	}
}

// storeScan bounds how far before the snapshot listing a store the
// producer is looked for.
const storeScan = 4

// store adds the DRAM writes of workload k as one store task.
func (l *lowering) store(c *gemini.Core, k int, order int64) sim.TaskID {
	w := &c.Workloads[k]
	var ids []int64
	var size int64
	for i := range w.Ofmaps {
		o := &w.Ofmaps[i]
		if l.ix.Write(o.TransferID) == nil || l.stored(o.TransferID) {
			continue
		}
		ids = append(ids, o.TransferID)
		size += max(o.Size, 0)
	}
	if len(ids) == 0 {
		return sim.None
	}
	t := l.add(sim.Task{
		Name: "store " + w.LayerName, Cat: CatStore, Resource: l.dram, Bytes: size,
		Earliest: l.p.Startup, Priority: order,
	}, TaskInfo{Cat: CatStore, Core: c.ID, Workload: k, Transfers: ids, Bytes: size, Order: queueOrder(order)})
	from := l.end(c.ID, k)
	if l.mesh() {
		x, y := l.pos(c)
		px, py := l.port(c)
		from = l.route(x, y, px, py, from, "store "+w.LayerName,
			TaskInfo{Cat: CatNoC, Core: c.ID, Workload: k, Transfers: ids, Bytes: size, Order: -1}, size, order)
	}
	l.g.AddEdge(sim.Edge{From: from, To: t})
	for _, id := range ids {
		l.stores[id] = t
	}
	return t
}

// unorderedBase is the priority of DRAM transfers outside the file's access
// queue (after every queued one).
const unorderedBase = math.MaxInt32

// queueOrder is a priority as a tensor_order, -1 for unordered transfers.
func queueOrder(prio int64) int64 {
	if prio >= unorderedBase {
		return -1
	}
	return prio
}

func (l *lowering) stored(id int64) bool {
	_, ok := l.stores[id]
	return ok
}

func (l *lowering) load(c *gemini.Core, it item) sim.TaskID {
	e := it.e
	var size int64
	for _, id := range e.TransferIDs {
		if r := l.ix.Read(id); r != nil {
			size += max(r.Size, 0)
		}
	}
	if size == 0 {
		size = max(e.Size, 0)
	}
	cat := CatLoad
	if it.wl {
		cat = CatWeight
	}
	name := e.LayerName
	if name == "" && len(e.Sources) > 0 {
		name = e.Sources[0].LayerName
	}
	t := l.add(sim.Task{
		Name: "load " + name, Cat: cat, Resource: l.dram, Bytes: size,
		Earliest: l.p.Startup, Priority: it.order,
	}, TaskInfo{Cat: cat, Core: c.ID, Workload: it.k, Transfers: e.TransferIDs, Bytes: size, Order: it.order})
	if g := l.gate(c, it); g >= 0 {
		l.g.AddDep(l.end(c.ID, g), t)
	}
	arrive := l.toCore(c, it.k, t, "load "+name, e.TransferIDs, size, it.order)
	for _, id := range e.TransferIDs {
		l.addCarrier(c.ID, id, it.k, arrive)
	}
	return t
}

// hazardScan bounds how far back the hazard prefetch rule looks for an
// overlapping tensor.
const hazardScan = 1024

// gate returns the workload whose end a load waits for (-1: none).
func (l *lowering) gate(c *gemini.Core, it item) int {
	if it.k == 0 {
		return -1
	}
	if l.p.Prefetch == PrefetchSnapshot || it.wl || !it.e.HasAddress {
		return it.k - 1
	}
	w := &c.Workloads[it.k]
	pl, ok := gemini.Place(l.s.Regions(w), it.e)
	if !ok {
		return it.k - 1
	}
	key := l.tn.Key(c.ID, it.k, it.ei)
	for j := it.k - 1; j >= 0 && j >= it.k-hazardScan; j-- {
		wj := &c.Workloads[j]
		for i := range wj.Buffer {
			o := &wj.Buffer[i]
			if key >= 0 && key == l.tn.Key(c.ID, j, i) {
				continue
			}
			po, ok := gemini.Place(l.s.Regions(wj), o)
			if ok && overlaps(pl.Spans, po.Spans) {
				return j
			}
		}
	}
	return -1
}

func overlaps(a, b []gemini.Span) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Start < y.End && y.Start < x.End {
				return true
			}
		}
	}
	return false
}

// unqueued adds the DRAM transfers no access queue covers (the raw IR has
// none): loads in program order of their consumers, each allowed one
// workload of prefetch, and stores after their producer.
func (l *lowering) unqueued() {
	var ids []int64
	for _, c := range l.s.Cores {
		prev := sim.TaskID(sim.None)
		for k := range c.Workloads {
			w := &c.Workloads[k]
			ids = ids[:0]
			for i := range w.Ifmaps {
				ids = append(ids, w.Ifmaps[i].TransferIDs...)
			}
			if w.Weight != nil {
				ids = append(ids, w.Weight.TransferIDs...)
			}
			for _, id := range ids {
				r := l.ix.Read(id)
				if r == nil || l.loads[c.ID][id] != 0 {
					continue
				}
				cat := CatLoad
				if r.Type == "weight" {
					cat = CatWeight
				}
				size := max(r.Size, 0)
				t := l.add(sim.Task{
					Name: "load " + r.LayerName, Cat: cat, Resource: l.dram, Bytes: size,
					Earliest: l.p.Startup, Priority: unorderedBase + int64(k),
				}, TaskInfo{Cat: cat, Core: c.ID, Workload: k, Transfers: []int64{id}, Bytes: size, Order: -1})
				if k > 0 {
					l.g.AddDep(l.end(c.ID, k-1), t)
				}
				if prev != sim.None && !l.unchained {
					l.g.AddDep(prev, t)
				}
				prev = t
				arrive := l.toCore(c, k, t, "load "+r.LayerName, []int64{id}, size, unorderedBase+int64(k))
				l.addCarrier(c.ID, id, k, arrive)
			}
		}
	}
	for _, c := range l.s.Cores {
		for k := range c.Workloads {
			w := &c.Workloads[k]
			for i := range w.Ofmaps {
				if id := w.Ofmaps[i].TransferID; l.ix.Write(id) != nil && !l.stored(id) {
					l.store(c, k, unorderedBase+int64(k))
					break
				}
			}
		}
	}
}

// related makes every DRAM read wait for the writes of its related_ifmap.
func (l *lowering) related() {
	for ti := range l.inf {
		in := &l.inf[ti]
		if in.Cat != CatLoad && in.Cat != CatWeight {
			continue
		}
		// Tasks were added with Tag = ti and IDs in the same order.
		t := sim.TaskID(ti)
		for _, id := range l.transfers(in) {
			r := l.ix.Read(id)
			if r == nil {
				continue
			}
			for _, wid := range r.RelatedIfmap {
				if st, ok := l.stores[wid]; ok {
					l.g.AddEdge(sim.Edge{From: st, To: t, Flow: true})
				}
			}
		}
	}
}

// consumers makes each workload wait for the DRAM loads of its inputs.
func (l *lowering) consumers() {
	var ids []int64
	var done []sim.TaskID
	for _, c := range l.s.Cores {
		for k := range c.Workloads {
			w := &c.Workloads[k]
			ids = ids[:0]
			for i := range w.Ifmaps {
				ids = append(ids, w.Ifmaps[i].TransferIDs...)
			}
			if w.Weight != nil {
				ids = append(ids, w.Weight.TransferIDs...)
			}
			done = done[:0]
			for _, id := range ids {
				t, ok := l.carrierFor(c.ID, id, k)
				if !ok || slices.Contains(done, t) {
					continue
				}
				done = append(done, t)
				l.g.AddEdge(sim.Edge{From: t, To: l.compute[c.ID][k], Flow: true})
			}
		}
	}
}

// noc adds core-to-core transfers: XY routing over the mesh, one task per
// hop (store and forward), each directed link a resource.
func (l *lowering) noc() {
	s, p := l.s, &l.p
	for _, c := range s.Cores {
		for k := range c.Workloads {
			w := &c.Workloads[k]
			for i := range w.Ofmaps {
				o := &w.Ofmaps[i]
				for _, d := range o.Destinations {
					if d.IsDRAM() || d.Core < 0 || d.Core >= len(s.Cores) || !d.HasWorkload {
						continue
					}
					dc := s.Cores[d.Core]
					ki := workloadIndex(dc, d.Workload)
					if ki < 0 {
						continue
					}
					to := l.compute[d.Core][ki]
					from := l.end(c.ID, k)
					if d.Core == c.ID {
						if ki > k {
							l.g.AddDep(from, to)
						}
						continue
					}
					x, y := l.pos(c)
					tx, ty := l.pos(dc)
					size := max(o.Size, 0)
					prev := l.route(x, y, tx, ty, from, w.LayerName,
						TaskInfo{Cat: CatNoC, Core: c.ID, Workload: k, Transfers: []int64{o.TransferID}, Bytes: size, Order: -1},
						size, int64(k))
					lag := int64(0)
					if prev == from {
						lag = p.HopLatency
					}
					l.g.AddEdge(sim.Edge{From: prev, To: to, Lag: lag, Flow: true})
				}
			}
		}
	}
}

func workloadIndex(c *gemini.Core, id int64) int {
	i, ok := slices.BinarySearchFunc(c.Workloads, id, func(w gemini.Workload, id int64) int {
		switch {
		case w.ID < id:
			return -1
		case w.ID > id:
			return 1
		}
		return 0
	})
	if ok {
		return i
	}
	for j := range c.Workloads { // ids not ascending (Check reports it)
		if c.Workloads[j].ID == id {
			return j
		}
	}
	return -1
}

func (l *lowering) link(x, y, nx, ny int64) sim.ResourceID {
	key := [4]int64{x, y, nx, ny}
	if r, ok := l.links[key]; ok {
		return r
	}
	r := l.g.AddResource(sim.Resource{
		Name:  fmt.Sprintf("link (%d,%d)->(%d,%d)", x, y, nx, ny),
		Group: "NoC", Bandwidth: l.p.bytesPerCycle(l.p.LinkGBps), Overhead: l.p.HopLatency,
	})
	l.links[key] = r
	l.linkRs = append(l.linkRs, r)
	return r
}

// occupancy adds an L2 occupancy counter per core: the bytes of the
// workload's buffer snapshot while it computes.
func (l *lowering) occupancy() {
	for _, c := range l.s.Cores {
		ctr := l.g.AddCounter(sim.Counter{Name: fmt.Sprintf("L2 core %d (bytes)", c.ID), Group: "cores"})
		prev := int64(0)
		for k := range c.Workloads {
			occ := int64(0)
			for i := range c.Workloads[k].Buffer {
				occ += max(c.Workloads[k].Buffer[i].Size, 0)
			}
			if occ != prev {
				l.g.AddDelta(l.compute[c.ID][k], ctr, false, occ-prev)
				prev = occ
			}
		}
	}
}

// end is the last tile's task of workload k on core c.
func (l *lowering) end(c, k int) sim.TaskID {
	return l.compute[c][k] + sim.TaskID(l.ntiles[c][k]-1)
}

// shape hashes what a unit's tile-shape configuration depends on: the
// extents of the workload's inputs and output, its tiling and padding.
func shape(w *gemini.Workload, n int64) uint64 {
	var h maphash.Hash
	h.SetSeed(shapeSeed)
	var b [8]byte
	put := func(v int64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	ext := func(x gemini.Box) {
		for i := 0; i < int(x.Rank) && i < len(x.Upper); i++ {
			put(int64(x.Upper[i] - x.Lower[i]))
		}
		put(-1)
	}
	for i := range w.Ifmaps {
		ext(w.Ifmaps[i].Box)
	}
	ext(w.Range)
	put(n)
	for _, v := range w.TilePadding {
		put(v)
	}
	return h.Sum64()
}

var shapeSeed = maphash.MakeSeed()

// weightPort models the weight-buffer loader (WL0/WL1), one in-order
// queue per core shared by the streams from DRAM and the per-tile copies
// of weights held in L2 (source CORE). The copies of a workload's first two
// tiles (the buffer is double-buffered) queue behind the DRAM streams first
// listed before the workload; the copies of its later tiles also behind
// those first listed at the workload itself. A copy takes no time but waits
// LWConfig after the stream ahead of it.
func (l *lowering) weightPort() {
	type stream struct {
		k int
		t sim.TaskID
	}
	streams := make([][]stream, len(l.s.Cores)) // per core, in queue order
	for ti := range l.inf {
		in := &l.inf[ti]
		if in.Cat == CatWeight && in.Order >= 0 {
			streams[in.Core] = append(streams[in.Core], stream{in.Workload, sim.TaskID(ti)})
		}
	}
	for _, c := range l.s.Cores {
		streams := streams[c.ID]
		slices.SortStableFunc(streams, func(a, b stream) int {
			return cmp.Compare(l.inf[a.t].Order, l.inf[b.t].Order)
		})
		// latest(k) is the last stream first listed at or before k.
		j := -1
		for k := range c.Workloads {
			w := &c.Workloads[k]
			if !copiesWeight(w) {
				continue
			}
			before := sim.TaskID(sim.None)
			for j+1 < len(streams) && streams[j+1].k < k {
				j++
			}
			if j >= 0 {
				before = streams[j].t
			}
			at := before
			for i := j + 1; i < len(streams) && streams[i].k == k; i++ {
				at = streams[i].t
			}
			first := l.compute[c.ID][k]
			if before != sim.None {
				l.g.AddEdge(sim.Edge{From: before, To: first, Lag: l.p.LWConfig})
			}
			if n := l.ntiles[c.ID][k]; n > 2 && at != sim.None && at != before {
				l.g.AddEdge(sim.Edge{From: at, To: first + 2, Lag: l.p.LWConfig})
			}
		}
	}
}

// copiesWeight reports whether a workload's weight is copied into the
// weight buffer from L2 (a CORE-sourced weight-buffer entry).
func copiesWeight(w *gemini.Workload) bool {
	if w.Weight == nil {
		return false
	}
	for i := range w.WeightBuffer {
		e := &w.WeightBuffer[i]
		if e.SourceKind != "CORE" {
			continue
		}
		for _, id := range e.TransferIDs {
			if slices.Contains(w.Weight.TransferIDs, id) {
				return true
			}
		}
	}
	return false
}

// mesh reports whether transfers cross the NoC: on a multi-core mesh DRAM
// sits in the columns left and right of the cores (the raw IR's key layout)
// and its traffic travels the row's links. A single core is attached to its
// DRAM directly, as the emulator shows.
func (l *lowering) mesh() bool { return len(l.s.Cores) > 1 }

// pos is a core's mesh position.
func (l *lowering) pos(c *gemini.Core) (int64, int64) {
	if c.X >= 0 && c.Y >= 0 {
		return c.X, c.Y
	}
	xlen := max(l.s.XLen, 1)
	return int64(c.ID) % xlen, int64(c.ID) / xlen
}

// port is the DRAM port nearest to a core: the end of its row, left
// (x = -1) or right (x = xlen), left on a tie.
func (l *lowering) port(c *gemini.Core) (int64, int64) {
	x, y := l.pos(c)
	xlen := max(l.s.XLen, x+1)
	if xlen-x < x+1 {
		return xlen, y
	}
	return -1, y
}

// toCore routes a DRAM load's data from the core's DRAM port to the core
// (multi-core meshes) and returns the task whose end is its arrival.
func (l *lowering) toCore(c *gemini.Core, k int, t sim.TaskID, name string, ids []int64, size, prio int64) sim.TaskID {
	if !l.mesh() {
		return t
	}
	px, py := l.port(c)
	x, y := l.pos(c)
	return l.route(px, py, x, y, t, name,
		TaskInfo{Cat: CatNoC, Core: c.ID, Workload: k, Transfers: ids, Bytes: size, Order: -1}, size, prio)
}

// route adds one task per link hop from (x, y) to (tx, ty), X first then
// Y (store and forward), chained after prev with flow edges; it returns the
// last hop, or prev when source and target coincide.
func (l *lowering) route(x, y, tx, ty int64, prev sim.TaskID, name string, info TaskInfo, size, prio int64) sim.TaskID {
	for x != tx || y != ty {
		nx, ny := x, y
		switch {
		case x < tx:
			nx++
		case x > tx:
			nx--
		case y < ty:
			ny++
		default:
			ny--
		}
		t := l.add(sim.Task{
			Name: name, Cat: CatNoC, Resource: l.link(x, y, nx, ny), Bytes: size, Priority: prio,
		}, info)
		l.g.AddEdge(sim.Edge{From: prev, To: t, Flow: true})
		prev = t
		x, y = nx, ny
	}
	return prev
}

func (l *lowering) transfers(in *TaskInfo) []int64 {
	return l.xfers[in.xoff : in.xoff+in.xlen : in.xoff+in.xlen]
}
