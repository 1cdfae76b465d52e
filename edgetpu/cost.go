package edgetpu

import (
	"github.com/npukit/npukit/tflite"
)

// OpWork is the arithmetic of one TFLite operator: multiply-accumulates of
// the matrix operators and the elements the operator reads and writes,
// from its tensor shapes (the TFLite schema's layouts: NHWC activations,
// CONV_2D filters [out, kh, kw, in], DEPTHWISE_CONV_2D [1, kh, kw, out],
// FULLY_CONNECTED [out, in], TRANSPOSE_CONV [out, kh, kw, in]).
type OpWork struct {
	MACs     int64 `json:"macs"`
	InElems  int64 `json:"input_elements"`
	OutElems int64 `json:"output_elements"`
	// Weights are the constant elements the operator reads.
	Weights int64 `json:"weight_elements"`
	// Quantized: the first output is an 8- or 16-bit integer tensor
	// (element-wise kernels then rescale every element).
	Quantized bool `json:"quantized"`
	// Float: the first output is a floating-point tensor (a float CPU
	// kernel, which the latency model prices at the int8 kernels' rates).
	Float bool `json:"float,omitempty"`
}

// tensorFloat64 is TFLite's FLOAT64 tensor type.
const tensorFloat64 tflite.TensorType = 11

// Work computes an operator's OpWork.
func Work(t *tflite.Model, sg *tflite.Subgraph, op *tflite.Operator) OpWork {
	var w OpWork
	tensor := func(i int32) *tflite.Tensor {
		if i < 0 || int(i) >= len(sg.Tensors) {
			return nil
		}
		return &sg.Tensors[i]
	}
	elems := func(x *tflite.Tensor) int64 {
		if x == nil {
			return 0
		}
		return max(x.Elements(), 0)
	}
	for _, i := range op.Inputs {
		if x := tensor(i); x != nil {
			if t.IsConstant(x) {
				w.Weights += elems(x)
			} else {
				w.InElems += elems(x)
			}
		}
	}
	for k, i := range op.Outputs {
		x := tensor(i)
		w.OutElems += elems(x)
		if k == 0 && x != nil {
			switch x.Type {
			case tflite.TensorInt8, tflite.TensorUint8, tflite.TensorInt16:
				w.Quantized = true
			case tflite.TensorFloat32, tflite.TensorFloat16, tflite.TensorBFloat16, tensorFloat64:
				w.Float = true
			}
		}
	}
	in := func(k int) *tflite.Tensor {
		if k < len(op.Inputs) {
			return tensor(op.Inputs[k])
		}
		return nil
	}
	dim := func(x *tflite.Tensor, k int) int64 {
		if x == nil || k >= len(x.Shape) || x.Shape[k] < 0 {
			return 0
		}
		return int64(x.Shape[k])
	}
	if int(op.OpcodeIndex) >= len(t.OperatorCodes) {
		return w
	}
	switch t.OperatorCodes[op.OpcodeIndex].Name() {
	case "CONV_2D":
		if f := in(1); f != nil && len(f.Shape) == 4 {
			w.MACs = w.OutElems * dim(f, 1) * dim(f, 2) * dim(f, 3)
		}
	case "DEPTHWISE_CONV_2D":
		if f := in(1); f != nil && len(f.Shape) == 4 {
			w.MACs = w.OutElems * dim(f, 1) * dim(f, 2)
		}
	case "FULLY_CONNECTED", "BATCH_MATMUL":
		if f := in(1); f != nil && len(f.Shape) >= 2 {
			w.MACs = w.OutElems * dim(f, len(f.Shape)-1)
			if t.OperatorCodes[op.OpcodeIndex].Name() == "BATCH_MATMUL" {
				w.MACs = w.OutElems * dim(in(0), len(in(0).Shape)-1)
			}
		}
	case "TRANSPOSE_CONV":
		// inputs: output_shape, weights, input.
		if f, x := in(1), in(2); f != nil && x != nil && len(f.Shape) == 4 {
			w.MACs = elems(x) * dim(f, 0) * dim(f, 1) * dim(f, 2)
		}
	case "UNIDIRECTIONAL_SEQUENCE_LSTM", "LSTM":
		// Four gates, each a product of the input and the recurrent
		// state with their weights: input_to_input_weights [cell, in],
		// recurrent_to_input_weights [cell, out], every time step.
		x := in(0)
		if x != nil && len(x.Shape) >= 2 {
			steps := int64(1)
			for _, d := range x.Shape[:len(x.Shape)-1] {
				steps *= int64(max(d, 1))
			}
			var per int64
			for k := 1; k <= 8; k++ {
				if f := in(k); f != nil {
					per += elems(f)
				}
			}
			w.MACs = steps * per
		}
	}
	return w
}
