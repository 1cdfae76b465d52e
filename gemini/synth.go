package gemini

import (
	"fmt"
	"io"
)

// SynthConfig sizes a synthetic schedule.
type SynthConfig struct {
	Cores     int   // cores in the mesh (>= 1)
	Workloads int   // workloads per core (>= 1)
	XLen      int   // mesh width; 0 picks Cores (one row)
	Buffer    int64 // L2 bytes per core; 0 picks 8 MiB
	// DRAMEvery routes every DRAMEvery-th layer's input through DRAM (its
	// producers write to DRAM, its consumers read with related_ifmap links);
	// the other layers exchange data core to core. 0 picks 4.
	DRAMEvery int
	Seed      uint64 // varies compute times; 0 is a valid seed
}

func (c *SynthConfig) defaults() error {
	if c.Cores < 1 || c.Workloads < 1 {
		return fmt.Errorf("synth: need at least one core and one workload per core (got %d, %d)", c.Cores, c.Workloads)
	}
	if c.Cores > 1<<16 || c.Workloads > 1<<26 {
		return fmt.Errorf("synth: %d cores x %d workloads is beyond what the generator supports", c.Cores, c.Workloads)
	}
	if c.XLen <= 0 {
		c.XLen = c.Cores
	}
	if c.Buffer == 0 {
		c.Buffer = 8 << 20
	}
	if c.DRAMEvery <= 0 {
		c.DRAMEvery = 4
	}
	return nil
}

// Synthetic layer geometry: every layer has 64 output channels per core,
// 28x28 pixels, 3x3 kernels, int8. Sizes follow the compiler IR rules
// (fmap = N*align8(C)*H*W, weight = K*align8(C)*R*S + 32*K).
const (
	synthK    = 64
	synthHW   = 28
	synthFmap = synthK * synthHW * synthHW
)

func synthWeightSize(cin int) int64 { return int64(synthK*((cin+7)/8*8)*9 + 32*synthK) }

// Synth builds an internally consistent multi-core schedule of the compiler
// IR: layer k runs as workload k on every core, each core computing 64
// output channels. Layers exchange data core to core (each core reads its
// own previous ofmap and its right neighbour's) or, every DRAMEvery-th
// layer, through DRAM with symmetric related_ofmap/related_ifmap links.
// Buffer snapshots place tensors in a ring over the L2 (tensors wrap around
// its end), with stable tensor IDs, newly_added flags and a total
// tensor_order over the DRAM transfers. The result passes Check without
// errors.
func Synth(cfg SynthConfig) (*Schedule, error) {
	g, err := newSynth(cfg)
	if err != nil {
		return nil, err
	}
	for k := 0; k < g.cfg.Workloads; k++ {
		for c := 0; c < g.cfg.Cores; c++ {
			w := g.workload(c, k)
			g.s.Cores[c].Workloads = append(g.s.Cores[c].Workloads, w)
		}
	}
	g.finish()
	return g.s, nil
}

// SynthWrite generates a synthetic schedule and writes it (see Synth).
func SynthWrite(w io.Writer, cfg SynthConfig) error {
	s, err := Synth(cfg)
	if err != nil {
		return err
	}
	return Write(w, s)
}

type synth struct {
	cfg      SynthConfig
	s        *Schedule
	nextID   int64     // transfer IDs (core ofmaps and DRAM reads)
	nextTen  int64     // tensor IDs
	ofmapID  [][]int64 // [core][layer] ofmap transfer ID
	ofmapTen [][]int64 // [core][layer] tensor ID of the own-ofmap entry
	ptr      []int64   // ring allocation pointer per core
	rng      uint64
}

func newSynth(cfg SynthConfig) (*synth, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if 6*synthWeightSize(2*synthK) > cfg.Buffer {
		return nil, fmt.Errorf("synth: buffer %d bytes is too small for the synthetic layers (need %d)", cfg.Buffer, 6*synthWeightSize(2*synthK))
	}
	g := &synth{cfg: cfg, rng: cfg.Seed*0x9E3779B97F4A7C15 + 1}
	g.s = &Schedule{Variant: Compiler, BufferSize: cfg.Buffer, TopBatchCut: 1,
		XLen: int64(cfg.XLen), YLen: int64((cfg.Cores + cfg.XLen - 1) / cfg.XLen)}
	for c := 0; c < cfg.Cores; c++ {
		g.s.Cores = append(g.s.Cores, &Core{ID: c, Key: int64(c), X: int64(c % cfg.XLen), Y: int64(c / cfg.XLen),
			Workloads: make([]Workload, 0, cfg.Workloads)})
	}
	g.ofmapID = make([][]int64, cfg.Cores)
	g.ofmapTen = make([][]int64, cfg.Cores)
	g.ptr = make([]int64, cfg.Cores)
	return g, nil
}

func (g *synth) rand() uint64 {
	g.rng ^= g.rng << 13
	g.rng ^= g.rng >> 7
	g.rng ^= g.rng << 17
	return g.rng
}

// viaDRAM reports whether layer k reads its input from DRAM.
func (g *synth) viaDRAM(k int) bool { return k == 0 || k%g.cfg.DRAMEvery == 0 }

// alloc places a new tensor of a core in the ring.
func (g *synth) alloc(c int, size int64) int64 {
	a := g.ptr[c]
	g.ptr[c] = (a + size) % g.cfg.Buffer
	return a
}

func box4(c0, c1 int) Box {
	return Box{Lower: [4]int32{0, int32(c0), 0, 0}, Upper: [4]int32{0, int32(c1), synthHW - 1, synthHW - 1}, Rank: 4}
}

func layerName(k int) string { return fmt.Sprintf("Conv_%d", k) }

// workload builds workload k of core c. Layer k consumes layer k-1.
func (g *synth) workload(c, k int) Workload {
	C := g.cfg.Cores
	name := layerName(k)
	w := Workload{ID: int64(k), LayerName: name, LayerType: "pe", Range: box4(c*synthK, c*synthK+synthK-1),
		Time: int64(20000 + g.rand()%20000), RingRegions: [][2]int64{{0, g.cfg.Buffer}}, HasRingRegions: true,
		TilePadding: []int64{1, 1, 1, 1}}
	if k%3 == 2 {
		w.LayerType = "vp"
	}
	prev := g.s.Cores[c]
	var prevW *Workload
	if k > 0 {
		prevW = &prev.Workloads[k-1]
	}
	keep := func(e *BufferEntry) BufferEntry {
		cp := *e
		cp.NewlyAdded = false
		cp.CurWLIfmap = false
		return cp
	}
	// Weight: a DRAM read for this workload.
	cin := synthK
	if !g.viaDRAM(k) && C > 1 {
		cin = 2 * synthK
	}
	wsize := synthWeightSize(cin)
	wid := g.newID()
	g.s.DRAMReads = append(g.s.DRAMReads, DRAMRead{TransferID: wid, Type: "weight", Box: Box{Upper: [4]int32{0, synthK - 1, 2, int32(cin - 1)}, Rank: 4},
		Size: wsize, RelatedIfmap: []int64{}, Destinations: []Destination{{Type: "core", Core: c, CoreKey: int64(c), Workload: int64(k), HasWorkload: true, LayerName: name}}})
	w.Weight = &Weight{Box: box4(0, synthK-1), Size: wsize, TransferIDs: []int64{wid}}
	w.Buffer = append(w.Buffer, g.entry(c, "weight", name, wsize, wid, DRAM, box4(0, synthK-1), true))
	w.WeightBufferKey = "wl0_buffer"
	w.WeightBuffer = []BufferEntry{{Type: "weight", LayerName: name, Box: box4(0, synthK-1), Size: int64(9 * cin), HasAddress: true,
		Align: 8, Bitwidth: 8, SourceKind: "CORE", TransferIDs: []int64{wid}}}

	// Input.
	if g.viaDRAM(k) {
		fid := g.newID()
		rd := DRAMRead{TransferID: fid, Type: "fmap", LayerName: name, Box: box4(0, synthK*C-1), Size: synthFmap,
			RelatedIfmap: []int64{}, Destinations: []Destination{{Type: "core", Core: c, CoreKey: int64(c), Workload: int64(k), HasWorkload: true, LayerName: name}}}
		if k > 0 {
			rd.RelatedIfmap = append([]int64(nil), g.layerWrites(k-1)...)
			for _, id := range rd.RelatedIfmap {
				g.writeFor(id).RelatedOfmap = append(g.writeFor(id).RelatedOfmap, fid)
			}
		}
		g.s.DRAMReads = append(g.s.DRAMReads, rd)
		w.Ifmaps = []Ifmap{{Box: box4(0, synthK-1), Size: synthFmap, Align: 8, Bitwidth: 8, TransferIDs: []int64{fid}, MaxWorkloadID: -1}}
		e := g.entry(c, "ifmap", name, synthFmap, fid, DRAM, box4(0, synthK-1), true)
		e.CurWLIfmap = true
		w.Buffer = append(w.Buffer, e)
	} else {
		own := g.ofmapID[c][k-1]
		ids := []int64{own}
		// Keep the own previous ofmap (already in the buffer).
		for i := range prevW.Buffer {
			if pe := &prevW.Buffer[i]; pe.HasTensorID && pe.TensorID == g.ofmapTen[c][k-1] {
				e := keep(pe)
				e.CurWLIfmap = true
				w.Buffer = append(w.Buffer, e)
			}
		}
		if C > 1 {
			n := (c + 1) % C
			nid := g.ofmapID[n][k-1]
			ids = append(ids, nid)
			e := g.entry(c, "ifmap", layerName(k-1), synthFmap, nid, n, box4(n*synthK, n*synthK+synthK-1), true)
			e.CurWLIfmap = true
			w.Buffer = append(w.Buffer, e)
		}
		w.Ifmaps = []Ifmap{{Box: box4(0, len(ids)*synthK-1), Size: int64(len(ids)) * synthFmap, Align: 8, Bitwidth: 8, TransferIDs: ids, MaxWorkloadID: -1}}
	}

	// Output.
	oid := g.newID()
	g.ofmapID[c] = append(g.ofmapID[c], oid)
	o := Ofmap{Box: box4(0, synthK-1), Size: synthFmap, TransferID: oid}
	last := k == g.cfg.Workloads-1
	if last || g.viaDRAM(k+1) {
		o.Destinations = []Destination{{Type: "DRAM", Core: DRAM, CoreKey: -1}}
		wr := DRAMWrite{TransferID: oid, Core: c, CoreKey: int64(c), Workload: int64(k), LayerName: name, Box: w.Range}
		g.s.DRAMWrites = append(g.s.DRAMWrites, wr)
		e := BufferEntry{Type: "ofmap", LayerName: name, Box: box4(0, synthK-1), Size: synthFmap, HasAddress: true,
			Address: g.alloc(c, synthFmap), Align: 8, Bitwidth: 8, TensorID: g.newTensor(), HasTensorID: true, StartSend: true}
		g.ofmapTen[c] = append(g.ofmapTen[c], e.TensorID)
		w.Buffer = append(w.Buffer, e)
	} else {
		o.Destinations = []Destination{{Type: "core", Core: c, CoreKey: int64(c), Workload: int64(k + 1), HasWorkload: true}}
		if C > 1 {
			p := (c - 1 + C) % C
			o.Destinations = append(o.Destinations, Destination{Type: "core", Core: p, CoreKey: int64(p), Workload: int64(k + 1), HasWorkload: true})
		}
		e := g.entry(c, "ifmap", name, synthFmap, oid, c, box4(c*synthK, c*synthK+synthK-1), true)
		g.ofmapTen[c] = append(g.ofmapTen[c], e.TensorID)
		w.Buffer = append(w.Buffer, e)
	}
	w.Ofmaps = []Ofmap{o}
	w.OfmapSize = synthFmap
	w.TileInfo = []byte(fmt.Sprintf(`{"tile_num_0":{"cut_mode":"KH","loop_order":"KNHW","single_tile_time_pred":%d.0}}`, w.Time))
	return w
}

func (g *synth) newID() int64 {
	g.nextID++
	return g.nextID - 1
}

func (g *synth) newTensor() int64 {
	g.nextTen++
	return g.nextTen - 1
}

// entry makes a new L2 tensor holding one transfer from a source core
// (DRAM or a core ID).
func (g *synth) entry(c int, typ, layer string, size, transfer int64, src int, b Box, newly bool) BufferEntry {
	e := BufferEntry{Type: typ, LayerName: layer, Box: b, Size: size, HasAddress: true, Address: g.alloc(c, size),
		Align: 8, Bitwidth: 8, TensorID: g.newTensor(), HasTensorID: true, NewlyAdded: newly, HasNewlyAdded: true,
		TransferIDs: []int64{transfer}}
	s := Source{Type: "core", Core: src, CoreKey: int64(src), LayerName: layer, Box: b, Size: size, TransferID: transfer}
	if src == DRAM {
		s.Type, s.CoreKey = "DRAM", -1
	}
	e.Sources = []Source{s}
	return e
}

// layerWrites returns the DRAM-write IDs of layer k (one per core).
func (g *synth) layerWrites(k int) []int64 {
	ids := make([]int64, 0, g.cfg.Cores)
	for c := 0; c < g.cfg.Cores; c++ {
		ids = append(ids, g.ofmapID[c][k])
	}
	return ids
}

func (g *synth) writeFor(id int64) *DRAMWrite {
	// Writes of a layer are the most recent ones; search from the end.
	for i := len(g.s.DRAMWrites) - 1; i >= 0; i-- {
		if g.s.DRAMWrites[i].TransferID == id {
			return &g.s.DRAMWrites[i]
		}
	}
	panic("synth: write not found") // unreachable: IDs come from layerWrites
}

// finish numbers the DRAM transfers: tensor_order follows program order on
// each core, cores interleaved by workload.
func (g *synth) finish() {
	var order int64
	n := int64(len(g.s.DRAMReads) + len(g.s.DRAMWrites))
	for k := 0; k < g.cfg.Workloads; k++ {
		for _, c := range g.s.Cores {
			w := &c.Workloads[k]
			for i := range w.Buffer {
				e := &w.Buffer[i]
				if e.FromDRAM() || e.Type == "ofmap" {
					e.TensorOrder, e.HasTensorOrder = order, true
					order++
				} else {
					e.TensorOrder, e.HasTensorOrder = n, true
				}
			}
		}
	}
}
