package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/internal/npyarray"
)

func init() {
	edgetpuCommands = append(edgetpuCommands, newEdgeTPULinkCmd, newEdgeTPURelayoutCmd, newEdgeTPUDMACmd)
}

// etpuParseAddr parses NAME=ADDR[@BATCH].
func etpuParseAddr(s string) (name string, addr uint64, batch int, err error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", 0, 0, usageErr("%q: want NAME=ADDR[@BATCH]", s)
	}
	a, b, hasBatch := strings.Cut(rest, "@")
	addr, err = strconv.ParseUint(a, 0, 64)
	if err != nil {
		return "", 0, 0, usageErr("%q: address %q: %v", s, a, err)
	}
	if hasBatch {
		if batch, err = strconv.Atoi(b); err != nil || batch < 0 {
			return "", 0, 0, usageErr("%q: batch %q is not a non-negative integer", s, b)
		}
	}
	return name, addr, batch, nil
}

// etpuSplitLayers sorts --layer NAME=ADDR specs into the executable's
// input and output layers by name; "in:" or "out:" before the name says
// which when a name is both, and an unknown name lists the layers.
func etpuSplitLayers(e *edgetpu.Executable, specs []string) (inputs, outputs []string, err error) {
	has := func(ls []*edgetpu.Layer, name string) bool {
		for _, l := range ls {
			if l.Name == name {
				return true
			}
		}
		return false
	}
	for _, s := range specs {
		name, _, _ := strings.Cut(s, "=")
		switch {
		case strings.HasPrefix(name, "in:"):
			inputs = append(inputs, strings.TrimPrefix(s, "in:"))
		case strings.HasPrefix(name, "out:"):
			outputs = append(outputs, strings.TrimPrefix(s, "out:"))
		case has(e.InputLayers, name) && has(e.OutputLayers, name):
			return nil, nil, usageErr("--layer %s: %q is both an input and an output layer: write in:%s or out:%s", s, name, name, name)
		case has(e.InputLayers, name):
			inputs = append(inputs, s)
		case has(e.OutputLayers, name):
			outputs = append(outputs, s)
		default:
			var names []string
			for _, l := range e.InputLayers {
				names = append(names, "in:"+l.Name)
			}
			for _, l := range e.OutputLayers {
				names = append(names, "out:"+l.Name)
			}
			return nil, nil, usageErr("--layer %s: no layer %q (layers: %s)", s, name, strings.Join(names, ", "))
		}
	}
	return inputs, outputs, nil
}

func etpuAddrMap(specs []string, flag string) (map[string][]uint64, error) {
	set := map[string]map[int]uint64{}
	for _, s := range specs {
		name, addr, batch, err := etpuParseAddr(s)
		if err != nil {
			return nil, err
		}
		if set[name] == nil {
			set[name] = map[int]uint64{}
		}
		set[name][batch] = addr
	}
	out := map[string][]uint64{}
	for name, byBatch := range set {
		n := 0
		for b := range byBatch {
			n = max(n, b+1)
		}
		for b := range n {
			a, ok := byBatch[b]
			if !ok {
				return nil, usageErr("--%s %s: no address for batch %d", flag, name, b)
			}
			out[name] = append(out[name], a)
		}
	}
	return out, nil
}

type etpuLinkOutput struct {
	Dir        string       `json:"dir"`
	Executable int          `json:"executable"`
	Chunks     []int        `json:"chunk_bytes"`
	Patches    []link.Patch `json:"patches"`
	Verified   bool         `json:"verified"`
}

func (o etpuLinkOutput) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Linked executable %d: %d chunks, %d fields patched, written to %s\n", o.Executable, len(o.Chunks), len(o.Patches), o.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  CHUNK\tBIT\tKIND\tHALF\tLAYER\tBATCH\tVALUE")
	for _, p := range o.Patches {
		half := "LOWER"
		if p.Position == link.Upper32 {
			half = "UPPER"
		}
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%d\t0x%08x\n", p.Chunk, p.OffsetBit, p.Kind, half, p.Name, p.Batch, p.Value)
	}
	tw.Flush()
	if o.Verified {
		fmt.Fprintln(w, "Verified: exactly the relocation bits changed, and they hold the requested values.")
	}
	return nil
}

func newEdgeTPULinkCmd(env *Env) *cobra.Command {
	var exe, opIdx int
	var layers []string
	var params, scratch, out string
	var verify, force bool
	cmd := &cobra.Command{
		Use:   "link FILE --layer NAME=ADDR[@BATCH]... [--parameters ADDR] [--scratch ADDR] -o DIR",
		Short: "Patch buffer addresses into copies of the instruction chunks, as the driver does",
		Long: `link writes copies of an executable's instruction chunks with every relocation
patched: the 32-bit value is written LSB first at its bit offset (offsets are not
byte aligned), LOWER/UPPER fields get the low/high half of the 64-bit address.
Parameters are linked only when the executable has parameters, scratch only when it
needs scratch. Unknown names, missing addresses and batches out of range are errors.
--verify re-reads the output and proves that exactly the relocation bits changed.
--layer gives an input or output layer's address by the layer's name (in:NAME or
out:NAME when a name is both). Addresses accept 0x prefixes. The executable is the
package's main one unless --exe.`,
		Args: cobra.ExactArgs(1),
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
			inputs, outputs, err := etpuSplitLayers(e, layers)
			if err != nil {
				return err
			}
			var a link.Addresses
			if a.Inputs, err = etpuAddrMap(inputs, "layer"); err != nil {
				return err
			}
			if a.Outputs, err = etpuAddrMap(outputs, "layer"); err != nil {
				return err
			}
			for _, f := range []struct {
				s   string
				dst **uint64
			}{{params, &a.Parameters}, {scratch, &a.Scratch}} {
				if f.s != "" {
					v, err := strconv.ParseUint(f.s, 0, 64)
					if err != nil {
						return usageErr("address %q: %v", f.s, err)
					}
					*f.dst = &v
				}
			}
			in := e.LinkInput()
			linked, patches, err := link.Link(in, a)
			if err != nil {
				return usageErr("%v", err)
			}
			res := etpuLinkOutput{Dir: out, Executable: idx, Patches: patches}
			err = atomicfile.Dir(out, force, func(tmp string) error {
				// Chunks sharing storage are written once and hard-linked.
				same := link.Same(linked)
				for i, c := range linked {
					p, err := atomicfile.Join(tmp, fmt.Sprintf("chunk_%d.bin", i))
					if err != nil {
						return err
					}
					if err := writeOrLink(p, c, tmp, same[i], i, "chunk_%d.bin"); err != nil {
						return err
					}
					res.Chunks = append(res.Chunks, len(c))
				}
				if verify {
					reread := make([][]byte, len(linked))
					for i := range linked {
						if same[i] != i {
							reread[i] = reread[same[i]]
							continue
						}
						b, err := os.ReadFile(fmt.Sprintf("%s/chunk_%d.bin", tmp, i))
						if err != nil {
							return err
						}
						reread[i] = b
					}
					if err := link.Verify(in.Chunks, reread, patches); err != nil {
						return fmt.Errorf("verification failed: %w", err)
					}
					res.Verified = true
				}
				b, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return err
				}
				return os.WriteFile(tmp+"/patches.json", append(b, '\n'), 0o644)
			})
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

type etpuRelayoutOutput struct {
	Output    string  `json:"output"`
	Layer     string  `json:"layer"`
	Batch     int     `json:"batch"`
	Shape     []int   `json:"shape"`
	DType     string  `json:"dtype"`
	NpyDType  string  `json:"npy_dtype"` // the .npy element type (the layer's own; float16 included)
	InBytes   int     `json:"device_bytes"`
	OutBytes  int     `json:"plain_bytes"`
	Signed    bool    `json:"signed_offset_binary"`
	ExecCount int32   `json:"execution_count"`
	Tiling    string  `json:"tiling"`
	Scale     float32 `json:"scale"`
	ZeroPoint int32   `json:"zero_point"`
}

func (o etpuRelayoutOutput) WriteText(w io.Writer) error {
	widened := ""
	if o.NpyDType != "" && !strings.EqualFold(o.NpyDType, o.DType) {
		widened = " as " + o.NpyDType
	}
	_, err := fmt.Fprintf(w, "Relayout of %q (%s): %s device bytes -> %s plain, shape %v %s, written%s to %s\n",
		o.Layer, o.Tiling, humanize.Bytes(int64(o.InBytes)), humanize.Bytes(int64(o.OutBytes)), o.Shape, o.DType, widened, o.Output)
	return err
}

// etpuNpyDType maps the TFLite tensor types an Edge TPU output can have to
// npukit's element types for the .npy writer.
func etpuNpyDType(t edgetpu.TensorType) (dtype.T, error) {
	switch t {
	case edgetpu.TensorUint8:
		return dtype.Uint8, nil
	case edgetpu.TensorInt8:
		return dtype.Int8, nil
	case edgetpu.TensorInt16:
		return dtype.Int16, nil
	case edgetpu.TensorInt32:
		return dtype.Int32, nil
	case edgetpu.TensorFloat32:
		return dtype.Float32, nil
	case edgetpu.TensorFloat16:
		return dtype.Float16, nil // kept as float16 (.npy has it)
	}
	return 0, fmt.Errorf("no .npy type for %s", t)
}

func newEdgeTPURelayoutCmd(env *Env) *cobra.Command {
	var exe, opIdx, batch int
	var layerName, in, out string
	cmd := &cobra.Command{
		Use:   "relayout FILE --layer NAME --in raw.bin -o out.npy",
		Short: "Convert a device output buffer to plain order and write it as .npy",
		Long: `relayout converts the raw bytes an output layer produces on the device (tiled,
padded, signed types offset-binary) into plain row-major order, as the runtime does,
and writes a .npy with shape (y, x, z) (or the layer's shape), prefixed by the
execution count and the batch when they exceed 1, and the TFLite dtype.
The batch is the input size divided by the layer's padded size unless --batch.`,
		Args: cobra.ExactArgs(1),
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
			var layer *edgetpu.Layer
			var names []string
			for _, l := range e.OutputLayers {
				names = append(names, l.Name)
				if l.Name == layerName {
					layer = l
				}
			}
			if layer == nil {
				return usageErr("--layer %s: no output layer of that name (outputs: %s)", layerName, strings.Join(names, ", "))
			}
			raw, err := inputfile.ReadFile(in)
			if err != nil {
				return usageErr("%v", err)
			}
			o := layer.RelayoutOutput()
			if batch <= 0 {
				per, err := o.DeviceBytes(1)
				if err != nil {
					return usageErr("layer %s: %v", layerName, err)
				}
				if per <= 0 || int64(len(raw))%per != 0 || len(raw) == 0 {
					return usageErr("%s: %d bytes is not a multiple of the layer's %d device bytes per batch", in, len(raw), per)
				}
				batch = int(int64(len(raw)) / per)
			}
			plain, err := o.ToPlain(raw, batch)
			if err != nil {
				return usageErr("%v", err)
			}
			shape := []int{int(layer.Y), int(layer.X), int(layer.Z)}
			if len(o.Slices) > 0 {
				shape = shape[:0]
				for _, r := range layer.Shape {
					shape = append(shape, int(r.End-r.Start)+1)
				}
			}
			if layer.ExecutionCount > 1 {
				shape = append([]int{int(layer.ExecutionCount)}, shape...)
			}
			if batch > 1 {
				shape = append([]int{batch}, shape...)
			}
			tt := m.OutputTensorType(op, e, layer)
			dt, err := etpuNpyDType(tt)
			if err != nil {
				return usageErr("%v", err)
			}
			shape64 := make([]int64, len(shape))
			for i, d := range shape {
				shape64[i] = int64(d)
			}
			npyDT := dt
			if err := atomicfile.Write(out, 0o644, func(w io.Writer) error {
				var err error
				npyDT, err = npyarray.Write(w, dt, shape64, plain)
				return err
			}); err != nil {
				return usageErr("%v", err)
			}
			npyType := npyDT.String()
			res := etpuRelayoutOutput{Output: out, Layer: layer.Name, Batch: batch, Shape: shape, DType: tt.String(), NpyDType: npyType, InBytes: len(raw),
				OutBytes: len(plain), Signed: layer.DataType.Signed(), ExecCount: layer.ExecutionCount}
			if layer.Numerics != nil {
				res.Scale, res.ZeroPoint = layer.Numerics.DequantizationFactor, layer.Numerics.ZeroPoint
			}
			switch {
			case len(o.Slices) > 0:
				res.Tiling = fmt.Sprintf("%d slices", len(o.Slices))
			case layer.Y == 1 && layer.X == 1:
				res.Tiling = "linear"
			default:
				res.Tiling = "tiled"
			}
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

type etpuDMAOutput struct {
	Plans []etpuDMAPlanEntry `json:"plans"`
}

type etpuDMAPlanEntry struct {
	Op      int           `json:"op"`
	Package int           `json:"package"`
	Plan    *dmaplan.Plan `json:"plan"`
}

func etpuWriteSteps(w io.Writer, title string, steps []dmaplan.Step) {
	fmt.Fprintf(w, "%s: %d steps\n", title, len(steps))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tEXECUTABLE\tKIND\tDIR\tTARGET\tLAYER\tOFFSET\tSIZE\tCHUNK")
	for _, s := range steps {
		size, chunk := "", ""
		if s.Size > 0 {
			size = humanize.Bytes(s.Size)
		}
		if s.Kind == dmaplan.Instruction.String() {
			chunk = strconv.Itoa(s.Chunk)
		}
		if s.Kind == dmaplan.Interrupt.String() {
			chunk = fmt.Sprintf("int %d", s.Interrupt)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Index, s.Executable, s.Kind, s.Direction, s.Target, s.Layer, s.Offset, size, chunk)
	}
	tw.Flush()
}

func etpuWriteTotals(w io.Writer, title string, t dmaplan.Totals, links []dmaplan.Link) {
	fmt.Fprintf(w, "%s: host->device %s, device->host %s", title, humanize.Bytes(t.HostToDevice), humanize.Bytes(t.DeviceToHost))
	for _, k := range t.TargetNames() {
		fmt.Fprintf(w, "; %s %s", k, humanize.Bytes(t.ByTarget[k]))
	}
	fmt.Fprintln(w)
	for _, l := range links {
		fmt.Fprintf(w, "  lower bound over %s (%.3g GB/s): %.1f us\n", l.Name, l.BitsPerSec/8e9, t.LowerBoundUs[l.Name])
	}
}

func (o etpuDMAOutput) WriteText(w io.Writer) error {
	for i, e := range o.Plans {
		if i > 0 {
			fmt.Fprintln(w)
		}
		p := e.Plan
		fmt.Fprintf(w, "DMA plan of op %d package %d (USB runtime; PCIe ignores hints)\n", e.Op, e.Package)
		etpuWriteSteps(w, "First inference (parameter caching, then the run)", p.FirstInference)
		etpuWriteSteps(w, "Steady state (every later inference)", p.SteadyState)
		etpuWriteTotals(w, "First inference", p.First, p.Links)
		etpuWriteTotals(w, "Steady state", p.Steady, p.Links)
		fmt.Fprintln(w, "Times are lower bounds: bytes over raw link bandwidth, no protocol overhead, latency or compute.")
		fmt.Fprintln(w, "If the model runs faster than the steady-state bound on your CPU, the Edge TPU over that link is slower than the CPU.")
		for _, r := range p.USBRejects {
			fmt.Fprintf(w, "warning: executable %s is not fully deterministic: the USB runtime rejects it unless descriptors come from the device\n", r)
		}
		for _, x := range p.Warnings {
			fmt.Fprintf(w, "warning: %s\n", x)
		}
	}
	return nil
}

func newEdgeTPUDMACmd(env *Env) *cobra.Command {
	var pcie, pcieGbit float64
	cmd := &cobra.Command{
		Use:   "dma FILE",
		Short: "The ordered DMA transfer plan the USB runtime derives from the hints",
		Long: `dma lists the transfers the USB runtime performs for each package, in order (kind,
direction, layer, offset, size, chunk, interrupts, fences): the first inference (the
parameter-caching executable, then the run) and the steady state, with per-inference
totals by direction and lower-bound transfer times over USB 2.0, USB 3.0 and PCIe.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := edgetpuArg(args[0])
			if err != nil {
				return err
			}
			links := dmaplan.DefaultLinks()
			bits := pcie * 8e9 // GB/s
			if pcieGbit > 0 {
				bits = pcieGbit * 1e9
			}
			if bits > 0 {
				for i := range links {
					if strings.HasPrefix(links[i].Name, "PCIe") {
						links[i].BitsPerSec = bits
					}
				}
			}
			var res etpuDMAOutput
			for oi, op := range m.Ops {
				for pi, p := range op.Packages {
					plan, err := dmaplan.Build(edgetpu.PlanInput(p), links)
					if err != nil {
						return usageErr("%s: %v", args[0], err)
					}
					res.Plans = append(res.Plans, etpuDMAPlanEntry{Op: oi, Package: pi, Plan: plan})
				}
			}
			return render(env, res)
		},
	}
	cmd.Flags().Float64Var(&pcie, "pcie-bw", 0, "PCIe bandwidth in GB/s (default: Gen2 x1, 0.5 GB/s effective)")
	// The old name, in gigabits per second: bandwidths are GB/s
	// everywhere (issue 32).
	cmd.Flags().Float64Var(&pcieGbit, "pcie-gbps", 0, "PCIe bandwidth in Gb/s")
	cmd.Flags().MarkDeprecated("pcie-gbps", "use --pcie-bw in GB/s (8 Gb/s = 1 GB/s)")
	markRange(cmd.Flags(), "positive", "pcie-bw", "pcie-gbps")
	return acceptsKinds(cmd, edgetpuKinds...)
}

// writeOrLink writes data to p, or, when chunk first (not i) holds the
// same storage, hard-links p to that chunk's file (name is the pattern of
// both names under dir).
func writeOrLink(p string, data []byte, dir string, first, i int, name string) error {
	if first == i {
		return os.WriteFile(p, data, 0o644)
	}
	return os.Link(filepath.Join(dir, fmt.Sprintf(name, first)), p)
}
