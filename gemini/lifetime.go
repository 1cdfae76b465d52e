package gemini

// Lifetime is a tensor's stay at one address of a core's L2: from the
// snapshot of workload First to that of workload Last (indices into
// Core.Workloads, inclusive). A tensor that moves (a tensor-moved error)
// or leaves and comes back has several lifetimes.
type Lifetime struct {
	TensorID    int64 // -1 when the entries have no tensor_id
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
// appearance. Entries without an address (raw IR) yield none.
func (s *Schedule) Lifetimes(c *Core) []Lifetime {
	var out []Lifetime
	open := map[int64]int{} // tensor ID -> index in out, alive at the previous workload
	for wi := range c.Workloads {
		w := &c.Workloads[wi]
		regions := s.Regions(w)
		next := make(map[int64]int, len(w.Buffer))
		for ei := range w.Buffer {
			e := &w.Buffer[ei]
			if !e.HasAddress {
				continue
			}
			if e.HasTensorID {
				if i, ok := open[e.TensorID]; ok && out[i].Address == e.Address && out[i].Size == e.Size && out[i].Last == wi-1 {
					out[i].Last = wi
					next[e.TensorID] = i
					continue
				}
			}
			l := Lifetime{TensorID: -1, Type: e.Type, FromDRAM: e.FromDRAM(), LayerName: e.LayerName, Address: e.Address, Size: e.Size,
				First: wi, Last: wi, TransferIDs: e.TransferIDs}
			if p, ok := Place(regions, e); ok {
				l.Spans = p.Spans
			}
			if e.HasTensorID {
				l.TensorID = e.TensorID
				next[e.TensorID] = len(out)
			}
			out = append(out, l)
		}
		open = next
	}
	return out
}
