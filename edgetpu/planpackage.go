package edgetpu

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"sort"

	"github.com/npukit/npukit/tflite"
)

// What the compiler's package will hold, predicted from the uncompiled
// model and its predicted mapping: the parameters in the compiler's layout
// (and which of them it caches on chip), the activations it spills to host
// memory (scratch), the instruction bytes and the padded sizes of the
// segment's inputs and outputs. The latency estimate of a plan
// (EstimatePlan) prices exactly these, as EstimateModel prices the same
// quantities read from a compiled file, so the two are one model.

// The compiler's parameter layout. Each matrix operator's output channels
// are padded to a multiple of paramChannelAlign (the 64-wide MAC array
// takes 64 output channels at a time) and each padded output channel
// carries paramBytesPerChannel more bytes (a 32-bit bias and a 32-bit
// requantization word). Fitted on the 11 distinct compiled twins of
// ../shared/corpus2/edgetpu-pairs and ../shared/hw/edgetpu/models
// (MobileNet v1/v2, DeepLab v3 at two widths, BodyPix, face-mask
// classifier, YOLOv8n at 320 and 640, an MLP): the compiled caching
// executable's parameter bytes are predicted within 7% on every one (the
// TFLite weight bytes alone are 1-43% short); padding the input channels as
// well changes no prediction by more than 2%.
const (
	paramChannelAlign    = 64
	paramBytesPerChannel = 8
)

// Device-side activation layout: an input or output layer's z dimension
// is padded to a multiple of 4 bytes per (y, x) position and the layer's
// size to a multiple of 8 bytes (notes, "Output re-layout": every real
// output; inputs are padded to 8 bytes).
const (
	layerZAlignBytes = 4
	layerSizeAlign   = 8
)

// The instruction bytes the runtime sends every inference:
// instrBytesPerOp per mapped operator, instrBytesPerIO per input or output
// layer of the segment (each has its own DMA and re-layout program) and
// instrBytesPerOutput per output element of the mapped operators (larger
// activations take more tiles and loop iterations). Fitted (least squares
// on the relative error) on the execution executables of the 11 distinct
// compiled twins above: within 25% on 8 of them; the worst are DeepLab v3
// at full width (0.6: its instructions grow with the channels too) and
// YOLOv8n-640 with 6 classes (1.3).
const (
	instrBytesPerOp     = 1208
	instrBytesPerIO     = 2529
	instrBytesPerOutput = 0.0034
)

// heldActivationBytes is how much of the 3 MiB of narrow memory (16 tiles
// of 196,608 bytes) the compiler leaves to activations that must stay whole
// while other operators run, together with the output the running operator
// builds; the rest streams operators' inputs and outputs in bands of rows,
// which is why a 721x1281 PoseNet spills nothing. A tensor is held whole
// when, between its producer and its last reader, the network works at
// another resolution (a skip connection across a downsampling and
// upsampling path: a band of its rows cannot be consumed before the
// coarser path has run), and a segment output is held to the end of the
// segment; a tensor whose readers all follow at its own resolution streams
// in bands with them (the 1.23 MB held inside the first C2f block of
// YOLOv8n-640, at 160x160, never spills). When the held tensors and the
// running operator's output exceed the room, the compiler moves the
// largest held tensors off chip: an intermediate tensor to host memory
// (scratch), written once and read back once before its next reader; a
// segment output is sent to the host early, which costs no more traffic.
//
// What the compiled twins show (their DMA hints and scratch sizes): the two
// YOLOv8n-640 compiles of one backbone, with 6 and 80 classes, both write
// the 80x80x64 stride-8 backbone map (409,600 bytes, held from the
// backbone to the neck's concatenation) out at the end of the first
// instruction chunk and read it back; the 6-class compile spills one 40x40
// map of 204,800 bytes in the neck; the 80-class compile also spills the
// neck's 80x80x64 map (held across the stride-16 and stride-32 heads until
// its own head), 204,800-byte maps of the neck and the 20x20 SPPF output,
// and sends two of its three outputs to the host before the end: 2.66 MB
// of traffic against 1.23 MB. Its larger head (80 classes: 80x80x80 class
// branches, an 80x80x144 output) is what raises the pressure. This rule,
// at 1 MiB, predicts 1.43 MB (the 409,600-byte map, a 40x40 neck map and
// the SPPF output) and 2.25 MB (the same, the neck's 80x80x64 map and one
// output sent early); it spills nothing in any other shared compiled twin
// (none of them has scratch), and any room from 1.00 to 1.12 MB gives the
// same predictions (fitted on the shared twins, the class of rule rather
// than one file). Which tensors the compiler picks is not documented: the
// spill is always reported uncertain.
const heldActivationBytes = 1 << 20

// ActivationSpill is the predicted scratch traffic of a plan.
type ActivationSpill struct {
	// ScratchBytes is the host memory the spilled tensors occupy at once.
	ScratchBytes int64 `json:"scratch_bytes"`
	// TrafficBytes is what moves over the host link every inference: each
	// spilled tensor written out once and read back once (before its next
	// reader; it then stays on chip for its later readers, as the DMA hints
	// of the compiled twins show).
	TrafficBytes int64    `json:"traffic_bytes_per_inference"`
	Tensors      []string `json:"spilled_tensors"`
	// OutputsSentEarly counts the segment outputs moved off chip before
	// the end of the segment (sent to the host early: no more traffic).
	OutputsSentEarly int    `json:"outputs_sent_early,omitempty"`
	Uncertain        string `json:"uncertain"`
}

// layerBytes is a tensor's size in the device layout: its innermost
// dimension padded to layerZAlignBytes per position when pad is set
// (outputs), the whole rounded up to layerSizeAlign.
func layerBytes(x *tflite.Tensor, pad bool) int64 {
	es := int64(max(x.Type.ElemSize(), 1))
	n := max(x.Elements(), 0)
	if pad && len(x.Shape) > 0 {
		z := int64(max(x.Shape[len(x.Shape)-1], 1))
		zb := (z*es + layerZAlignBytes - 1) / layerZAlignBytes * layerZAlignBytes
		n = n / z * zb
	} else {
		n *= es
	}
	return (n + layerSizeAlign - 1) / layerSizeAlign * layerSizeAlign
}

// compiledParamBytes predicts an operator's parameter bytes in the
// compiler's layout; other operators keep their constant bytes.
func compiledParamBytes(t *tflite.Model, sg *tflite.Subgraph, op *tflite.Operator) int64 {
	var plain int64
	for _, i := range op.Inputs {
		if i >= 0 && int(i) < len(sg.Tensors) && t.IsConstant(&sg.Tensors[i]) {
			plain += t.BufferSizes[sg.Tensors[i].Buffer]
		}
	}
	if int(op.OpcodeIndex) >= len(t.OperatorCodes) {
		return plain
	}
	weights := func(k int) []int32 {
		if k < len(op.Inputs) && op.Inputs[k] >= 0 && int(op.Inputs[k]) < len(sg.Tensors) && t.IsConstant(&sg.Tensors[op.Inputs[k]]) {
			return sg.Tensors[op.Inputs[k]].Shape
		}
		return nil
	}
	pad := func(c int64) int64 { return (c + paramChannelAlign - 1) / paramChannelAlign * paramChannelAlign }
	dims := func(s []int32) (int64, bool) {
		n := int64(1)
		for _, d := range s {
			if d <= 0 {
				return 0, false
			}
			n *= int64(d)
		}
		return n, true
	}
	var out, per int64
	switch t.OperatorCodes[op.OpcodeIndex].Name() {
	case "CONV_2D", "FULLY_CONNECTED":
		// [out, kh, kw, in] or [out, in].
		s := weights(1)
		n, ok := dims(s)
		if !ok || len(s) < 2 {
			return plain
		}
		out, per = int64(s[0]), n/int64(s[0])
	case "TRANSPOSE_CONV":
		s := weights(1)
		n, ok := dims(s)
		if !ok || len(s) != 4 {
			return plain
		}
		out, per = int64(s[0]), n/int64(s[0])
	case "DEPTHWISE_CONV_2D":
		// [1, kh, kw, out].
		s := weights(1)
		n, ok := dims(s)
		if !ok || len(s) != 4 {
			return plain
		}
		out, per = int64(s[3]), n/int64(s[3])
	default:
		return plain
	}
	return pad(out) * (per + paramBytesPerChannel)
}

// planParameters fills the plan's parameter estimate: the compiler's
// layout of each mapped operator's parameters, cached on chip in graph
// order while they fit the ParameterCacheCapacity (an operator that does
// not fit is streamed, a later smaller one may still be cached: the logs
// show caches filled to within 2 KiB).
func planParameters(p *Plan, t *tflite.Model) {
	if len(t.Subgraphs) == 0 {
		return
	}
	sg := &t.Subgraphs[0]
	free := int64(ParameterCacheCapacity)
	for _, o := range p.Ops {
		if o.Subgraph != 0 || o.Placement != "TPU" || o.Index >= len(sg.Operators) {
			continue
		}
		b := compiledParamBytes(t, sg, &sg.Operators[o.Index])
		p.Parameters.Compiled += b
		if b <= free {
			free -= b
			p.Parameters.OnChip += b
		} else {
			p.Parameters.Streamed += b
		}
	}
	if p.Parameters.Streamed > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("the mapped ops' parameters (about %s bytes in the compiler's layout) exceed the about 7 MiB of the 8 MiB on-chip memory the compiler gives parameters: about %s bytes would be streamed from the host every inference (an estimate)", humanize.Count(p.Parameters.Compiled), humanize.Count(p.Parameters.Streamed)))
	}
}

// segment describes the mapped operators of subgraph 0 for the package
// predictions.
type segment struct {
	on       []bool // by operator index
	producer []int  // by tensor: the mapped operator writing it, -1
	readers  [][]int
	// leaves: tensors written by a mapped operator and read by the CPU or
	// a graph output (the segment's outputs); enters: tensors read by a
	// mapped operator and written by none (its inputs).
	leaves, enters []int32
}

func segmentOf(t *tflite.Model, p *Plan) *segment {
	sg := &t.Subgraphs[0]
	n := len(sg.Tensors)
	s := &segment{on: make([]bool, len(sg.Operators)), producer: make([]int, n), readers: make([][]int, n)}
	for _, o := range p.Ops {
		if o.Subgraph == 0 && o.Placement == "TPU" && o.Index < len(s.on) {
			s.on[o.Index] = true
		}
	}
	for i := range s.producer {
		s.producer[i] = -1
	}
	readCPU := make([]bool, n)
	for oi, op := range sg.Operators {
		for _, i := range op.Inputs {
			if i < 0 || int(i) >= n || t.IsConstant(&sg.Tensors[i]) {
				continue
			}
			if s.on[oi] {
				s.readers[i] = append(s.readers[i], oi)
			} else {
				readCPU[i] = true
			}
		}
		if s.on[oi] {
			for _, i := range op.Outputs {
				if i >= 0 && int(i) < n {
					s.producer[i] = oi
				}
			}
		}
	}
	for _, i := range sg.Outputs {
		if i >= 0 && int(i) < n {
			readCPU[i] = true
		}
	}
	for i := 0; i < n; i++ {
		switch {
		case s.producer[i] >= 0 && readCPU[i]:
			s.leaves = append(s.leaves, int32(i))
		case s.producer[i] < 0 && len(s.readers[i]) > 0:
			s.enters = append(s.enters, int32(i))
		}
	}
	return s
}

// planSpill predicts the activations the compiler spills to host memory
// (heldActivationBytes says why): walking the mapped operators in order,
// the tensors held whole across an operator (written before it, read after
// it and not by it, and held across another resolution or a segment
// output) and the operator's output must fit heldActivationBytes; when
// they do not, the largest held tensors (among equals, the one needed
// furthest ahead) leave the chip until the rest fits.
func planSpill(p *Plan, t *tflite.Model, s *segment) {
	sg := &t.Subgraphs[0]
	n := len(sg.Tensors)
	const end = int(^uint(0) >> 1)
	leaves := map[int]bool{}
	for _, i := range s.leaves {
		leaves[int(i)] = true
	}
	next := func(i, after int) int {
		for _, r := range s.readers[i] {
			if r > after {
				return r
			}
		}
		if leaves[i] {
			return end
		}
		return -1
	}
	size := func(i int) int64 { return layerBytes(&sg.Tensors[i], true) }
	whole := make([]bool, n)
	for i := 0; i < n; i++ {
		switch {
		case s.producer[i] < 0:
		case leaves[i]:
			whole[i] = true
		case len(s.readers[i]) > 0:
			whole[i] = otherResolutionBetween(sg, s, i, s.producer[i], s.readers[i][len(s.readers[i])-1])
		}
	}
	spilled := make([]bool, n)
	type interval struct {
		from, to int
		size     int64
	}
	var out int64
	var intervals []interval
	var names []string
	var early int
	for oi := range sg.Operators {
		if !s.on[oi] {
			continue
		}
		op := &sg.Operators[oi]
		type held struct {
			i, next int
			size    int64
		}
		var hs []held
		var total int64
		for _, i := range op.Outputs {
			if i >= 0 && int(i) < n {
				total += size(int(i))
			}
		}
		for i := 0; i < n; i++ {
			if !whole[i] || spilled[i] || s.producer[i] >= oi || containsTensor(op.Inputs, i) {
				continue
			}
			if nx := next(i, oi); nx > oi {
				hs = append(hs, held{i, nx, size(i)})
				total += size(i)
			}
		}
		if total <= heldActivationBytes {
			continue
		}
		sort.Slice(hs, func(a, b int) bool {
			if hs[a].size != hs[b].size {
				return hs[a].size > hs[b].size
			}
			return hs[a].next > hs[b].next
		})
		for _, h := range hs {
			if total <= heldActivationBytes {
				break
			}
			spilled[h.i] = true
			total -= h.size
			if h.next == end {
				// A segment output sent to the host early: it crosses
				// the link once, as it would at the end.
				early++
				continue
			}
			out += 2 * h.size // written out once, read back once
			intervals = append(intervals, interval{oi, h.next, h.size})
			names = append(names, sg.Tensors[h.i].Name)
		}
	}
	if out == 0 {
		return
	}
	// Scratch holds the spilled tensors that are off chip at once.
	var peak int64
	for _, a := range intervals {
		var at int64
		for _, b := range intervals {
			if b.from <= a.from && a.from < b.to {
				at += b.size
			}
		}
		peak = max(peak, at)
	}
	p.Spill = &ActivationSpill{ScratchBytes: peak, TrafficBytes: out, Tensors: names, OutputsSentEarly: early,
		Uncertain: fmt.Sprintf("the tensors held whole while the network works at another resolution, with the running operator's output, exceed about %s of the 3 MiB of on-chip activation memory (a rule fitted on the shared compiled YOLOv8n twins, the only ones with scratch); which tensors the compiler spills is not documented (the 6- and 80-class YOLOv8n-640 compiles spill 1.17 and 2.54 MiB where this predicts 1.36 and 2.15 MiB)", humanize.Bytes(heldActivationBytes))}
	p.Notes = append(p.Notes, fmt.Sprintf("activations spill to host memory (scratch): about %s written out and read back every inference (%s)", humanize.Bytes(out), p.Spill.Uncertain))
}

func containsTensor(list []int32, i int) bool {
	for _, x := range list {
		if int(x) == i {
			return true
		}
	}
	return false
}

// PackageEstimate is what the plan predicts the compiled package moves
// every inference.
type PackageEstimate struct {
	InputBytes       int64 `json:"input_bytes"`
	OutputBytes      int64 `json:"output_bytes"`
	InstructionBytes int64 `json:"instruction_bytes"`
	// Layers are the segment's input and output layers.
	InputLayers  int `json:"input_layers"`
	OutputLayers int `json:"output_layers"`
}

// planPackage fills the plan's package estimate: the segment's inputs and
// outputs in the device layout and the instruction bytes.
func planPackage(p *Plan, t *tflite.Model, s *segment) {
	sg := &t.Subgraphs[0]
	e := &PackageEstimate{InputLayers: len(s.enters), OutputLayers: len(s.leaves)}
	for _, i := range s.enters {
		e.InputBytes += layerBytes(&sg.Tensors[i], false)
	}
	for _, i := range s.leaves {
		e.OutputBytes += layerBytes(&sg.Tensors[i], true)
	}
	var ops int
	var outElems int64
	for oi := range sg.Operators {
		if s.on[oi] {
			ops++
			outElems += Work(t, sg, &sg.Operators[oi]).OutElems
		}
	}
	if ops == 0 {
		return
	}
	e.InstructionBytes = int64(instrBytesPerOp*float64(ops) + instrBytesPerIO*float64(e.InputLayers+e.OutputLayers) + instrBytesPerOutput*float64(outElems))
	p.Package = e
}

// otherResolutionBetween reports whether a mapped operator after from and
// before to writes a map of another spatial size than tensor i (y*x of a
// 4-D tensor): the network works at another resolution while i waits.
func otherResolutionBetween(sg *tflite.Subgraph, s *segment, i, from, to int) bool {
	own := spatialSize(&sg.Tensors[i])
	if own == 0 {
		return false
	}
	for k := from + 1; k < to && k < len(sg.Operators); k++ {
		if !s.on[k] {
			continue
		}
		for _, o := range sg.Operators[k].Outputs {
			if o >= 0 && int(o) < len(sg.Tensors) {
				if q := spatialSize(&sg.Tensors[o]); q > 0 && q != own {
					return true
				}
			}
		}
	}
	return false
}

// spatialSize is y*x of an NHWC tensor (0 for another rank).
func spatialSize(x *tflite.Tensor) int64 {
	if len(x.Shape) != 4 {
		return 0
	}
	return int64(max(x.Shape[1], 0)) * int64(max(x.Shape[2], 0))
}
