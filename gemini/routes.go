package gemini

// A multi-core schedule of the raw IR sends every ofmap through DRAM: a
// core writes it ("-1".in) and the cores of the next layer read it back
// ("-1".out, whose related_ifmap lists the writes it depends on). Such
// traffic is inter-core communication although no ofmap goes "core to
// core", and `npukit sim` shows it as time waiting on other cores. DRAMRoutes
// tells the three cases apart, on both sides of DRAM, so that inspect and
// sim count them with one rule.

// DRAMRoutes splits the traffic through DRAM by who reads it back.
type DRAMRoutes struct {
	// Writes: core ofmap deliveries to DRAM (ofmap x DRAM destination),
	// by the cores that read the written data back through the DRAM reads
	// that name the write in related_ifmap. ToOtherCore: some reader is
	// another core than the producer (inter-core traffic through DRAM);
	// ToSameCore: only the producing core reads it back; NotReadBack: no
	// read depends on it (a network output, plain write-back).
	ToOtherCore      int   `json:"to_other_core"`
	ToOtherCoreBytes int64 `json:"to_other_core_bytes"`
	ToSameCore       int   `json:"to_same_core"`
	ToSameCoreBytes  int64 `json:"to_same_core_bytes"`
	NotReadBack      int   `json:"not_read_back"`
	NotReadBackBytes int64 `json:"not_read_back_bytes"`
	// Loads: feature-map deliveries from DRAM (a read x each core that
	// consumes it, as the simulation loads them), by where the data came
	// from. FromOtherCore: a write the read depends on (related_ifmap) was
	// produced by another core than the reader; FromSameCore: every such
	// write came from the reading core; Input: the read depends on no
	// write (a network input or other data already in DRAM).
	FromOtherCore      int   `json:"from_other_core_loads"`
	FromOtherCoreBytes int64 `json:"from_other_core_load_bytes"`
	FromSameCore       int   `json:"from_same_core_loads"`
	FromSameCoreBytes  int64 `json:"from_same_core_load_bytes"`
	Input              int   `json:"input_loads"`
	InputBytes         int64 `json:"input_load_bytes"`
}

// ComputeDRAMRoutes classifies a schedule's DRAM writes and feature-map
// loads (see DRAMRoutes). Links to missing entries are left out, as the
// summary leaves out broken links.
func ComputeDRAMRoutes(s *Schedule, ix *Index) DRAMRoutes {
	var r DRAMRoutes
	// The cores consuming each DRAM read.
	readers := func(readID int64) map[int32]bool {
		m := map[int32]bool{}
		for _, c := range ix.consumers[readID] {
			m[c.core] = true
		}
		return m
	}
	// Reader cores of each write, through the reads depending on it.
	writeReaders := map[int64]map[int32]bool{}
	for i := range s.DRAMReads {
		rd := &s.DRAMReads[i]
		if len(rd.RelatedIfmap) == 0 {
			continue
		}
		cs := readers(rd.TransferID)
		for _, wid := range rd.RelatedIfmap {
			m := writeReaders[wid]
			if m == nil {
				m = map[int32]bool{}
				writeReaders[wid] = m
			}
			for c := range cs {
				m[c] = true
			}
		}
	}
	for ci, c := range s.Cores {
		for wi := range c.Workloads {
			for _, o := range c.Workloads[wi].Ofmaps {
				for _, d := range o.Destinations {
					if !d.IsDRAM() {
						continue
					}
					rs := writeReaders[o.TransferID]
					other := false
					for rc := range rs {
						if int(rc) != ci {
							other = true
						}
					}
					switch {
					case other:
						r.ToOtherCore++
						r.ToOtherCoreBytes += o.Size
					case len(rs) > 0:
						r.ToSameCore++
						r.ToSameCoreBytes += o.Size
					default:
						r.NotReadBack++
						r.NotReadBackBytes += o.Size
					}
				}
			}
		}
	}
	for i := range s.DRAMReads {
		rd := &s.DRAMReads[i]
		if rd.Type == "weight" {
			continue
		}
		// Producing cores of the writes this read depends on.
		var producers []int32
		for _, wid := range rd.RelatedIfmap {
			if o, ok := ix.producer[wid]; ok {
				producers = append(producers, o.core)
			}
		}
		for c := range readers(rd.TransferID) {
			other := false
			for _, p := range producers {
				if p != c {
					other = true
				}
			}
			switch {
			case other:
				r.FromOtherCore++
				r.FromOtherCoreBytes += rd.Size
			case len(producers) > 0:
				r.FromSameCore++
				r.FromSameCoreBytes += rd.Size
			default:
				r.Input++
				r.InputBytes += rd.Size
			}
		}
	}
	return r
}
