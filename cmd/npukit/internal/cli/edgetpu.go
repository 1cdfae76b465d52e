package cli

import (
	"slices"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/edgetpu"
	"github.com/spf13/cobra"
)

func init() { registerCommand(40, newEdgeTPUCmd) }

// edgetpuKinds are the kinds the edgetpu commands read.
var edgetpuKinds = []detect.Kind{detect.EdgeTPU, detect.DarwiNN}

func edgetpuArg(path string, also ...detect.Kind) (*edgetpu.Model, error) {
	a, err := openArg(path)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(edgetpuKinds, a.Kind) && !slices.Contains(also, a.Kind) {
		return nil, wrongKind(path, a, "Edge TPU model or DarwiNN package")
	}
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, libErr(path, err)
	}
	return m, nil
}

// edgetpuCommands lets the files of this group add subcommands.
var edgetpuCommands []func(env *Env) *cobra.Command

func newEdgeTPUCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "edgetpu",
		Short: "Edge TPU tools: plan, memory, extract, link, relayout, dma",
		Long:  longHelp("edgetpu"),
	}
	cmd.AddCommand(newEdgeTPUMemoryCmd(env), newEdgeTPUExtractCmd(env))
	for _, f := range edgetpuCommands {
		cmd.AddCommand(f(env))
	}
	return cmd
}

func newEdgeTPUMemoryCmd(env *Env) *cobra.Command {
	return acceptsKinds(&cobra.Command{
		Use:   "memory FILE...",
		Short: "On-chip cached vs off-chip streamed parameters, grouped by caching token",
		Long:  longHelp("edgetpu-memory"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []edgetpu.NamedModel
			for _, a := range args {
				m, err := edgetpuArg(a, detect.TFLite) // a plain model is listed as not on the Edge TPU
				if err != nil {
					return err
				}
				files = append(files, edgetpu.NamedModel{Path: a, Model: m})
			}
			return render(env, edgetpu.BuildMemoryReport(files))
		},
	}, append(slices.Clip(edgetpuKinds), detect.TFLite)...)
}

func newEdgeTPUExtractCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "extract FILE -o DIR",
		Short: "Write the package, executables, parameters and instruction chunks as files",
		Long:  longHelp("edgetpu-extract"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("extract needs -o DIR")
			}
			m, err := edgetpuArg(args[0])
			if err != nil {
				return err
			}
			files, err := edgetpu.Extract(m)
			if err != nil {
				return err
			}
			if err := edgetpu.WriteExtracted(out, force, files); err != nil {
				return usageErr("%v", err)
			}
			return render(env, edgetpu.Extraction{Dir: out, Files: files})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "directory to write into")
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty DIR")
	return acceptsKinds(cmd, edgetpuKinds...)
}
