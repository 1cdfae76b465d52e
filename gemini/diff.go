package gemini

import (
	"fmt"
	"sort"

	"github.com/npukit/npukit/semdiff"
)

// DiffSummaries compares two schedules as inspect summarises them:
// workloads (in all and by layer type), layers, compute cycles, DRAM
// traffic, core-to-core and via-DRAM transfers, and per core the
// workloads, L2 and weight-buffer peak occupancy.
func DiffSummaries(a, b *Summary) semdiff.List {
	var l semdiff.List
	l.Str("variant", string(a.Variant), string(b.Variant))
	l.Str("mesh", fmt.Sprintf("%dx%d", a.XLen, a.YLen), fmt.Sprintf("%dx%d", b.XLen, b.YLen))
	l.Int("L2 buffer per core", semdiff.Bytes, a.BufferSize, b.BufferSize)
	l.Int("workloads", semdiff.Count, int64(a.Workloads), int64(b.Workloads))
	ta, tb := map[string]int{}, map[string]int{}
	for _, t := range a.ByType {
		ta[t.Type] = t.Count
	}
	for _, t := range b.ByType {
		tb[t.Type] = t.Count
	}
	for _, k := range sortedUnion(ta, tb) {
		l.Int(k+" workloads", semdiff.Count, int64(ta[k]), int64(tb[k]))
	}
	l.Int("layers", semdiff.Count, int64(a.Layers), int64(b.Layers))
	l.Int("compute cycles (sum of workload times)", semdiff.Cycles, a.TimeSum, b.TimeSum)
	l.Int("DRAM weight reads", semdiff.Bytes, a.DRAM.WeightReadBytes, b.DRAM.WeightReadBytes)
	l.Int("DRAM fmap reads", semdiff.Bytes, a.DRAM.FmapReadBytes, b.DRAM.FmapReadBytes)
	l.Int("DRAM writes", semdiff.Bytes, a.DRAM.WriteBytes, b.DRAM.WriteBytes)
	l.Int("core-to-core transfers", semdiff.Bytes, a.Transfers.CoreToCoreBytes, b.Transfers.CoreToCoreBytes)
	l.Int("transfers through DRAM", semdiff.Bytes, a.Transfers.ViaDRAMBytes, b.Transfers.ViaDRAMBytes)
	l.Int("cores", semdiff.Count, int64(len(a.Cores)), int64(len(b.Cores)))
	for i := 0; i < min(len(a.Cores), len(b.Cores)); i++ {
		x, y := a.Cores[i], b.Cores[i]
		p := CoreName(x.ID, x.Key) + " "
		l.Int(p+"workloads", semdiff.Count, int64(x.Workloads), int64(y.Workloads))
		l.Int(p+"L2 peak occupancy", semdiff.Bytes, x.L2Peak, y.L2Peak)
		l.Int(p+"weight buffer peak", semdiff.Bytes, x.WLPeak, y.WLPeak)
	}
	return l
}

// AddressChanges counts the buffer entries (core, workload, position)
// whose L2 address differs between two schedules of the same shape, the
// change an `alloc --rewrite` makes; -1 when the shapes differ.
func AddressChanges(a, b *Schedule) int {
	if len(a.Cores) != len(b.Cores) {
		return -1
	}
	n := 0
	for i, c := range a.Cores {
		d := b.Cores[i]
		if len(c.Workloads) != len(d.Workloads) {
			return -1
		}
		for j := range c.Workloads {
			for _, pair := range [][2][]BufferEntry{{c.Workloads[j].Buffer, d.Workloads[j].Buffer}, {c.Workloads[j].WeightBuffer, d.Workloads[j].WeightBuffer}} {
				if len(pair[0]) != len(pair[1]) {
					return -1
				}
				for k := range pair[0] {
					if pair[0][k].Address != pair[1][k].Address {
						n++
					}
				}
			}
		}
	}
	return n
}

// TensorAddressChanges counts the tensors (per core, identified as
// IdentifyTensors says: by tensor_id, or by transfers where the writer's
// tensor_id is positional) whose first L2 address differs between two
// schedules of the same shape; -1 when the shapes or identities differ.
// Unlike AddressChanges it counts a tensor once however many snapshots
// list it.
func TensorAddressChanges(a, b *Schedule) int {
	if AddressChanges(a, b) < 0 {
		return -1
	}
	ta, tb := IdentifyTensors(a), IdentifyTensors(b)
	if ta.ByTransfers != tb.ByTransfers {
		return -1
	}
	n := 0
	for ci, c := range a.Cores {
		d := b.Cores[ci]
		first := map[int32][2]int64{}
		for wi := range c.Workloads {
			for ei := range c.Workloads[wi].Buffer {
				ka, kb := ta.Key(ci, wi, ei), tb.Key(ci, wi, ei)
				if ka < 0 || ka != kb {
					continue
				}
				if _, ok := first[ka]; !ok {
					first[ka] = [2]int64{c.Workloads[wi].Buffer[ei].Address, d.Workloads[wi].Buffer[ei].Address}
				}
			}
		}
		for _, ad := range first {
			if ad[0] != ad[1] {
				n++
			}
		}
	}
	return n
}

func sortedUnion(a, b map[string]int) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	ks := make([]string, 0, len(seen))
	for k := range seen {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
