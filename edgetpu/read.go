package edgetpu

import (
	"errors"
	"fmt"
	"io"

	"github.com/npukit/npukit/internal/fbs"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/tflite"
)

// ReadFile reads a model or raw package from disk.
func ReadFile(path string) (*Model, error) {
	data, err := inputfile.ReadFileMax(path, fbs.MaxSize)
	if err != nil {
		return nil, err
	}
	return Read(data)
}

// ReadFrom reads size bytes from r and parses them.
func ReadFrom(r io.ReaderAt, size int64) (*Model, error) {
	if size < 0 || size > fbs.MaxSize {
		return nil, fmt.Errorf("input of %d bytes is outside the FlatBuffers limit", size)
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return Read(data)
}

// Read parses a TFLite model (identifier TFL3) or, for anything else, a raw
// DarwiNN package. The model keeps sub-slices of data.
func Read(data []byte) (*Model, error) {
	d := &decoder{budget: fbs.InputBudget(int64(len(data)), budgetSlack)}
	m := &Model{Data: data}
	if fbs.Identifier(data) == "TFL3" {
		t, err := d.tflite(m, data)
		if err != nil {
			return nil, err
		}
		m.TFLite = t
		return m, nil
	}
	p, err := d.pkg(data, "Package", 0)
	if err != nil {
		return nil, err
	}
	p.FileOffset, p.Source = 0, "file"
	m.Ops = []*CustomOp{{Subgraph: -1, Operator: -1, Options: CustomOptions{Version: -1, ExecutionPreference: -1}, Packages: []*Package{p}}}
	return m, nil
}

// budgetSlack is the memory, beyond the input size, that the structures
// built by one Read may use: every slice is charged before it is made, so a
// file declaring more elements than it can hold fails before allocating.
const budgetSlack = 64 << 10

// maxNesting bounds multi_chip_package nesting.
const maxNesting = 4

type decoder struct {
	budget *fbs.Budget
}

// ErrBudget says that a file's structures would need more memory than the
// file is large (shared or overlapping offsets).
var ErrBudget = fbs.ErrBudget

func charge[T any](d *decoder, n int, path string, at int) error {
	return fbs.Charge[T](d.budget, n, path, at)
}

func ints32(d *decoder, t fbs.Table, slot int, name string) ([]int32, bool, error) {
	v, ok, err := t.Vector(slot, 4, name)
	if err != nil || !ok {
		return nil, ok, err
	}
	if err := charge[int32](d, v.Len(), v.Path, v.Start()); err != nil {
		return nil, false, err
	}
	out := make([]int32, v.Len())
	for i := range out {
		out[i] = int32(v.Int(i))
	}
	return out, true, nil
}

func i32(t fbs.Table, slot int, name string, def int32, err *error) int32 {
	if *err != nil {
		return def
	}
	v, e := t.Int(slot, 4, name, int64(def))
	*err = e
	return int32(v)
}

func str(t fbs.Table, slot int, name string, err *error) string {
	if *err != nil {
		return ""
	}
	s, _, e := t.String(slot, name)
	*err = e
	return s
}

// rebase shifts the offset of a malformed-input error found in a sub-buffer
// by the sub-buffer's position in its parent, so that offsets reported from
// Read are file offsets.
func rebase(err error, base int) error {
	var fe *fbs.Error
	if base != 0 && errors.As(err, &fe) {
		c := *fe
		c.Offset += int64(base)
		return &c
	}
	return err
}

// ---- TFLite ----

// tflite reads the TFLite level (package tflite, sharing the budget) and
// decodes the Edge TPU ops.
func (d *decoder) tflite(m *Model, data []byte) (*TFLite, error) {
	t, err := tflite.Decode(data, d.budget)
	if err != nil {
		return nil, err
	}
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		for oi := range sg.Operators {
			op := &sg.Operators[oi]
			if t.OperatorCodes[op.OpcodeIndex].CustomCode != CustomCode {
				continue
			}
			cop, err := d.customOp(op, fmt.Sprintf("Model.subgraphs[%d].operators[%d].custom_options", si, oi))
			if err != nil {
				return nil, rebase(err, op.CustomOptionsOffset)
			}
			cop.Subgraph, cop.Operator = si, oi
			m.Ops = append(m.Ops, cop)
		}
	}
	return t, nil
}

// ---- custom options (FlexBuffer map) ----

// maxKeyKept bounds the custom-option key kept in Keys and KeyTypes: the
// runtime's keys are one character ("1".."7").
const maxKeyKept = 64

func (d *decoder) customOp(op *Operator, path string) (*CustomOp, error) {
	c := &CustomOp{Options: CustomOptions{Offset: op.CustomOptionsOffset, Size: len(op.CustomOptions), Version: -1, ExecutionPreference: -1}}
	o := &c.Options
	root, err := fbs.FlexRoot(op.CustomOptions, path)
	if err != nil {
		return nil, err
	}
	mp, err := root.Map()
	if err != nil {
		return nil, err
	}
	if err := charge[string](d, 2*mp.Len(), path, root.Pos()); err != nil {
		return nil, err
	}
	var pkgKey4 *Package
	var extra []*Package
	var key4 []byte
	var key4Err error
	// Keys are converted once per key string, not once per entry: entries
	// may share one key string (see fbs.FlexMapRef.KeyBytes), and a key
	// longer than any the runtime reads is kept shortened.
	keys := map[int]string{}
	for i := 0; i < mp.Len(); i++ {
		kb, koff, err := mp.KeyBytes(i)
		if err != nil {
			return nil, err
		}
		k, ok := keys[koff]
		if !ok {
			k = string(kb[:min(len(kb), maxKeyKept)])
			if len(kb) > maxKeyKept {
				k += fmt.Sprintf("...(%d bytes)", len(kb))
			}
			keys[koff] = k
		}
		v, err := mp.Value(i)
		if err != nil {
			return nil, err
		}
		o.Keys = append(o.Keys, k)
		o.KeyTypes = append(o.KeyTypes, k+":"+v.Type().String())
		switch k {
		case "1":
			// The runtime reads "1" and "5" with AsInt32 (0 for a
			// non-numeric value) and never uses the deprecated "2": a value
			// of another type is not an error of the file.
			if numeric(v.Type()) {
				if o.Version, err = v.Int(); err != nil {
					return nil, err
				}
			}
		case "2":
			if t := v.Type(); t == fbs.FlexString || t == fbs.FlexBlob || t == fbs.FlexKey {
				b, _, err := v.Bytes()
				if err != nil {
					return nil, err
				}
				o.ChipName = string(b)
			}
		case "3":
			o.HasCachingExecutable = true
		case "4":
			b, off, err := v.Bytes()
			if err != nil {
				return nil, err
			}
			p, err := d.pkg(b, v.Path, 0)
			if err != nil {
				key4, key4Err = b, rebase(err, off)
				continue
			}
			p.FileOffset, p.Source = op.CustomOptionsOffset+off, `flex key "4"`
			pkgKey4 = p
		case "5":
			if numeric(v.Type()) {
				if o.ExecutionPreference, err = v.Int(); err != nil {
					return nil, err
				}
			}
		case "6":
			vec, err := v.Vector()
			if err != nil {
				return nil, err
			}
			if err := charge[int64](d, vec.Len(), v.Path, v.Pos()); err != nil {
				return nil, err
			}
			o.HasChips, o.Chips = true, make([]int64, vec.Len())
			for j := range o.Chips {
				if o.Chips[j], err = vec.At(j).Int(); err != nil {
					return nil, err
				}
			}
		case "7":
			vec, err := v.Vector()
			if err != nil {
				return nil, err
			}
			o.HasExtra, o.Extra = true, vec.Len()
			for j := 0; j < vec.Len(); j++ {
				el := vec.At(j)
				b, off, err := el.Bytes()
				if err != nil {
					return nil, err
				}
				p, err := d.pkg(b, el.Path, 0)
				if err != nil {
					return nil, rebase(err, off)
				}
				p.FileOffset, p.Source = op.CustomOptionsOffset+off, fmt.Sprintf("flex key \"7\"[%d]", j)
				extra = append(extra, p)
			}
		}
	}
	if key4Err != nil {
		// Edge TPU compiler 1.x (early 2019) wrote a bare Executable under
		// key "4" (and its parameter-caching executable under "3"), before
		// the DWN1 Package existed; later runtimes verify key "4" as a
		// Package and refuse it. Such a file is read at its TFLite level
		// with the executable's size noted (Check reports the refusal); a
		// key "4" that is neither is unreadable.
		if o.HasChips || fbs.Identifier(key4) == PackageIdentifier || !d.bareExecutable(key4) {
			return nil, key4Err
		}
		o.LegacyExecutable = len(key4)
	}
	if pkgKey4 != nil {
		c.Packages = append(c.Packages, pkgKey4)
	}
	c.Packages = append(c.Packages, extra...)
	return c, nil
}

// bareExecutable reports whether data reads as an Executable of its own
// (the pre-package serialisation of key "4"), without charging the budget
// of the model being read.
func (d *decoder) bareExecutable(data []byte) bool {
	probe := &decoder{budget: fbs.InputBudget(int64(len(data)), budgetSlack)}
	_, err := probe.executable(data, "legacy executable")
	return err == nil
}

// numeric says whether a FlexBuffer value reads as an integer.
func numeric(t fbs.FlexType) bool {
	switch t {
	case fbs.FlexInt, fbs.FlexUint, fbs.FlexIndirectInt, fbs.FlexIndirectUint, fbs.FlexBool, fbs.FlexFloat:
		return true
	}
	return false
}

// ---- DarwiNN ----

func (d *decoder) pkg(data []byte, path string, depth int) (*Package, error) {
	root, err := fbs.Root(data, path)
	if err != nil {
		return nil, err
	}
	p := &Package{Data: data, FileOffset: -1, Identifier: fbs.Identifier(data), Slots: root.Slots()}
	p.MinRuntimeVersion = i32(root, 0, "min_runtime_version", 0, &err)
	if err != nil {
		return nil, err
	}
	me, meOff, meOK, err := root.Bytes(1, "serialized_multi_executable")
	if err != nil {
		return nil, err
	}
	p.MultiExecutable, p.MultiExecutableOffset = me, meOff
	if !meOK {
		p.MultiExecutableOffset = -1
	}
	if p.Signature, _, _, err = root.Bytes(2, "signature"); err != nil {
		return nil, err
	}
	p.KeypairVersion = i32(root, 3, "keypair_version", 0, &err)
	p.CompilerVersion = str(root, 4, "compiler_version", &err)
	p.VirtualChipID = i32(root, 5, "virtual_chip_id", 0, &err)
	p.ModelIdentifier = str(root, 7, "model_identifier", &err)
	if err != nil {
		return nil, err
	}
	mc, _, err := root.Vector(6, 4, "multi_chip_package")
	if err != nil {
		return nil, err
	}
	if mc.Len() > 0 && depth >= maxNesting {
		return nil, &fbs.Error{Offset: int64(mc.Start()), Path: mc.Path, Msg: fmt.Sprintf("packages nested deeper than %d levels", maxNesting)}
	}
	if err := charge[Package](d, mc.Len(), mc.Path, mc.Start()); err != nil {
		return nil, err
	}
	for i := 0; i < mc.Len(); i++ {
		sp, err := mc.Table(i)
		if err != nil {
			return nil, err
		}
		b, off, _, err := sp.Bytes(0, "serialized_package")
		if err != nil {
			return nil, err
		}
		sub, err := d.pkg(b, sp.Path+".serialized_package", depth+1)
		if err != nil {
			return nil, rebase(err, off)
		}
		sub.Source = fmt.Sprintf("multi_chip_package[%d]", i)
		p.MultiChip = append(p.MultiChip, sub)
	}
	if !meOK {
		return p, nil
	}
	if p.Executables, err = d.multi(me, path+".serialized_multi_executable"); err != nil {
		return nil, rebase(err, meOff)
	}
	for _, e := range p.Executables {
		e.Offset += meOff
	}
	return p, nil
}

// multi reads a MultiExecutable; executable offsets are relative to it.
func (d *decoder) multi(me []byte, path string) ([]*Executable, error) {
	mroot, err := fbs.Root(me, path)
	if err != nil {
		return nil, err
	}
	exes, _, err := mroot.Vector(0, 4, "serialized_executables")
	if err != nil {
		return nil, err
	}
	if err := charge[Executable](d, exes.Len(), exes.Path, exes.Start()); err != nil {
		return nil, err
	}
	var out []*Executable
	for i := 0; i < exes.Len(); i++ {
		b, off, err := exes.Bytes(i)
		if err != nil {
			return nil, err
		}
		e, err := d.executable(b, exes.ElemPath(i))
		if err != nil {
			return nil, rebase(err, off)
		}
		e.Offset = off
		out = append(out, e)
	}
	return out, nil
}

func (d *decoder) executable(data []byte, path string) (*Executable, error) {
	root, err := fbs.Root(data, path)
	if err != nil {
		return nil, err
	}
	e := &Executable{Data: data, Identifier: fbs.Identifier(data), Slots: root.Slots(), ParametersOffset: -1}
	e.Version = i32(root, 0, "version", 0, &err)
	e.Name = str(root, 1, "name", &err)
	e.BatchSize = i32(root, 3, "batch_size", 0, &err)
	e.ScratchSizeBytes = i32(root, 4, "scratch_size_bytes", 0, &err)
	e.Chip = str(root, 10, "chip", &err)
	e.EstimatedCycles = i32(root, 11, "estimated_cycles", 0, &err)
	e.NarrowMemPerTile = i32(root, 12, "used_narrow_memory_bytes_per_tile", 0, &err)
	if err != nil {
		return nil, err
	}
	typ, err := root.Int(13, 2, "type", 0)
	if err != nil {
		return nil, err
	}
	e.Type, e.HasType = ExecutableType(typ), root.Present(13)
	if e.Token, err = root.Uint(14, 8, "parameter_caching_token", 0); err != nil {
		return nil, err
	}
	if e.UseTPUDRAM, err = root.Bool(15, "use_tpu_dram_for_parameters", false); err != nil {
		return nil, err
	}
	if e.EstimatedCycles64, err = root.Int(16, 8, "estimated_cycles_64bit", 0); err != nil {
		return nil, err
	}
	if e.SerializedModel, _, _, err = root.Bytes(2, "serialized_model"); err != nil {
		return nil, err
	}
	params, poff, pok, err := root.Bytes(6, "parameters")
	if err != nil {
		return nil, err
	}
	if pok {
		e.Parameters, e.ParametersOffset = params, poff
	}
	bs, _, err := root.Vector(5, 4, "instruction_bitstreams")
	if err != nil {
		return nil, err
	}
	if err := charge[Bitstream](d, bs.Len(), bs.Path, bs.Start()); err != nil {
		return nil, err
	}
	e.Bitstreams = make([]Bitstream, bs.Len())
	for i := range e.Bitstreams {
		bt, err := bs.Table(i)
		if err != nil {
			return nil, err
		}
		b := &e.Bitstreams[i]
		if b.Data, b.Offset, _, err = bt.Bytes(0, "bitstream"); err != nil {
			return nil, err
		}
		fv, _, err := bt.Vector(1, 4, "field_offsets")
		if err != nil {
			return nil, err
		}
		if err := charge[FieldOffset](d, fv.Len(), fv.Path, fv.Start()); err != nil {
			return nil, err
		}
		b.FieldOffsets = make([]FieldOffset, fv.Len())
		for j := range b.FieldOffsets {
			ft, err := fv.Table(j)
			if err != nil {
				return nil, err
			}
			fo := &b.FieldOffsets[j]
			fo.OffsetBit = i32(ft, 1, "offset_bit", 0, &err)
			if err != nil {
				return nil, err
			}
			if fo.Meta, err = meta(ft, 0); err != nil {
				return nil, err
			}
		}
	}
	hints, ok, err := root.Table(7, "dma_hints")
	if err != nil {
		return nil, err
	}
	if ok {
		e.HasDMAHints = true
		if e.DMAHints, err = d.dmaHints(hints); err != nil {
			return nil, err
		}
	}
	if e.InputLayers, e.HasInputLayersVec, err = d.layers(root, 8, "input_layers"); err != nil {
		return nil, err
	}
	if e.OutputLayers, e.HasOutputLayersVec, err = d.layers(root, 9, "output_layers"); err != nil {
		return nil, err
	}
	return e, nil
}

func meta(t fbs.Table, slot int) (Meta, error) {
	var m Meta
	mt, ok, err := t.Table(slot, "meta")
	if err != nil || !ok {
		return m, err
	}
	desc, err := mt.Int(0, 2, "desc", 0)
	m.Desc = Description(desc)
	m.Batch = i32(mt, 1, "batch", 0, &err)
	m.Name = str(mt, 2, "name", &err)
	if err != nil {
		return m, err
	}
	pos, err := mt.Int(3, 2, "position", 0)
	m.Position = Position(pos)
	return m, err
}

func (d *decoder) dmaHints(t fbs.Table) (*DMAHints, error) {
	h := &DMAHints{}
	var err error
	if h.FullyDeterministic, err = t.Bool(1, "fully_deterministic", false); err != nil {
		return nil, err
	}
	hv, _, err := t.Vector(0, 4, "hints")
	if err != nil {
		return nil, err
	}
	if err := charge[DMAHint](d, hv.Len(), hv.Path, hv.Start()); err != nil {
		return nil, err
	}
	h.Hints = make([]DMAHint, hv.Len())
	for i := range h.Hints {
		ht, err := hv.Table(i)
		if err != nil {
			return nil, err
		}
		x := &h.Hints[i]
		dir, err := ht.Int(2, 2, "direction", 0)
		if err != nil {
			return nil, err
		}
		x.Direction = Direction(dir)
		// A member without its table (FenceHint and InputLayer are empty
		// tables a serialiser may leave out) reads as all defaults.
		tag, u, ok, err := ht.UnionValue(0, "any_hint")
		if err != nil {
			return nil, err
		}
		x.Kind = HintKind(tag)
		if !ok {
			continue
		}
		switch x.Kind {
		case HintDescriptor:
			if x.Meta, err = meta(u, 0); err != nil {
				return nil, err
			}
			x.OffsetInBytes = i32(u, 1, "offset_in_bytes", 0, &err)
			x.SizeInBytes = i32(u, 2, "size_in_bytes", 0, &err)
		case HintInstruction:
			x.Chunk = i32(u, 0, "instruction_chunk_index", 0, &err)
		case HintInterrupt:
			var v int64
			v, err = u.Int(0, 2, "type", 0)
			x.Interrupt = int16(v)
		}
		if err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (d *decoder) layers(root fbs.Table, slot int, name string) ([]*Layer, bool, error) {
	lv, ok, err := root.Vector(slot, 4, name)
	if err != nil || !ok {
		return nil, ok, err
	}
	if err := charge[Layer](d, lv.Len(), lv.Path, lv.Start()); err != nil {
		return nil, false, err
	}
	out := make([]*Layer, lv.Len())
	for i := range out {
		lt, err := lv.Table(i)
		if err != nil {
			return nil, false, err
		}
		if out[i], err = d.layer(lt); err != nil {
			return nil, false, err
		}
	}
	return out, true, nil
}

func (d *decoder) layer(t fbs.Table) (*Layer, error) {
	var err error
	l := &Layer{}
	l.Name = str(t, 0, "name", &err)
	l.SizeBytes = i32(t, 1, "size_bytes", 0, &err)
	l.Y = i32(t, 2, "y_dim", 0, &err)
	l.X = i32(t, 3, "x_dim", 0, &err)
	l.Z = i32(t, 4, "z_dim", 0, &err)
	l.ExecutionCount = i32(t, 9, "execution_count_per_inference", 1, &err)
	if err != nil {
		return nil, err
	}
	if l.CacheOnDRAM, err = t.Bool(10, "cache_on_dram", false); err != nil {
		return nil, err
	}
	dt, err := t.Int(6, 2, "data_type", 0)
	if err != nil {
		return nil, err
	}
	l.DataType = DataType(dt)
	nt, ok, err := t.Table(5, "numerics")
	if err != nil {
		return nil, err
	}
	if ok {
		n := &Numerics{}
		n.ZeroPoint = i32(nt, 0, "zero_point", 0, &err)
		if err != nil {
			return nil, err
		}
		if n.DequantizationFactor, err = nt.Float32(1, "dequantization_factor", 0); err != nil {
			return nil, err
		}
		l.Numerics = n
	}
	tag, u, ok, err := t.UnionValue(7, "any_layer")
	if err != nil {
		return nil, err
	}
	l.Kind = LayerKind(tag)
	if l.Kind == LayerOutput && ok {
		if l.Output, err = d.outputLayer(u); err != nil {
			return nil, err
		}
		// Older compiles set only the (now deprecated) OutputLayer.data_type;
		// the runtime falls back to it when Layer.data_type is absent
		// (libedgetpu api/layer_information.cc, DataTypeSize).
		if !t.Present(6) {
			l.DataType = l.Output.DataType
		}
	}
	st, ok, err := t.Table(11, "shape")
	if err != nil {
		return nil, err
	}
	if ok {
		l.HasShape = true
		if l.Shape, err = d.ranges(st); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (d *decoder) ranges(shape fbs.Table) ([]Range, error) {
	v, _, err := shape.Vector(0, 8, "dimension")
	if err != nil {
		return nil, err
	}
	if err := charge[Range](d, v.Len(), v.Path, v.Start()); err != nil {
		return nil, err
	}
	out := make([]Range, v.Len())
	for i := range out {
		b := v.Elem(i)
		out[i] = Range{Start: int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24),
			End: int32(uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24)}
	}
	return out, nil
}

func (d *decoder) outputLayer(t fbs.Table) (*OutputLayer, error) {
	o := &OutputLayer{}
	dt, err := t.Int(1, 2, "data_type", 0)
	if err != nil {
		return nil, err
	}
	o.DataType = DataType(dt)
	lt, ok, err := t.Table(0, "layout")
	if err != nil {
		return nil, err
	}
	if ok {
		l := &OutputLayout{}
		for i, dst := range []*[]int32{&l.YTile, &l.XTile, &l.TileOffset, &l.XLocal, &l.YLocal, &l.RowSize} {
			if *dst, _, err = ints32(d, lt, i, layoutFields[i]); err != nil {
				return nil, err
			}
		}
		o.Layout = l
	}
	si, ok, err := t.Table(2, "shape_info")
	if err != nil {
		return nil, err
	}
	if ok {
		info := &OutputShapeInfo{}
		sv, _, err := si.Vector(0, 4, "slice_layout")
		if err != nil {
			return nil, err
		}
		if err := charge[TensorLayout](d, sv.Len(), sv.Path, sv.Start()); err != nil {
			return nil, err
		}
		info.Slices = make([]TensorLayout, sv.Len())
		for i := range info.Slices {
			tl, err := sv.Table(i)
			if err != nil {
				return nil, err
			}
			sh, ok, err := tl.Table(0, "shape")
			if err != nil {
				return nil, err
			}
			if ok {
				if info.Slices[i].Shape, err = d.ranges(sh); err != nil {
					return nil, err
				}
			}
			if info.Slices[i].Stride, _, err = ints32(d, tl, 1, "stride"); err != nil {
				return nil, err
			}
		}
		if info.Offsets, _, err = ints32(d, si, 1, "slice_offset"); err != nil {
			return nil, err
		}
		o.ShapeInfo = info
	}
	return o, nil
}

var layoutFields = []string{"y_coordinate_to_linear_tile_id_map", "x_coordinate_to_linear_tile_id_map",
	"linearized_tile_byte_offset", "x_coordinate_to_local_byte_offset", "y_coordinate_to_local_y_offset",
	"x_coordinate_to_local_y_row_size"}
