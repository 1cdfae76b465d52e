package edgetpu

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/tflite"
)

// The Edge TPU compiler's mapping of an uncompiled TFLite model, predicted
// from the rules Coral publishes and calibrated against the compiler's own
// output on real models (../shared/corpus2/edgetpu-pairs: uncompiled models
// beside what the compiler made of them, and its logs).
//
// Sources of the rules:
//   - [req] coral.ai/docs/edgetpu/models-intro, "Model requirements": tensor
//     parameters quantized to 8 bits, tensor sizes constant at compile time,
//     tensors of 1, 2 or 3 dimensions (with more, only the 3 innermost may be
//     larger than 1), only the supported operations.
//   - [ops] the same page, "Supported operations", with each operation's
//     known limitations (no fused activation on pools and concatenation,
//     3-D resizes that may stay on the CPU to avoid a loss of precision,
//     default fully-connected weights, ...).
//   - [axis] the same table as Axis publishes it for the Edge TPU based
//     DLPU of its ARTPEC-7 (developer.axis.com, computer-vision/on-device/
//     system-on-chip/artpec-7/supported-ops): no padding or reduction in
//     the batch dimension, a Mean or Sum over channels only of a multiple
//     of 4, where Coral's text allows x and y only; compiled models side
//     with it (padLimit).
//   - [seg] Coral's page, "Compiling": the compiler maps one segment; ops
//     after an op it cannot map run on the CPU, even if supported. Compiler
//     16 (and the pairs it compiled) keeps mapping ops that do not depend on
//     the unmapped one (a parallel branch), as long as one segment results.
//   - [log] the compiler's per-operator status words, verbatim from its logs.

// ParameterCacheCapacity is what the compiler gives a model of the 8 MiB
// on-chip memory for caching parameters: its logs print the cache used plus
// the cache remaining as 6.87, 7.01 and 7.14 MiB (the shared logs of
// compilers 2.1 and 16; the rest holds other data). Beyond it, parameters
// are streamed every inference.
const ParameterCacheCapacity = 7 << 20

// Compiler status words, verbatim from edgetpu_compiler logs.
const (
	StatusMapped       = "Mapped to Edge TPU"
	StatusDataType     = "Operation is working on an unsupported data type"
	StatusUnspecified  = "Operation is otherwise supported, but not mapped due to some unspecified limitation"
	StatusRank         = "Tensor has unsupported rank (up to 3 innermost dimensions mapped)"
	StatusNotSupported = "Operation not supported"
	StatusSubgraph     = "More than one subgraph is not supported"
)

// PlanOptions selects the compiler generation to predict.
type PlanOptions struct {
	// Compiler is the Edge TPU compiler's major version: 16 (the last
	// release, the default) maps ops that do not depend on an unmapped one;
	// 15 and older stop at the first unmapped op after the segment starts.
	// Operations that a release added are not mapped by older ones
	// (opMinCompiler).
	Compiler int `json:"compiler"`
	// The compiler's own options (edgetpu_compiler --help), same meaning:
	// MultipleSubgraphs (-a, --enable_multiple_subgraphs) lets the
	// compiler make several Edge TPU subgraphs, so an op after a CPU op
	// maps again; SearchDelegate (-d, --search_delegate, with its step
	// -k, --delegate_search_step) searches the graph for further
	// delegable parts past an unmapped op, which also yields several Edge
	// TPU subgraphs (compiled models of both kinds hold several
	// edgetpu-custom-ops); IntermediateTensors (-i,
	// --intermediate_tensors) end the Edge TPU segment at the named
	// tensors; MinRuntimeVersion (-m, --min_runtime_version) and
	// NumSegments (-n, --num_segments, a pipeline) above 1 are not
	// modelled (Validate refuses them).
	MultipleSubgraphs   bool     `json:"enable_multiple_subgraphs,omitempty"`
	SearchDelegate      bool     `json:"search_delegate,omitempty"`
	DelegateSearchStep  int      `json:"delegate_search_step,omitempty"`
	IntermediateTensors []string `json:"intermediate_tensors,omitempty"`
	MinRuntimeVersion   int      `json:"min_runtime_version,omitempty"`
	NumSegments         int      `json:"num_segments,omitempty"`
}

// Validate refuses the options the plan would not honour, so that none is
// accepted silently: -n (--num_segments) above 1 and -m
// (--min_runtime_version) are not modelled, -k (--delegate_search_step)
// applies to -d's search only and the plan predicts that search at its
// finest step (1, the compiler's default), and every -i name must be a
// tensor of the model's main subgraph. Compiler is a major version, 1..16.
func (opt PlanOptions) Validate(t *tflite.Model) error {
	if opt.Compiler != 0 && (opt.Compiler < 1 || opt.Compiler > 16) {
		return fmt.Errorf("--compiler %d: want a compiler major version, 1..16", opt.Compiler)
	}
	if opt.DelegateSearchStep < 0 || opt.NumSegments < 0 || opt.MinRuntimeVersion < 0 {
		return fmt.Errorf("-k, -m and -n take positive numbers")
	}
	if opt.NumSegments > 1 {
		return fmt.Errorf("-n %d (--num_segments) is not modelled: the compiler then splits the model into %d pipeline segments, each its own package run on its own Edge TPU, with its own parameter cache and the intermediate tensors crossing the host link; plan predicts the unsegmented model (-n 1). Compile with -n and give the segments to npukit sim (each segment) or npukit edgetpu memory (the pipeline's slowest segment)",
			opt.NumSegments, opt.NumSegments)
	}
	if opt.MinRuntimeVersion > 0 {
		return fmt.Errorf("-m %d (--min_runtime_version) is not modelled: it sets the runtime version the package requires, and for an older runtime the compiler may leave out what that runtime lacks, which plan does not predict; plan predicts the compiler's default. npukit check reads the version a compiled file requires", opt.MinRuntimeVersion)
	}
	if opt.DelegateSearchStep > 0 && !opt.SearchDelegate {
		return fmt.Errorf("-k %d (--delegate_search_step) applies to the search of -d (--search_delegate) only: give -d too, or leave -k out", opt.DelegateSearchStep)
	}
	if opt.DelegateSearchStep > 1 {
		return fmt.Errorf("-k %d (--delegate_search_step) is not modelled: plan predicts -d's search at its finest step, 1 (the compiler's default); a larger step can find less to map", opt.DelegateSearchStep)
	}
	if len(opt.IntermediateTensors) > 0 {
		names := map[string]bool{}
		if len(t.Subgraphs) > 0 {
			for _, x := range t.Subgraphs[0].Tensors {
				names[x.Name] = true
			}
		}
		var missing []string
		for _, n := range opt.IntermediateTensors {
			if !names[n] {
				missing = append(missing, fmt.Sprintf("%q", n))
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("-i (--intermediate_tensors): no tensor of the model's main subgraph is named %s (npukit inspect lists the tensors; plan's cut_tensors are the hand-over points)", strings.Join(missing, ", "))
		}
	}
	return nil
}

// OpPlan is the prediction for one operator.
type OpPlan struct {
	Subgraph  int             `json:"subgraph"`
	Index     int             `json:"index"`
	Op        string          `json:"op"`
	Placement string          `json:"placement"` // "TPU" or "CPU"
	Status    string          `json:"status"`    // the compiler's words
	Reason    string          `json:"reason,omitempty"`
	Fix       string          `json:"fix,omitempty"`
	Uncertain string          `json:"uncertain,omitempty"` // why the rules cannot decide, when they cannot
	Inputs    []TensorSummary `json:"inputs"`
	Outputs   []TensorSummary `json:"outputs"`
}

// Plan is the predicted mapping of a model.
type Plan struct {
	Compiler int         `json:"compiler"`
	Options  PlanOptions `json:"options"`
	// Segments is the number of Edge TPU subgraphs (custom ops) the
	// compiler would make: 1, or more with -a.
	Segments int      `json:"edgetpu_subgraphs"`
	Ops      []OpPlan `json:"operators"`
	TPU      int      `json:"tpu_ops"`
	CPU      int      `json:"cpu_ops"`
	// Cut are the tensors where the Edge TPU segment hands over to the
	// CPU: the names to give the compiler's -i (--intermediate_tensors)
	// option to end the segment there explicitly.
	Cut []string `json:"cut_tensors,omitempty"`
	// Parameters estimates the constant bytes (weights, biases) of the
	// mapped ops against the 8 MiB on-chip memory.
	Parameters ParamEstimate `json:"parameters"`
	// Spill is the predicted activation spill to host memory (scratch),
	// nil when none is predicted.
	Spill *ActivationSpill `json:"activation_spill,omitempty"`
	// Package is what the compiled package would move every inference.
	Package *PackageEstimate `json:"package,omitempty"`
	Notes   []string         `json:"notes,omitempty"`
	// Latency is the estimated inference time of the predicted mapping
	// on a host class (set by the caller: EstimatePlan).
	Latency *Latency `json:"latency,omitempty"`
}

// ParamEstimate is the parameter memory of the mapped ops.
type ParamEstimate struct {
	// Bytes are the TFLite constant bytes of the mapped ops.
	Bytes int64 `json:"bytes"`
	// Compiled are the same parameters in the compiler's layout (output
	// channels padded, a bias and requantization word per channel), which
	// OnChip and Streamed split as the compiler does.
	Compiled int64 `json:"compiled_bytes"`
	OnChip   int64 `json:"on_chip_bytes"`
	Streamed int64 `json:"streamed_bytes"`
}

// verdict is the per-op mappability before the segment rule.
type verdict struct {
	ok        bool
	status    string
	reason    string
	fix       string
	uncertain string
}

// supportedOps are the builtin operations of [ops].
var supportedOps = map[string]bool{
	"ADD": true, "AVERAGE_POOL_2D": true, "CONCATENATION": true, "CONV_2D": true, "DEPTHWISE_CONV_2D": true,
	"EXPAND_DIMS": true, "FULLY_CONNECTED": true, "HARD_SWISH": true, "L2_NORMALIZATION": true, "LOGISTIC": true,
	"UNIDIRECTIONAL_SEQUENCE_LSTM": true, "MAXIMUM": true, "MAX_POOL_2D": true, "MEAN": true, "MINIMUM": true,
	"MUL": true, "PACK": true, "PAD": true, "PRELU": true, "QUANTIZE": true, "REDUCE_MAX": true, "REDUCE_MIN": true,
	"RELU": true, "RELU6": true, "RELU_N1_TO_1": true, "RESHAPE": true, "RESIZE_BILINEAR": true,
	"RESIZE_NEAREST_NEIGHBOR": true, "RSQRT": true, "SLICE": true, "SOFTMAX": true, "SPACE_TO_DEPTH": true,
	"SPLIT": true, "SQUARED_DIFFERENCE": true, "SQUEEZE": true, "STRIDED_SLICE": true, "SUB": true, "SUM": true,
	"TANH": true, "TRANSPOSE": true, "TRANSPOSE_CONV": true, "TILE": true,
}

// opMinCompiler is the first compiler release that maps an operation
// (older ones say "Operation not supported"): UNIDIRECTIONAL_SEQUENCE_LSTM
// is mapped by compiler 16 only (compiled models of the shared corpus).
var opMinCompiler = map[string]int{"UNIDIRECTIONAL_SEQUENCE_LSTM": 16}

// Size limits the compiler applies without documenting them (Coral's
// operations table says only that some reshapes and resizes "might not be
// mapped for large tensor sizes"). Each is inferred from compiled models and
// carries an uncertainty band: a decision whose size falls in the band is
// marked uncertain, whichever way it goes.
type sizeLimit struct {
	limit, low, high int64 // refused above limit; uncertain within [low, high]
	seen             string
}

var (
	// transposeLimit: compiler 16 mapped transposes of 14,400, 57,600 and
	// 86,016 elements moving the innermost dimension (the last in the
	// shared YOLOv8n-256 log) and about 70,000 keeping it, and refused
	// 112,000 (moving it) and 134,400 (keeping it): YOLOv8 detection
	// heads. The limit sits in the middle of both ranges. Public pairs
	// never used for fitting agree: a YOLOv8 head's [1 40 40 65] moved to
	// [1 65 40 40] (104,000) and a [1 28 28 144] one (112,896) refused.
	transposeLimit = sizeLimit{limit: 100_000, low: 70_000, high: 135_000, seen: "mapped up to 86,016 elements moving the innermost dimension and about 70,000 keeping it; refused from 104,000"}
	// innerTwoLimit: operators other than the matrix ones (CONV_2D,
	// DEPTHWISE_CONV_2D, FULLY_CONNECTED) are refused once a tensor's two
	// innermost dimensions hold about 200,000 elements: 80x2100 (168,000)
	// mapped, 144x1600 (230,400) and 80x8400 (672,000) refused.
	innerTwoLimit = sizeLimit{limit: 200_000, low: 150_000, high: 300_000, seen: "seen mapped at 168,000 and 194,880 and refused from 230,400 elements"}
	// sliceLimit: STRIDED_SLICE refuses a smaller input: [1, 145, 1344]
	// (194,880) was refused where a CONCATENATION writing the same tensor
	// was not (YOLOv8n at 256, whose log is shared).
	sliceLimit = sizeLimit{limit: 180_000, low: 120_000, high: 200_000, seen: "STRIDED_SLICE refused reading 194,880 elements"}
	// reshapeLimit: reshapes of 921,600 elements mapped; "about a
	// million" refused.
	reshapeLimit = sizeLimit{limit: 1_000_000, low: 900_000, high: 2_000_000, seen: "seen mapped at 921,600 elements; refused around a million"}
	// resizeLimit: RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR with millions
	// of outputs were refused even at whole-number factors.
	resizeLimit = sizeLimit{limit: 1_500_000, low: 750_000, high: 3_000_000, seen: "refused with millions of output elements"}
)

// check applies the limit to n: refused, and why the decision is
// uncertain when n is in the band ("" otherwise).
func (l sizeLimit) check(n int64) (refused bool, uncertain string) {
	if n >= l.low && n <= l.high {
		uncertain = fmt.Sprintf("%s elements is near an inferred limit (about %s; %s): no public documentation gives it", humanize.Count(n), humanize.Count(l.limit), l.seen)
	}
	return n > l.limit, uncertain
}

// softmaxMaxAxis: Coral's operations table allows SOFTMAX over at most
// 16,000 elements; the compiler counts the softmax axis (the innermost
// dimension): YOLOv8's [1, 4, 2100, 16] softmaxes map.
const softmaxMaxAxis = 16000

// PlanModel predicts the compiler's mapping of the model's operators.
func PlanModel(t *tflite.Model, opt PlanOptions) *Plan {
	if opt.Compiler == 0 {
		opt.Compiler = 16
	}
	p := &Plan{Compiler: opt.Compiler, Options: opt}
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		if si > 0 {
			for oi := range sg.Operators {
				op := &sg.Operators[oi]
				p.add(t, sg, si, oi, op, "CPU", verdict{status: StatusSubgraph,
					reason: "the compiler maps the first subgraph only [seg]",
					fix:    "inline the subgraph (control flow such as WHILE or IF creates subgraphs), or keep this part on the CPU"})
			}
			continue
		}
		planSubgraph(p, t, sg, opt)
	}
	for _, o := range p.Ops {
		if o.Placement == "TPU" {
			p.TPU++
		} else {
			p.CPU++
		}
	}
	if p.TPU > 0 && len(t.Subgraphs) > 0 {
		planParameters(p, t)
		s := segmentOf(t, p)
		planSpill(p, t, s)
		planPackage(p, t, s)
	}
	return p
}

func planSubgraph(p *Plan, t *tflite.Model, sg *tflite.Subgraph, opt PlanOptions) {
	n := len(sg.Tensors)
	tpuDep := make([]bool, n)   // depends on an Edge TPU op's output
	afterCPU := make([]bool, n) // depends on a CPU op that depends on the Edge TPU
	level := make([]int, n)     // the Edge TPU subgraph (1..) the tensor last came from, 0: none
	cut := make([]bool, n)      // at or after an -i tensor
	for i := range sg.Tensors {
		if slices.Contains(opt.IntermediateTensors, sg.Tensors[i].Name) {
			cut[i] = true
		}
	}
	multi := opt.MultipleSubgraphs || opt.SearchDelegate
	started, stopped := false, false
	for oi := range sg.Operators {
		op := &sg.Operators[oi]
		v := mappable(t, sg, op, opt.Compiler)
		depTPU, depAfter, depCut := false, false, false
		lvl, raw := 0, 0
		for _, i := range op.Inputs {
			if i >= 0 && int(i) < n {
				depTPU = depTPU || tpuDep[i]
				depAfter = depAfter || afterCPU[i]
				depCut = depCut || cut[i]
				l := level[i]
				raw = max(raw, l)
				if afterCPU[i] {
					l++
				}
				lvl = max(lvl, l)
			}
		}
		place := "CPU"
		switch {
		case !v.ok:
			if started && opt.Compiler < 16 && !multi {
				stopped = true
			}
		case depCut:
			v = verdict{status: StatusSubgraph, reason: "it depends on a tensor named with -i (--intermediate_tensors): the Edge TPU segment ends there and the rest runs on the CPU",
				fix: "name later tensors with -i to map more"}
		case (depAfter || stopped) && !multi:
			// A second Edge TPU segment would be needed [seg].
			v = verdict{status: StatusSubgraph, reason: "supported, but it depends on (or, before compiler 16, follows) an op that runs on the CPU after the Edge TPU segment: mapping it would need a second segment [seg]",
				fix: "make the op that left the Edge TPU mappable, cut the model there (-i) and accept the CPU part, or compile with -a (--enable_multiple_subgraphs)"}
		default:
			place = "TPU"
			started = true
		}
		if place == "TPU" {
			lvl = max(lvl, 1)
			p.Segments = max(p.Segments, lvl)
		} else {
			lvl = raw
		}
		for _, o := range op.Outputs {
			if o < 0 || int(o) >= n {
				continue
			}
			cut[o] = cut[o] || depCut
			level[o] = lvl
			if place == "TPU" {
				tpuDep[o] = true
				afterCPU[o] = false
			} else {
				tpuDep[o] = depTPU
				afterCPU[o] = depTPU || depAfter
			}
		}
		p.add(t, sg, 0, oi, op, place, v)
	}
	// The hand-over points: outputs of Edge TPU ops read by CPU ops.
	handover := map[string]bool{}
	for oi, o := range p.Ops {
		if o.Subgraph != 0 || o.Placement != "CPU" {
			continue
		}
		for _, i := range sg.Operators[oi].Inputs {
			if i >= 0 && int(i) < n && tpuDep[i] && producedOnTPU(p, sg, i) && !handover[sg.Tensors[i].Name] {
				handover[sg.Tensors[i].Name] = true
				p.Cut = append(p.Cut, sg.Tensors[i].Name)
			}
		}
	}
}

// producedOnTPU reports whether an Edge TPU op of subgraph 0 writes tensor i.
func producedOnTPU(p *Plan, sg *tflite.Subgraph, i int32) bool {
	for oi, o := range p.Ops {
		if o.Subgraph == 0 && o.Placement == "TPU" && slices.Contains(sg.Operators[oi].Outputs, i) {
			return true
		}
	}
	return false
}

func (p *Plan) add(t *tflite.Model, sg *tflite.Subgraph, si, oi int, op *tflite.Operator, place string, v verdict) {
	o := OpPlan{Subgraph: si, Index: oi, Op: t.OperatorCodes[op.OpcodeIndex].Label(), Placement: place,
		Status: v.status, Reason: v.reason, Fix: v.fix, Uncertain: v.uncertain,
		Inputs: tensorSummaries(t, sg, op.Inputs), Outputs: tensorSummaries(t, sg, op.Outputs)}
	if place == "TPU" {
		o.Status, o.Fix = StatusMapped, ""
		for _, i := range op.Inputs {
			if i >= 0 && int(i) < len(sg.Tensors) && t.IsConstant(&sg.Tensors[i]) {
				p.Parameters.Bytes += t.BufferSizes[sg.Tensors[i].Buffer]
			}
		}
	}
	p.Ops = append(p.Ops, o)
}

// dynamicBeyondBatch reports a dynamic dimension other than the batch: the
// compiler compiles a dynamic batch as 1 (models exported with shape
// signature [-1 224 224 3] compile fully in the shared pairs).
func dynamicBeyondBatch(t *tflite.Tensor) bool {
	for i, d := range t.ShapeSignature {
		if d < 0 && i > 0 {
			return true
		}
	}
	for _, d := range t.Shape {
		if d < 0 {
			return true
		}
	}
	return false
}

// short shortens a tensor name for a message (converters join the names
// of fused ops with ';' into names of hundreds of characters).
func shortName(name string) string { return humanize.Shorten(name, 60) }

// eightBit reports whether a type is one the Edge TPU computes on.
func eightBit(tt tflite.TensorType) bool {
	return tt == tflite.TensorInt8 || tt == tflite.TensorUint8
}

// mappable applies [req] and [ops] to one operator.
func mappable(t *tflite.Model, sg *tflite.Subgraph, op *tflite.Operator, compiler int) verdict {
	code := t.OperatorCodes[op.OpcodeIndex]
	name := code.Name()
	tensor := func(i int32) *tflite.Tensor {
		if i < 0 || int(i) >= len(sg.Tensors) {
			return nil
		}
		return &sg.Tensors[i]
	}
	if code.Custom() {
		v := verdict{status: StatusNotSupported, reason: fmt.Sprintf("custom operator %q: the Edge TPU runs builtin operations only [ops]", code.CustomCode),
			fix: "keep it on the CPU after the Edge TPU segment, or express it with supported builtin operations"}
		// The compiler words a custom operator with float tensors (a
		// detection post-processing op) by its data type: every CUSTOM
		// row of the shared logs says "unsupported data type".
		for _, list := range [][]int32{op.Inputs, op.Outputs} {
			for _, i := range list {
				if ten := tensor(i); ten != nil && !t.IsConstant(ten) && !eightBit(ten.Type) {
					v.status = StatusDataType
				}
			}
		}
		return v
	}
	if v, ok := opMinCompiler[name]; ok && compiler < v {
		return verdict{status: StatusNotSupported, reason: fmt.Sprintf("%s is mapped from Edge TPU compiler %d on; compiler %d does not map it", name, v, compiler),
			fix: fmt.Sprintf("compile with Edge TPU compiler %d or newer", v)}
	}
	// Rank comes before data types: the compiler reports the fp16 weight
	// DEQUANTIZEs of a float16 model ([64, 3, 3, 32] float outputs) as
	// "Tensor has unsupported rank", not as an unsupported data type.
	if v, bad := rankVerdict(t, op, name, tensor); bad {
		return v
	}
	lstm := name == "UNIDIRECTIONAL_SEQUENCE_LSTM"
	// Activations (non-constant tensors) must be 8-bit; QUANTIZE may take
	// a float input only at the model's edge, which the compiler leaves on
	// the CPU [log: QUANTIZE "otherwise supported"]. An LSTM's variable
	// tensors are its state, not activations: TFLite's int8 LSTM keeps the
	// cell state in int16 (compiled models map it).
	for _, list := range [][]int32{op.Inputs, op.Outputs} {
		for _, i := range list {
			ten := tensor(i)
			if ten == nil || t.IsConstant(ten) || eightBit(ten.Type) {
				continue
			}
			if lstm && ten.IsVariable && ten.Type == tflite.TensorInt16 {
				continue
			}
			if name == "QUANTIZE" {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("converts %s tensor %q: a float/integer conversion at the model's edge runs on the CPU", ten.Type, shortName(ten.Name)),
					fix: "give the model int8/uint8 inputs and outputs (converter inference_input_type/inference_output_type), so no conversion is needed"}
			}
			v := verdict{status: StatusDataType, reason: fmt.Sprintf("tensor %q is %s: the Edge TPU computes on 8-bit quantized tensors only [req]", shortName(ten.Name), ten.Type),
				fix: "quantize the whole model to int8 (full-integer post-training quantization with a representative dataset, or quantization-aware training)"}
			if !supportedOps[name] {
				v.reason += "; " + name + " is not among the supported operations either [ops]"
				v.fix = "keep it on the CPU after the Edge TPU segment (its result is not 8-bit by nature), or replace it with supported operations"
			}
			return v
		}
	}
	if !supportedOps[name] {
		return verdict{status: StatusNotSupported, reason: name + " is not among the Edge TPU's supported operations [ops]",
			fix: "replace it with supported operations, or let the segment end before it (-i) and run the rest on the CPU"}
	}
	// Weights must be quantized too.
	for _, i := range op.Inputs {
		if ten := tensor(i); ten != nil && t.IsConstant(ten) && !eightBit(ten.Type) && ten.Type != tflite.TensorInt32 && ten.Type != tflite.TensorInt64 && !(lstm && ten.Type == tflite.TensorInt16) {
			return verdict{status: StatusDataType, reason: fmt.Sprintf("constant %q is %s: parameters must be quantized [req]", shortName(ten.Name), ten.Type),
				fix: "quantize the weights to 8 bits (full-integer quantization)"}
		}
	}
	// Dimensions: static, and at most 3 larger than 1.
	for _, list := range [][]int32{op.Inputs, op.Outputs} {
		for _, i := range list {
			ten := tensor(i)
			if ten == nil || t.IsConstant(ten) {
				continue
			}
			if dynamicBeyondBatch(ten) {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("tensor %q has a dynamic dimension (shape signature %v): sizes must be constant at compile time [req]", shortName(ten.Name), ten.ShapeSignature),
					fix: "export the model with fixed input shapes"}
			}
		}
	}
	return opLimits(t, sg, op, name, tensor, compiler)
}

// rankVerdict applies [req]'s rank rule: a tensor of more than 3
// dimensions may be larger than 1 in its 3 innermost dimensions only
// (Coral: "only the 3 innermost dimensions may be larger than 1"), so
// [64, 1, 1, 32] breaks it as [64, 3, 3, 32] does: the compiler's logs of
// two float16 models give every 4-D weight DEQUANTIZE this status, 1x1
// filters included. A convolution's filter operand is 4-D by nature and
// not held to it: those logs word every float CONV_2D by its data type.
func rankVerdict(t *tflite.Model, op *tflite.Operator, name string, tensor func(int32) *tflite.Tensor) (verdict, bool) {
	for side, list := range [][]int32{op.Inputs, op.Outputs} {
		for k, i := range list {
			ten := tensor(i)
			if ten == nil || t.IsConstant(ten) || len(ten.Shape) <= 3 || (side == 0 && k == 1 && filterOperand[name]) {
				continue
			}
			for _, d := range ten.Shape[:len(ten.Shape)-3] {
				if d > 1 {
					return verdict{status: StatusRank, reason: fmt.Sprintf("tensor %q %v is larger than 1 outside its 3 innermost dimensions; the Edge TPU maps only those [req]", shortName(ten.Name), ten.Shape),
						fix: "reshape so that only the 3 innermost dimensions are larger than 1"}, true
				}
			}
		}
	}
	return verdict{}, false
}

// filterOperand are the operators whose input 1 is a 4-D filter.
var filterOperand = map[string]bool{"CONV_2D": true, "DEPTHWISE_CONV_2D": true, "TRANSPOSE_CONV": true}

// opLimits applies the known limitations of [ops] and the calibrated ones.
func opLimits(t *tflite.Model, sg *tflite.Subgraph, op *tflite.Operator, name string, tensor func(int32) *tflite.Tensor, compiler int) verdict {
	ok := verdict{ok: true}
	in := func(k int) *tflite.Tensor {
		if k < len(op.Inputs) {
			return tensor(op.Inputs[k])
		}
		return nil
	}
	out := func(k int) *tflite.Tensor {
		if k < len(op.Outputs) {
			return tensor(op.Outputs[k])
		}
		return nil
	}
	limit := func(reason, fix string) verdict {
		return verdict{status: StatusUnspecified, reason: reason + " [ops]", fix: fix}
	}
	switch name {
	case "AVERAGE_POOL_2D", "MAX_POOL_2D":
		if op.OptionInt(5, 1, 0) != 0 { // Pool2DOptions.fused_activation_function
			return limit(name+" with a fused activation function", "apply the activation as a separate operation")
		}
	case "CONCATENATION":
		if op.OptionInt(1, 1, 0) != 0 { // ConcatenationOptions.fused_activation_function
			return limit("CONCATENATION with a fused activation function", "apply the activation as a separate operation")
		}
		for k := range op.Inputs {
			if ten := in(k); ten != nil && t.IsConstant(ten) {
				if len(op.Inputs) != 2 {
					return limit("a constant input among more than two inputs (a constant input is allowed only as the zero half of a two-input concatenation)", "concatenate the constant separately, or fold it into the model")
				}
				if !allZero(t.Constant(ten)) {
					return limit("a constant input that is not all zeroes", "use a PAD instead, or compute the constant part elsewhere")
				}
			}
		}
	case "FULLY_CONNECTED":
		if op.OptionInt(1, 1, 0) != 0 { // FullyConnectedOptions.weights_format
			return limit("FULLY_CONNECTED with non-default (shuffled) weights", "convert with the default weights format")
		}
	case "MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN":
		if x := in(0); x != nil && in(1) != nil {
			if axes, ok := t.Ints(in(1)); ok {
				if v := reduceLimit(name, axes, x.Shape, compiler); !v.ok {
					return v
				}
			}
		}
	case "PAD":
		if x, pads := in(0), in(1); x != nil && pads != nil {
			if v, ok := t.Ints(pads); ok && len(v) == 2*len(x.Shape) && len(x.Shape) == 4 {
				if v := padLimit(v, compiler); !v.ok {
					return v
				}
			}
		}
	case "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR":
		x, y := in(0), out(0)
		if x == nil || y == nil || len(x.Shape) != 4 || len(y.Shape) != 4 {
			break
		}
		if x.Shape[0] != 1 {
			return limit(name+" of a batch larger than 1: the input/output must be 3-dimensional", "resize one image at a time")
		}
		alignSlot := 0
		if name == "RESIZE_BILINEAR" {
			alignSlot = 2 // ResizeBilinearOptions.align_corners
		}
		align := op.OptionBool(alignSlot)
		for _, d := range [][2]int32{{x.Shape[1], y.Shape[1]}, {x.Shape[2], y.Shape[2]}} {
			if d[0] == d[1] {
				continue
			}
			if d[0] <= 1 {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s from a %d-pixel dimension: the compiler keeps resizes that could lose precision on the CPU [ops]", name, d[0]),
					fix:       "broadcast a 1x1 map with a supported op (e.g. a multiply or a tiled concatenation), or resize on the CPU",
					uncertain: "the documentation says only that a resize \"may not be mapped\" depending on its sizes; npukit predicts the CPU for an upsampling of a 1-pixel dimension and for a factor that is not a whole number"}
			}
			num, den := int64(d[1]), int64(d[0])
			if align {
				num, den = num-1, den-1
			}
			if den <= 0 || num%den != 0 {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s by a factor of %d/%d, not a whole number: the compiler keeps resizes that could lose precision on the CPU [ops]", name, num, den),
					fix:       "resize by a whole factor",
					uncertain: "the documentation says only that a resize \"may not be mapped\" depending on its sizes; npukit predicts the CPU for an upsampling of a 1-pixel dimension and for a factor that is not a whole number"}
			}
		}
	case "SOFTMAX":
		if x := in(0); x != nil && len(x.Shape) > 0 {
			if n := int64(x.Shape[len(x.Shape)-1]); n > softmaxMaxAxis {
				return limit(fmt.Sprintf("SOFTMAX over an axis of %s elements (at most 16,000)", humanize.Count(int64(n))), "apply softmax on the CPU, or over fewer elements")
			}
		}
	case "SPLIT":
		if v := splitLimit(t, in(0), in(1), len(op.Outputs)); !v.ok {
			return v
		}
	case "TILE":
		// Undocumented, seen in compiled models: TILE maps on 8-bit
		// tensors when it replicates along height and width only.
		x, mult := in(0), in(1)
		m, okm := []int64(nil), false
		if mult != nil {
			m, okm = t.Ints(mult)
		}
		if x == nil || !okm || len(m) != len(x.Shape) {
			return verdict{status: StatusUnspecified, reason: "TILE whose multiples are not a constant of the input's rank", fix: "tile with constant multiples along height and width"}
		}
		for k, v := range m {
			hw := len(m) >= 3 && (k == len(m)-3 || k == len(m)-2)
			if v != 1 && !hw {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("TILE with multiples %v replicates along a dimension other than height and width: the compiler maps TILE (undocumented) only along height and width", m),
					fix:       "replicate along height/width only (reshape first), or tile on the CPU",
					uncertain: "TILE is not in Coral's operations table; the rule is inferred from compiled models"}
			}
		}
	case "TRANSPOSE":
		x := in(0)
		if x == nil || in(1) == nil {
			break
		}
		v, _ := t.Ints(in(1))
		refused, unc := transposeLimit.check(x.Elements())
		if refused {
			return verdict{status: StatusUnspecified,
				reason:    fmt.Sprintf("TRANSPOSE %v of %s elements: compiler 16 maps transposes only when they are small (%s)", v, humanize.Count(int64(x.Elements())), transposeLimit.seen),
				fix:       "transpose on the CPU after the Edge TPU segment (cut there with -i), or avoid the transpose",
				uncertain: unc}
		}
		ok.uncertain = unc
	case "RESHAPE":
		if y := out(0); y != nil {
			refused, unc := reshapeLimit.check(y.Elements())
			if refused {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("RESHAPE of %s elements: the compiler refuses very large reshapes (%s) [ops: \"might not be mapped for large tensor sizes\"]", humanize.Count(int64(y.Elements())), reshapeLimit.seen),
					fix: "reshape a smaller tensor, or on the CPU", uncertain: unc}
			}
			ok.uncertain = unc
		}
	}
	if name == "RESIZE_BILINEAR" || name == "RESIZE_NEAREST_NEIGHBOR" {
		if y := out(0); y != nil {
			refused, unc := resizeLimit.check(y.Elements())
			if refused {
				return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s to %s output elements: the compiler refuses resizes with millions of outputs, even by whole factors (%s) [ops]", name, humanize.Count(int64(y.Elements())), resizeLimit.seen),
					fix: "resize to a smaller output, or on the CPU", uncertain: unc}
			}
			if unc != "" {
				ok.uncertain = unc
			}
		}
	}
	if !innerTwoExempt[name] {
		for _, list := range [][]int32{op.Inputs, op.Outputs} {
			for _, i := range list {
				ten := tensor(i)
				if ten == nil || t.IsConstant(ten) || len(ten.Shape) < 2 {
					continue
				}
				d := ten.Shape[len(ten.Shape)-2:]
				n := int64(max(d[0], 0)) * int64(max(d[1], 0))
				lim := innerTwoLimit
				if name == "STRIDED_SLICE" {
					lim = sliceLimit
				}
				refused, unc := lim.check(n)
				if refused {
					return verdict{status: StatusUnspecified, reason: fmt.Sprintf("tensor %q %v: its two innermost dimensions hold %s elements; the compiler refuses operators other than convolutions and fully-connected layers on such tensors (%s)", shortName(ten.Name), ten.Shape, humanize.Count(int64(n)), lim.seen),
						fix: "keep such tensors on the CPU side of the segment (cut with -i), or lay them out with fewer elements in the two innermost dimensions", uncertain: unc}
				}
				if unc != "" && ok.uncertain == "" {
					ok.uncertain = unc
				}
			}
		}
	}
	return ok
}

// innerTwoExempt are the operators the two-innermost-dimensions limit does
// not apply to: the matrix operators. The compiler's per-type counts show
// it on RESHAPE (refused at 230,400, not at 134,400) and STRIDED_SLICE
// (refused reading 302,400) as on element-wise operators.
var innerTwoExempt = map[string]bool{"CONV_2D": true, "DEPTHWISE_CONV_2D": true, "FULLY_CONNECTED": true, "TRANSPOSE_CONV": true}

// padLimit applies the PAD limitation to the paddings of an NHWC tensor.
// Coral's operations table allows padding along x and/or y only; the
// same table as Axis publishes it for its Edge TPU based ARTPEC-7 DLPU
// ([axis]: "No padding in batch dimension") does not, and compiled
// models agree with the latter: two public face models (BlazeFace-style
// [0 0 0 0 0 0 0 k] channel PADs) have them all inside the Edge TPU op,
// and their logs say compiler 15.0 mapped them. No public log shows what
// compilers 14 and older do: they are predicted by Coral's text, flagged
// uncertain where it decides.
func padLimit(v []int64, compiler int) verdict {
	if v[0] != 0 || v[1] != 0 {
		return verdict{status: StatusUnspecified, reason: fmt.Sprintf("PAD of the batch dimension (paddings %v): no padding in the batch dimension [axis]", v), fix: "pad height, width or channels only"}
	}
	if (v[6] != 0 || v[7] != 0) && compiler < 15 {
		return verdict{status: StatusUnspecified, reason: fmt.Sprintf("PAD of the channel dimension (paddings %v): Coral's operations table allows padding along x and/or y only, and compilers 14 and older are predicted by it [ops]", v),
			fix: "pad height and width only, or compile with a newer compiler", uncertain: oldOpsTable}
	}
	return verdict{ok: true}
}

// reduceLimit applies the limitations of MEAN and SUM ([axis]: "No
// reduction in batch dimension. If a z-reduction, the z-dimension must be
// multiple of 4"; Coral's table: x and/or y only) and of REDUCE_MAX and
// REDUCE_MIN ("Cannot operate on the batch dimension") to the axes
// (negative counted from the end) of an NHWC tensor, as padLimit does:
// compilers 14 and older by Coral's text, flagged uncertain where it
// decides. No public pair reduces over channels yet, so the multiple of 4
// is the table's alone.
func reduceLimit(name string, axes []int64, shape []int32, compiler int) verdict {
	rank := len(shape)
	if rank != 4 {
		return verdict{ok: true}
	}
	z := false
	for _, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		switch a {
		case 0:
			return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s over axes %v: no reduction in the batch dimension [axis]", name, axes), fix: "reduce over height, width or channels only (reshape first)"}
		case 3:
			z = true
		}
	}
	if !z {
		return verdict{ok: true}
	}
	if compiler < 15 {
		return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s over axes %v: Coral's operations table allows reductions along x and/or y only, and compilers 14 and older are predicted by it [ops]", name, axes),
			fix: "reduce over height and width only (reshape first), or compile with a newer compiler", uncertain: oldOpsTable}
	}
	if (name == "MEAN" || name == "SUM") && shape[3]%4 != 0 {
		return verdict{status: StatusUnspecified, reason: fmt.Sprintf("%s over the channel dimension of %d channels: a z-reduction needs a multiple of 4 channels [axis]", name, shape[3]), fix: "pad the channels to a multiple of 4, or reduce on the CPU"}
	}
	return verdict{ok: true}
}

// splitLimit applies what compiled models show of SPLIT (its axis, the
// tensor split and the number of parts): compiler 16 leaves a split along
// axis 0 of a 3-D tensor on the CPU when that axis is larger than 1. No
// public document states it for Split; the operations table as Axis
// publishes it ([axis]) forbids padding, packing and reducing in the batch
// dimension, and axis 0 would be the batch. Public evidence (npukit's scan of every public
// uncompiled/compiled pair and compiled model it could reach), refused:
// 82 splits of [8..128, n, m] into 8 to 128 parts that open an -a
// subgraph (41 random-forest models of one generator, compiled with -a)
// and 3 splits in two of [2, 64, 32], [2, 32, 64] and [2, 64, 64] read
// straight from the Edge TPU's output in the middle of a default compile
// (a YOLO11n at 256; the rest of that model is mapped up to them), so
// neither opening a subgraph nor the number of parts explains it; mapped:
// [1, 8, 8, 6] split along channels into 6 (Coral's split_concat test
// model) and [1, 96, 64, 1] along axis 0 into 1 (YAMNet); no split along
// axis 0 of a dimension larger than 1 is seen mapped, and a split of
// [1, 256, 128, 3] along axis 1 into 4 is reported mapped
// (google-coral/edgetpu#461). Splits of 2-D tensors and along the other
// axes of 3-D ones are not seen either way and stay mapped.
func splitLimit(t *tflite.Model, axis, x *tflite.Tensor, parts int) verdict {
	if axis == nil || x == nil || len(x.Shape) != 3 || x.Shape[0] <= 1 {
		return verdict{ok: true}
	}
	a, ok := t.Ints(axis)
	if !ok || len(a) != 1 || (a[0] != 0 && a[0] != -3) {
		return verdict{ok: true}
	}
	return verdict{status: StatusUnspecified,
		reason:    fmt.Sprintf("SPLIT of %v into %d along axis 0, the outermost dimension: compiled models show compiler 16 leaving such splits on the CPU (the operations table forbids padding, packing and reducing in the batch dimension [axis])", x.Shape, parts),
		fix:       fmt.Sprintf("keep the tensor 4-D with a batch of 1 ([1, %d, %d, %d]) and split along axis 1, or split on the CPU", x.Shape[0], x.Shape[1], x.Shape[2]),
		uncertain: "undocumented for Split: inferred from compiled models (refused: 85 public splits along axis 0 of 3-D tensors into 2 to 128 parts, inside a segment and opening an -a subgraph; none seen mapped); the fix rests on one report of a 4-D split along axis 1 mapped (google-coral/edgetpu#461)"}
}

// oldOpsTable says why a PAD or reduction along channels is uncertain
// before compiler 15.
const oldOpsTable = "Coral's operations table allows x and y only, while the same table for Axis's Edge TPU based DLPU and compiled models allow channels (batch excepted); which compiler release changed it is not published, so compilers 14 and older are predicted by Coral's text"

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return b != nil
}

// String renders a one-line summary: "72 operators: 64 on the Edge TPU, 8 on the CPU".
func (p *Plan) String() string {
	return fmt.Sprintf("%s: %s on the Edge TPU, %s on the CPU", humanize.Plural(len(p.Ops), "operator"), humanize.Count(int64(p.TPU)), humanize.Count(int64(p.CPU)))
}

// WriteText renders the plan: the verdict, the parameter estimate, where the
// segment ends, then every operator the compiler would leave on the CPU with
// its status, reason and fix. Operators left on the CPU only because an
// earlier one was are grouped after the one that caused it.
func (p *Plan) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("%s, as Edge TPU compiler %d would map them\n", p, p.Compiler)
	if l := p.Latency; l != nil {
		// The estimate leads; its breakdown closes the output.
		ew.Printf("Estimated latency on %s: %s per inference (steady state; first inference %s), breakdown below\n", l.Host.Name, ms(l.SteadyStateUs), ms(l.FirstInferenceUs))
	}
	if p.TPU > 0 {
		ew.Printf("Parameters of the mapped operators: %s, about %s in the compiler's layout", humanize.Bytes(p.Parameters.Bytes), humanize.Bytes(p.Parameters.Compiled))
		if p.Parameters.Streamed > 0 {
			ew.Printf(" (over the about 7 MiB the compiler caches of the 8 MiB on-chip memory: about %s streamed every inference)\n", humanize.Bytes(p.Parameters.Streamed))
		} else {
			ew.Printf(" (fits the about 7 MiB of the 8 MiB on-chip memory the compiler caches parameters in)\n")
		}
	}
	if len(p.Cut) > 0 {
		ew.Printf("The Edge TPU segment hands over to the CPU at: %s\n", strings.Join(p.Cut, ", "))
		ew.Printf("  (edgetpu_compiler -i %s ... ends the segment there explicitly)\n", strings.Join(p.Cut, ","))
	}
	var follow []string
	flush := func() {
		if len(follow) > 0 {
			ew.Printf("  then on the CPU because of it (%s): %s\n", StatusSubgraph, strings.Join(follow, ", "))
			follow = nil
		}
	}
	first := true
	for _, o := range p.Ops {
		if o.Placement != "CPU" {
			continue
		}
		if first {
			ew.Printf("On the CPU:\n")
			first = false
		}
		if o.Status == StatusSubgraph {
			follow = append(follow, fmt.Sprintf("%d %s", o.Index, o.Op))
			continue
		}
		flush()
		ew.Printf("  op %d %s: %s\n", o.Index, o.Op, o.Status)
		if o.Reason != "" {
			ew.Printf("    why: %s\n", o.Reason)
		}
		if o.Fix != "" {
			ew.Printf("    fix: %s\n", o.Fix)
		}
		if o.Uncertain != "" {
			ew.Printf("    uncertain: %s\n", o.Uncertain)
		}
	}
	flush()
	first = true
	for _, o := range p.Ops {
		if o.Placement != "TPU" || o.Uncertain == "" {
			continue
		}
		if first {
			ew.Printf("Mapped, but near a limit the compiler does not document (uncertain):\n")
			first = false
		}
		ew.Printf("  op %d %s: %s\n", o.Index, o.Op, o.Uncertain)
	}
	if p.Segments > 1 {
		ew.Printf("Edge TPU subgraphs: %d (-a or -d)\n", p.Segments)
	}
	for _, n := range p.Notes {
		ew.Printf("Note: %s\n", n)
	}
	ew.Printf("Rules: coral.ai/docs/edgetpu/models-intro (model requirements, supported operations, compiling); limits marked uncertain are inferred from compiled models.\n")
	if p.Latency != nil {
		ew.Printf("\n")
		if err := ew.Err(); err != nil {
			return err
		}
		return p.Latency.WriteText(w)
	}
	return ew.Err()
}

// CompilerForm renders the prediction the way edgetpu_compiler prints its
// result, so the two can be laid side by side: the memory summary lines
// and the "Operator / Count / Status" table (operators in order of first
// appearance, each with its statuses in order of first appearance). input
// names the model and inputSize is its size in bytes; the sizes are the
// prediction's estimates.
func (p *Plan) CompilerForm(w io.Writer, input string, inputSize int64) error {
	ew := stickywriter.New(w)
	base := strings.TrimSuffix(input, ".tflite")
	ew.Printf("Edge TPU Compiler version %d (predicted by npukit edgetpu plan; sizes are estimates)\n\n", p.Compiler)
	ew.Printf("Input model: %s\n", input)
	ew.Printf("Input size: %s\n", compilerSize(inputSize))
	ew.Printf("Output model: %s_edgetpu.tflite\n", base)
	ew.Printf("On-chip memory used for caching model parameters: %s\n", compilerSize(p.Parameters.OnChip))
	ew.Printf("On-chip memory remaining for caching model parameters: %s\n", compilerSize(max(ParameterCacheCapacity-p.Parameters.OnChip, 0)))
	ew.Printf("Off-chip memory used for streaming uncached model parameters: %s\n", compilerSize(p.Parameters.Streamed))
	ew.Printf("Number of Edge TPU subgraphs: %d\n", p.Segments)
	ew.Printf("Total number of operations: %d\n", len(p.Ops))
	ew.Printf("Operation log: %s_edgetpu.log\n\n", base)
	if p.CPU > 0 {
		ew.Printf("Model successfully compiled but not all operations are supported by the Edge TPU. A percentage of the model will instead run on the CPU, which is slower.\n")
	}
	ew.Printf("Number of operations that will run on Edge TPU: %d\n", p.TPU)
	ew.Printf("Number of operations that will run on CPU: %d\n\n", p.CPU)
	ew.Printf("%-30s %-10s %s\n\n", "Operator", "Count", "Status")
	type row struct {
		op, status string
		n          int
	}
	byOp := map[string][]*row{}
	var order []string
	for _, o := range p.Ops {
		name := o.Op
		if strings.HasPrefix(name, "custom:") {
			// The compiler's table names every custom operator CUSTOM
			// (its logs from releases 1 to 16).
			name = "CUSTOM"
		}
		if _, seen := byOp[name]; !seen {
			order = append(order, name)
			byOp[name] = nil
		}
		var r *row
		for _, x := range byOp[name] {
			if x.status == o.Status {
				r = x
			}
		}
		if r == nil {
			r = &row{op: name, status: o.Status}
			byOp[name] = append(byOp[name], r)
		}
		r.n++
	}
	for _, name := range order {
		for _, r := range byOp[name] {
			ew.Printf("%-30s %-10d %s\n", r.op, r.n, r.status)
		}
	}
	return ew.Err()
}

// compilerSize formats bytes as edgetpu_compiler does: "6.86MiB",
// "7.75KiB", "0.00B".
func compilerSize(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2fMiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2fKiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.2fB", float64(b))
}
