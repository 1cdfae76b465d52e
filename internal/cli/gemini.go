package cli

import (
	"fmt"
	"io"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// geminiLayers is inspect's --layers flag (bound by InspectFlags).
var geminiLayers bool

func init() {
	registerFormat(Format{Kind: detect.GeminiIR, Inspect: inspectGemini, Check: checkGemini,
		InspectFlags: func(fs *pflag.FlagSet) {
			fs.BoolVar(&geminiLayers, "layers", false, "Gemini schedules: add the per-layer table (workloads, time, DRAM and core-to-core traffic)")
		}})
	registerGeminiCommand(newGeminiSynthCmd)
}

func inspectGemini(env *Env, r detect.Result) (Output, error) {
	s, err := gemini.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	return gemini.Summarize(s, geminiLayers), nil
}

func checkGemini(env *Env, r detect.Result) (diag.Report, error) {
	s, err := gemini.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	return gemini.Check(s), nil
}

type synthResult struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	Cores     int    `json:"cores"`
	Workloads int    `json:"workloads_per_core"`
}

func (s *synthResult) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "wrote %s: %s, %d cores x %d workloads\n", s.Path, humanize.Bytes(s.Bytes), s.Cores, s.Workloads)
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func newGeminiSynthCmd(env *Env) *cobra.Command {
	var cfg gemini.SynthConfig
	var out string
	cmd := &cobra.Command{
		Use:   "synth --cores X --workloads N -o out.json",
		Short: "Generate a consistent synthetic multi-core schedule (for scale tests and demos)",
		Long: `synth writes a compiler-IR schedule of X cores with N workloads each: every layer
runs on all cores, layers exchange data core to core or, every --dram-every layers,
through DRAM with related_ifmap/related_ofmap links; buffer snapshots carry addresses
in a ring over the L2 (tensors wrap around its end), stable tensor IDs and a total
tensor_order. The output passes npukit check without errors. Size grows linearly:
about 8 KiB per workload.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("synth needs -o FILE")
			}
			if _, err := gemini.Synth(gemini.SynthConfig{Cores: cfg.Cores, Workloads: 1, XLen: cfg.XLen, Buffer: cfg.Buffer, DRAMEvery: cfg.DRAMEvery}); err != nil {
				return usageErr("%v", err)
			}
			var n int64
			err := atomicfile.Write(out, 0o644, func(w io.Writer) error {
				cw := &countingWriter{w: w}
				err := gemini.SynthWrite(cw, cfg)
				n = cw.n
				return err
			})
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			res := &synthResult{Path: out, Bytes: n, Cores: cfg.Cores, Workloads: cfg.Workloads}
			if env.JSON {
				return writeJSON(env.Stdout, res)
			}
			return res.WriteText(env.Stdout)
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Cores, "cores", 4, "number of cores")
	f.IntVar(&cfg.Workloads, "workloads", 100, "workloads per core")
	f.IntVar(&cfg.XLen, "xlen", 0, "mesh width (default: all cores in one row)")
	f.Int64Var(&cfg.Buffer, "buffer", 0, "L2 bytes per core (default 8 MiB)")
	f.IntVar(&cfg.DRAMEvery, "dram-every", 0, "route every Nth layer's input through DRAM (default 4)")
	f.Uint64Var(&cfg.Seed, "seed", 0, "seed for the compute times")
	f.StringVarP(&out, "output", "o", "", "JSON file to write")
	return cmd
}
