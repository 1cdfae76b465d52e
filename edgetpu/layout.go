package edgetpu

import (
	"fmt"
	"sort"

	"github.com/npukit/npukit/edgetpu/relayout"
)

// RelayoutOutput describes an output layer for the relayout package.
func (l *Layer) RelayoutOutput() relayout.Output {
	o := relayout.Output{
		Y: int(l.Y), X: int(l.X), Z: int(l.Z),
		ElemSize:  l.ElemSize(),
		SizeBytes: int64(l.SizeBytes),
		ExecCount: int(l.ExecutionCount),
		Signed:    l.DataType.Signed(),
	}
	for _, r := range l.Shape {
		o.Shape = append(o.Shape, relayout.Range{Start: r.Start, End: r.End})
	}
	if l.Output == nil {
		return o
	}
	if lay := l.Output.Layout; lay != nil {
		o.Layout = &relayout.Layout{YTile: lay.YTile, XTile: lay.XTile, TileOffset: lay.TileOffset,
			XLocal: lay.XLocal, YLocal: lay.YLocal, RowSize: lay.RowSize}
	}
	if si := l.Output.ShapeInfo; si != nil {
		for i, s := range si.Slices {
			sl := relayout.Slice{Stride: s.Stride}
			if i < len(si.Offsets) {
				sl.Offset = int64(si.Offsets[i])
			}
			for _, r := range s.Shape {
				sl.Dims = append(sl.Dims, relayout.Range{Start: r.Start, End: r.End})
			}
			o.Slices = append(o.Slices, sl)
		}
	}
	return o
}

// LayoutStats summarise where an OutputLayout puts the elements of a layer.
type LayoutStats struct {
	ElemSize int `json:"data_type_bytes"`
	// MaxByteEnd is the end of the highest device byte any element uses.
	MaxByteEnd int64 `json:"max_src_byte_end"`
	// WithinSize: every element lies in [0, size_bytes).
	WithinSize bool `json:"within_size_bytes"`
	// Injective: no two elements share a device position.
	Injective bool `json:"injective"`
	// ZStride is the element distance between neighbouring x positions of a
	// tile (z plus padding); 0 for one x position.
	ZStride int64 `json:"z_stride_elements"`
	// XTileWidths and YTileHeights are the x positions per tile column and
	// the y positions per tile row.
	XTileWidths  []int `json:"x_tile_widths"`
	YTileHeights []int `json:"y_tile_heights"`
	// Identity: the device order is the plain order.
	Identity bool `json:"identity_layout"`
}

// LayoutStats analyses the layer's OutputLayout. It works on the (y, x)
// runs of z elements, so its cost is bounded by the layout maps (which are
// in the file), whatever z says.
func (l *Layer) LayoutStats() (*LayoutStats, error) {
	if l.Output == nil || l.Output.Layout == nil {
		return nil, fmt.Errorf("layer %q has no OutputLayout", l.Name)
	}
	lay := l.Output.Layout
	Y, X, Z := int(l.Y), int(l.X), int64(l.Z)
	if Y < 1 || X < 1 || Z < 1 {
		return nil, fmt.Errorf("layer %q: dimensions %dx%dx%d must be positive", l.Name, Y, X, Z)
	}
	// The runtime reads entries [0, y) and [0, x) only
	// (api/layer_information.cc, GetBufferIndex): longer maps are valid.
	if len(lay.YTile) < Y || len(lay.YLocal) < Y || len(lay.XTile) < X || len(lay.XLocal) < X || len(lay.RowSize) < X {
		return nil, fmt.Errorf("layer %q: layout maps of lengths y %d/%d, x %d/%d/%d for %dx%d", l.Name,
			len(lay.YTile), len(lay.YLocal), len(lay.XTile), len(lay.XLocal), len(lay.RowSize), Y, X)
	}
	rl := &relayout.Layout{YTile: lay.YTile, XTile: lay.XTile, TileOffset: lay.TileOffset,
		XLocal: lay.XLocal, YLocal: lay.YLocal, RowSize: lay.RowSize}
	es := int64(l.ElemSize())
	s := &LayoutStats{ElemSize: int(es), WithinSize: true, Injective: true, Identity: true,
		XTileWidths: runs(lay.XTile[:X]), YTileHeights: runs(lay.YTile[:Y])}
	if X > 1 {
		s.ZStride = int64(lay.XLocal[1]) - int64(lay.XLocal[0])
	}
	type span struct{ start, end int64 }
	spans := make([]span, 0, Y*X)
	for y := 0; y < Y; y++ {
		for x := 0; x < X; x++ {
			base, err := rl.DeviceIndex(y, x, 0)
			if err != nil {
				return nil, fmt.Errorf("layer %q: %w", l.Name, err)
			}
			if base != (int64(y)*int64(X)+int64(x))*Z {
				s.Identity = false
			}
			if base < 0 {
				s.WithinSize = false
			}
			spans = append(spans, span{base, base + Z})
			s.MaxByteEnd = max(s.MaxByteEnd, (base+Z)*es)
		}
	}
	if s.MaxByteEnd > int64(l.SizeBytes) {
		s.WithinSize = false
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			s.Injective = false
			break
		}
	}
	return s, nil
}

// runs returns the lengths of the runs of equal values.
func runs(v []int32) []int {
	var out []int
	for i := range v {
		if i == 0 || v[i] != v[i-1] {
			out = append(out, 0)
		}
		out[len(out)-1]++
	}
	return out
}
