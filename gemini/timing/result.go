package timing

import (
	"github.com/npukit/npukit/sim"
)

// waitCause classifies the predecessor that made a compute task wait.
type waitCause int

const (
	causeOverhead waitCause = iota
	causeDRAM
	causeCores
)

// cause follows the critical predecessors of a compute task that started
// late: its own core's previous work means configuration overhead; a chain
// reaching another core's compute or store means waiting on other cores;
// otherwise a DRAM transfer on the chain means waiting on DRAM.
func (l *lowering) cause(tl *sim.Timeline, t sim.TaskID, core int) waitCause {
	c := tl.Crit[t]
	if c == sim.None {
		return causeOverhead
	}
	if in := &l.inf[l.g.Tasks[c].Tag]; in.Cat == CatCompute && in.Core == core {
		return causeOverhead
	}
	dram := false
	for step := 0; step < 64 && c != sim.None; step++ {
		in := &l.inf[l.g.Tasks[c].Tag]
		switch in.Cat {
		case CatCompute:
			if in.Core != core {
				return causeCores
			}
			step = 64
		case CatStore:
			if in.Core != core {
				return causeCores
			}
			dram = true
		case CatLoad, CatWeight:
			dram = true
		}
		c = tl.Crit[c]
	}
	if dram {
		return causeDRAM
	}
	return causeCores
}

func (l *lowering) result(tl *sim.Timeline) *Result {
	s, p := l.s, l.p
	total := tl.Makespan
	if len(l.g.Tasks) > 0 {
		total += p.Finish
	}
	res := &Result{
		Unit: "cycles", TotalCycles: total, Micros: float64(total) / (p.CoreGHz * 1e3),
		Params: p, Timeline: tl, Tasks: l.inf, xfers: l.xfers,
	}
	layerIx := map[string]int{}
	for _, c := range s.Cores {
		cs := CoreStats{Core: c.ID, Key: c.Key, X: c.X, Y: c.Y, Workloads: len(c.Workloads)}
		prevEnd := int64(0)
		for k := range c.Workloads {
			w := &c.Workloads[k]
			t := l.compute[c.ID][k]
			first, last := t, l.end(c.ID, k)
			start, end := tl.Start[t], tl.End[last]
			ws := WorkloadSpan{Core: c.ID, ID: w.ID, Layer: w.LayerName, Start: start, End: end}
			for ; t <= last; t++ {
				if gap := tl.Start[t] - prevEnd; gap > 0 {
					// The workload's configuration (startup for the
					// first) is overhead; the rest of the gap goes to
					// what the workload waited for.
					if t == first {
						o := min(gap, l.lag[c.ID][k])
						ws.Overhead += o
						gap -= o
					}
					switch l.cause(tl, t, c.ID) {
					case causeDRAM:
						ws.WaitDRAM += gap
					case causeCores:
						ws.WaitCores += gap
					default:
						ws.Overhead += gap
					}
				}
				prevEnd = tl.End[t]
				// A tile's fixed cost is overhead: compute is the file's
				// own time, the figure inspect sums.
				d := tl.End[t] - tl.Start[t]
				o := min(p.TileOverhead, d)
				ws.Overhead += o
				cs.Busy += d - o
				ws.Compute += d - o
			}
			cs.WaitDRAM += ws.WaitDRAM
			cs.WaitCores += ws.WaitCores
			cs.Overhead += ws.Overhead
			res.Workloads = append(res.Workloads, ws)

			li, ok := layerIx[w.LayerName]
			if !ok {
				li = len(res.Layers)
				layerIx[w.LayerName] = li
				res.Layers = append(res.Layers, LayerStats{Name: w.LayerName, Start: start, End: end})
			}
			ly := &res.Layers[li]
			ly.Workloads++
			ly.Start = min(ly.Start, start)
			ly.End = max(ly.End, end)
			ly.Compute += ws.Compute
			ly.WaitDRAM += ws.WaitDRAM
			ly.WaitCores += ws.WaitCores
		}
		cs.Idle = total - prevEnd
		res.Cores = append(res.Cores, cs)
	}

	d := &res.DRAM
	d.GBps = p.DRAMGBps
	d.BytesPerCycle = p.bytesPerCycle(p.DRAMGBps)
	// Which cores load each DRAM write back (through the reads whose
	// related_ifmap names it), from the simulation's own load tasks.
	readBack := map[int64]map[int]bool{}
	for i := range l.inf {
		in := &l.inf[i]
		switch in.Cat {
		case CatLoad, CatWeight:
			d.Loads++
			d.ReadBytes += in.Bytes
			if in.Cat == CatWeight || l.weight(in) {
				d.WeightBytes += in.Bytes
				continue
			}
			other, own := false, false
			for _, id := range l.transfers(in) {
				r := l.ix.Read(id)
				if r == nil {
					continue
				}
				for _, wid := range r.RelatedIfmap {
					if readBack[wid] == nil {
						readBack[wid] = map[int]bool{}
					}
					readBack[wid][in.Core] = true
					if c, _, _ := l.ix.Producer(wid); c != nil {
						if c.ID != in.Core {
							other = true
						} else {
							own = true
						}
					}
				}
			}
			switch {
			case other:
				d.FromOtherCoreLoads++
				d.FromOtherCoreBytes += in.Bytes
			case own:
				d.FromSameCoreLoads++
				d.FromSameCoreBytes += in.Bytes
			default:
				d.InputLoads++
				d.InputBytes += in.Bytes
			}
		}
	}
	for i := range l.inf {
		in := &l.inf[i]
		if in.Cat != CatStore {
			continue
		}
		d.Stores++
		d.WriteBytes += in.Bytes
		other, own := false, false
		for _, id := range l.transfers(in) {
			for c := range readBack[id] {
				if c != in.Core {
					other = true
				} else {
					own = true
				}
			}
		}
		switch {
		case other:
			d.ToOtherCoreStores++
			d.ToOtherCoreBytes += in.Bytes
		case own:
			d.ToSameCoreStores++
			d.ToSameCoreBytes += in.Bytes
		default:
			d.NotReadBackStores++
			d.NotReadBackBytes += in.Bytes
		}
	}
	d.Busy = tl.Resources[l.dram].Busy
	if total > 0 {
		bpc := float64(d.ReadBytes+d.WriteBytes) / float64(total)
		d.Achieved = bpc * p.CoreGHz
		d.Utilisation = float64(d.Busy) / float64(total)
	}
	for _, r := range l.linkRs {
		st := tl.Resources[r]
		res.Links = append(res.Links, LinkStats{
			Name: l.g.Resources[r].Name, Transfers: st.Tasks, Bytes: st.Bytes, Busy: st.Busy,
		})
	}
	return res
}

// weight reports whether a load carries weights.
func (l *lowering) weight(in *TaskInfo) bool {
	for _, id := range l.transfers(in) {
		if r := l.ix.Read(id); r != nil && r.Type == "weight" {
			return true
		}
	}
	return false
}
