package cli

import (
	"io"
	"os"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/gemini/timing"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	registerKindFlags("inspect", func(fs *pflag.FlagSet) func(o *npukit.Options) error {
		var layers bool
		fs.BoolVar(&layers, "layers", false, "Gemini schedules: add the per-layer table (workloads, time, DRAM and core-to-core traffic)")
		return func(o *npukit.Options) error { o.Layers = layers; return nil }
	}, detect.GeminiIR)
	registerKindFlags("sim", func(fs *pflag.FlagSet) func(o *npukit.Options) error {
		var layers bool
		fs.BoolVar(&layers, "layers", false, "Gemini, Edge TPU/TFLite: print every layer in the per-layer tables (a long table otherwise shows its longest layers; --json always has them all)")
		return func(o *npukit.Options) error { o.Layers = layers; return nil }
	}, detect.GeminiIR, detect.EdgeTPU, detect.DarwiNN, detect.TFLite)
	for _, c := range []string{"sim", "report", "diff"} { // one model in each (audit r3 #13, #14)
		registerKindFlags(c, geminiSimFlags(c != "diff"), detect.GeminiIR)
	}
	registerKindFlags("sim", clockFlags, detect.GeminiIR, detect.ZebuTrace)
	registerKindFlags("report", clockFlags, detect.GeminiIR)
	registerKindFlags("diff", clockFlags, detect.GeminiIR)
	registerGeminiCommand(newGeminiSynthCmd)
}

// geminiSimFlags binds the Gemini timing model's flags (and, with zebu,
// --zebu) of `npukit sim`, `report` and `diff`.
func geminiSimFlags(zebu bool) kindFlags {
	return func(fs *pflag.FlagSet) func(o *npukit.Options) error {
		d := timing.Default()
		var dramGBps, linkGBps float64
		var hopLatency int64
		var prefetch, zebuPath string
		fs.Float64Var(&dramGBps, "dram-bw", 0, "Gemini: DRAM bandwidth in GB/s (default: bwN of the file name, N GiB/s, else 16 GiB/s = 17.179869184 GB/s)")
		fs.Float64Var(&linkGBps, "link-bw", d.LinkGBps, "Gemini: bandwidth of one NoC link in GB/s")
		fs.Int64Var(&hopLatency, "hop-latency", d.HopLatency, "Gemini: cycles per NoC hop")
		fs.StringVar(&prefetch, "prefetch", string(d.Prefetch), "Gemini: DRAM load prefetch rule: snapshot (a load starts once the previous workload ended) or hazard (only address write-after-read hazards hold it)")
		if zebu {
			fs.StringVar(&zebuPath, "zebu", "", "Gemini: compare with a ZeBu emulator trace of the same run (a trace of another network or compile is refused)")
		}
		flagvalue.MarkRange(fs, flagvalue.Positive, "dram-bw", "link-bw")
		flagvalue.MarkRange(fs, flagvalue.NonNegative, "hop-latency")
		return func(o *npukit.Options) error {
			o.GeminiSim = func(p timing.Params) timing.Params {
				// The flags are GB/s, as the model's bandwidths.
				p.HopLatency, p.Prefetch = hopLatency, timing.Prefetch(prefetch)
				if fs.Changed("link-bw") {
					p.LinkGBps = linkGBps
				}
				if dramGBps != 0 {
					p.DRAMGBps = dramGBps
				}
				// where each assumption came from (Params.Source)
				for name, src := range map[string]*string{"dram-bw": &p.Source.DRAM, "link-bw": &p.Source.Link,
					"hop-latency": &p.Source.Hop, "prefetch": &p.Source.Prefetch, "clock": &p.Source.Clock} {
					if fs.Changed(name) {
						*src = "--" + name
					}
				}
				return p
			}
			if zebuPath != "" {
				if err := refuseOtherKind(zebuPath, detect.ZebuTrace.Describe(), detect.ZebuTrace); err != nil {
					return err
				}
				b, err := inputfile.ReadFile(zebuPath)
				if err != nil {
					return usageErr("--zebu %s: %v", zebuPath, ioCause(err))
				}
				o.ZebuTrace = b
			}
			return nil
		}
	}
}

func newGeminiSynthCmd(env *Env) *cobra.Command {
	var cfg gemini.SynthConfig
	var out string
	cmd := &cobra.Command{
		Use:   "synth --cores X --workloads N -o out.json",
		Short: "Generate a consistent synthetic multi-core schedule (for scale tests and demos)",
		Long:  longHelp("gemini-synth"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return argsErr("needs -o FILE")
			}
			if err := cfg.Validate(); err != nil {
				return usageErr("%v", err)
			}
			err := atomicfile.Write(out, 0o644, func(w io.Writer) error { return gemini.SynthWrite(w, cfg) })
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			st, err := os.Stat(out)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return render(env, &gemini.SynthReport{Path: out, Bytes: st.Size(), Cores: cfg.Cores, Workloads: cfg.Workloads})
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Cores, "cores", 4, "number of cores")
	f.IntVar(&cfg.Workloads, "workloads", 100, "workloads per core")
	f.IntVar(&cfg.XLen, "xlen", 0, "mesh width (default: all cores in one row)")
	f.Var((*flagvalue.Bytes)(&cfg.Buffer), "buffer", "L2 bytes per core, K, M, G suffixes accepted (default 8 MiB)")
	f.IntVar(&cfg.DRAMEvery, "dram-every", 0, "route every Nth layer's input through DRAM (default 4)")
	flagvalue.MarkRange(f, flagvalue.Positive, "cores", "workloads", "xlen", "buffer", "dram-every")
	f.Uint64Var(&cfg.Seed, "seed", 0, "seed for the compute times")
	f.StringVarP(&out, "output", "o", "", "JSON file to write")
	return cmd
}

// clockFlags binds --clock, the nominal core clock of the cycle-based
// simulations (Gemini schedules and ZeBu traces).
func clockFlags(fs *pflag.FlagSet) func(o *npukit.Options) error {
	var clock float64
	fs.Float64Var(&clock, "clock", 1, "Gemini and ZeBu: nominal core clock in GHz; converts cycles to time in the output and traces (1: 1 cycle = 1 ns) and a Gemini DRAM bandwidth to bytes per cycle")
	flagvalue.MarkRange(fs, flagvalue.Positive, "clock")
	return func(o *npukit.Options) error {
		if fs.Changed("clock") {
			o.ClockGHz = clock // else the default, which the output calls so
		}
		return nil
	}
}
