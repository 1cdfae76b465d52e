package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/neuroncore"
	"github.com/spf13/cobra"
)

// `npukit sbuf ...`: NeuronCore SBUF/PSUM allocation plans (package
// neuroncore). The commands take a plan file (YAML or JSON, see
// docs/sbuf-plan.md and examples/sbuf/).

func init() {
	registerCommand(45, newSbufCmd)
}

func newSbufCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sbuf",
		Short: "Check, place and simulate NeuronCore SBUF/PSUM allocation plans (NKI direct allocation)",
		Long:  longHelp("sbuf"),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSbufCheckCmd(env), newSbufSimCmd(env), newSbufPlaceCmd(env), newSbufShowCmd(env), newSbufReportCmd(env))
	return cmd
}

// readSbufPlan reads a plan, turning every failure into exit 2.
func readSbufPlan(path string) (*neuroncore.Plan, error) {
	if err := refuseOtherKind(path, detect.SBUFPlan.Describe(), detect.SBUFPlan); err != nil {
		return nil, err
	}
	p, err := neuroncore.ReadPlanFile(path)
	if err != nil {
		return nil, usageErr("%s: %v", path, ioCause(err))
	}
	return p, nil
}

// sbufCheck checks a plan file.
func sbufCheck(path string) (diag.Report, error) {
	p, err := readSbufPlan(path)
	if err != nil {
		return nil, err
	}
	rep, _, err := neuroncore.Check(p)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	return rep, nil
}

func newSbufCheckCmd(env *Env) *cobra.Command {
	var lf lintFlags
	var verbose bool
	cmd := &cobra.Command{
		Use:   "check PLAN|DIR|GLOB...",
		Short: "Verify an allocation plan: placement rules, lifetimes, PSUM accumulation groups",
		Long:  longHelp("sbuf-check"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := lf.outputFormat(env)
			if err != nil {
				return err
			}
			policy, err := lf.policy()
			if err != nil {
				return err
			}
			files, skipped, err := inputs(args, lf.skipOther, detect.SBUFPlan)
			if err != nil {
				return err
			}
			reportSkipped(env, skipped, verbose)
			return runChecks(env, format, &lf, policy, files, len(skipped), func(path string) (diag.Report, error) {
				return sbufCheck(path)
			})
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the files a directory walk skipped")
	lf.bind(cmd)
	return acceptsKinds(cmd, detect.SBUFPlan)
}

func newSbufSimCmd(env *Env) *cobra.Command {
	var tracePath string
	cmd := &cobra.Command{
		Use:   "sim PLAN",
		Short: "Simulate a plan's kernel body on the engine and DMA model (time, utilisation, trace)",
		Long:  longHelp("sbuf-sim"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := readSbufPlan(args[0])
			if err != nil {
				return err
			}
			r, err := npukit.SbufSimulate(p, tracePath)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			var out Output = r.Summary()
			if a, err := npukit.Open(args[0]); err == nil {
				out = npukit.WithCheckNote(out, a, nil)
			}
			return render(env, out)
		},
	}
	cmd.Flags().StringVar(&tracePath, "trace", "", "write a Perfetto-compatible trace JSON to this file")
	return acceptsKinds(cmd, detect.SBUFPlan)
}

// sbufPlaceOutput is what `sbuf place` prints.
type sbufPlaceOutput struct {
	*neuroncore.Placement
	Written string `json:"written,omitempty"`
}

func (o sbufPlaceOutput) WriteText(w io.Writer) error {
	if err := o.Placement.WriteText(w); err != nil {
		return err
	}
	if o.Written != "" {
		fmt.Fprintf(w, "\nplaced plan written to %s\n", o.Written)
	}
	return nil
}

func newSbufPlaceCmd(env *Env) *cobra.Command {
	var out string
	var opt neuroncore.PlaceOptions
	cmd := &cobra.Command{
		Use:   "place PLAN",
		Short: "Allocate a plan's automatic tensors directly (physical tiles, placement, NKI code)",
		Long:  longHelp("sbuf-place"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := refuseOtherKind(args[0], detect.SBUFPlan.Describe(), detect.SBUFPlan); err != nil {
				return err
			}
			src, err := inputfile.ReadFileMax(args[0], neuroncore.MaxPlanBytes)
			if err != nil {
				return usageErr("%s: %v", args[0], ioCause(err))
			}
			p, err := neuroncore.ParsePlan(src)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			pl, err := neuroncore.Place(p, opt)
			if errors.Is(err, neuroncore.ErrNothingToPlace) {
				// Not a failure: the plan is already fully placed.
				return placedAlready(env, "plan", args[0], src, out, err)
			}
			if errors.Is(err, neuroncore.ErrUnplaceable) {
				// A finding about the plan (as alloc's infeasible is).
				return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%s: %v", args[0], err)}
			}
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			o := sbufPlaceOutput{Placement: pl}
			if out != "" {
				b, err := neuroncore.WritePlaced(src, pl.Plan)
				if err != nil {
					return usageErr("%s: %v", args[0], err)
				}
				if err := atomicfile.WriteFile(out, b, 0o644); err != nil {
					return err
				}
				o.Written = out
			}
			return render(env, o)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the placed plan (YAML) to this file")
	cmd.Flags().BoolVar(&opt.Fewest, "fewest", false, "keep the fewest physical tiles per tensor (no search for overlap)")
	cmd.Flags().IntVar(&opt.MaxEvaluations, "max-simulations", neuroncore.DefaultPlaceEvaluations, "bound on the simulations of the tile-count search")
	flagvalue.MarkRange(cmd.Flags(), flagvalue.Positive, "max-simulations")
	return acceptsKinds(cmd, detect.SBUFPlan)
}

func newSbufShowCmd(env *Env) *cobra.Command {
	return acceptsKinds(&cobra.Command{
		Use:   "show PLAN",
		Short: "List a plan's tensors, their allocation and the location of every logical tile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := readSbufPlan(args[0])
			if err != nil {
				return err
			}
			s, err := neuroncore.Summarize(p)
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			return render(env, s)
		},
	}, detect.SBUFPlan)
}

func newSbufReportCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "report PLAN [-o x.html]",
		Short: "Write a visual HTML report of a plan (memory maps, lifetimes, engine timeline)",
		Long:  longHelp("sbuf-report") + reportNameRule("PLAN", "plan.yaml"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				var err error
				if out, err = defaultReportPath(".", args, force); err != nil {
					return err
				}
			}
			a, err := openArg(args[0])
			if err != nil || a.Kind != detect.SBUFPlan {
				// Detection looks for tensors with partitions; a plan
				// without tensors is still a plan when it parses.
				if _, perr := neuroncore.ReadPlanFile(args[0]); perr != nil {
					if err != nil {
						return err
					}
					return wrongKind(args[0], a, detect.SBUFPlan.Describe())
				}
				a = npukit.OpenAs(args[0], detect.SBUFPlan)
			}
			if err := writeReport([]*npukit.Artifact{a}, out); err != nil {
				return err
			}
			return reportWritten(env, out)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", reportOutputUsage("PLAN"))
	cmd.Flags().BoolVar(&force, "force", false, "without -o: replace an existing file of the default name")
	return acceptsKinds(cmd, detect.SBUFPlan)
}

// placedAlready answers a place command whose input (a plan or a kernel:
// what, named name) allocates every tensor directly already: not a
// failure; -o still gets the input, unchanged, so scripts can chain.
func placedAlready(env *Env, what, name string, src []byte, out string, err error) error {
	if out != "" {
		if err := atomicfile.WriteFile(out, src, 0o644); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	if env.JSON {
		return writeJSON(env.Stdout, map[string]any{what: name, "placed": 0, "message": err.Error(), "written": out})
	}
	_, werr := fmt.Fprintf(env.Stdout, "%s: %v; %s unchanged\n", name, err, what)
	return werr
}
