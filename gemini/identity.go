package gemini

import (
	"fmt"
	"slices"
	"strconv"
)

// Tensors says which entries of a schedule's L2 snapshots are one tensor:
// the identity every command keys on (check's address and newly_added
// rules, the re-allocation's buffers, lifetimes, the simulator's address
// hazards, diff).
//
// The spec makes tensor_id the identity: a tensor keeps its tensor_id, and
// with it its address, for as long as it stays in L2. Some writers number
// the entries of each snapshot instead (one third-party converter writes
// tensor_id = the entry's position in the snapshot): the same tensor_id then
// names different tensors from one snapshot to the next, which shows as
// one tensor_id holding different transfers on one core. For such a
// schedule the tensors are identified by their transfer IDs (the set of
// transfers an entry holds), which is what the simulators of those writers
// key their L2 on. Entries without transfer IDs then have no identity: each
// is a tensor of its own snapshot.
type Tensors struct {
	// ByTransfers is true when the schedule's tensor_id is not an identity
	// and transfer IDs identify the tensors.
	ByTransfers bool
	// Positional is true when, in addition, every tensor_id equals its
	// entry's position in the snapshot.
	Positional bool
	// Conflicts counts the entries whose tensor_id was seen earlier on
	// their core with other transfers; Example describes the first.
	Conflicts int
	Example   string
	// OrderCopiesID is true when every tensor_order equals its entry's
	// tensor_id: a writer whose tensor_id is not an identity copied it into
	// tensor_order, which then orders no DRAM queue either.
	OrderCopiesID bool
	// keys[core][workload][entry] is the entry's identity (-1: none);
	// keys are dense per core.
	keys  [][][]int32
	count []int
}

// IdentifyTensors works out the tensor identity of a schedule's L2
// snapshots (see Tensors).
func IdentifyTensors(s *Schedule) *Tensors {
	t := &Tensors{Positional: true, OrderCopiesID: true}
	any, anyOrder := false, false
	for _, c := range s.Cores {
		seen := map[int64][]int64{}
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				if e.HasTensorOrder {
					anyOrder = true
					t.OrderCopiesID = t.OrderCopiesID && e.HasTensorID && e.TensorOrder == e.TensorID
				}
				if !e.HasTensorID {
					continue
				}
				any = true
				if e.TensorID != int64(ei) {
					t.Positional = false
				}
				if len(e.TransferIDs) == 0 {
					continue
				}
				ids := sortedIDs(e.TransferIDs)
				prev, ok := seen[e.TensorID]
				if !ok {
					seen[e.TensorID] = ids
					continue
				}
				if !slices.Equal(prev, ids) {
					if t.Conflicts == 0 {
						t.Example = fmt.Sprintf("on %s, tensor_id %d holds transfers %s and, at workload %d, %s", c.Name(), e.TensorID, idList(prev), w.ID, idList(ids))
					}
					t.Conflicts++
				}
			}
		}
	}
	t.ByTransfers = t.Conflicts > 0
	t.Positional = any && t.Positional && t.ByTransfers
	t.OrderCopiesID = anyOrder && t.OrderCopiesID && t.ByTransfers
	t.keys = make([][][]int32, len(s.Cores))
	t.count = make([]int, len(s.Cores))
	for ci, c := range s.Cores {
		byID := map[int64]int32{}
		bySet := map[string]int32{}
		next := int32(0)
		t.keys[ci] = make([][]int32, len(c.Workloads))
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			ks := make([]int32, len(w.Buffer))
			for ei := range w.Buffer {
				e := &w.Buffer[ei]
				ks[ei] = -1
				switch {
				case t.ByTransfers && len(e.TransferIDs) > 0:
					k := idList(sortedIDs(e.TransferIDs))
					v, ok := bySet[k]
					if !ok {
						v = next
						next++
						bySet[k] = v
					}
					ks[ei] = v
				case t.ByTransfers:
					// No transfers, and a tensor_id that is no identity.
				case e.HasTensorID:
					v, ok := byID[e.TensorID]
					if !ok {
						v = next
						next++
						byID[e.TensorID] = v
					}
					ks[ei] = v
				}
			}
			t.keys[ci][wi] = ks
		}
		t.count[ci] = int(next)
	}
	return t
}

// Key returns the identity of entry e of the L2 snapshot of workload w
// (index in Core.Workloads) on compact core c, or -1 when the entry has
// none (no tensor_id; no transfer IDs where those identify tensors).
// Equal keys on one core are one tensor.
func (t *Tensors) Key(c, w, e int) int32 {
	if c < 0 || c >= len(t.keys) || w < 0 || w >= len(t.keys[c]) || e < 0 || e >= len(t.keys[c][w]) {
		return -1
	}
	return t.keys[c][w][e]
}

// Count returns the number of distinct tensors on a compact core.
func (t *Tensors) Count(c int) int {
	if c < 0 || c >= len(t.count) {
		return 0
	}
	return t.count[c]
}

// Name says how an entry is identified in a finding: "tensor_id 3", or
// "the tensor of transfers [8 9]" when transfer IDs identify tensors.
func (t *Tensors) Name(e *BufferEntry) string {
	if t.ByTransfers && len(e.TransferIDs) > 0 {
		return "the tensor of transfers " + idList(sortedIDs(e.TransferIDs))
	}
	if e.HasTensorID {
		return "tensor_id " + strconv.FormatInt(e.TensorID, 10)
	}
	return "an entry without tensor_id"
}

// Assumption says in one sentence which identity the schedule's tensors
// have when it is not the spec's ("" when tensor_id is the identity).
func (t *Tensors) Assumption() string {
	if !t.ByTransfers {
		return ""
	}
	what := "tensor_id is not an identity"
	if t.Positional {
		what = "tensor_id is the entry's position in its snapshot, not an identity"
	}
	order := ""
	if t.OrderCopiesID {
		order = "; tensor_order repeats tensor_id and is read as no DRAM queue order"
	}
	return fmt.Sprintf("%s (%d entries carry a tensor_id seen earlier with other transfers; e.g. %s): tensors are identified by their transfer IDs%s", what, t.Conflicts, t.Example, order)
}

func sortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func idList(ids []int64) string {
	b := []byte{'['}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}
