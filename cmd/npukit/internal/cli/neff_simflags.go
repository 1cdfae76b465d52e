package cli

import (
	"fmt"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/neff/dma"
	"github.com/spf13/pflag"
)

func init() { registerKindFlags("sim", neffSimFlags, detect.NEFF, detect.NEFFDir) }

// neffSimFlags binds the DMA timing overrides of `npukit sim x.neff`: a
// flag the user does not give leaves the figure of the NEFF's own
// NeuronCore generation.
func neffSimFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var engines int
	var gbps, gibps float64
	var overhead, minRun int64
	// No flag default: a flag not given leaves the generation's figure,
	// which the help prints from the model (it printed DefaultSimParams'
	// 512 B minimum run where the model charges 256 B).
	fs.IntVar(&engines, "dma-engines", 0, "NEFF: DMA engines per NeuronCore "+dma.GenerationDefault(func(p dma.SimParams) string { return fmt.Sprint(p.Engines) }))
	fs.Float64Var(&gbps, "dma-bw", 0, "NEFF: bandwidth of one DMA engine in GB/s "+dma.GenerationDefault(func(p dma.SimParams) string { return fmt.Sprintf("%g GB/s", p.BytesPerNs) }))
	// The old name, in GiB/s: bandwidths are GB/s everywhere (issue 32).
	fs.Float64Var(&gibps, "dma-gibps", 0, "NEFF: bandwidth of one DMA engine in GiB/s")
	flagvalue.MarkDeprecated(fs, "dma-gibps", "use --dma-bw in GB/s (1 GiB/s = 1.074 GB/s)")
	fs.Int64Var(&overhead, "dma-overhead-ns", 0, "NEFF: fixed latency of one DMA in ns "+dma.GenerationDefault(func(p dma.SimParams) string { return fmt.Sprintf("%d ns", p.OverheadNs) }))
	fs.Int64Var(&minRun, "dma-min-run", 0, "NEFF: contiguous runs shorter than this many bytes cost as much as this "+dma.GenerationDefault(func(p dma.SimParams) string { return fmt.Sprintf("%d B", p.MinChargedRun) }))
	flagvalue.MarkRange(fs, flagvalue.NonNegative, "dma-overhead-ns", "dma-min-run")
	return func(o *npukit.Options) error {
		if fs.Changed("dma-engines") && (engines < 1 || engines > 1024) {
			return usageErr("--dma-engines %d: want 1..1024", engines)
		}
		if fs.Changed("dma-gibps") && (!(gibps > 0) || gibps > 1e6) {
			return usageErr("--dma-gibps %g: want a positive bandwidth", gibps)
		}
		if fs.Changed("dma-bw") && (!(gbps > 0) || gbps > 1e6) {
			return usageErr("--dma-bw %g: want a positive bandwidth in GB/s", gbps)
		}
		if overhead < 0 || minRun < 0 {
			return usageErr("--dma-overhead-ns and --dma-min-run must not be negative")
		}
		o.NeffDMA = func(p dma.SimParams) (dma.SimParams, error) {
			if fs.Changed("dma-engines") {
				p.Engines = engines
			}
			if fs.Changed("dma-gibps") {
				p.BytesPerNs = gibps * float64(1<<30) / 1e9
			}
			if fs.Changed("dma-bw") {
				p.BytesPerNs = gbps // 1 GB/s is 1 byte per ns
			}
			if fs.Changed("dma-overhead-ns") {
				p.OverheadNs = overhead
			}
			if fs.Changed("dma-min-run") {
				p.MinChargedRun = minRun
			}
			return p, nil
		}
		return nil
	}
}
