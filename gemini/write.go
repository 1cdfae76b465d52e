package gemini

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"
	"strconv"
)

// Write writes a schedule as compiler IR JSON, indented like the
// scheduler's own files (members sorted, numeric lists on one line). It
// streams: memory use does not grow with the output. A schedule read from
// the raw IR is written in compiler form (sizes in bytes, compact core
// keys). Extra members are written back verbatim.
func Write(w io.Writer, s *Schedule) error {
	e := &emitter{w: bufio.NewWriterSize(w, 1<<16)}
	e.open('{')
	e.key("-1")
	e.open('{')
	e.key("in")
	e.open('[')
	for i := range s.DRAMWrites {
		e.dramWrite(s, &s.DRAMWrites[i])
	}
	e.close(']')
	e.key("out")
	e.open('[')
	for i := range s.DRAMReads {
		e.dramRead(s, &s.DRAMReads[i])
	}
	e.close(']')
	e.extra(s.Extra, "-1.")
	e.close('}')
	for _, c := range s.Cores {
		e.key(strconv.Itoa(c.ID))
		e.open('[')
		for wi := range c.Workloads {
			e.workload(s, &c.Workloads[wi])
		}
		e.close(']')
	}
	e.key("buffersize")
	e.int(s.BufferSize)
	e.extraPrefixless(s.Extra)
	e.key("top_batch_cut")
	e.int(s.TopBatchCut)
	e.key("xlen")
	e.int(s.XLen)
	e.key("ylen")
	e.int(s.YLen)
	e.close('}')
	e.buf = append(e.buf, '\n')
	e.flush()
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

type emitter struct {
	w     *bufio.Writer
	buf   []byte
	depth int
	first bool // next value is the first of its container
	err   error
}

func (e *emitter) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *emitter) indent() {
	e.buf = append(e.buf, '\n')
	for i := 0; i < e.depth; i++ {
		e.buf = append(e.buf, "   "...)
	}
}

// sep starts a value inside an array (objects call key instead).
func (e *emitter) sep() {
	if !e.first {
		e.buf = append(e.buf, ',')
	}
	e.first = false
	e.indent()
}

func (e *emitter) open(c byte) {
	e.buf = append(e.buf, c)
	e.depth++
	e.first = true
}

func (e *emitter) close(c byte) {
	e.depth--
	if !e.first {
		e.indent()
	}
	e.first = false
	e.buf = append(e.buf, c)
	if len(e.buf) > 1<<15 {
		e.flush()
	}
}

func (e *emitter) key(k string) {
	e.sep()
	e.buf = strconv.AppendQuote(e.buf, k)
	e.buf = append(e.buf, " : "...)
}

func (e *emitter) elem() { e.sep() }

func (e *emitter) int(n int64) { e.buf = strconv.AppendInt(e.buf, n, 10) }

func (e *emitter) str(s string) {
	b, _ := json.Marshal(s)
	e.buf = append(e.buf, b...)
}

func (e *emitter) bool(b bool) { e.buf = strconv.AppendBool(e.buf, b) }

func (e *emitter) ints(xs []int64) {
	if len(xs) == 0 {
		e.buf = append(e.buf, "[]"...)
		return
	}
	e.buf = append(e.buf, "[ "...)
	for i, x := range xs {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = strconv.AppendInt(e.buf, x, 10)
	}
	e.buf = append(e.buf, " ]"...)
}

func (e *emitter) coord(c [4]int32, rank uint8) {
	if rank == 1 {
		e.int(int64(c[0]))
		return
	}
	xs := make([]int64, rank)
	for i := range xs {
		xs[i] = int64(c[i])
	}
	e.ints(xs)
}

func (e *emitter) box(b Box) {
	if b.Rank == 0 {
		return
	}
	e.key("lower")
	e.coord(b.Lower, b.Rank)
	e.key("upper")
	e.coord(b.Upper, b.Rank)
}

func (e *emitter) raw(v json.RawMessage) { e.buf = append(e.buf, v...) }

func (e *emitter) extra(x Extra, prefix string) {
	keys := make([]string, 0, len(x))
	for k := range x {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.key(k[len(prefix):])
		e.raw(x[k])
	}
}

func (e *emitter) extraPrefixless(x Extra) {
	keys := make([]string, 0, len(x))
	for k := range x {
		if len(k) < 3 || k[:3] != "-1." {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.key(k)
		e.raw(x[k])
	}
}

func (e *emitter) coreKey(s *Schedule, core int, key int64) int64 {
	if core >= 0 {
		return int64(core)
	}
	if core == DRAM {
		return -1
	}
	return key
}

func (e *emitter) dests(s *Schedule, ds []Destination) {
	e.open('[')
	for _, d := range ds {
		e.elem()
		e.open('{')
		e.key("core_id")
		e.int(e.coreKey(s, d.Core, d.CoreKey))
		e.extra(d.Extra, "")
		if d.LayerName != "" {
			e.key("layer_name")
			e.str(d.LayerName)
		}
		e.key("type")
		e.str(d.Type)
		if d.HasWorkload {
			e.key("workload_id")
			e.int(d.Workload)
		}
		e.close('}')
	}
	e.close(']')
}

func (e *emitter) dramWrite(s *Schedule, w *DRAMWrite) {
	e.elem()
	e.open('{')
	e.key("core_id")
	e.int(e.coreKey(s, w.Core, w.CoreKey))
	e.extra(w.Extra, "")
	if w.LayerName != "" {
		e.key("layer_name")
		e.str(w.LayerName)
	}
	e.box(w.Box)
	if w.RelatedOfmap != nil {
		e.key("related_ofmap")
		e.ints(w.RelatedOfmap)
	}
	e.key("transfer_id")
	e.int(w.TransferID)
	e.key("workload_id")
	e.int(w.Workload)
	e.close('}')
}

func (e *emitter) dramRead(s *Schedule, r *DRAMRead) {
	e.elem()
	e.open('{')
	e.key("destination")
	e.dests(s, r.Destinations)
	e.extra(r.Extra, "")
	if r.LayerName != "" {
		e.key("layer_name")
		e.str(r.LayerName)
	}
	e.box(r.Box)
	e.key("related_ifmap")
	e.ints(r.RelatedIfmap)
	e.key("size")
	e.int(r.Size)
	e.key("transfer_id")
	e.int(r.TransferID)
	e.key("type")
	e.str(r.Type)
	e.close('}')
}

func (e *emitter) workload(s *Schedule, w *Workload) {
	e.elem()
	e.open('{')
	e.key("buffer")
	e.entries(s, w.Buffer)
	e.extra(w.Extra, "")
	e.ifmaps(w.Ifmaps)
	e.key("layer_name")
	e.str(w.LayerName)
	e.key("layer_type")
	e.str(w.LayerType)
	e.key("ofmap")
	e.open('[')
	for _, o := range w.Ofmaps {
		e.elem()
		e.open('{')
		e.key("destination")
		e.dests(s, o.Destinations)
		e.extra(o.Extra, "")
		e.box(o.Box)
		e.key("size")
		e.int(o.Size)
		e.key("transfer_id")
		e.int(o.TransferID)
		e.close('}')
	}
	e.close(']')
	e.key("ofmap_size")
	e.int(w.OfmapSize)
	if w.HasRingRegions || len(w.RingRegions) > 0 {
		e.key("ring_buffer_info")
		e.open('[')
		for _, r := range w.RingRegions {
			e.elem()
			e.ints(r[:])
		}
		e.close(']')
	}
	if len(w.TileInfo) > 0 {
		e.key("tile_info")
		e.raw(w.TileInfo)
	}
	if w.TilePadding != nil {
		e.key("tile_padding_tblr")
		e.ints(w.TilePadding)
	}
	e.key("time")
	e.int(w.Time)
	if w.Weight != nil {
		e.key("weight")
		e.open('{')
		e.extra(w.Weight.Extra, "")
		e.box(w.Weight.Box)
		e.key("size")
		e.int(w.Weight.Size)
		e.key("transfer_id")
		e.ints(w.Weight.TransferIDs)
		e.close('}')
	}
	if w.WeightBufferKey != "" || len(w.WeightBuffer) > 0 {
		k := w.WeightBufferKey
		if k == "" {
			k = "wl0_buffer"
		}
		e.key(k)
		e.entries(s, w.WeightBuffer)
	}
	e.key("workload")
	e.open('[')
	e.elem()
	e.coord(w.Range.Lower, w.Range.Rank)
	e.elem()
	e.coord(w.Range.Upper, w.Range.Rank)
	e.close(']')
	e.key("workload_id")
	e.int(w.ID)
	e.close('}')
}

func (e *emitter) entries(s *Schedule, es []BufferEntry) {
	e.open('[')
	for i := range es {
		b := &es[i]
		e.elem()
		e.open('{')
		switch {
		case b.HasAddress:
			e.key("address")
			e.int(b.Address)
		case b.Unallocated:
			// The placeholder converters write for "not allocated yet".
			e.key("address")
			e.bool(true)
		}
		if b.Align != 0 {
			e.key("align")
			e.int(b.Align)
		}
		if b.Bitwidth != 0 {
			e.key("bitwidth")
			e.int(b.Bitwidth)
		}
		if b.CurWLIfmap {
			e.key("cur_wl_ifmap")
			e.bool(true)
		}
		e.extra(b.Extra, "")
		if b.LayerName != "" {
			e.key("layer_name")
			e.str(b.LayerName)
		}
		e.box(b.Box)
		if b.HasNewlyAdded {
			e.key("newly_added")
			e.bool(b.NewlyAdded)
		}
		e.key("size")
		e.int(b.Size)
		switch {
		case b.SourceKind != "":
			e.key("source")
			if b.SourceKind == "DRAM" {
				e.str("DDR")
			} else {
				e.str(b.SourceKind)
			}
		case b.Sources != nil:
			e.key("source")
			e.open('[')
			for _, src := range b.Sources {
				e.elem()
				e.open('{')
				e.key("core_id")
				e.int(e.coreKey(s, src.Core, src.CoreKey))
				e.extra(src.Extra, "")
				if src.LayerName != "" {
					e.key("layer_name")
					e.str(src.LayerName)
				}
				e.box(src.Box)
				e.key("size")
				e.int(src.Size)
				e.key("transfer_id")
				e.int(src.TransferID)
				e.key("type")
				e.str(src.Type)
				e.close('}')
			}
			e.close(']')
		}
		if b.StartSend {
			e.key("start_send")
			e.bool(true)
		}
		if b.HasTensorID {
			e.key("tensor_id")
			e.int(b.TensorID)
		}
		if b.HasTensorOrder {
			e.key("tensor_order")
			e.int(b.TensorOrder)
		} else if b.SourceKind != "" {
			e.key("tensor_order")
			e.buf = append(e.buf, "null"...)
		}
		if b.TransferIDs != nil {
			e.key("transfer_id")
			e.ints(b.TransferIDs)
		}
		e.key("type")
		e.str(b.Type)
		e.close('}')
	}
	e.close(']')
}

func (e *emitter) ifmaps(fs []Ifmap) {
	e.key("ifmap")
	e.open('[')
	for _, f := range fs {
		e.elem()
		e.open('{')
		e.key("align")
		e.int(f.Align)
		e.key("bitwidth")
		e.int(f.Bitwidth)
		e.extra(f.Extra, "")
		e.box(f.Box)
		e.key("size")
		e.int(f.Size)
		e.key("transfer_id")
		e.ints(f.TransferIDs)
		e.close('}')
	}
	e.close(']')
}
