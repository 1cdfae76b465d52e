package gemini

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
)

// Summary is what `npukit inspect` shows of a schedule: the mesh, the
// workloads, where DRAM traffic goes and how full the buffers get. It
// marshals to JSON with the same content as its text form.
type Summary struct {
	Variant    Variant `json:"variant"`
	XLen       int64   `json:"xlen"`
	YLen       int64   `json:"ylen"`
	BufferSize int64   `json:"buffersize_bytes,omitempty"`
	Workloads  int     `json:"workloads"`
	// ByType counts workloads per layer_type, sorted by type.
	ByType []TypeCount `json:"workloads_by_type"`
	Layers int         `json:"layers"`
	// TimeSum is the sum of `time` over all workloads (core cycles); the
	// busiest core's sum bounds the schedule's compute time from below.
	TimeSum   int64         `json:"time_sum_cycles"`
	DRAM      DRAMTraffic   `json:"dram"`
	Transfers TransferCount `json:"transfers"`
	// Routes splits the traffic through DRAM by who reads it back: in a
	// raw multi-core IR every inter-core transfer goes through DRAM.
	Routes       DRAMRoutes     `json:"dram_routes"`
	Cores        []CoreSummary  `json:"cores"`
	LayerTraffic []LayerSummary `json:"layer_traffic,omitempty"`
	// TensorIdentity says how the L2 tensors are identified when it is not
	// by tensor_id (Tensors.Assumption), as every command identifies them.
	TensorIdentity string `json:"tensor_identity,omitempty"`
}

// TypeCount is the number of workloads of one layer_type.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// DRAMTraffic is the bytes moved between the cores and DRAM.
type DRAMTraffic struct {
	WeightReadBytes int64 `json:"weight_read_bytes"`
	WeightReads     int   `json:"weight_reads"`
	FmapReadBytes   int64 `json:"fmap_read_bytes"`
	FmapReads       int   `json:"fmap_reads"`
	WriteBytes      int64 `json:"write_bytes"`
	Writes          int   `json:"writes"`
	// Deliveries count each read once per core that consumes it (a
	// multicast read reaches several cores), with the bytes delivered:
	// what the timing simulation loads, one load per consuming core.
	WeightDeliveries     int   `json:"weight_deliveries"`
	WeightDeliveredBytes int64 `json:"weight_delivered_bytes"`
	FmapDeliveries       int   `json:"fmap_deliveries"`
	FmapDeliveredBytes   int64 `json:"fmap_delivered_bytes"`
}

// TransferCount splits the core ofmap deliveries by route: to another core
// directly, kept on the producing core, or through DRAM.
type TransferCount struct {
	CoreToCore      int   `json:"core_to_core"`
	CoreToCoreBytes int64 `json:"core_to_core_bytes"`
	SameCore        int   `json:"same_core"`
	SameCoreBytes   int64 `json:"same_core_bytes"`
	ViaDRAM         int   `json:"via_dram"`
	ViaDRAMBytes    int64 `json:"via_dram_bytes"`
}

// CoreSummary is one core's load and buffer occupancy. Occupancy is the
// sum of the entry sizes of a workload's snapshot; peak and mean run over
// the core's workloads.
type CoreSummary struct {
	ID        int   `json:"id"`
	Key       int64 `json:"key"`
	X         int64 `json:"x"`
	Y         int64 `json:"y"`
	Workloads int   `json:"workloads"`
	TimeSum   int64 `json:"time_sum_cycles"`
	L2Peak    int64 `json:"l2_peak_bytes"`
	L2Mean    int64 `json:"l2_mean_bytes"`
	WLPeak    int64 `json:"wl_peak_bytes"`
	// WLKey is the weight buffer's name in the file (wl0_buffer or wl1_buffer).
	WLKey string `json:"wl_key,omitempty"`
}

// LayerSummary is one layer's work and traffic (inspect --layers). DRAM
// reads are attributed to the layer of their first consumer (a later
// layer's weight prefetched in an earlier workload's weight field to that
// later layer), writes to the layer of their producer.
type LayerSummary struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	Workloads       int    `json:"workloads"`
	Cores           int    `json:"cores"`
	TimeSum         int64  `json:"time_sum_cycles"`
	WeightReadBytes int64  `json:"weight_read_bytes"`
	FmapReadBytes   int64  `json:"fmap_read_bytes"`
	WriteBytes      int64  `json:"write_bytes"`
	CoreToCoreBytes int64  `json:"core_to_core_bytes"`
}

// Occupancy returns the bytes held by a snapshot.
func Occupancy(es []BufferEntry) int64 {
	var n int64
	for i := range es {
		if es[i].Size > 0 {
			n += es[i].Size
		}
	}
	return n
}

// Summarize computes the summary of a schedule; with layers it includes the
// per-layer table. It does not require the schedule to pass Check: broken
// links are left out of the traffic figures.
func Summarize(s *Schedule, layers bool) *Summary {
	ix := NewIndex(s)
	sum := &Summary{Variant: s.Variant, XLen: s.XLen, YLen: s.YLen, BufferSize: s.BufferSize, TensorIdentity: IdentifyTensors(s).Assumption()}
	types := map[string]int{}
	type layerAcc struct {
		LayerSummary
		first [2]int64 // first workload ID, first core
		cores map[int]bool
	}
	lays := map[string]*layerAcc{}
	layer := func(name, typ string, core int, id int64) *layerAcc {
		l := lays[name]
		if l == nil {
			l = &layerAcc{LayerSummary: LayerSummary{Name: name, Type: typ}, first: [2]int64{id, int64(core)}, cores: map[int]bool{}}
			lays[name] = l
		}
		return l
	}
	for ci, c := range s.Cores {
		cs := CoreSummary{ID: c.ID, Key: c.Key, X: c.X, Y: c.Y, Workloads: len(c.Workloads)}
		var l2Total int64
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			types[w.LayerType]++
			sum.Workloads++
			sum.TimeSum += w.Time
			cs.TimeSum += w.Time
			occ := Occupancy(w.Buffer)
			l2Total += occ
			cs.L2Peak = max(cs.L2Peak, occ)
			cs.WLPeak = max(cs.WLPeak, Occupancy(w.WeightBuffer))
			if cs.WLKey == "" {
				cs.WLKey = w.WeightBufferKey
			}
			l := layer(w.LayerName, w.LayerType, ci, w.ID)
			l.Workloads++
			l.cores[ci] = true
			l.TimeSum += w.Time
			for _, o := range w.Ofmaps {
				for _, d := range o.Destinations {
					switch {
					case d.IsDRAM():
						sum.Transfers.ViaDRAM++
						sum.Transfers.ViaDRAMBytes += o.Size
						l.WriteBytes += o.Size
					case d.Core == ci:
						sum.Transfers.SameCore++
						sum.Transfers.SameCoreBytes += o.Size
					case d.Core >= 0:
						sum.Transfers.CoreToCore++
						sum.Transfers.CoreToCoreBytes += o.Size
						l.CoreToCoreBytes += o.Size
					}
				}
			}
		}
		if len(c.Workloads) > 0 {
			cs.L2Mean = l2Total / int64(len(c.Workloads))
		}
		sum.Cores = append(sum.Cores, cs)
	}
	for i := range s.DRAMReads {
		r := &s.DRAMReads[i]
		var l *layerAcc
		if cons := ix.consumers[r.TransferID]; len(cons) > 0 {
			w := &s.Cores[cons[0].core].Workloads[cons[0].wl]
			l = lays[w.LayerName]
			// A later layer's weight prefetched in an earlier workload's
			// weight field (gemini/prefetched-weight) counts for its own
			// layer.
			if own := lays[r.LayerName]; own != nil && own != l {
				if _, ok := ix.PrefetchedWeight(s.Cores[cons[0].core], int(cons[0].wl), r.TransferID); ok {
					l = own
				}
			}
		}
		cores := map[int32]bool{}
		for _, c := range ix.consumers[r.TransferID] {
			cores[c.core] = true
		}
		switch r.Type {
		case "weight":
			sum.DRAM.WeightReads++
			sum.DRAM.WeightReadBytes += r.Size
			sum.DRAM.WeightDeliveries += len(cores)
			sum.DRAM.WeightDeliveredBytes += int64(len(cores)) * r.Size
			if l != nil {
				l.WeightReadBytes += r.Size
			}
		default:
			sum.DRAM.FmapReads++
			sum.DRAM.FmapReadBytes += r.Size
			sum.DRAM.FmapDeliveries += len(cores)
			sum.DRAM.FmapDeliveredBytes += int64(len(cores)) * r.Size
			if l != nil {
				l.FmapReadBytes += r.Size
			}
		}
	}
	for i := range s.DRAMWrites {
		sum.DRAM.Writes++
		if _, _, o := ix.Producer(s.DRAMWrites[i].TransferID); o != nil {
			sum.DRAM.WriteBytes += o.Size
		}
	}
	sum.Routes = ComputeDRAMRoutes(s, ix)
	for t, n := range types {
		sum.ByType = append(sum.ByType, TypeCount{t, n})
	}
	sort.Slice(sum.ByType, func(i, j int) bool { return sum.ByType[i].Type < sum.ByType[j].Type })
	sum.Layers = len(lays)
	if layers {
		acc := make([]*layerAcc, 0, len(lays))
		for _, l := range lays {
			l.Cores = len(l.cores)
			acc = append(acc, l)
		}
		sort.Slice(acc, func(i, j int) bool {
			a, b := acc[i], acc[j]
			if a.first != b.first {
				if a.first[0] != b.first[0] {
					return a.first[0] < b.first[0]
				}
				return a.first[1] < b.first[1]
			}
			return a.Name < b.Name
		})
		sum.LayerTraffic = make([]LayerSummary, len(acc))
		for i, l := range acc {
			sum.LayerTraffic[i] = l.LayerSummary
		}
	}
	return sum
}

func pct(n, of int64) string {
	if of <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// WriteText renders the summary as aligned tables.
func (s *Summary) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	n := func(v int) string { return humanize.Count(int64(v)) }
	var types []string
	for _, t := range s.ByType {
		types = append(types, fmt.Sprintf("%s %s", t.Type, n(t.Count)))
	}
	fmt.Fprintf(ew, "Gemini schedule (%s IR): %s on a %dx%d mesh, %s (%s), %s\n",
		s.Variant, humanize.Plural(len(s.Cores), "core"), s.XLen, s.YLen, humanize.Plural(s.Workloads, "workload"), strings.Join(types, ", "), humanize.Plural(s.Layers, "layer"))
	if s.BufferSize > 0 {
		fmt.Fprintf(ew, "L2 buffer: %s per core\n", humanize.Bytes(s.BufferSize))
	} else {
		fmt.Fprintf(ew, "L2 buffer: size not given (raw IR; occupancy from KiB blocks)\n")
	}
	if s.TensorIdentity != "" {
		fmt.Fprintf(ew, "L2 tensors: %s\n", s.TensorIdentity)
	}
	fmt.Fprintf(ew, "Sum of time: %s cycles (compute only; DRAM time not included)\n", humanize.Count(s.TimeSum))
	d := s.DRAM
	fmt.Fprintf(ew, "\nDRAM traffic:\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  \tTRANSFERS\tBYTES\tDELIVERIES\tDELIVERED\t")
	fmt.Fprintf(tw, "  read weights\t%s\t%s\t%s\t%s\t\n", n(d.WeightReads), humanize.Bytes(d.WeightReadBytes), n(d.WeightDeliveries), humanize.Bytes(d.WeightDeliveredBytes))
	fmt.Fprintf(tw, "  read feature maps\t%s\t%s\t%s\t%s\t\n", n(d.FmapReads), humanize.Bytes(d.FmapReadBytes), n(d.FmapDeliveries), humanize.Bytes(d.FmapDeliveredBytes))
	fmt.Fprintf(tw, "  write\t%s\t%s\t\t\t\n", n(d.Writes), humanize.Bytes(d.WriteBytes))
	tw.Flush()
	if d.WeightDeliveries > d.WeightReads || d.FmapDeliveries > d.FmapReads {
		fmt.Fprintf(ew, "  (a read consumed on several cores is one transfer and one delivery per core; npukit sim loads each delivery)\n")
	}
	t := s.Transfers
	fmt.Fprintf(ew, "\nCore ofmap deliveries (ofmap x destination):\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  \tCOUNT\tBYTES\t")
	fmt.Fprintf(tw, "  core to core\t%s\t%s\t\n", n(t.CoreToCore), humanize.Bytes(t.CoreToCoreBytes))
	fmt.Fprintf(tw, "  same core\t%s\t%s\t\n", n(t.SameCore), humanize.Bytes(t.SameCoreBytes))
	fmt.Fprintf(tw, "  via DRAM\t%s\t%s\t\n", n(t.ViaDRAM), humanize.Bytes(t.ViaDRAMBytes))
	r := s.Routes
	if t.ViaDRAM > 0 {
		fmt.Fprintf(tw, "    read back by another core\t%s\t%s\t\n", n(r.ToOtherCore), humanize.Bytes(r.ToOtherCoreBytes))
		fmt.Fprintf(tw, "    read back by the same core only\t%s\t%s\t\n", n(r.ToSameCore), humanize.Bytes(r.ToSameCoreBytes))
		fmt.Fprintf(tw, "    not read back (output)\t%s\t%s\t\n", n(r.NotReadBack), humanize.Bytes(r.NotReadBackBytes))
	}
	tw.Flush()
	if r.ToOtherCore > 0 {
		fmt.Fprintf(ew, "  (an ofmap read back by another core is inter-core traffic through DRAM: %s of the %s feature-map deliveries above, %s, load another core's ofmap; npukit sim counts waiting for them as WAIT CORES)\n",
			n(r.FromOtherCore), n(s.DRAM.FmapDeliveries), humanize.Bytes(r.FromOtherCoreBytes))
	}
	fmt.Fprintf(ew, "\nCores:\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  CORE\tKEY\tX,Y\tWORKLOADS\tTIME (cycles)\tL2 PEAK\tOF L2\tL2 MEAN\tOF L2\tWL PEAK\t")
	for _, c := range s.Cores {
		fmt.Fprintf(tw, "  %d\t%d\t%d,%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.ID, c.Key, c.X, c.Y, n(c.Workloads), humanize.Count(c.TimeSum),
			humanize.Bytes(c.L2Peak), pct(c.L2Peak, s.BufferSize), humanize.Bytes(c.L2Mean), pct(c.L2Mean, s.BufferSize), humanize.Bytes(c.WLPeak))
	}
	tw.Flush()
	// Issue 32: say what the columns are.
	ofL2 := "as a share of the " + humanize.Bytes(s.BufferSize) + " L2"
	if s.BufferSize <= 0 { // the raw IR gives no L2 size (audit r3 #17: "of the 0 B L2")
		ofL2 = "- (the file gives no L2 size)"
	}
	fmt.Fprintf(ew, "  (L2 PEAK / MEAN: the bytes a workload's buffer snapshot holds in L2, largest and mean, OF L2 %s; WL PEAK: the largest weight-buffer snapshot (the file's wl buffer))\n", ofL2)
	if len(s.LayerTraffic) > 0 {
		fmt.Fprintf(ew, "\nLayers (DRAM reads counted at their first consumer):\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  LAYER\tTYPE\tWORKLOADS\tCORES\tTIME (cycles)\tWEIGHT READ\tFMAP READ\tDRAM WRITE\tCORE TO CORE\t")
		for _, l := range s.LayerTraffic {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Name, l.Type, n(l.Workloads), n(l.Cores), humanize.Count(l.TimeSum),
				humanize.Bytes(l.WeightReadBytes), humanize.Bytes(l.FmapReadBytes), humanize.Bytes(l.WriteBytes), humanize.Bytes(l.CoreToCoreBytes))
		}
		tw.Flush()
	}
	return ew.Err()
}
