package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/npukit/npukit"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/spf13/cobra"
)

func init() { registerCommand(40, newEdgeTPUCmd) }

// readEdgeTPU reads an Edge TPU model, naming the path in errors.
func readEdgeTPU(path string) (*edgetpu.Model, error) {
	a, err := npukit.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := a.EdgeTPUModel()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// edgetpuKinds are the kinds the edgetpu commands read.
var edgetpuKinds = []detect.Kind{detect.EdgeTPU, detect.DarwiNN}

func edgetpuArg(path string) (*edgetpu.Model, error) {
	a, err := openArg(path)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(edgetpuKinds, a.Kind) {
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
		Long: `edgetpu groups the tools for Coral Edge TPU models (*_edgetpu.tflite) and raw DarwiNN
packages: where parameters live (memory), the embedded package as files (extract),
and the driver's run-time steps (link, relayout, dma).`,
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
		Long: `memory shows, per file, the parameters cached in the Edge TPU's 8 MiB SRAM (the
PARAMETER_CACHING executable), the parameters streamed from the host every inference
(the executing executable), instructions and scratch. Files are grouped by caching
token: models compiled together share the cache, any other switch evicts it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []edgetpu.NamedModel
			for _, a := range args {
				m, err := edgetpuArg(a)
				if err != nil {
					return err
				}
				files = append(files, edgetpu.NamedModel{Path: a, Model: m})
			}
			return render(env, edgetpu.BuildMemoryReport(files))
		},
	}, edgetpuKinds...)
}

// demoRelayoutMax bounds the buffers the demo's relayout round trip
// makes: a layer's sizes are declarations, not bytes of the file.
const demoRelayoutMax = 256 << 20

func newEdgeTPUExtractCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "extract FILE -o DIR",
		Short: "Write the package, executables, parameters and instruction chunks as files",
		Long: `extract writes the DarwiNN package(s) of FILE, each executable, its parameters and
its instruction chunks into DIR, with a manifest.json. DIR is built atomically: it
appears complete or not at all; an existing non-empty DIR is replaced only with --force.`,
		Args: cobra.ExactArgs(1),
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

func init() {
	registerDemoStep(demoStep{order: 10, kind: detect.EdgeTPU, name: "edgetpu memory", run: func(env *Env, path, outDir string) error {
		m, err := readEdgeTPU(path)
		if err != nil {
			return err
		}
		return edgetpu.BuildMemoryReport([]edgetpu.NamedModel{{Path: filepath.Base(path), Model: m}}).WriteText(env.Stdout)
	}})
	registerDemoStep(demoStep{order: 20, kind: detect.EdgeTPU, name: "edgetpu link + relayout round trip", run: etpuDemoLinkRelayout})
}

// etpuDemoLinkRelayout links the main executable at made-up addresses and
// proves the link, then sends every output through the device layout and
// back.
func etpuDemoLinkRelayout(env *Env, path, outDir string) error {
	m, err := readEdgeTPU(path)
	if err != nil {
		return err
	}
	p := m.Packages()[0]
	e := p.Main()
	if e == nil {
		return fmt.Errorf("no main executable")
	}
	a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}}
	next := uint64(0x1_0000_0000)
	for _, l := range e.InputLayers {
		a.Inputs[l.Name] = []uint64{next}
		next += 0x10000
	}
	for _, l := range e.OutputLayers {
		a.Outputs[l.Name] = []uint64{next}
		next += 0x10000
	}
	params, scratch := next, next+0x100000
	a.Parameters, a.Scratch = &params, &scratch
	in := e.LinkInput()
	linked, patches, err := link.Link(in, a)
	if err != nil {
		return err
	}
	if err := link.Verify(in.Chunks, linked, patches); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "linked %d relocation fields in %d chunk(s) at 64-bit addresses from 0x%x; verified: only those bits changed\n", len(patches), len(linked), uint64(0x1_0000_0000))
	for _, l := range e.OutputLayers {
		o := l.RelayoutOutput()
		pb, err := o.PlainBytes(1)
		if err != nil {
			return err
		}
		if db, err := o.DeviceBytes(1); err != nil || pb > demoRelayoutMax || db > demoRelayoutMax {
			fmt.Fprintf(env.Stdout, "relayout of %s skipped: %d plain bytes, more than the demo's %d\n", termsafe.Name(l.Name), pb, demoRelayoutMax)
			continue
		}
		plain := make([]byte, pb)
		for i := range plain {
			plain[i] = byte(i * 7)
		}
		dev, err := o.ToDevice(plain, 1)
		if err != nil {
			return err
		}
		back, err := o.ToPlain(dev, 1)
		if err != nil {
			return err
		}
		if string(back) != string(plain) {
			return fmt.Errorf("output %q: relayout round trip differs", l.Name)
		}
		fmt.Fprintf(env.Stdout, "output %q %dx%dx%d %s: plain %d B -> device %d B -> plain: identical\n", l.Name, l.Y, l.X, l.Z, l.DataType, len(plain), len(dev))
	}
	return nil
}
