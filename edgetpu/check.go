package edgetpu

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/edgetpu/dmaplan"
)

// Rule IDs. The load-time rules mirror what the public runtime checks
// (../shared/notes/edgetpu.md, "What the runtime checks when loading"); the
// others are consistency rules a valid compile satisfies.
const (
	RuleMissingIdentifier  = "edgetpu/missing-identifier"
	RuleRuntimeTooNew      = "edgetpu/runtime-too-new"
	RuleRuntimeOld         = "edgetpu/runtime-old"
	RuleMultiChip          = "edgetpu/multi-chip-package"
	RuleNoExecutables      = "edgetpu/no-executables"
	RuleBatchSize          = "edgetpu/batch-size"
	RuleExecutableTypes    = "edgetpu/executable-types"
	RuleCachingTokenZero   = "edgetpu/caching-token-zero"
	RuleTokenMismatch      = "edgetpu/caching-token-mismatch"
	RulePackagesPerOp      = "edgetpu/packages-per-op"
	RuleFlexChips          = "edgetpu/flex-chip-list"
	RuleRelocOutside       = "edgetpu/relocation-outside-chunk"
	RuleRelocUnpaired      = "edgetpu/relocation-unpaired"
	RuleRelocUnknownLayer  = "edgetpu/relocation-unknown-layer"
	RuleRelocBatch         = "edgetpu/relocation-batch"
	RuleHintRange          = "edgetpu/hint-range"
	RuleHintChunk          = "edgetpu/hint-chunk"
	RuleNotDeterministic   = "edgetpu/not-fully-deterministic"
	RuleOutputLayout       = "edgetpu/output-layout"
	RuleShapeInfo          = "edgetpu/shape-info"
	RuleNarrowMemory       = "edgetpu/narrow-memory"
	RuleLayerSize          = "edgetpu/layer-size"
	RuleDataType           = "edgetpu/data-type"
	RuleTensorMismatch     = "edgetpu/tensor-mismatch"
	RuleZeroPointMismatch  = "edgetpu/zero-point-mismatch"
	RuleVariableOutput     = "edgetpu/variable-output"
	RuleExecutionCount     = "edgetpu/execution-count"
	RuleDuplicateLayerName = "edgetpu/duplicate-layer-name"
	RuleNoEdgeTPUOp        = "edgetpu/no-edgetpu-op"
	RuleLegacyExecutable   = "edgetpu/legacy-executable"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleMissingIdentifier, Severity: diag.Warning, Description: "the package lacks the DWN1 file identifier (the runtime only warns)"},
		diag.Rule{ID: RuleRuntimeTooNew, Severity: diag.Error, Description: "min_runtime_version is newer than the last public runtime (14): the package does not load"},
		diag.Rule{ID: RuleRuntimeOld, Severity: diag.Warning, Description: "min_runtime_version is below 10: the runtime loads it with a warning"},
		diag.Rule{ID: RuleMultiChip, Severity: diag.Error, Description: "virtual_chip_id -1 marks a multi-chip package, which the runtime rejects"},
		diag.Rule{ID: RuleNoExecutables, Severity: diag.Error, Description: "the package has no serialized multi-executable or no executable"},
		diag.Rule{ID: RuleBatchSize, Severity: diag.Error, Description: "batch_size must be at least 1"},
		diag.Rule{ID: RuleExecutableTypes, Severity: diag.Error, Description: "executable types must be unique and one of: any single type, {PARAMETER_CACHING, EXECUTION_ONLY}, {PARAMETER_CACHING, EXECUTION_ONLY, STAND_ALONE}"},
		diag.Rule{ID: RuleCachingTokenZero, Severity: diag.Error, Description: "a PARAMETER_CACHING executable needs a non-zero parameter_caching_token"},
		diag.Rule{ID: RuleTokenMismatch, Severity: diag.Warning, Description: "executables of one package carry different caching tokens: every switch evicts the cache"},
		diag.Rule{ID: RulePackagesPerOp, Severity: diag.Error, Description: "the runtime accepts one package per edgetpu-custom-op"},
		diag.Rule{ID: RuleFlexChips, Severity: diag.Error, Description: `custom options key "7" must hold len(key "6") - 1 extra packages`},
		diag.Rule{ID: RuleRelocOutside, Severity: diag.Error, Description: "a relocation's 32-bit field lies outside its instruction chunk"},
		// Pairing is what every real compile does (notes, "Corpus facts"), not
		// something the runtime checks: it writes whichever halves are listed.
		diag.Rule{ID: RuleRelocUnpaired, Severity: diag.Warning, Description: "LOWER_32BIT and UPPER_32BIT relocations of one address should come in pairs (an unlisted half keeps its compiled value)"},
		diag.Rule{ID: RuleRelocUnknownLayer, Severity: diag.Error, Description: "an input/output relocation or DMA hint names no layer of its executable"},
		diag.Rule{ID: RuleRelocBatch, Severity: diag.Error, Description: "a relocation's batch must be below batch_size (0 for parameters and scratch)"},
		diag.Rule{ID: RuleHintRange, Severity: diag.Error, Description: "a DMA descriptor's byte range must lie within its layer, the parameters or scratch"},
		diag.Rule{ID: RuleHintChunk, Severity: diag.Error, Description: "an instruction hint's chunk index must name a chunk of the executable"},
		// libedgetpu driver/usb/usb_driver.cc (DoCreateRequest): unless
		// USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE is set (default false,
		// driver/beagle/beagle_usb_driver_provider.cc), the USB driver
		// fails every inference of such an executable; the PCIe driver
		// does not use the hints.
		diag.Rule{ID: RuleNotDeterministic, Severity: diag.Warning, Description: "on the USB Accelerator the model does not run with the default runtime settings: the compiler could not plan all of its transfers ahead, and libedgetpu's USB driver then fails every inference (\"must have fully deterministic DMA hints when DMA descriptors from device are disabled\") unless the process sets USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE=1; PCIe Edge TPUs (M.2, Mini PCIe, Dev Board) run it as is"},
		diag.Rule{ID: RuleOutputLayout, Severity: diag.Error, Description: "an output's OutputLayout maps must have y/x entries, be injective and stay inside size_bytes"},
		diag.Rule{ID: RuleShapeInfo, Severity: diag.Error, Description: "OutputShapeInfo slices must be valid ranges of the layer shape, element-aligned and inside size_bytes"},
		diag.Rule{ID: RuleNarrowMemory, Severity: diag.Error, Description: "used narrow memory per tile exceeds the Edge TPU's (beagle) 196,608 bytes"},
		diag.Rule{ID: RuleLayerSize, Severity: diag.Error, Description: "a layer's size_bytes must hold y*x*z elements and be non-negative"},
		diag.Rule{ID: RuleDataType, Severity: diag.Error, Description: "a layer's data_type is not one of the schema's types"},
		diag.Rule{ID: RuleTensorMismatch, Severity: diag.Error, Description: "the custom op's TFLite tensors must match the executable's layers by position (count, dtype pair, element count up to a leading batch dimension)"},
		diag.Rule{ID: RuleZeroPointMismatch, Severity: diag.Warning, Description: "layer zero point differs from the TFLite one (offset by 128/32768 for signed types)"},
		diag.Rule{ID: RuleVariableOutput, Severity: diag.Error, Description: "an output `<name>_variable_output` must have the type and size of the input `<name>` it is written back into"},
		diag.Rule{ID: RuleExecutionCount, Severity: diag.Error, Description: "execution_count_per_inference must be at least 1"},
		diag.Rule{ID: RuleNoEdgeTPUOp, Severity: diag.Info, Description: "no operator of the TFLite model is an edgetpu-custom-op: every operator runs on the CPU"},
		diag.Rule{ID: RuleDuplicateLayerName, Severity: diag.Error, Description: "layer names must be unique among an executable's inputs and among its outputs"},
		diag.Rule{ID: RuleLegacyExecutable, Severity: diag.Error, Description: `custom options key "4" holds a bare executable (Edge TPU compiler 1.x serialisation, before DWN1 packages): the runtime verifies key "4" as a package and refuses it`},
	)
}

// NotDeterministicAdvice says what an executable whose DMA hints are not
// fully deterministic means for the user and what to do about it.
const NotDeterministicAdvice = dmaplan.NotDeterministicAdvice

// USBRejects reports whether libedgetpu's USB driver, with its default
// settings, refuses every run of the executable: its DMA hints are not
// fully deterministic (NotDeterministicAdvice). check
// (RuleNotDeterministic) and the latency estimate on a USB host class
// (Latency.FailsByDefault) both decide by it.
func (e *Executable) USBRejects() bool { return e.DMAHints != nil && !e.DMAHints.FullyDeterministic }

// VariableOutputSuffix marks outputs the runtime writes back into an input
// of the same name (recurrent state).
const VariableOutputSuffix = "_variable_output"

// VariableInput returns the input layer a variable output writes back into:
// the input named like the output without VariableOutputSuffix. The runtime
// pairs them by that name alone (libedgetpu tflite/
// custom_op_user_data_direct.cc); an output with the suffix but no such
// input is written back nowhere (and, like every suffixed output, has no
// TFLite tensor).
func (e *Executable) VariableInput(out *Layer) *Layer {
	base, ok := strings.CutSuffix(out.Name, VariableOutputSuffix)
	if !ok {
		return nil
	}
	for _, in := range e.InputLayers {
		if in.Name == base {
			return in
		}
	}
	return nil
}

// Check verifies a model against the runtime's load-time checks and the
// consistency rules.
func Check(m *Model) diag.Report {
	var rep diag.Report
	if m.TFLite != nil && len(m.Ops) == 0 {
		rep.Add(RuleNoEdgeTPUOp, "model", "no operator runs on the Edge TPU: none of the %d operators is an edgetpu-custom-op (an uncompiled model, or one the compiler mapped nothing of; npukit edgetpu plan predicts what the compiler would map)", m.TFLite.NumOperators())
	}
	if m.TFLite != nil {
		checkRoundTrips(&rep, m)
	}
	for _, op := range m.Ops {
		loc := "package"
		if op.Subgraph >= 0 {
			loc = fmt.Sprintf("subgraph %d / op %d", op.Subgraph, op.Operator)
			checkOptions(&rep, loc, op)
		}
		for pi, p := range op.Packages {
			ploc := loc
			if op.Subgraph >= 0 {
				ploc = fmt.Sprintf("%s / package %d", loc, pi)
			}
			checkPackage(&rep, ploc, p, 0)
			checkPerformance(&rep, ploc, p)
			if m.TFLite != nil && pi == 0 {
				checkTensors(&rep, loc, m.TFLite, op, p)
			}
		}
	}
	rep.Sort()
	return rep
}

func checkOptions(rep *diag.Report, loc string, op *CustomOp) {
	o := op.Options
	if o.LegacyExecutable > 0 {
		// libedgetpu driver/package_registry.cc: VerifyBuffer<Package>, then
		// the MultiExecutable, fail on an Executable's table layout.
		rep.Add(RuleLegacyExecutable, loc, "key \"4\" holds a bare %d-byte executable in the Edge TPU compiler 1.x serialisation, not a DWN1 package: libedgetpu refuses it (\"Package verification failed\"); recompile the source model with a current edgetpu_compiler", o.LegacyExecutable)
	} else if len(op.Packages) == 0 {
		rep.Add(RuleNoExecutables, loc, "the op carries no package (custom options key \"4\")")
	}
	// Without key "6" the runtime never reads key "7" (see below), so only
	// key "4" counts.
	if len(op.Packages) > 1 && o.HasChips {
		rep.Add(RulePackagesPerOp, loc, "%d packages in one op (keys \"4\" and \"7\"); the runtime loads one", len(op.Packages))
	}
	// The runtime (libedgetpu tflite/custom_op_data.cc) reads key "7" only
	// when key "6" is present: files without key "6" are the older
	// one-package serialisation and load whatever "7" holds. With key "6"
	// it rejects an empty chip list and len("6") != len("7") + 1, where a
	// missing "7" counts as empty.
	if o.HasChips && (len(o.Chips) == 0 || o.Extra != len(o.Chips)-1) {
		rep.Add(RuleFlexChips, loc, "key \"7\" holds %d packages but key \"6\" lists %d chips (want %d extra)", o.Extra, len(o.Chips), max(len(o.Chips)-1, 0))
	}
}

func checkPackage(rep *diag.Report, loc string, p *Package, depth int) {
	if p.Identifier != PackageIdentifier {
		rep.Add(RuleMissingIdentifier, loc, "file identifier %q, want %q", p.Identifier, PackageIdentifier)
	}
	switch v := p.MinRuntimeVersion; {
	case v > MaxRuntimeVersion:
		rep.Add(RuleRuntimeTooNew, loc, "package requires runtime version %d, newer than the last public runtime (%d): it will not load", v, MaxRuntimeVersion)
	case v < MinSupportedRuntimeVersion:
		rep.Add(RuleRuntimeOld, loc, "min_runtime_version %d is below %d", v, MinSupportedRuntimeVersion)
	}
	if p.VirtualChipID == -1 {
		rep.Add(RuleMultiChip, loc, "virtual_chip_id -1 (multi-chip package)")
	}
	for i, sub := range p.MultiChip {
		checkPackage(rep, fmt.Sprintf("%s / multi_chip_package %d", loc, i), sub, depth+1)
	}
	if p.MultiExecutableOffset < 0 || len(p.Executables) == 0 {
		rep.Add(RuleNoExecutables, loc, "no executable in the package")
		return
	}
	checkTypes(rep, loc, p)
	for i, e := range p.Executables {
		checkExecutable(rep, fmt.Sprintf("%s / executable %d", loc, i), e)
	}
}

func checkTypes(rep *diag.Report, loc string, p *Package) {
	seen := map[ExecutableType]int{}
	for _, e := range p.Executables {
		seen[e.Type]++
	}
	var names []string
	for _, e := range p.Executables {
		names = append(names, e.Type.String())
	}
	for t, n := range seen {
		if n > 1 {
			rep.Add(RuleExecutableTypes, loc, "%d executables of type %s (types: %s)", n, t, strings.Join(names, ", "))
			return
		}
	}
	legal := len(seen) == 1 ||
		(len(seen) == 2 && seen[ParameterCaching] == 1 && seen[ExecutionOnly] == 1) ||
		(len(seen) == 3 && seen[ParameterCaching] == 1 && seen[ExecutionOnly] == 1 && seen[StandAlone] == 1)
	if !legal {
		rep.Add(RuleExecutableTypes, loc, "executable types {%s} are not a legal set", strings.Join(names, ", "))
	}
	// The runtime pairs a caching executable with the main one only in a
	// two-executable package (libedgetpu driver/package_registry.cc: one
	// executable runs stand-alone whatever its type, of three the
	// STAND_ALONE one runs), so only there does a zero token matter.
	c := p.Caching()
	if c != nil && c.Token == 0 && len(p.Executables) == 2 {
		rep.Add(RuleCachingTokenZero, loc, "PARAMETER_CACHING executable with token 0")
	}
	if c != nil {
		for i, e := range p.Executables {
			if e.Type == ExecutionOnly && e.Token != c.Token {
				rep.Add(RuleTokenMismatch, fmt.Sprintf("%s / executable %d", loc, i), "token 0x%016x differs from the caching executable's 0x%016x", e.Token, c.Token)
			}
		}
	}
}

func layerIndex(ls []*Layer) map[string]*Layer {
	m := make(map[string]*Layer, len(ls))
	for _, l := range ls {
		m[l.Name] = l
	}
	return m
}

func checkExecutable(rep *diag.Report, loc string, e *Executable) {
	if e.BatchSize < 1 {
		rep.Add(RuleBatchSize, loc, "batch_size %d", e.BatchSize)
	}
	// 196,608 bytes is the beagle (Coral Edge TPU) tile; other chips'
	// geometry is not documented, so only beagle (or unnamed) executables
	// are held to it.
	if e.NarrowMemPerTile < 0 || (e.NarrowMemPerTile > NarrowMemoryPerTile && (e.Chip == "" || e.Chip == BeagleChip)) {
		rep.Add(RuleNarrowMemory, loc, "%d bytes of narrow memory per tile, the chip has %d", e.NarrowMemPerTile, NarrowMemoryPerTile)
	}
	ins, outs := layerIndex(e.InputLayers), layerIndex(e.OutputLayers)
	for kind, ls := range map[string][]*Layer{"input": e.InputLayers, "output": e.OutputLayers} {
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l.Name] {
				rep.Add(RuleDuplicateLayerName, loc, "two %s layers named %q", kind, l.Name)
			}
			seen[l.Name] = true
		}
	}
	for i, l := range e.InputLayers {
		checkLayer(rep, fmt.Sprintf("%s / input %d", loc, i), l)
	}
	for i, l := range e.OutputLayers {
		lloc := fmt.Sprintf("%s / output %d", loc, i)
		checkLayer(rep, lloc, l)
		checkOutput(rep, lloc, l)
	}
	checkRelocations(rep, loc, e, ins, outs)
	checkHints(rep, loc, e, ins, outs)
}

func checkLayer(rep *diag.Report, loc string, l *Layer) {
	es := l.DataType.Size()
	if es == 0 {
		rep.Add(RuleDataType, loc, "layer %q: data_type %d", l.Name, int(l.DataType))
	}
	if l.ExecutionCount < 1 {
		rep.Add(RuleExecutionCount, loc, "layer %q: execution_count_per_inference %d", l.Name, l.ExecutionCount)
	}
	need := l.Elements() * int64(max(es, 1))
	if l.Output != nil && l.Output.ShapeInfo != nil {
		return // sized by its slices (shape-info rule)
	}
	if l.SizeBytes < 0 || l.Y < 0 || l.X < 0 || l.Z < 0 || int64(l.SizeBytes) < need {
		rep.Add(RuleLayerSize, loc, "layer %q: size_bytes %d for %dx%dx%d elements of %d bytes (%d bytes)", l.Name, l.SizeBytes, l.Y, l.X, l.Z, es, need)
	}
}

func checkOutput(rep *diag.Report, loc string, l *Layer) {
	if l.Output == nil {
		return
	}
	es := l.DataType.Size()
	if si := l.Output.ShapeInfo; si != nil {
		if es == 0 {
			return
		}
		if len(si.Offsets) != len(si.Slices) {
			rep.Add(RuleShapeInfo, loc, "layer %q: %d slices but %d slice offsets", l.Name, len(si.Slices), len(si.Offsets))
			return
		}
		for i, off := range si.Offsets {
			if int(off)%es != 0 {
				rep.Add(RuleShapeInfo, loc, "layer %q: slice %d at byte %d is not aligned to %d-byte elements", l.Name, i, off, es)
				return
			}
		}
		if err := checkSlices(l, si, es); err != nil {
			rep.Add(RuleShapeInfo, loc, "layer %q: %v", l.Name, err)
		}
		return
	}
	if l.Output.Layout == nil {
		if l.Y > 1 || l.X > 1 {
			rep.Add(RuleOutputLayout, loc, "layer %q: a %dx%dx%d output without OutputLayout", l.Name, l.Y, l.X, l.Z)
		}
		return
	}
	if es == 0 || l.Y < 1 || l.X < 1 || l.Z < 1 {
		return // reported by data-type / layer-size
	}
	if l.Y == 1 && l.X == 1 {
		// 1-D outputs are copied linearly and their layout is never read
		// (schema, OutputLayout: "1D output, this field will not be used").
		return
	}
	st, err := l.LayoutStats()
	switch {
	case err != nil:
		rep.Add(RuleOutputLayout, loc, "%v", err)
	case !st.WithinSize:
		rep.Add(RuleOutputLayout, loc, "layer %q: elements reach device byte %d, past size_bytes %d", l.Name, st.MaxByteEnd, l.SizeBytes)
	case !st.Injective:
		rep.Add(RuleOutputLayout, loc, "layer %q: two elements map to the same device position", l.Name)
	}
}

type relocKey struct {
	desc  Description
	name  string
	batch int32
}

func checkRelocations(rep *diag.Report, loc string, e *Executable, ins, outs map[string]*Layer) {
	pairs := map[relocKey][2]int{}
	for ci, b := range e.Bitstreams {
		bits := int64(len(b.Data)) * 8
		for fi, f := range b.FieldOffsets {
			floc := fmt.Sprintf("%s / chunk %d / relocation %d", loc, ci, fi)
			if f.OffsetBit < 0 || int64(f.OffsetBit)+32 > bits {
				rep.Add(RuleRelocOutside, floc, "32-bit field at bit %d outside the %d-bit chunk", f.OffsetBit, bits)
			}
			m := f.Meta
			switch m.Desc {
			case InputActivation, OutputActivation:
				set := ins
				if m.Desc == OutputActivation {
					set = outs
				}
				if set[m.Name] == nil {
					rep.Add(RuleRelocUnknownLayer, floc, "%s relocation names %q, not a layer", m.Desc, m.Name)
				}
				if m.Batch < 0 || m.Batch >= max(e.BatchSize, 1) {
					rep.Add(RuleRelocBatch, floc, "batch %d with batch_size %d", m.Batch, e.BatchSize)
				}
			default:
				if m.Batch != 0 {
					rep.Add(RuleRelocBatch, floc, "%s relocation with batch %d (must be 0)", m.Desc, m.Batch)
				}
			}
			k := relocKey{m.Desc, m.Name, m.Batch}
			c := pairs[k]
			if m.Position == Upper32 {
				c[1]++
			} else {
				c[0]++
			}
			pairs[k] = c
		}
	}
	for k, c := range pairs {
		if c[0] != c[1] {
			rep.Add(RuleRelocUnpaired, loc, "%s %q batch %d: %d LOWER_32BIT and %d UPPER_32BIT fields", k.desc, k.name, k.batch, c[0], c[1])
		}
	}
}

func checkHints(rep *diag.Report, loc string, e *Executable, ins, outs map[string]*Layer) {
	h := e.DMAHints
	if h == nil {
		return
	}
	if e.USBRejects() {
		rep.Add(RuleNotDeterministic, loc, "%s", NotDeterministicAdvice)
	}
	for i, x := range h.Hints {
		hloc := fmt.Sprintf("%s / hint %d", loc, i)
		switch x.Kind {
		case HintInstruction:
			if x.Chunk < 0 || int(x.Chunk) >= len(e.Bitstreams) {
				rep.Add(RuleHintChunk, hloc, "chunk %d of %d", x.Chunk, len(e.Bitstreams))
			}
		case HintDescriptor:
			var limit int64
			what := x.Meta.Desc.String()
			switch x.Meta.Desc {
			case InputActivation, OutputActivation:
				set := ins
				if x.Meta.Desc == OutputActivation {
					set = outs
				}
				l := set[x.Meta.Name]
				if l == nil {
					rep.Add(RuleRelocUnknownLayer, hloc, "%s hint names %q, not a layer", x.Meta.Desc, x.Meta.Name)
					continue
				}
				limit = int64(l.SizeBytes) * int64(max(l.ExecutionCount, 1))
				what = fmt.Sprintf("layer %q", l.Name)
			case ParameterBase:
				limit = int64(len(e.Parameters))
			case ScratchBase:
				// scratch_size_bytes is for batch_size 1 (schema); a batched
				// executable's scratch holds one such area per batch element.
				limit = int64(e.ScratchSizeBytes) * int64(max(e.BatchSize, 1))
			default:
				limit = -1
			}
			end := int64(x.OffsetInBytes) + int64(x.SizeInBytes)
			if x.OffsetInBytes < 0 || x.SizeInBytes < 0 || end > limit {
				rep.Add(RuleHintRange, hloc, "bytes [%d, %d) outside %s (%d bytes)", x.OffsetInBytes, end, what, max(limit, 0))
			}
		}
	}
}

// dtypePairs lists the TFLite types accepted for each layer type: those of
// the runtime's ValidateDataType (libedgetpu tflite/custom_op.cc), widened
// to both 8-bit integer types, which share one byte layout.
var dtypePairs = map[DataType][]TensorType{
	FixedPoint8:        {TensorUint8, TensorInt8},
	SignedFixedPoint8:  {TensorInt8, TensorUint8},
	FixedPoint16:       {TensorInt16},
	SignedFixedPoint16: {TensorInt16},
	SignedFixedPoint32: {TensorInt32},
	Single:             {TensorFloat32},
	Half:               {TensorFloat16},
	BFloat:             {TensorBFloat16},
}

// dtypeAccepted says whether a tensor type pairs with a layer. Besides
// dtypePairs, the runtime accepts a UINT8 tensor for a 1-D SINGLE or
// FIXED_POINT16 output (classifier outputs of older compiles, which the
// runtime quantizes or clamps on the host).
func dtypeAccepted(tt TensorType, l *Layer, output bool) bool {
	if slices.Contains(dtypePairs[l.DataType], tt) {
		return true
	}
	return output && tt == TensorUint8 && l.Y == 1 && l.X == 1 && (l.DataType == Single || l.DataType == FixedPoint16)
}

// elementsAccepted says whether a tensor of n elements (shape dims) holds
// the layer: the runtime compares bytes against y*x*z*execution_count
// times a batch count taken from the first dimension when that divides
// evenly (libedgetpu tflite/custom_op.cc, ValidateInputsAndOutputs).
func elementsAccepted(n int64, dims []int32, l *Layer) bool {
	per := l.Elements()
	full := per * int64(max(l.ExecutionCount, 1))
	if n == per || n == full {
		return true
	}
	if len(dims) >= 1 && dims[0] > 1 && full > 0 {
		return n == int64(dims[0])*full
	}
	return false
}

func checkTensors(rep *diag.Report, loc string, t *TFLite, op *CustomOp, p *Package) {
	e := p.Main()
	if e == nil || op.Subgraph < 0 || op.Subgraph >= len(t.Subgraphs) {
		return
	}
	sg := &t.Subgraphs[op.Subgraph]
	top := &sg.Operators[op.Operator]
	for _, l := range e.OutputLayers {
		in := e.VariableInput(l)
		if in != nil && (in.DataType != l.DataType || in.Elements() != l.Elements()) {
			rep.Add(RuleVariableOutput, loc, "output %q (%s, %d elements) does not match input %q (%s, %d elements)", l.Name, l.DataType, l.Elements(), in.Name, in.DataType, in.Elements())
		}
	}
	pair := func(kind string, i int, ti int32, l *Layer) {
		if ti < 0 || int(ti) >= len(sg.Tensors) {
			rep.Add(RuleTensorMismatch, loc, "op %s %d: tensor index %d of %d", kind, i, ti, len(sg.Tensors))
			return
		}
		ten := &sg.Tensors[ti]
		if l.DataType.Size() == 0 {
			return // reported by data-type
		}
		n, known := int64(1), true
		for _, d := range ten.Shape {
			if d < 0 || (d > 0 && n > math.MaxInt64/int64(d)) {
				known = false // dynamic (-1) or absurd dimension: nothing to compare
				break
			}
			n *= int64(d)
		}
		switch {
		case !dtypeAccepted(ten.Type, l, kind == "output"):
			rep.Add(RuleTensorMismatch, loc, "%s %d: tensor %q is %s, layer %q is %s", kind, i, ten.Name, ten.Type, l.Name, l.DataType)
		case known && !elementsAccepted(n, ten.Shape, l):
			rep.Add(RuleTensorMismatch, loc, "%s %d: tensor %q has %d elements, layer %q %d", kind, i, ten.Name, n, l.Name, l.Elements())
		case l.Numerics != nil && len(ten.ZeroPoint) == 1 && !zeroPointMatches(ten.Type, l.DataType, ten.ZeroPoint[0], l.Numerics.ZeroPoint):
			rep.Add(RuleZeroPointMismatch, loc, "%s %d: tensor %q zero point %d, layer %q %d", kind, i, ten.Name, ten.ZeroPoint[0], l.Name, l.Numerics.ZeroPoint)
		}
	}
	// Inputs pair by position and must be as many as the layers.
	if len(top.Inputs) != len(e.InputLayers) {
		rep.Add(RuleTensorMismatch, loc, "%d op inputs but %d input layers", len(top.Inputs), len(e.InputLayers))
	} else {
		for i, ti := range top.Inputs {
			pair("input", i, ti, e.InputLayers[i])
		}
	}
	// Output layer i pairs with op output i; layers named *_variable_output
	// have no tensor (they are written back into inputs) and are skipped;
	// the op may list more outputs (libedgetpu tflite/custom_op.cc,
	// ValidateInputsAndOutputs).
	for i, l := range e.OutputLayers {
		if strings.HasSuffix(l.Name, VariableOutputSuffix) {
			continue
		}
		if i >= len(top.Outputs) {
			rep.Add(RuleTensorMismatch, loc, "output layer %d %q has no op output (the op has %d)", i, l.Name, len(top.Outputs))
			continue
		}
		pair("output", i, top.Outputs[i], l)
	}
}

// checkSlices verifies OutputShapeInfo arithmetically, in time bounded by
// the number of slices and dimensions (never by size_bytes): every slice has
// one range and one stride per dimension of the layer shape, its ranges lie
// inside the shape, its last element ends inside size_bytes, and the slices
// hold as many elements as the shape.
func checkSlices(l *Layer, si *OutputShapeInfo, es int) error {
	if len(l.Shape) == 0 {
		return fmt.Errorf("shape_info slices without a layer shape")
	}
	var want int64 = 1
	for d, r := range l.Shape {
		if r.End < r.Start {
			return fmt.Errorf("shape dimension %d: range [%d, %d] is empty", d, r.Start, r.End)
		}
		n := int64(r.End) - int64(r.Start) + 1
		if want > (1<<40)/n {
			return fmt.Errorf("shape too large")
		}
		want *= n
	}
	var got int64
	for i, s := range si.Slices {
		if len(s.Shape) != len(l.Shape) || len(s.Stride) != len(l.Shape) {
			return fmt.Errorf("slice %d has %d ranges and %d strides for a %d-dimensional shape", i, len(s.Shape), len(s.Stride), len(l.Shape))
		}
		n, last := int64(1), int64(si.Offsets[i])/int64(es)
		for d, r := range s.Shape {
			if r.End < r.Start || r.Start < l.Shape[d].Start || r.End > l.Shape[d].End {
				return fmt.Errorf("slice %d dimension %d: range [%d, %d] outside the shape [%d, %d]", i, d, r.Start, r.End, l.Shape[d].Start, l.Shape[d].End)
			}
			if s.Stride[d] < 0 {
				return fmt.Errorf("slice %d dimension %d: negative stride %d", i, d, s.Stride[d])
			}
			k := int64(r.End) - int64(r.Start) + 1
			if n > (1<<40)/k || (k-1) > (1<<40)/max(int64(s.Stride[d]), 1) || last > 1<<40 {
				return fmt.Errorf("slice %d is too large", i)
			}
			n *= k
			last += (k - 1) * int64(s.Stride[d])
		}
		if si.Offsets[i] < 0 || (last+1)*int64(es) > int64(l.SizeBytes) {
			return fmt.Errorf("slice %d at byte %d ends at byte %d, past size_bytes %d", i, si.Offsets[i], (last+1)*int64(es), l.SizeBytes)
		}
		got += n
		if got > 1<<40 {
			return fmt.Errorf("slices too large")
		}
	}
	if got != want {
		return fmt.Errorf("slices hold %d elements, the shape %d", got, want)
	}
	return nil
}

// zeroPointMatches accepts the layer zero point the runtime derives from a
// TFLite one: equal, or shifted into offset binary (+128 for 8-bit signed,
// +32768 for 16-bit signed) when either side is a signed type.
func zeroPointMatches(tt TensorType, dt DataType, tflite int64, layer int32) bool {
	z := int64(layer)
	switch {
	case z == tflite:
		return true
	case (tt == TensorInt8 || dt == SignedFixedPoint8) && z == tflite+128:
		return true
	case (tt == TensorInt16 || dt == SignedFixedPoint16) && z == tflite+32768:
		return true
	}
	return false
}
