// Package timing simulates a Gemini schedule on the shared discrete-event
// engine (package sim) and explains where the time goes: per core compute,
// waits on DRAM and waits on other cores, the DRAM channel's traffic, the
// NoC links' traffic and the L2 occupancy over time.
//
// # Model
//
// The schedule is lowered onto a sim.Graph:
//
//   - Each core is an in-order resource. A workload's compute is `time`
//     (the scheduler's estimate, which the emulator reproduces to within a
//     few cycles) split over its intra-core tiles (tile_info), each tile
//     costing TileOverhead more cycles. When two consecutive workloads use
//     the same unit (pe, vp, dt) the second waits the unit's configuration
//     time (PEConfig, VPConfig, DTConfig), plus ShapeConfig when its shape
//     (ifmap and ofmap extents, tile count, padding) differs from the
//     unit's previous workload; a different unit is configured while the
//     previous one computes.
//   - The weight buffer's loader is one in-order queue per core: weights
//     held in L2 (WL0 source CORE) are copied per tile, the first two
//     tiles' copies behind the DRAM streams into the weight buffer first
//     listed before the workload, the later tiles' behind those first
//     listed at the workload too (LWConfig after the stream).
//   - DRAM is one channel of DRAMGBps, moving one transfer at a time, each
//     costing DRAMOverhead + bytes/(bytes per cycle) cycles. In the compiler
//     IR every DRAM transfer has a place in the DRAM access queue
//     (tensor_order of the L2 and WL0 snapshot entries); a core's transfers
//     are served strictly in that order, those of different cores by
//     tensor_order as they become ready. The raw IR has no queue order:
//     loads are served in program order of their consumers.
//   - A load of a tensor that first appears (newly added) in the snapshot of
//     workload k may start once workload k-1 on that core has finished
//     (Prefetch "snapshot", the emulator's rule: the snapshot of k describes
//     the buffer once k-1 released its tensors). Prefetch "hazard" lets it
//     start earlier, waiting only for the last earlier workload whose
//     snapshot holds a different tensor overlapping its address range (the
//     address write-after-read hazard). Either way a read waits for the DRAM
//     writes named in its related_ifmap.
//   - Weights stream through the weight buffer (WL0/WL1) straight from DRAM
//     when its snapshot entry says source DDR (one DRAM transfer of the
//     whole weight); weights the file loads to L2 cost an L2 load, and the
//     L2-to-WL0 copy is free (the emulator shows it as zero cycles).
//   - A workload starts when its DRAM inputs (ifmaps read from DRAM, its
//     weight) and its inputs from other cores have arrived.
//   - Stores: every ofmap-typed snapshot entry (and any DRAM write of "-1".in
//     the snapshots do not cover) is a DRAM transfer after its producer ends.
//   - Core-to-core transfers travel the xlen x ylen mesh with XY routing,
//     store-and-forward: one task per link hop of bytes/LinkGBps cycles plus
//     HopLatency. Each directed link is a resource. On a multi-core mesh
//     DRAM sits in the columns left and right of the cores (the raw IR's
//     key layout y*(xlen+2)+x+1 skips them), so DRAM traffic also crosses
//     the links between a core and the nearer end of its row. A single core
//     is attached to its DRAM directly.
//
// A workload that starts after its core's previous one ended has waited:
// its configuration (the startup for the first) counts as overhead, the rest
// goes to the cause found by following the critical predecessors (the
// dependency that became ready last): another core's compute or store means
// waiting on other cores, else a DRAM transfer means waiting on DRAM.
//
// # Calibration
//
// The defaults were calibrated once, against the ZeBu emulator traces of the
// three public single-core runs (npukit's gemini/zebu reads them), and are
// used for every file; nothing is fitted per file:
//
//   - DRAM rate: the durations of the 160 DRAM instructions that move data
//     (lda/ldw/lw from DDR/sta) fit bytes/17.18 + 20 cycles for bw16
//     (598016 bytes take 34835 cycles, 38912 take 2285).
//     That is 16 GiB/s at a nominal 1 GHz core clock: the emulator runs the
//     core at 25 MHz and DRAM at 16.95 MHz, both 1/40 of 1 GHz and 678 MHz,
//     so the DRAM clock cancels out of bytes per core cycle. Hence
//     bytes/cycle = bwN * 2^30 / 1e9 / CoreGHz, DRAMOverhead = 20: a
//     name's bwN is N GiB/s. The model, its parameters and its results
//     hold GB/s of 10^9 bytes (bytes/cycle = GB/s / CoreGHz), the unit
//     npukit prints, takes and writes in JSON; the name's GiB/s is
//     converted once, where it is read (BandwidthFromName).
//   - TileOverhead 20: every emulated compute instruction lasts its tile's
//     share of `time` plus 20 cycles.
//   - PEConfig 42, VPConfig 105, DTConfig 21: the gaps the emulator leaves
//     between two workloads of one unit are its configuration instructions
//     (21 cycles each; 2-3 for pe, 5 for vp, 1 for dt); the most common
//     count is used.
//   - ShapeConfig 21: a pe workload right after another pe workload of a
//     different shape gets one more configuration instruction (pe_cfg_tp):
//     in 48 of the 49 such pairs of the traces, and in none of the 19 pairs
//     of equal shape. LWConfig 21 is the lw_cfg instruction before a copy
//     that follows a stream.
//   - Startup 161 (ct_st and four ct_bc before the first load) and
//     Finish 37 (ct_ed after the last instruction).
//   - With the snapshot prefetch rule the simulated DRAM transfers come in
//     the emulator's order and start within 54-103 cycles of it (median per
//     run; 90th percentile 122-267), the drift of the configuration counts;
//     one transfer per run starts up to 15.7k cycles early.
//
// With these defaults the totals of the three runs are within 0.01% of the
// emulator's and the per-layer compute extents within 0.02% on average
// (TestZebuConformance prints them; Compare computes them). The hazard rule
// is more optimistic than the emulator: -0.15%, -0.20% and -1.67%.
//
// The NoC parameters are not calibrated (no multi-core emulator trace is
// public); they are flags.
package timing

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Prefetch says how early a DRAM load may start.
type Prefetch string

// Prefetch rules.
const (
	// PrefetchSnapshot: a load first listed in the snapshot of workload k
	// starts once workload k-1 of its core has finished (the emulator).
	PrefetchSnapshot Prefetch = "snapshot"
	// PrefetchHazard: a load waits only for the address write-after-read
	// hazard its buffer address creates (the last earlier workload whose
	// snapshot holds an overlapping different tensor).
	PrefetchHazard Prefetch = "hazard"
)

// Params are the model's parameters; Default gives the calibrated set.
type Params struct {
	// DRAMGBps is the DRAM bandwidth in GB/s (10^9 bytes per second; a
	// file name's bwN, N GiB/s, is 1.074*N GB/s). 0 means: from the file
	// name, else DefaultDRAMGBps.
	DRAMGBps float64 `json:"dram_gb_per_s"`
	// CoreGHz is the nominal core clock the bandwidths are converted at.
	CoreGHz float64 `json:"core_ghz"`
	// DRAMOverhead is the fixed cost of one DRAM transfer in cycles.
	DRAMOverhead int64 `json:"dram_overhead_cycles"`
	// TileOverhead is added to each intra-core tile's compute.
	TileOverhead int64 `json:"tile_overhead_cycles"`
	// Configuration time of a unit when the previous workload on the core
	// used the same unit.
	PEConfig int64 `json:"pe_config_cycles"`
	VPConfig int64 `json:"vp_config_cycles"`
	DTConfig int64 `json:"dt_config_cycles"`
	// ShapeConfig is added when the unit's previous workload had another
	// shape (tile-shape registers reloaded).
	ShapeConfig int64 `json:"shape_config_cycles"`
	// LWConfig is the weight-buffer loader's configuration between a
	// stream from DRAM and the next copy from L2.
	LWConfig int64 `json:"lw_config_cycles"`
	// Startup is when the first instruction may issue; Finish is added
	// after the last one.
	Startup  int64    `json:"startup_cycles"`
	Finish   int64    `json:"finish_cycles"`
	Prefetch Prefetch `json:"prefetch"`
	// LinkGBps is the bandwidth of one directed mesh link in GB/s (10^9
	// bytes per second); HopLatency the cycles per hop.
	LinkGBps   float64 `json:"link_gb_per_s"`
	HopLatency int64   `json:"hop_latency_cycles"`
	// Source says where the assumptions a user can change came from:
	// "default", "from the file name's bw8", "--dram-bw" (audit item 7: the
	// DRAM bandwidth changed with the file name and nothing said so).
	Source Sources `json:"source"`
}

// Sources says where each assumption of Params came from, by the field's
// JSON name.
type Sources struct {
	DRAM     string `json:"dram_gb_per_s"`
	Clock    string `json:"core_ghz"`
	Prefetch string `json:"prefetch"`
	Link     string `json:"link_gb_per_s"`
	Hop      string `json:"hop_latency_cycles"`
}

// SourceDefault is the Source of a parameter nobody set.
const SourceDefault = "default"

// DefaultDRAMGBps is used when neither the caller nor the file name gives
// the DRAM bandwidth: 16 GiB/s, the bw16 of the calibration runs, in GB/s.
const DefaultDRAMGBps = 16 * GiBps

// GiBps is one GiB/s in GB/s (2^30 / 10^9): a Gemini file name's bwN and
// the uncalibrated link default are counted in GiB/s.
const GiBps = float64(1<<30) / 1e9

// Default returns the calibrated parameters (see the package doc).
func Default() Params {
	return Params{
		CoreGHz:      1,
		DRAMOverhead: 20,
		TileOverhead: 20,
		PEConfig:     42,
		VPConfig:     105,
		DTConfig:     21,
		ShapeConfig:  21,
		LWConfig:     21,
		Startup:      161,
		Finish:       37,
		Prefetch:     PrefetchSnapshot,
		LinkGBps:     32 * GiBps,
		HopLatency:   10,
		Source:       Sources{DRAM: SourceDefault, Clock: SourceDefault, Prefetch: SourceDefault, Link: SourceDefault, Hop: SourceDefault},
	}
}

// bwName matches bwN as a name component; a unit suffix (bw32GB,
// bw32gbps) is allowed: the generator's N is GiB/s whatever suffix
// follows it (see the package doc's calibration).
var bwName = regexp.MustCompile(`(?i)(?:^|[_.\-])bw(\d+(?:\.\d+)?)(?:g|gb|gbs|gbps|gib|gibps)?(?:[_.\-]|$)`)

// BandwidthFromName returns the DRAM bandwidth a Gemini file name carries,
// in GB/s ("..._c1_bw16_stschedule.json" is 16 GiB/s, 17.18 GB/s).
func BandwidthFromName(path string) (float64, bool) {
	gbps, _, ok := bandwidthFromName(path)
	return gbps, ok
}

// bandwidthFromName is BandwidthFromName and the name's bwN as written
// ("bw8": N GiB/s, printed in GB/s like every bandwidth).
func bandwidthFromName(path string) (float64, string, bool) {
	m := bwName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return 0, "", false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v <= 0 {
		return 0, "", false
	}
	return v * GiBps, strings.Trim(m[0], "_.-"), true
}

// NameBandwidth is the DRAM bandwidth a Gemini file name implies.
type NameBandwidth struct {
	GBps float64
	// Tag is the name's bwN as written ("bw8"); "" when the name carries
	// none and GBps is DefaultDRAMGBps.
	Tag string
}

// BandwidthOfName is the DRAM bandwidth the file name implies: its bwN
// (BandwidthFromName), else DefaultDRAMGBps.
func BandwidthOfName(path string) NameBandwidth {
	if gbps, tag, ok := bandwidthFromName(path); ok {
		return NameBandwidth{GBps: gbps, Tag: tag}
	}
	return NameBandwidth{GBps: DefaultDRAMGBps}
}

// Source says where the bandwidth came from, of a name called whose:
// "from the file name's bw8", "default: no bwN in the file name" (whose
// "the file name", as ForName's Source.DRAM says it).
func (n NameBandwidth) Source(whose string) string {
	if n.Tag == "" {
		return "default: no bwN in " + whose
	}
	return "from " + whose + "'s " + n.Tag
}

// ForName is Default with the DRAM bandwidth the file name carries
// (BandwidthFromName), DefaultDRAMGBps when it carries none; Source.DRAM
// says which.
func ForName(path string) Params {
	p := Default()
	n := BandwidthOfName(path)
	p.DRAMGBps, p.Source.DRAM = n.GBps, n.Source("the file name")
	return p
}

// bytesPerCycle converts GB/s at the core clock.
func (p *Params) bytesPerCycle(gbps float64) float64 {
	return gbps / p.CoreGHz
}

func (p *Params) validate() error {
	switch {
	case p.DRAMGBps <= 0:
		return fmt.Errorf("DRAM bandwidth %g GB/s must be positive", p.DRAMGBps)
	case p.CoreGHz <= 0:
		return fmt.Errorf("core clock %g GHz must be positive", p.CoreGHz)
	case p.LinkGBps <= 0:
		return fmt.Errorf("link bandwidth %g GB/s must be positive", p.LinkGBps)
	case p.DRAMOverhead < 0 || p.TileOverhead < 0 || p.PEConfig < 0 || p.VPConfig < 0 ||
		p.DTConfig < 0 || p.ShapeConfig < 0 || p.LWConfig < 0 || p.Startup < 0 || p.Finish < 0 || p.HopLatency < 0:
		return fmt.Errorf("cycle counts must not be negative")
	case p.Prefetch != PrefetchSnapshot && p.Prefetch != PrefetchHazard:
		return fmt.Errorf("prefetch rule %q: want %q or %q", p.Prefetch, PrefetchSnapshot, PrefetchHazard)
	}
	return nil
}

// ModelLine states the assumptions a user can change and where each came
// from, as `sim` prints them after "Model:" and the report and `diff`
// repeat them: "DRAM 8.6 GB/s (from the file name's bw8; 8.59 B/cycle,
// +20 cycles per transfer), prefetch snapshot (default), ...".
func (p Params) ModelLine() string {
	s := p.Source
	return fmt.Sprintf("DRAM %.1f GB/s (%s; %.2f B/cycle, +%d cycles per transfer), prefetch %s (%s), NoC links %.1f GB/s (%s), %d cycles per hop (%s), clock %g GHz (%s)",
		p.DRAMGBps, s.DRAM, p.bytesPerCycle(p.DRAMGBps), p.DRAMOverhead, p.Prefetch, s.Prefetch, p.LinkGBps, s.Link, p.HopLatency, s.Hop, p.CoreGHz, s.Clock)
}
