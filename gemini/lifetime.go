package gemini

// Lifetime is a tensor's stay at one address of a core's L2: from the
// snapshot of workload First to that of workload Last (indices into
// Core.Workloads, inclusive). A tensor that moves (a tensor-moved error)
// or leaves and comes back has several lifetimes.
type Lifetime struct {
	TensorID    int64 // -1 when the entries have no tensor_id or it is no identity (Tensors)
	Type        string
	FromDRAM    bool
	LayerName   string
	Address     int64
	Size        int64
	First, Last int
	// Spans are the one or two byte ranges the tensor covers (two when it
	// wraps around the end of its ring region); nil when it lies in no
	// region (an address-range error).
	Spans       []Span
	TransferIDs []int64
}

// Lifetimes returns the L2 tensor lifetimes of a core in order of first
// appearance. Entries without an address (raw IR) yield none. Tensors are
// identified as IdentifyTensors says (by tensor_id, or by transfers where
// the writer's tensor_id is not an identity).
func (s *Schedule) Lifetimes(c *Core) []Lifetime {
	return s.LifetimesOf(c, IdentifyTensors(s))
}

// LifetimesOf is Lifetimes with the schedule's tensor identity computed
// once by the caller (for all cores).
func (s *Schedule) LifetimesOf(c *Core, tn *Tensors) []Lifetime {
	var out []Lifetime
	open := map[int32]int{} // tensor key -> index in out, alive at the previous workload
	for wi := range c.Workloads {
		w := &c.Workloads[wi]
		regions := s.Regions(w)
		next := make(map[int32]int, len(w.Buffer))
		for ei := range w.Buffer {
			e := &w.Buffer[ei]
			if !e.HasAddress {
				continue
			}
			k := tn.Key(c.ID, wi, ei)
			if k >= 0 {
				if i, ok := open[k]; ok && out[i].Address == e.Address && out[i].Size == e.Size && out[i].Last == wi-1 {
					out[i].Last = wi
					next[k] = i
					continue
				}
			}
			l := Lifetime{TensorID: -1, Type: e.Type, FromDRAM: e.FromDRAM(), LayerName: e.LayerName, Address: e.Address, Size: e.Size,
				First: wi, Last: wi, TransferIDs: e.TransferIDs}
			if p, ok := Place(regions, e); ok {
				l.Spans = p.Spans
			}
			if e.HasTensorID && !tn.ByTransfers {
				l.TensorID = e.TensorID
			}
			if k >= 0 {
				next[k] = len(out)
			}
			out = append(out, l)
		}
		open = next
	}
	return out
}
