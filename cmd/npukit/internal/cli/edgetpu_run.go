package cli

import (
	"github.com/spf13/cobra"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/flagvalue"
	"github.com/npukit/npukit/internal/inputfile"
)

func init() {
	edgetpuCommands = append(edgetpuCommands, newEdgeTPULinkCmd, newEdgeTPURelayoutCmd, newEdgeTPUDMACmd)
}

func newEdgeTPULinkCmd(env *Env) *cobra.Command {
	var exe, opIdx int
	var layers []string
	var params, scratch, out string
	var verify, force bool
	cmd := &cobra.Command{
		Use:   "link FILE --layer NAME=ADDR[@BATCH]... [--parameters ADDR] [--scratch ADDR] -o DIR",
		Short: "Patch buffer addresses into copies of the instruction chunks, as the driver does",
		Long:  longHelp("edgetpu-link"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("link needs -o DIR")
			}
			m, err := edgetpuArg(args[0])
			if err != nil {
				return err
			}
			_, e, idx, err := m.PickExecutable(opIdx, exe)
			if err != nil {
				return usageErr("--op %d --exe %d: %v", opIdx, exe, err)
			}
			a, err := e.LinkAddresses(layers, params, scratch)
			if err != nil {
				return usageErr("%v", err)
			}
			in := e.LinkInput()
			linked, patches, err := link.Link(in, a)
			if err != nil {
				return usageErr("%v", err)
			}
			res, err := link.WriteDir(out, force, idx, in.Chunks, linked, patches, verify)
			if err != nil {
				return usageErr("%v", err)
			}
			return render(env, res)
		},
	}
	f := cmd.Flags()
	f.IntVar(&exe, "exe", -1, "executable index; -1 = the package's main executable")
	f.IntVar(&opIdx, "op", 0, "Edge TPU op index, for models with several")
	f.StringArrayVar(&layers, "layer", nil, "address of an input or output layer: NAME=ADDR[@BATCH] (repeatable)")
	f.StringVar(&params, "parameters", "", "parameter buffer address")
	f.StringVar(&scratch, "scratch", "", "scratch buffer address")
	f.StringVarP(&out, "output", "o", "", "directory for the linked chunks")
	f.BoolVar(&verify, "verify", false, "re-read the output and prove the link")
	f.BoolVar(&force, "force", false, "replace a non-empty DIR")
	return acceptsKinds(cmd, edgetpuKinds...)
}

func newEdgeTPURelayoutCmd(env *Env) *cobra.Command {
	var exe, opIdx, batch int
	var layerName, in, out string
	cmd := &cobra.Command{
		Use:   "relayout FILE --layer NAME --in raw.bin -o out.npy",
		Short: "Convert a device output buffer to plain order and write it as .npy",
		Long:  longHelp("edgetpu-relayout"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if layerName == "" || in == "" || out == "" {
				return usageErr("relayout needs --layer NAME, --in FILE and -o FILE")
			}
			m, err := edgetpuArg(args[0])
			if err != nil {
				return err
			}
			op, e, _, err := m.PickExecutable(opIdx, exe)
			if err != nil {
				return usageErr("--op %d --exe %d: %v", opIdx, exe, err)
			}
			layer, err := e.OutputLayer(layerName)
			if err != nil {
				return usageErr("%v", err)
			}
			raw, err := inputfile.ReadFile(in)
			if err != nil {
				return usageErr("%v", err)
			}
			res, err := m.Relayout(op, e, layer, in, raw, batch)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := atomicfile.Write(out, 0o644, res.WriteNpy); err != nil {
				return usageErr("%v", err)
			}
			res.Output = out
			return render(env, res)
		},
	}
	f := cmd.Flags()
	f.IntVar(&exe, "exe", -1, "executable index; -1 = the package's main executable")
	f.IntVar(&opIdx, "op", 0, "Edge TPU op index, for models with several")
	f.IntVar(&batch, "batch", 0, "number of batch elements in the input (default: from its size)")
	f.StringVar(&layerName, "layer", "", "name of the output layer")
	f.StringVar(&in, "in", "", "raw device bytes of the output")
	f.StringVarP(&out, "output", "o", "", ".npy file to write")
	return acceptsKinds(cmd, edgetpuKinds...)
}

func newEdgeTPUDMACmd(env *Env) *cobra.Command {
	var pcie, pcieGbit float64
	cmd := &cobra.Command{
		Use:   "dma FILE",
		Short: "The ordered DMA transfer plan the USB runtime derives from the hints",
		Long:  longHelp("edgetpu-dma"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := edgetpuArg(args[0])
			if err != nil {
				return err
			}
			bits := pcie * 8e9 // GB/s
			if pcieGbit > 0 {
				bits = pcieGbit * 1e9
			}
			res, err := m.DMAPlans(dmaplan.WithPCIe(dmaplan.DefaultLinks(), bits))
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			return render(env, res)
		},
	}
	cmd.Flags().Float64Var(&pcie, "pcie-bw", 0, "PCIe bandwidth in GB/s (default: Gen2 x1, 0.5 GB/s raw after 8b/10b coding; npukit sim charges 0.4 GB/s effective)")
	// The old name, in gigabits per second: bandwidths are GB/s
	// everywhere (issue 32).
	cmd.Flags().Float64Var(&pcieGbit, "pcie-gbps", 0, "PCIe bandwidth in Gb/s")
	flagvalue.MarkDeprecated(cmd.Flags(), "pcie-gbps", "use --pcie-bw in GB/s (8 Gb/s = 1 GB/s)")
	flagvalue.MarkRange(cmd.Flags(), flagvalue.Positive, "pcie-bw", "pcie-gbps")
	return acceptsKinds(cmd, edgetpuKinds...)
}
