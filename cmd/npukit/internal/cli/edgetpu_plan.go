package cli

import (
	"fmt"
	"path/filepath"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/edgetpu"
	"github.com/spf13/cobra"
)

func init() { edgetpuCommands = append(edgetpuCommands, newEdgeTPUPlanCmd) }

func newEdgeTPUPlanCmd(env *Env) *cobra.Command {
	var compiler int
	var host string
	var opt edgetpu.PlanOptions
	var showOps, layers bool
	cmd := &cobra.Command{
		Use:   "plan MODEL.tflite",
		Short: "Predict which operators the Edge TPU compiler maps and which stay on the CPU, and why",
		Long:  longHelp("edgetpu-plan"),
		Args: func(cmd *cobra.Command, args []string) error {
			if host == "help" && len(args) == 0 {
				return nil // as sim: the host classes need no model
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if host == "help" {
				return render(env, edgetpu.HostList{})
			}
			a, err := openArg(args[0])
			if err != nil {
				return err
			}
			switch a.Kind {
			case detect.TFLite:
			case detect.EdgeTPU:
				return usageErr("%s: this is a compiled Edge TPU model, not an uncompiled TFLite model: npukit inspect shows where its operators run", args[0])
			default:
				return wrongKind(args[0], a, "TFLite model")
			}
			m, err := a.EdgeTPUModel()
			if err != nil {
				return libErr(args[0], err)
			}
			h, ok := edgetpu.HostByName(host)
			if !ok {
				return usageErr("--host %q: unknown host class (--host help lists them)", host)
			}
			opt.Compiler = compiler
			if err := opt.Validate(m.TFLite); err != nil {
				return usageErr("%v", err)
			}
			if showOps && env.JSON {
				return usageErr("-s (--show_operations) prints the compiler's text summary; with --json every operator's status is in operators[].status")
			}
			p := edgetpu.PlanModel(m.TFLite, opt)
			p.Latency = edgetpu.EstimatePlan(m.TFLite, p, h, edgetpu.LatencyOptions{})
			p.Latency.AllParts = layers
			if showOps {
				b, err := a.Bytes()
				if err != nil {
					return libErr(args[0], err)
				}
				if err := p.CompilerForm(env.Stdout, filepath.Base(args[0]), int64(len(b))); err != nil {
					return err
				}
				if _, err := fmt.Fprintln(env.Stdout); err != nil {
					return err
				}
			}
			return render(env, p)
		},
	}
	// The compiler's own options, with its short and long names.
	f := cmd.Flags()
	f.BoolVarP(&opt.MultipleSubgraphs, "enable_multiple_subgraphs", "a", false, "as edgetpu_compiler -a: allow several Edge TPU subgraphs (ops after a CPU op map again)")
	f.BoolVarP(&opt.SearchDelegate, "search_delegate", "d", false, "as edgetpu_compiler -d: search past an unmapped op for further Edge TPU subgraphs")
	f.IntVarP(&opt.DelegateSearchStep, "delegate_search_step", "k", 0, "as edgetpu_compiler -k: step of the -d search (1 only: a larger step is not modelled)")
	f.StringSliceVarP(&opt.IntermediateTensors, "intermediate_tensors", "i", nil, "as edgetpu_compiler -i: end the Edge TPU segment at these tensors (comma-separated names)")
	f.IntVarP(&opt.MinRuntimeVersion, "min_runtime_version", "m", 0, "as edgetpu_compiler -m: refused, not modelled (plan predicts the compiler's default runtime version)")
	f.IntVarP(&opt.NumSegments, "num_segments", "n", 0, "as edgetpu_compiler -n: pipeline segments; 1 only (more is not modelled: plan predicts the unsegmented model)")
	f.BoolVarP(&showOps, "show_operations", "s", false, "as edgetpu_compiler -s: also print the compiler's own summary and Operator / Count / Status table")
	f.BoolVar(&layers, "layers", false, "print every operator in the latency table (a long table otherwise shows its longest operators; --json always has them all)")
	cmd.Flags().StringVar(&host, "host", edgetpu.DefaultHost, "host class of the latency estimate (--host help lists them)")
	cmd.Flags().IntVar(&compiler, "compiler", 16, "Edge TPU compiler major version to predict (16: maps ops independent of an unmapped one; 15 and older stop at the first)")
	return acceptsKinds(cmd, detect.TFLite)
}
