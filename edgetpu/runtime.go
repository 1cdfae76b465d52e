package edgetpu

import (
	"fmt"
	"strings"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
)

// LinkInput describes an executable for the link package. Chunks are the
// executable's own bitstreams (sub-slices of the input); link.Link copies
// them before patching.
func (e *Executable) LinkInput() link.Executable {
	le := link.Executable{BatchSize: int(e.BatchSize), HasParams: len(e.Parameters) > 0, ScratchBytes: int64(e.ScratchSizeBytes)}
	for ci, b := range e.Bitstreams {
		le.Chunks = append(le.Chunks, b.Data)
		for _, f := range b.FieldOffsets {
			le.Relocations = append(le.Relocations, link.Relocation{Chunk: ci, OffsetBit: int64(f.OffsetBit),
				Kind: link.Kind(f.Meta.Desc), Position: link.Position(f.Meta.Position), Name: f.Meta.Name, Batch: int(f.Meta.Batch)})
		}
	}
	for _, l := range e.InputLayers {
		le.Inputs = append(le.Inputs, l.Name)
	}
	for _, l := range e.OutputLayers {
		le.Outputs = append(le.Outputs, l.Name)
	}
	return le
}

var hintTargets = map[Description]string{InputActivation: "INPUT", OutputActivation: "OUTPUT", ParameterBase: "PARAMETER", ScratchBase: "SCRATCH"}

// PlanInput describes a package's executables for the dmaplan package.
func PlanInput(p *Package) []dmaplan.Executable {
	var out []dmaplan.Executable
	for i, e := range p.Executables {
		de := dmaplan.Executable{Name: fmt.Sprintf("%d:%s", i, e.Name), Type: e.Type.String()}
		for _, b := range e.Bitstreams {
			de.ChunkSizes = append(de.ChunkSizes, int64(len(b.Data)))
		}
		if h := e.DMAHints; h != nil {
			de.FullyDeterministic = h.FullyDeterministic
			for _, x := range h.Hints {
				if x.Kind == HintNone {
					continue
				}
				dh := dmaplan.Hint{Kind: dmaplan.HintKind(x.Kind), Direction: dmaplan.Direction(x.Direction),
					Chunk: int(x.Chunk), Interrupt: int(x.Interrupt)}
				if x.Kind == HintDescriptor {
					dh.Target = hintTargets[x.Meta.Desc]
					if dh.Target == "" {
						dh.Target = strings.ToUpper(x.Meta.Desc.String())
					}
					dh.Name, dh.Batch, dh.Offset, dh.Size = x.Meta.Name, int(x.Meta.Batch), int64(x.OffsetInBytes), int64(x.SizeInBytes)
				}
				de.Hints = append(de.Hints, dh)
			}
		}
		out = append(out, de)
	}
	return out
}

// OutputTensorType is the TFLite type of an output layer: the op's output
// tensor at the layer's position (the runtime pairs them by position), for
// a *_variable_output layer the tensor of the input it is written back
// into, else the type the runtime pairs with the layer's data type. A
// tensor whose element size differs from the layer's (an old 1-D float
// classifier behind a UINT8 tensor) is not used: the device bytes are the
// layer's type.
func (m *Model) OutputTensorType(op *CustomOp, e *Executable, layer *Layer) TensorType {
	if m.TFLite != nil && op.Subgraph >= 0 && op.Subgraph < len(m.TFLite.Subgraphs) {
		sg := &m.TFLite.Subgraphs[op.Subgraph]
		top := &sg.Operators[op.Operator]
		var ti int32 = -1
		if strings.HasSuffix(layer.Name, VariableOutputSuffix) {
			if in := e.VariableInput(layer); in != nil {
				for i, l := range e.InputLayers {
					if l == in && i < len(top.Inputs) {
						ti = top.Inputs[i]
					}
				}
			}
		} else {
			for i, l := range e.OutputLayers {
				if l == layer && i < len(top.Outputs) {
					ti = top.Outputs[i]
				}
			}
		}
		if ti >= 0 && int(ti) < len(sg.Tensors) && sg.Tensors[ti].Type.ElemSize() == layer.ElemSize() {
			return sg.Tensors[ti].Type
		}
	}
	return TensorTypeOf(layer.DataType)
}

// DMAPlans builds the transfer plan of every package of every Edge TPU
// operator of m over links (dmaplan.Build).
func (m *Model) DMAPlans(links []dmaplan.Link) (*dmaplan.Listing, error) {
	res := dmaplan.Listing{Effective: EffectiveLinks()}
	for oi, op := range m.Ops {
		for pi, p := range op.Packages {
			plan, err := dmaplan.Build(PlanInput(p), links)
			if err != nil {
				return nil, err
			}
			res.Plans = append(res.Plans, dmaplan.PackagePlan{Op: oi, Package: pi, Plan: plan})
		}
	}
	return &res, nil
}
