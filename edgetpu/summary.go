package edgetpu

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/internal/termsafe"
)

// Summary is what `npukit inspect` shows of a model; it renders as text and
// marshals to JSON with the same content.
type Summary struct {
	Kind        string          `json:"kind"` // "tflite" or "package"
	Description string          `json:"description,omitempty"`
	Operators   []OpSummary     `json:"operators,omitempty"`
	Inputs      []TensorSummary `json:"inputs,omitempty"`
	Outputs     []TensorSummary `json:"outputs,omitempty"`
	EdgeTPUOps  []TPUOpSummary  `json:"edgetpu_ops"`
}

// OpSummary says what one TFLite operator is and where it runs.
type OpSummary struct {
	Subgraph int    `json:"subgraph"`
	Index    int    `json:"index"`
	Code     string `json:"code"`    // the builtin's name, or "custom:<code>"
	RunsOn   string `json:"runs_on"` // "Edge TPU" or "CPU"
	// Position places a CPU operator relative to the Edge TPU ops of its
	// subgraph: "before", "between" (a round trip to the CPU and back) or
	// "after"; "no Edge TPU op" in a plain model; "" for an Edge TPU op.
	Position string          `json:"position,omitempty"`
	Inputs   []TensorSummary `json:"inputs"`
	Outputs  []TensorSummary `json:"outputs"`
}

// TensorSummary is a model input or output, or an operator's.
type TensorSummary struct {
	Name      string     `json:"name"`
	Type      TensorType `json:"type"`
	Shape     []int32    `json:"shape"`
	Scale     []float32  `json:"scale,omitempty"`
	ZeroPoint []int64    `json:"zero_point,omitempty"`
	// Constant marks a tensor whose buffer holds data (weights, biases,
	// shapes): an operator's parameter rather than an activation.
	Constant bool `json:"constant,omitempty"`
}

// Label is "name [1x32x32x16] INT8".
func (t TensorSummary) Label() string {
	return fmt.Sprintf("%s [%s] %s", t.Name, joinInts(t.Shape, "x"), t.Type)
}

// TPUOpSummary describes one Edge TPU op.
type TPUOpSummary struct {
	Subgraph            int     `json:"subgraph"`
	Operator            int     `json:"operator"`
	ExecutionPreference int64   `json:"execution_preference"`
	Chips               []int64 `json:"chips,omitempty"`
	// LegacyExecutableBytes: key "4" holds a bare executable of this size
	// (Edge TPU compiler 1.x), not a package.
	LegacyExecutableBytes int              `json:"legacy_executable_bytes,omitempty"`
	Packages              []PackageSummary `json:"packages"`
}

// PackageSummary describes one package.
type PackageSummary struct {
	Source             string              `json:"source"`
	FileOffset         int                 `json:"file_offset"`
	Bytes              int                 `json:"bytes"`
	Identifier         string              `json:"file_identifier"`
	MinRuntimeVersion  int32               `json:"min_runtime_version"`
	RuntimeStatement   string              `json:"runtime_compatibility"`
	CompilerVersion    string              `json:"compiler_version"`
	KeypairVersion     int32               `json:"keypair_version"`
	SignatureBytes     int                 `json:"signature_bytes"`
	VirtualChipID      int32               `json:"virtual_chip_id"`
	ModelIdentifier    string              `json:"model_identifier,omitempty"`
	MultiChipPackages  []PackageSummary    `json:"multi_chip_packages,omitempty"`
	Executables        []ExecutableSummary `json:"executables"`
	CachedParamBytes   int64               `json:"on_chip_cached_parameter_bytes"`
	StreamedParamBytes int64               `json:"off_chip_streamed_parameter_bytes"`
}

// ExecutableSummary describes one executable.
type ExecutableSummary struct {
	Index              int              `json:"index"`
	Type               string           `json:"type"`
	Name               string           `json:"name"`
	BatchSize          int32            `json:"batch_size"`
	Chip               string           `json:"chip"`
	Chunks             int              `json:"instruction_chunks"`
	ChunkBytes         []int            `json:"instruction_chunk_bytes"`
	InstructionBytes   int64            `json:"instruction_bytes"`
	Relocations        map[string]int   `json:"relocations_by_kind"`
	ParameterBytes     int64            `json:"parameter_bytes"`
	ScratchBytes       int32            `json:"scratch_bytes"`
	NarrowMemPerTile   int32            `json:"narrow_memory_bytes_per_tile"`
	NarrowMemCapacity  int32            `json:"narrow_memory_capacity_per_tile"` // 0: unknown (not a beagle chip)
	Token              string           `json:"parameter_caching_token"`
	EstimatedCycles    int64            `json:"estimated_cycles,omitempty"`
	UseTPUDRAM         bool             `json:"use_tpu_dram_for_parameters,omitempty"`
	Inputs             []LayerSummary   `json:"input_layers"`
	Outputs            []LayerSummary   `json:"output_layers"`
	HintCount          int              `json:"dma_hints"`
	HintsByKind        map[string]int   `json:"dma_hints_by_kind,omitempty"`
	HintBytes          map[string]int64 `json:"dma_bytes_by_kind_direction,omitempty"`
	FullyDeterministic *bool            `json:"fully_deterministic,omitempty"`
}

// LayerSummary describes an I/O layer.
type LayerSummary struct {
	Name           string  `json:"name"`
	Y              int32   `json:"y"`
	X              int32   `json:"x"`
	Z              int32   `json:"z"`
	DataType       string  `json:"data_type"`
	ZeroPoint      int32   `json:"zero_point"`
	Scale          float32 `json:"scale"`
	SizeBytes      int32   `json:"padded_size_bytes"`
	ExecutionCount int32   `json:"execution_count"`
	Tiling         string  `json:"output_tiling,omitempty"`
}

// RuntimeStatement says in words whether a package loads on the public
// runtime (notes: runtime 14 is the last public release; 11 added native
// batching, 12 int8 host types, 13 fp16).
func RuntimeStatement(v int32) string {
	switch {
	case v > MaxRuntimeVersion:
		return fmt.Sprintf("requires runtime version %d, newer than the last public runtime (%d): it will not load (\"Package requires runtime version %d, which is newer than this runtime version\")", v, MaxRuntimeVersion, v)
	case v < MinSupportedRuntimeVersion:
		return fmt.Sprintf("requires runtime version %d, older than %d: loads with a warning", v, MinSupportedRuntimeVersion)
	}
	return fmt.Sprintf("requires runtime version %d or newer: loads on runtimes %d..%d (the last public release is %d)", v, v, MaxRuntimeVersion, MaxRuntimeVersion)
}

// Summarize builds the inspection summary.
func Summarize(m *Model) *Summary {
	s := &Summary{Kind: "package"}
	if t := m.TFLite; t != nil {
		s.Kind, s.Description = "tflite", t.Description
		for si := range t.Subgraphs {
			sg := &t.Subgraphs[si]
			first, last := -1, -1 // Edge TPU ops of the subgraph
			for oi, op := range sg.Operators {
				if t.OperatorCodes[op.OpcodeIndex].CustomCode == CustomCode {
					if first < 0 {
						first = oi
					}
					last = oi
				}
			}
			for oi, op := range sg.Operators {
				o := OpSummary{Subgraph: si, Index: oi, RunsOn: "CPU",
					Inputs: tensorSummaries(t, sg, op.Inputs), Outputs: tensorSummaries(t, sg, op.Outputs)}
				c := t.OperatorCodes[op.OpcodeIndex]
				o.Code = c.Label()
				switch {
				case c.CustomCode == CustomCode:
					o.RunsOn = "Edge TPU"
				case first < 0:
					o.Position = "no Edge TPU op"
				case oi < first:
					o.Position = "before"
				case oi > last:
					o.Position = "after"
				default:
					o.Position = "between"
				}
				s.Operators = append(s.Operators, o)
			}
		}
		if len(t.Subgraphs) > 0 {
			sg := &t.Subgraphs[0]
			s.Inputs, s.Outputs = tensorSummaries(t, sg, sg.Inputs), tensorSummaries(t, sg, sg.Outputs)
		}
	}
	for _, op := range m.Ops {
		o := TPUOpSummary{Subgraph: op.Subgraph, Operator: op.Operator, ExecutionPreference: op.Options.ExecutionPreference, Chips: op.Options.Chips, LegacyExecutableBytes: op.Options.LegacyExecutable}
		for _, p := range op.Packages {
			o.Packages = append(o.Packages, summarizePackage(p))
		}
		s.EdgeTPUOps = append(s.EdgeTPUOps, o)
	}
	return s
}

// tensorSummaries describes tensors of a subgraph by index (-1, an
// optional input left out, is skipped).
func tensorSummaries(t *TFLite, sg *Subgraph, idx []int32) []TensorSummary {
	out := []TensorSummary{}
	for _, i := range idx {
		if i < 0 || int(i) >= len(sg.Tensors) {
			continue
		}
		ten := &sg.Tensors[i]
		ts := TensorSummary{Name: ten.Name, Type: ten.Type, Shape: ten.Shape, Scale: ten.Scale, ZeroPoint: ten.ZeroPoint}
		ts.Constant = int(ten.Buffer) < len(t.BufferSizes) && t.BufferSizes[ten.Buffer] > 0
		out = append(out, ts)
	}
	return out
}

func summarizePackage(p *Package) PackageSummary {
	ps := PackageSummary{Source: p.Source, FileOffset: p.FileOffset, Bytes: len(p.Data), Identifier: p.Identifier,
		MinRuntimeVersion: p.MinRuntimeVersion, RuntimeStatement: RuntimeStatement(p.MinRuntimeVersion),
		CompilerVersion: p.CompilerVersion, KeypairVersion: p.KeypairVersion, SignatureBytes: len(p.Signature),
		VirtualChipID: p.VirtualChipID, ModelIdentifier: p.ModelIdentifier}
	for _, sub := range p.MultiChip {
		ps.MultiChipPackages = append(ps.MultiChipPackages, summarizePackage(sub))
	}
	mem := MemoryOf(p)
	ps.CachedParamBytes, ps.StreamedParamBytes = mem.Cached, mem.Streamed
	for i, e := range p.Executables {
		ps.Executables = append(ps.Executables, summarizeExecutable(i, e))
	}
	return ps
}

func summarizeExecutable(i int, e *Executable) ExecutableSummary {
	es := ExecutableSummary{Index: i, Type: e.Type.String(), Name: e.Name, BatchSize: e.BatchSize, Chip: e.Chip,
		Chunks: len(e.Bitstreams), Relocations: map[string]int{}, ParameterBytes: int64(len(e.Parameters)),
		ScratchBytes: e.ScratchSizeBytes, NarrowMemPerTile: e.NarrowMemPerTile,
		Token: fmt.Sprintf("0x%016x", e.Token), UseTPUDRAM: e.UseTPUDRAM, EstimatedCycles: e.EstimatedCycles64}
	if e.Chip == "" || e.Chip == BeagleChip {
		es.NarrowMemCapacity = NarrowMemoryPerTile
	}
	if es.EstimatedCycles == 0 {
		es.EstimatedCycles = int64(e.EstimatedCycles)
	}
	for _, b := range e.Bitstreams {
		es.ChunkBytes = append(es.ChunkBytes, len(b.Data))
		es.InstructionBytes += int64(len(b.Data))
		for _, f := range b.FieldOffsets {
			es.Relocations[f.Meta.Desc.String()]++
		}
	}
	for _, l := range e.InputLayers {
		es.Inputs = append(es.Inputs, summarizeLayer(l))
	}
	for _, l := range e.OutputLayers {
		es.Outputs = append(es.Outputs, summarizeLayer(l))
	}
	if h := e.DMAHints; h != nil {
		fd := h.FullyDeterministic
		es.FullyDeterministic = &fd
		es.HintCount = len(h.Hints)
		es.HintsByKind, es.HintBytes = map[string]int{}, map[string]int64{}
		for _, x := range h.Hints {
			es.HintsByKind[x.Kind.String()]++
			if x.Kind == HintDescriptor {
				es.HintBytes[x.Meta.Desc.String()+"/"+x.Direction.String()] += int64(x.SizeInBytes)
			}
		}
	}
	return es
}

func summarizeLayer(l *Layer) LayerSummary {
	s := LayerSummary{Name: l.Name, Y: l.Y, X: l.X, Z: l.Z, DataType: l.DataType.String(), SizeBytes: l.SizeBytes, ExecutionCount: l.ExecutionCount}
	if l.Numerics != nil {
		s.ZeroPoint, s.Scale = l.Numerics.ZeroPoint, l.Numerics.DequantizationFactor
	}
	if l.Output != nil {
		switch {
		case l.Output.ShapeInfo != nil:
			s.Tiling = fmt.Sprintf("%d slices", len(l.Output.ShapeInfo.Slices))
		case l.Y == 1 && l.X == 1:
			s.Tiling = "linear (1-D)"
		case l.Output.Layout != nil:
			lay := l.Output.Layout
			ys, xs := lay.YTile[:min(len(lay.YTile), max(int(l.Y), 0))], lay.XTile[:min(len(lay.XTile), max(int(l.X), 0))]
			s.Tiling = fmt.Sprintf("%dx%d tiles", len(runs(ys)), len(runs(xs)))
		default:
			s.Tiling = "linear"
		}
	}
	return s
}

// WriteText renders the summary as aligned tables.
func (s *Summary) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	if s.Kind == "tflite" {
		tpu, cpu := 0, 0
		for _, o := range s.Operators {
			if o.RunsOn == "Edge TPU" {
				tpu++
			} else {
				cpu++
			}
		}
		ew.Printf("TFLite model %q: %s, %s on the Edge TPU, %s on the CPU\n", s.Description, humanize.Plural(len(s.Operators), "operator"), humanize.Count(int64(tpu)), humanize.Count(int64(cpu)))
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		if len(s.Operators) > 0 {
			fmt.Fprintln(tw, "  SUBGRAPH\tOP\tOPERATOR\tRUNS ON\tOUTPUT")
		}
		for _, o := range s.Operators {
			where := o.RunsOn
			switch o.Position {
			case "before", "after":
				where += " (" + o.Position + " the Edge TPU)"
			case "between":
				where += " (between Edge TPU ops)"
			}
			out := ""
			if len(o.Outputs) > 0 {
				out = o.Outputs[0].Label()
				if len(o.Outputs) > 1 {
					out += fmt.Sprintf(" +%d", len(o.Outputs)-1)
				}
			}
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\n", o.Subgraph, o.Index, termsafe.Name(o.Code), where, termsafe.Name(out))
		}
		tw.Flush()
		for _, io := range []struct {
			name string
			ts   []TensorSummary
		}{{"Model inputs", s.Inputs}, {"Model outputs", s.Outputs}} {
			if len(io.ts) == 0 {
				ew.Printf("%s: none\n", io.name)
				continue
			}
			ew.Printf("%s:\n", io.name)
			tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  NAME\tTYPE\tSHAPE\tSCALE\tZERO POINT")
			for _, t := range io.ts {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", termsafe.Name(t.Name), t.Type, joinInts(t.Shape, "x"), joinFloats(t.Scale), joinInts(t.ZeroPoint, ","))
			}
			tw.Flush()
		}
	}
	for _, op := range s.EdgeTPUOps {
		if op.Subgraph >= 0 {
			ew.Printf("\nEdge TPU op (subgraph %d, operator %d), execution preference %d", op.Subgraph, op.Operator, op.ExecutionPreference)
			if len(op.Chips) > 0 {
				ew.Printf(", chips %s (the op's per-package chip option)", joinInts(op.Chips, ","))
			}
			ew.Printf("\n")
		}
		if op.LegacyExecutableBytes > 0 {
			ew.Printf("  No package: key \"4\" holds a bare %s executable in the Edge TPU compiler 1.x serialisation, which current runtimes refuse (npukit check explains)\n", humanize.Bytes(int64(op.LegacyExecutableBytes)))
		}
		for _, p := range op.Packages {
			writePackage(ew, p, "")
		}
	}
	return ew.Err()
}

func writePackage(ew *stickywriter.Writer, p PackageSummary, indent string) {
	ew.Printf("%sPackage (%s, %s at offset %#x): identifier %q, compiler %q, keypair %d, signature %d bytes, virtual chip %d\n",
		indent, p.Source, humanize.Bytes(int64(p.Bytes)), p.FileOffset, p.Identifier, p.CompilerVersion, p.KeypairVersion, p.SignatureBytes, p.VirtualChipID)
	ew.Printf("%s  Runtime: %s\n", indent, p.RuntimeStatement)
	ew.Printf("%s  Parameters: %s cached on chip, %s streamed from the host every inference\n", indent, humanize.Bytes(p.CachedParamBytes), humanize.Bytes(p.StreamedParamBytes))
	for _, sub := range p.MultiChipPackages {
		writePackage(ew, sub, indent+"  ")
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s  #\tTYPE\tNAME\tBATCH\tCHIP\tCHUNKS\tINSTRUCTIONS\tPARAMETERS\tSCRATCH\tNARROW MEM/TILE\tTOKEN\n", indent)
	for _, e := range p.Executables {
		capacity := "unknown"
		if e.NarrowMemCapacity > 0 {
			capacity = humanize.Bytes(int64(e.NarrowMemCapacity))
		}
		fmt.Fprintf(tw, "%s  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s / %s\t%s\n", indent, e.Index, e.Type, termsafe.Name(e.Name), humanize.Count(int64(e.BatchSize)), e.Chip,
			humanize.Count(int64(e.Chunks)), humanize.Bytes(e.InstructionBytes), humanize.Bytes(e.ParameterBytes), humanize.Bytes(int64(e.ScratchBytes)),
			humanize.Bytes(int64(e.NarrowMemPerTile)), capacity, e.Token)
	}
	tw.Flush()
	// Issue 32: say what the columns are.
	ew.Printf("%s  (NARROW MEM/TILE: the on-tile (narrow) memory the executable uses per tile / the tile's capacity; SCRATCH: off-chip scratch bytes; TOKEN: the caching token models compiled together share)\n", indent)
	for _, e := range p.Executables {
		chunks := make([]string, len(e.ChunkBytes))
		for i, n := range e.ChunkBytes {
			chunks[i] = humanize.Bytes(int64(n))
		}
		ew.Printf("%s  Executable %d (%s): instruction chunks %s; relocations %s\n", indent, e.Index, e.Type, strings.Join(chunks, ", "), mapText(e.Relocations))
		if e.FullyDeterministic != nil {
			ew.Printf("%s    DMA hints: %s (%s), fully deterministic: %v\n", indent, humanize.Count(int64(e.HintCount)), mapText(e.HintsByKind), *e.FullyDeterministic)
			if len(e.HintBytes) > 0 {
				keys := sortedKeys(e.HintBytes)
				var parts []string
				for _, k := range keys {
					parts = append(parts, fmt.Sprintf("%s %s", k, humanize.Bytes(e.HintBytes[k])))
				}
				ew.Printf("%s    DMA bytes: %s\n", indent, strings.Join(parts, "; "))
			}
		}
		if len(e.Inputs)+len(e.Outputs) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s    DIR\tNAME\tY x X x Z\tTYPE\tZERO POINT\tSCALE\tPADDED SIZE\tEXECS\tTILING\n", indent)
		for _, d := range []struct {
			dir string
			ls  []LayerSummary
		}{{"in", e.Inputs}, {"out", e.Outputs}} {
			for _, l := range d.ls {
				fmt.Fprintf(tw, "%s    %s\t%s\t%dx%dx%d\t%s\t%s\t%g\t%s\t%s\t%s\n", indent, d.dir, termsafe.Name(l.Name), l.Y, l.X, l.Z, l.DataType, humanize.Count(int64(l.ZeroPoint)), l.Scale, humanize.Bytes(int64(l.SizeBytes)), humanize.Count(int64(l.ExecutionCount)), l.Tiling)
			}
		}
		tw.Flush()
	}
}

func joinInts[T int | int32 | int64](v []T, sep string) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, sep)
}

func joinFloats(v []float32) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, fmt.Sprintf("%g", x))
	}
	return strings.Join(parts, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mapText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %s", k, humanize.Count(int64(m[k]))))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
