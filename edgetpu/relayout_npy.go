package edgetpu

import (
	"fmt"
	"io"
	"strings"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/npyarray"
)

// OutputLayer returns e's output layer of that name; an unknown name
// lists the outputs.
func (e *Executable) OutputLayer(name string) (*Layer, error) {
	var names []string
	for _, l := range e.OutputLayers {
		names = append(names, l.Name)
		if l.Name == name {
			return l, nil
		}
	}
	return nil, fmt.Errorf("--layer %s: no output layer of that name (outputs: %s)", name, strings.Join(names, ", "))
}

// Relayout is an output buffer converted from the device's layout to
// plain row-major order, as the runtime does (`npukit edgetpu relayout`).
type Relayout struct {
	Output    string  `json:"output"` // the .npy written (set by the caller)
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

	plain []byte
	dt    dtype.T
}

// Relayout converts raw, the bytes output layer l of e (in op) produced
// on the device (tiled, padded, signed types offset-binary), to plain
// order. batch <= 0 takes the batch from raw's size; in names raw in
// errors. The shape is (y, x, z) or the layer's own, prefixed by the
// execution count and the batch when they exceed 1.
func (m *Model) Relayout(op *CustomOp, e *Executable, l *Layer, in string, raw []byte, batch int) (*Relayout, error) {
	o := l.RelayoutOutput()
	if batch <= 0 {
		per, err := o.DeviceBytes(1)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %v", l.Name, err)
		}
		if per <= 0 || int64(len(raw))%per != 0 || len(raw) == 0 {
			return nil, fmt.Errorf("%s: %d bytes is not a multiple of the layer's %d device bytes per batch", in, len(raw), per)
		}
		batch = int(int64(len(raw)) / per)
	}
	plain, err := o.ToPlain(raw, batch)
	if err != nil {
		return nil, err
	}
	shape := []int{int(l.Y), int(l.X), int(l.Z)}
	if len(o.Slices) > 0 {
		shape = shape[:0]
		for _, r := range l.Shape {
			shape = append(shape, int(r.End-r.Start)+1)
		}
	}
	if l.ExecutionCount > 1 {
		shape = append([]int{int(l.ExecutionCount)}, shape...)
	}
	if batch > 1 {
		shape = append([]int{batch}, shape...)
	}
	tt := m.OutputTensorType(op, e, l)
	dt, err := npyDType(tt)
	if err != nil {
		return nil, err
	}
	r := &Relayout{Layer: l.Name, Batch: batch, Shape: shape, DType: tt.String(), NpyDType: dt.String(), InBytes: len(raw),
		OutBytes: len(plain), Signed: l.DataType.Signed(), ExecCount: l.ExecutionCount, plain: plain, dt: dt}
	if l.Numerics != nil {
		r.Scale, r.ZeroPoint = l.Numerics.DequantizationFactor, l.Numerics.ZeroPoint
	}
	switch {
	case len(o.Slices) > 0:
		r.Tiling = fmt.Sprintf("%d slices", len(o.Slices))
	case l.Y == 1 && l.X == 1:
		r.Tiling = "linear"
	default:
		r.Tiling = "tiled"
	}
	return r, nil
}

// WriteNpy writes the plain buffer as a .npy array of the layer's element
// type (NpyDType says which, should the writer widen it).
func (r *Relayout) WriteNpy(w io.Writer) error {
	shape := make([]int64, len(r.Shape))
	for i, d := range r.Shape {
		shape[i] = int64(d)
	}
	t, err := npyarray.Write(w, r.dt, shape, r.plain)
	if err == nil {
		r.NpyDType = t.String()
	}
	return err
}

// WriteText says what was converted and where it went.
func (r *Relayout) WriteText(w io.Writer) error {
	widened := ""
	if r.NpyDType != "" && !strings.EqualFold(r.NpyDType, r.DType) {
		widened = " as " + r.NpyDType
	}
	_, err := fmt.Fprintf(w, "Relayout of %q (%s): %s device bytes -> %s plain, shape %v %s, written%s to %s\n",
		r.Layer, r.Tiling, humanize.Bytes(int64(r.InBytes)), humanize.Bytes(int64(r.OutBytes)), r.Shape, r.DType, widened, r.Output)
	return err
}

// npyDType maps the TFLite tensor types an Edge TPU output can have to
// npukit's element types for the .npy writer.
func npyDType(t TensorType) (dtype.T, error) {
	switch t {
	case TensorUint8:
		return dtype.Uint8, nil
	case TensorInt8:
		return dtype.Int8, nil
	case TensorInt16:
		return dtype.Int16, nil
	case TensorInt32:
		return dtype.Int32, nil
	case TensorFloat32:
		return dtype.Float32, nil
	case TensorFloat16:
		return dtype.Float16, nil // kept as float16 (.npy has it)
	}
	return 0, fmt.Errorf("no .npy type for %s", t)
}
