package gemini

import (
	"strconv"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/semdiff"
)

// MaxListedWorkloads bounds the workloads a diff lists one by one; the
// rest are counted (per core the counts stay complete).
const MaxListedWorkloads = 200

// DiffDetail is the detail of a schedule diff in the user's terms: per
// core the workloads added, removed, moved and changed with the core's
// traffic per kind and L2 peak; per layer the work and traffic; and the
// differing workloads themselves.
type DiffDetail struct {
	Cores  []CoreDiff  `json:"cores"`
	Layers []LayerDiff `json:"layers"`
	// Workloads lists the workloads on one side only or that differ,
	// at most MaxListedWorkloads; Unlisted counts the rest.
	Workloads []WorkloadDiff `json:"workloads"`
	Unlisted  int            `json:"unlisted_workloads,omitempty"`
}

// CoreDiff is one core's side of the diff (cores pair by ID). A workload
// is matched across the schedules by its layer and ofmap range, whatever
// its workload_id or core: Moved counts those now on another core
// (counted on the core that has them in B), Changed those whose time,
// type or tensor sizes differ.
type CoreDiff struct {
	Core       string `json:"core"` // as inspect names it
	ID         int    `json:"id"`
	WorkloadsA int    `json:"workloads_a"`
	WorkloadsB int    `json:"workloads_b"`
	Added      int    `json:"added"`
	Removed    int    `json:"removed"`
	MovedIn    int    `json:"moved_in"`
	MovedOut   int    `json:"moved_out"`
	Changed    int    `json:"changed"`
	// AddressesMoved counts the buffer entries of workloads matched on
	// this core whose L2 or weight-buffer address differs (what an
	// alloc --rewrite changes; not a change of the workload).
	AddressesMoved int          `json:"addresses_moved"`
	Changes        semdiff.List `json:"changes"`
}

// LayerDiff is a layer whose work or traffic differs.
type LayerDiff struct {
	Layer   string       `json:"layer"`
	Changes semdiff.List `json:"changes"`
}

// WorkloadDiff is a workload on one side only ("added", "removed") or
// matched with differences ("changed", "moved"). Core and ID are nil on
// the side that lacks it.
type WorkloadDiff struct {
	Change  string       `json:"change"`
	Layer   string       `json:"layer"`
	Range   string       `json:"range"`
	CoreA   *string      `json:"core_a"`
	CoreB   *string      `json:"core_b"`
	IDA     *int64       `json:"workload_id_a"`
	IDB     *int64       `json:"workload_id_b"`
	Changes semdiff.List `json:"changes"`
}

// String renders the box as "[n,c,h,w]..[n,c,h,w]" ("" without rank).
func (b Box) String() string {
	if b.Rank == 0 {
		return ""
	}
	part := func(v [4]int32) string {
		s := make([]string, b.Rank)
		for i := range s {
			s[i] = strconv.Itoa(int(v[i]))
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	return part(b.Lower) + ".." + part(b.Upper)
}

type wlRef struct {
	core *Core
	w    *Workload
}

// workloadKeys names each workload by layer and range; workloads without
// a range are told apart by their order within the layer.
func workloadKeys(s *Schedule) (keys []string, refs []wlRef) {
	nth := map[string]int{}
	for _, c := range s.Cores {
		for i := range c.Workloads {
			w := &c.Workloads[i]
			k := w.LayerName + "\x00" + w.Range.String()
			nth[k]++
			k += "\x00" + strconv.Itoa(nth[k])
			keys = append(keys, k)
			refs = append(refs, wlRef{c, w})
		}
	}
	return keys, refs
}

// coreTraffic is what one core moves: DRAM reads delivered to it, its
// ofmaps written to DRAM, sent to and received from other cores.
type coreTraffic struct {
	weightIn, fmapIn, dramOut, sent, received int64
}

func trafficPerCore(s *Schedule) []coreTraffic {
	ix := NewIndex(s)
	t := make([]coreTraffic, len(s.Cores))
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		seen := map[int32]bool{}
		for _, c := range ix.consumers[r.TransferID] {
			if seen[c.core] {
				continue
			}
			seen[c.core] = true
			if r.Type == "weight" {
				t[c.core].weightIn += r.Size
			} else {
				t[c.core].fmapIn += r.Size
			}
		}
	}
	for ci, c := range s.Cores {
		for wi := range c.Workloads {
			for _, o := range c.Workloads[wi].Ofmaps {
				for _, d := range o.Destinations {
					switch {
					case d.IsDRAM():
						// counted below, per "-1".in entry as the summary does
					case d.Core >= 0 && d.Core != ci && d.Core < len(t):
						t[ci].sent += o.Size
						t[d.Core].received += o.Size
					}
				}
			}
		}
	}
	for i := range s.DRAMWrites {
		if c, _, o := ix.Producer(s.DRAMWrites[i].TransferID); c != nil {
			t[c.ID].dramOut += o.Size
		}
	}
	return t
}

func ifmapBytes(w *Workload) int64 {
	var n int64
	for _, f := range w.Ifmaps {
		n += f.Size
	}
	return n
}

func weightBytes(w *Workload) int64 {
	if w.Weight == nil {
		return 0
	}
	return w.Weight.Size
}

// movedAddresses counts the snapshot entries of two matched workloads
// (paired by position when the snapshots have the same length) whose
// address differs.
func movedAddresses(x, y *Workload) int {
	n := 0
	for _, p := range [][2][]BufferEntry{{x.Buffer, y.Buffer}, {x.WeightBuffer, y.WeightBuffer}} {
		if len(p[0]) != len(p[1]) {
			continue
		}
		for k := range p[0] {
			if p[0][k].Address != p[1][k].Address {
				n++
			}
		}
	}
	return n
}

// compareWorkloads lists what differs between two matched workloads,
// leaving out buffer addresses (AddressChanges counts those).
func compareWorkloads(x, y *Workload) semdiff.List {
	var l semdiff.List
	l.Str("type", x.LayerType, y.LayerType)
	l.Int("time", semdiff.Cycles, x.Time, y.Time)
	l.Int("ifmap bytes", semdiff.Bytes, ifmapBytes(x), ifmapBytes(y))
	l.Int("ofmap bytes", semdiff.Bytes, x.OfmapSize, y.OfmapSize)
	l.Int("weight bytes", semdiff.Bytes, weightBytes(x), weightBytes(y))
	l.Int("L2 occupancy", semdiff.Bytes, Occupancy(x.Buffer), Occupancy(y.Buffer))
	l.Int("weight buffer occupancy", semdiff.Bytes, Occupancy(x.WeightBuffer), Occupancy(y.WeightBuffer))
	return l
}

// DiffDetails compares two schedules workload by workload (matched by
// layer and ofmap range), core by core and layer by layer.
func DiffDetails(a, b *Schedule) *DiffDetail {
	d := &DiffDetail{Cores: []CoreDiff{}, Layers: []LayerDiff{}, Workloads: []WorkloadDiff{}}
	nc := max(len(a.Cores), len(b.Cores))
	cores := make([]CoreDiff, nc)
	for i := range cores {
		cores[i].ID = i
		switch {
		case i < len(b.Cores):
			cores[i].Core = b.Cores[i].Name()
		default:
			cores[i].Core = a.Cores[i].Name()
		}
		if i < len(a.Cores) {
			cores[i].WorkloadsA = len(a.Cores[i].Workloads)
		}
		if i < len(b.Cores) {
			cores[i].WorkloadsB = len(b.Cores[i].Workloads)
		}
	}
	list := func(wd WorkloadDiff) {
		if len(d.Workloads) < MaxListedWorkloads {
			d.Workloads = append(d.Workloads, wd)
		} else {
			d.Unlisted++
		}
	}
	ka, ra := workloadKeys(a)
	kb, rb := workloadKeys(b)
	inB := make(map[string]int, len(kb))
	for j, k := range kb {
		inB[k] = j
	}
	matchedB := make([]bool, len(kb))
	for i, k := range ka {
		x := ra[i]
		nameA, idA := x.core.Name(), x.w.ID
		j, ok := inB[k]
		if !ok {
			cores[x.core.ID].Removed++
			list(WorkloadDiff{Change: "removed", Layer: x.w.LayerName, Range: x.w.Range.String(), CoreA: &nameA, IDA: &idA, Changes: semdiff.List{}})
			continue
		}
		matchedB[j] = true
		y := rb[j]
		nameB, idB := y.core.Name(), y.w.ID
		if x.core.ID == y.core.ID {
			cores[x.core.ID].AddressesMoved += movedAddresses(x.w, y.w)
		}
		ch := compareWorkloads(x.w, y.w)
		change := "changed"
		if x.core.ID != y.core.ID {
			change = "moved"
			cores[x.core.ID].MovedOut++
			cores[y.core.ID].MovedIn++
			ch = append(semdiff.List{{What: "core", A: nameA, B: nameB}}, ch...)
		} else if len(ch) > 0 {
			cores[y.core.ID].Changed++
		}
		if len(ch) > 0 {
			if ch == nil {
				ch = semdiff.List{}
			}
			list(WorkloadDiff{Change: change, Layer: x.w.LayerName, Range: x.w.Range.String(), CoreA: &nameA, CoreB: &nameB, IDA: &idA, IDB: &idB, Changes: ch})
		}
	}
	for j, k := range kb {
		if matchedB[j] {
			continue
		}
		_ = k
		y := rb[j]
		nameB, idB := y.core.Name(), y.w.ID
		cores[y.core.ID].Added++
		list(WorkloadDiff{Change: "added", Layer: y.w.LayerName, Range: y.w.Range.String(), CoreB: &nameB, IDB: &idB, Changes: semdiff.List{}})
	}

	// Per core: traffic per kind and buffer peaks.
	sa, sb := Summarize(a, true), Summarize(b, true)
	ta, tb := trafficPerCore(a), trafficPerCore(b)
	for i := range cores {
		var x, y CoreSummary
		var tx, ty coreTraffic
		if i < len(sa.Cores) {
			x, tx = sa.Cores[i], ta[i]
		}
		if i < len(sb.Cores) {
			y, ty = sb.Cores[i], tb[i]
		}
		l := &cores[i].Changes
		l.Int("compute cycles (sum of workload times)", semdiff.Cycles, x.TimeSum, y.TimeSum)
		l.Int("DRAM weight reads delivered", semdiff.Bytes, tx.weightIn, ty.weightIn)
		l.Int("DRAM fmap reads delivered", semdiff.Bytes, tx.fmapIn, ty.fmapIn)
		l.Int("DRAM writes", semdiff.Bytes, tx.dramOut, ty.dramOut)
		l.Int("sent to other cores", semdiff.Bytes, tx.sent, ty.sent)
		l.Int("received from other cores", semdiff.Bytes, tx.received, ty.received)
		l.Int("L2 peak occupancy", semdiff.Bytes, x.L2Peak, y.L2Peak)
		l.Int("L2 mean occupancy", semdiff.Bytes, x.L2Mean, y.L2Mean)
		l.Int("weight buffer peak", semdiff.Bytes, x.WLPeak, y.WLPeak)
		if n := cores[i].AddressesMoved; n > 0 {
			l.Int("buffer entries at another address", semdiff.Count, 0, int64(n))
		}
		if cores[i].Changes == nil {
			cores[i].Changes = semdiff.List{}
		}
	}
	d.Cores = cores

	// Per layer: work and traffic, in A's order then layers only in B.
	la, lb := map[string]LayerSummary{}, map[string]LayerSummary{}
	var order []string
	for _, l := range sa.LayerTraffic {
		la[l.Name] = l
		order = append(order, l.Name)
	}
	for _, l := range sb.LayerTraffic {
		if _, ok := la[l.Name]; !ok {
			order = append(order, l.Name)
		}
		lb[l.Name] = l
	}
	for _, name := range order {
		x, okA := la[name]
		y, okB := lb[name]
		var l semdiff.List
		if !okA || !okB {
			t := x
			if !okA {
				t = y
			}
			l.Presence("layer", t.Type+", "+humanize.Plural(t.Workloads, "workload"), okA)
		} else {
			l.Str("type", x.Type, y.Type)
			l.Int("workloads", semdiff.Count, int64(x.Workloads), int64(y.Workloads))
			l.Int("cores", semdiff.Count, int64(x.Cores), int64(y.Cores))
			l.Int("compute cycles", semdiff.Cycles, x.TimeSum, y.TimeSum)
			l.Int("DRAM weight reads", semdiff.Bytes, x.WeightReadBytes, y.WeightReadBytes)
			l.Int("DRAM fmap reads", semdiff.Bytes, x.FmapReadBytes, y.FmapReadBytes)
			l.Int("DRAM writes", semdiff.Bytes, x.WriteBytes, y.WriteBytes)
			l.Int("core to core", semdiff.Bytes, x.CoreToCoreBytes, y.CoreToCoreBytes)
		}
		if len(l) > 0 {
			d.Layers = append(d.Layers, LayerDiff{Layer: name, Changes: l})
		}
	}
	return d
}
