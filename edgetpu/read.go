package edgetpu

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/npukit/npukit/internal/fbs"
)

// ReadFile reads a model or raw package from disk.
func ReadFile(path string) (*Model, error) {
	data, err := os.ReadFile(path)
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
	d := &decoder{budget: int64(len(data)) + budgetSlack}
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
	budget int64
}

// ErrBudget says that a file's structures would need more memory than the
// file is large (shared or overlapping offsets).
var ErrBudget = errors.New("structures exceed the input size (overlapping or repeated offsets)")

func charge[T any](d *decoder, n int, path string, at int) error {
	var z T
	d.budget -= int64(n) * int64(unsafe.Sizeof(z))
	if d.budget < 0 {
		return &budgetError{&fbs.Error{Offset: int64(at), Path: path, Msg: fmt.Sprintf("%d elements: %v", n, ErrBudget)}}
	}
	return nil
}

// budgetError is an *fbs.Error (offset and path) that also matches ErrBudget.
type budgetError struct{ at *fbs.Error }

func (e *budgetError) Error() string   { return e.at.Error() }
func (e *budgetError) Unwrap() []error { return []error{e.at, ErrBudget} }

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

func (d *decoder) tflite(m *Model, data []byte) (*TFLite, error) {
	root, err := fbs.Root(data, "Model")
	if err != nil {
		return nil, err
	}
	t := &TFLite{Identifier: fbs.Identifier(data)}
	v, err := root.Uint(0, 4, "version", 0)
	t.Version = uint32(v)
	t.Description = str(root, 3, "description", &err)
	if err != nil {
		return nil, err
	}
	codes, _, err := root.Vector(1, 4, "operator_codes")
	if err != nil {
		return nil, err
	}
	if err := charge[OperatorCode](d, codes.Len(), codes.Path, codes.Start()); err != nil {
		return nil, err
	}
	t.OperatorCodes = make([]OperatorCode, codes.Len())
	for i := range t.OperatorCodes {
		c, err := codes.Table(i)
		if err != nil {
			return nil, err
		}
		oc := &t.OperatorCodes[i]
		dep, err := c.Int(0, 1, "deprecated_builtin_code", 0)
		oc.DeprecatedBuiltinCode = int8(dep)
		oc.CustomCode = str(c, 1, "custom_code", &err)
		oc.Version = i32(c, 2, "version", 1, &err)
		oc.BuiltinCode = i32(c, 3, "builtin_code", 0, &err)
		if err != nil {
			return nil, err
		}
	}
	buffers, _, err := root.Vector(4, 4, "buffers")
	if err != nil {
		return nil, err
	}
	t.NumBuffers = buffers.Len()
	if err := d.metadata(t, root, buffers); err != nil {
		return nil, err
	}
	sgs, _, err := root.Vector(2, 4, "subgraphs")
	if err != nil {
		return nil, err
	}
	if err := charge[Subgraph](d, sgs.Len(), sgs.Path, sgs.Start()); err != nil {
		return nil, err
	}
	t.Subgraphs = make([]Subgraph, sgs.Len())
	for i := range t.Subgraphs {
		st, err := sgs.Table(i)
		if err != nil {
			return nil, err
		}
		if err := d.subgraph(&t.Subgraphs[i], st); err != nil {
			return nil, err
		}
	}
	// The Edge TPU ops.
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		for oi := range sg.Operators {
			op := &sg.Operators[oi]
			if int(op.OpcodeIndex) >= len(t.OperatorCodes) {
				return nil, fmt.Errorf("Model.subgraphs[%d].operators[%d].opcode_index %d: only %d operator codes", si, oi, op.OpcodeIndex, len(t.OperatorCodes))
			}
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

func (d *decoder) metadata(t *TFLite, root fbs.Table, buffers fbs.Vector) error {
	md, ok, err := root.Vector(6, 4, "metadata")
	if err != nil || !ok {
		return err
	}
	if err := charge[Metadata](d, md.Len(), md.Path, md.Start()); err != nil {
		return err
	}
	for i := 0; i < md.Len(); i++ {
		e, err := md.Table(i)
		if err != nil {
			return err
		}
		var m Metadata
		m.Name = str(e, 0, "name", &err)
		b, e2 := e.Uint(1, 4, "buffer", 0)
		if err == nil {
			err = e2
		}
		if err != nil {
			return err
		}
		m.Buffer = uint32(b)
		if int(m.Buffer) < buffers.Len() {
			bt, err := buffers.Table(int(m.Buffer))
			if err != nil {
				return err
			}
			data, _, _, err := bt.Bytes(0, "data")
			if err != nil {
				return err
			}
			m.BufferSize = len(data)
		}
		t.Metadata = append(t.Metadata, m)
	}
	return nil
}

func (d *decoder) subgraph(sg *Subgraph, st fbs.Table) error {
	var err error
	sg.Name = str(st, 4, "name", &err)
	if err != nil {
		return err
	}
	if sg.Inputs, _, err = ints32(d, st, 1, "inputs"); err != nil {
		return err
	}
	if sg.Outputs, _, err = ints32(d, st, 2, "outputs"); err != nil {
		return err
	}
	tv, _, err := st.Vector(0, 4, "tensors")
	if err != nil {
		return err
	}
	if err := charge[Tensor](d, tv.Len(), tv.Path, tv.Start()); err != nil {
		return err
	}
	sg.Tensors = make([]Tensor, tv.Len())
	for i := range sg.Tensors {
		tt, err := tv.Table(i)
		if err != nil {
			return err
		}
		ten := &sg.Tensors[i]
		if ten.Shape, _, err = ints32(d, tt, 0, "shape"); err != nil {
			return err
		}
		typ, err := tt.Int(1, 1, "type", 0)
		ten.Type = TensorType(typ)
		buf, e2 := tt.Uint(2, 4, "buffer", 0)
		if err == nil {
			err = e2
		}
		ten.Buffer = uint32(buf)
		ten.Name = str(tt, 3, "name", &err)
		if err != nil {
			return err
		}
		q, ok, err := tt.Table(4, "quantization")
		if err != nil {
			return err
		}
		if ok {
			sv, _, err := q.Vector(2, 4, "scale")
			if err != nil {
				return err
			}
			zv, _, err := q.Vector(3, 8, "zero_point")
			if err != nil {
				return err
			}
			if err := charge[int64](d, sv.Len()+2*zv.Len(), q.Path, q.Pos()); err != nil {
				return err
			}
			if sv.Len() > 0 {
				ten.Scale = make([]float32, sv.Len())
				for j := range ten.Scale {
					ten.Scale[j] = sv.Float32(j)
				}
			}
			if zv.Len() > 0 {
				ten.ZeroPoint = make([]int64, zv.Len())
				for j := range ten.ZeroPoint {
					ten.ZeroPoint[j] = zv.Int(j)
				}
			}
		}
	}
	ov, _, err := st.Vector(3, 4, "operators")
	if err != nil {
		return err
	}
	if err := charge[Operator](d, ov.Len(), ov.Path, ov.Start()); err != nil {
		return err
	}
	sg.Operators = make([]Operator, ov.Len())
	for i := range sg.Operators {
		ot, err := ov.Table(i)
		if err != nil {
			return err
		}
		op := &sg.Operators[i]
		idx, err := ot.Uint(0, 4, "opcode_index", 0)
		if err != nil {
			return err
		}
		op.OpcodeIndex = uint32(idx)
		if op.Inputs, _, err = ints32(d, ot, 1, "inputs"); err != nil {
			return err
		}
		if op.Outputs, _, err = ints32(d, ot, 2, "outputs"); err != nil {
			return err
		}
		opts, off, ok, err := ot.Bytes(5, "custom_options")
		if err != nil {
			return err
		}
		if ok {
			op.CustomOptions, op.CustomOptionsOffset = opts, off
		} else if err := largeOptions(ot, op); err != nil {
			return err
		}
		f, err := ot.Int(6, 1, "custom_options_format", 0)
		if err != nil {
			return err
		}
		op.CustomOptionsFormat = int8(f)
	}
	return nil
}

// largeOptions reads Operator.large_custom_options_offset/size (slots 9 and
// 10), which models over 2 GiB use instead of custom_options: an absolute
// file offset.
func largeOptions(ot fbs.Table, op *Operator) error {
	off, err := ot.Uint(9, 8, "large_custom_options_offset", 0)
	if err != nil {
		return err
	}
	size, err := ot.Uint(10, 8, "large_custom_options_size", 0)
	if err != nil || size == 0 {
		return err
	}
	buf := ot.Buf()
	if off > uint64(len(buf)) || size > uint64(len(buf))-off {
		return &fbs.Error{Offset: int64(ot.Pos()), Path: ot.Path + ".large_custom_options_offset", Msg: fmt.Sprintf("options [%d, +%d) outside the %d-byte file", off, size, len(buf))}
	}
	op.CustomOptions, op.CustomOptionsOffset = buf[off:off+size:off+size], int(off)
	return nil
}

// ---- custom options (FlexBuffer map) ----

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
	for i := 0; i < mp.Len(); i++ {
		k, err := mp.Key(i)
		if err != nil {
			return nil, err
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
				return nil, rebase(err, off)
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
	if pkgKey4 != nil {
		c.Packages = append(c.Packages, pkgKey4)
	}
	c.Packages = append(c.Packages, extra...)
	return c, nil
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
