package edgetpu

import (
	"errors"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/npukit/npukit/internal/fbs"
)

// The writer builds packages and TFLite models with the official
// FlatBuffers Go builder. It serialises the model structures as they are
// (Data and offset fields are outputs of reading and are ignored), so tests
// and the demo can build any case, including ones the runtime rejects.

// WriteOptions tune the writer.
type WriteOptions struct {
	// Align is the alignment of the multi-executable, of each executable and
	// of nested packages relative to the package start (default 4096, a
	// page, as the compiler does; small values make small test inputs).
	Align int
}

func (o WriteOptions) align() int {
	if o.Align <= 0 {
		return 4096
	}
	return o.Align
}

// WritePackage serialises a package. The identifier is written when
// p.Identifier has four bytes (use PackageIdentifier), so packages without
// one can be built too. Executables are written page-aligned relative to
// the package start, as the compiler does.
func WritePackage(p *Package) ([]byte, error) { return WriteOptions{}.Package(p) }

// Package serialises a package with these options.
func (o WriteOptions) Package(p *Package) ([]byte, error) {
	align := o.align()
	var exes [][]byte
	for i, e := range p.Executables {
		b, err := WriteExecutable(e)
		if err != nil {
			return nil, fmt.Errorf("executable %d: %w", i, err)
		}
		exes = append(exes, b)
	}
	var nested [][]byte
	for i, sub := range p.MultiChip {
		b, err := o.Package(sub)
		if err != nil {
			return nil, fmt.Errorf("multi_chip_package[%d]: %w", i, err)
		}
		nested = append(nested, b)
	}
	// MultiExecutable{0 serialized_executables:[string]}.
	mb := flatbuffers.NewBuilder(1024)
	offs := make([]flatbuffers.UOffsetT, len(exes))
	for i := len(exes) - 1; i >= 0; i-- {
		mb.StartVector(1, len(exes[i])+1, align)
		mb.PrependByte(0)
		for j := len(exes[i]) - 1; j >= 0; j-- {
			mb.PrependByte(exes[i][j])
		}
		offs[i] = mb.EndVector(len(exes[i]))
	}
	ev := vectorOfOffsets(mb, offs)
	mb.StartObject(1)
	mb.PrependUOffsetTSlot(0, ev, 0)
	mb.Finish(mb.EndObject())
	me := mb.FinishedBytes()

	b := flatbuffers.NewBuilder(len(me) + 4096)
	var nestedOff []flatbuffers.UOffsetT
	for _, n := range nested {
		v := alignedBytes(b, n, align)
		b.StartObject(1)
		b.PrependUOffsetTSlot(0, v, 0)
		nestedOff = append(nestedOff, b.EndObject())
	}
	var mcv flatbuffers.UOffsetT
	if len(nestedOff) > 0 {
		mcv = vectorOfOffsets(b, nestedOff)
	}
	mid := b.CreateString(p.ModelIdentifier)
	cv := b.CreateString(p.CompilerVersion)
	var sig flatbuffers.UOffsetT
	if p.Signature != nil {
		sig = b.CreateByteVector(p.Signature)
	}
	mev := alignedBytes(b, me, align)
	b.StartObject(8)
	b.PrependInt32(p.MinRuntimeVersion)
	b.Slot(0)
	b.PrependUOffsetTSlot(1, mev, 0)
	if p.Signature != nil {
		b.PrependUOffsetTSlot(2, sig, 0)
	}
	b.PrependInt32Slot(3, p.KeypairVersion, 0)
	b.PrependUOffsetTSlot(4, cv, 0)
	b.PrependInt32Slot(5, p.VirtualChipID, 0)
	if mcv != 0 {
		b.PrependUOffsetTSlot(6, mcv, 0)
	}
	b.PrependUOffsetTSlot(7, mid, 0)
	root := b.EndObject()
	if len(p.Identifier) == 4 {
		b.FinishWithFileIdentifier(root, []byte(p.Identifier))
	} else {
		b.Finish(root)
	}
	return b.FinishedBytes(), nil
}

// alignedBytes writes a [ubyte] vector whose data starts at a multiple of
// align from the buffer end (and so from its start once finished with an
// aligned size).
func alignedBytes(b *flatbuffers.Builder, data []byte, align int) flatbuffers.UOffsetT {
	b.StartVector(1, len(data), align)
	for j := len(data) - 1; j >= 0; j-- {
		b.PrependByte(data[j])
	}
	return b.EndVector(len(data))
}

func vectorOfOffsets(b *flatbuffers.Builder, offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}

func int32Vector(b *flatbuffers.Builder, v []int32) flatbuffers.UOffsetT {
	b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		b.PrependInt32(v[i])
	}
	return b.EndVector(len(v))
}

func rangeVector(b *flatbuffers.Builder, rs []Range) flatbuffers.UOffsetT {
	b.StartVector(8, len(rs), 4)
	for i := len(rs) - 1; i >= 0; i-- {
		b.PrependInt32(rs[i].End)
		b.PrependInt32(rs[i].Start)
	}
	return b.EndVector(len(rs))
}

func tensorShape(b *flatbuffers.Builder, rs []Range) flatbuffers.UOffsetT {
	v := rangeVector(b, rs)
	b.StartObject(1)
	b.PrependUOffsetTSlot(0, v, 0)
	return b.EndObject()
}

// WriteExecutable serialises one executable (without identifier, as
// packages hold them).
func WriteExecutable(e *Executable) ([]byte, error) {
	b := flatbuffers.NewBuilder(len(e.Parameters) + 4096)
	writeMeta := func(m Meta) flatbuffers.UOffsetT {
		var name flatbuffers.UOffsetT
		if m.Name != "" {
			name = b.CreateString(m.Name)
		}
		b.StartObject(4)
		b.PrependInt16Slot(0, int16(m.Desc), 0)
		b.PrependInt32Slot(1, m.Batch, 0)
		if name != 0 {
			b.PrependUOffsetTSlot(2, name, 0)
		}
		b.PrependInt16Slot(3, int16(m.Position), 0)
		return b.EndObject()
	}
	var params flatbuffers.UOffsetT
	if e.Parameters != nil {
		params = alignedBytes(b, e.Parameters, 64)
	}
	var chunks []flatbuffers.UOffsetT
	// Bitstreams whose Data is the same slice (same first byte and length,
	// as reading a file whose chunks alias one vector gives) are written
	// as one vector that every chunk references, so such files round-trip
	// at their own size.
	type dataKey struct {
		first *byte
		n     int
	}
	written := map[dataKey]flatbuffers.UOffsetT{}
	for _, bs := range e.Bitstreams {
		var fos []flatbuffers.UOffsetT
		for _, f := range bs.FieldOffsets {
			m := writeMeta(f.Meta)
			b.StartObject(2)
			b.PrependUOffsetTSlot(0, m, 0)
			b.PrependInt32Slot(1, f.OffsetBit, 0)
			fos = append(fos, b.EndObject())
		}
		fv := vectorOfOffsets(b, fos)
		var data flatbuffers.UOffsetT
		if len(bs.Data) > 0 {
			k := dataKey{&bs.Data[0], len(bs.Data)}
			if data = written[k]; data == 0 {
				data = alignedBytes(b, bs.Data, 16)
				written[k] = data
			}
		} else {
			data = alignedBytes(b, bs.Data, 16)
		}
		b.StartObject(2)
		b.PrependUOffsetTSlot(0, data, 0)
		b.PrependUOffsetTSlot(1, fv, 0)
		chunks = append(chunks, b.EndObject())
	}
	chunkVec := vectorOfOffsets(b, chunks)
	var hints flatbuffers.UOffsetT
	if e.DMAHints != nil {
		var hs []flatbuffers.UOffsetT
		for _, h := range e.DMAHints.Hints {
			var u flatbuffers.UOffsetT
			switch h.Kind {
			case HintDescriptor:
				m := writeMeta(h.Meta)
				b.StartObject(3)
				b.PrependUOffsetTSlot(0, m, 0)
				b.PrependInt32Slot(1, h.OffsetInBytes, 0)
				b.PrependInt32Slot(2, h.SizeInBytes, 0)
				u = b.EndObject()
			case HintInstruction:
				b.StartObject(1)
				b.PrependInt32Slot(0, h.Chunk, 0)
				u = b.EndObject()
			case HintInterrupt:
				b.StartObject(1)
				b.PrependInt16Slot(0, h.Interrupt, 0)
				u = b.EndObject()
			case HintFence:
				b.StartObject(0)
				u = b.EndObject()
			}
			b.StartObject(3)
			if u != 0 {
				b.PrependByteSlot(0, byte(h.Kind), 0)
				b.PrependUOffsetTSlot(1, u, 0)
			}
			b.PrependInt16Slot(2, int16(h.Direction), 0)
			hs = append(hs, b.EndObject())
		}
		hv := vectorOfOffsets(b, hs)
		b.StartObject(2)
		b.PrependUOffsetTSlot(0, hv, 0)
		b.PrependBoolSlot(1, e.DMAHints.FullyDeterministic, false)
		hints = b.EndObject()
	}
	layers := func(ls []*Layer, present bool) flatbuffers.UOffsetT {
		if !present && len(ls) == 0 {
			return 0
		}
		var offs []flatbuffers.UOffsetT
		for _, l := range ls {
			offs = append(offs, writeLayer(b, l))
		}
		return vectorOfOffsets(b, offs)
	}
	in := layers(e.InputLayers, e.HasInputLayersVec)
	out := layers(e.OutputLayers, e.HasOutputLayersVec)
	name := b.CreateString(e.Name)
	chip := b.CreateString(e.Chip)
	var model flatbuffers.UOffsetT
	if e.SerializedModel != nil {
		model = b.CreateByteVector(e.SerializedModel)
	}
	b.StartObject(17)
	b.PrependInt32Slot(0, e.Version, 0)
	b.PrependUOffsetTSlot(1, name, 0)
	if model != 0 {
		b.PrependUOffsetTSlot(2, model, 0)
	}
	b.PrependInt32Slot(3, e.BatchSize, 0)
	b.PrependInt32Slot(4, e.ScratchSizeBytes, 0)
	b.PrependUOffsetTSlot(5, chunkVec, 0)
	if params != 0 {
		b.PrependUOffsetTSlot(6, params, 0)
	}
	if hints != 0 {
		b.PrependUOffsetTSlot(7, hints, 0)
	}
	if in != 0 {
		b.PrependUOffsetTSlot(8, in, 0)
	}
	if out != 0 {
		b.PrependUOffsetTSlot(9, out, 0)
	}
	b.PrependUOffsetTSlot(10, chip, 0)
	b.PrependInt32Slot(11, e.EstimatedCycles, 0)
	b.PrependInt32Slot(12, e.NarrowMemPerTile, 0)
	if e.HasType || e.Type != StandAlone {
		b.PrependInt16(int16(e.Type))
		b.Slot(13)
	}
	b.PrependUint64Slot(14, e.Token, 0)
	b.PrependBoolSlot(15, e.UseTPUDRAM, false)
	b.PrependInt64Slot(16, e.EstimatedCycles64, 0)
	b.Finish(b.EndObject())
	return b.FinishedBytes(), nil
}

func writeLayer(b *flatbuffers.Builder, l *Layer) flatbuffers.UOffsetT {
	var shape flatbuffers.UOffsetT
	if l.HasShape || len(l.Shape) > 0 {
		shape = tensorShape(b, l.Shape)
	}
	var any flatbuffers.UOffsetT
	switch l.Kind {
	case LayerOutput:
		o := l.Output
		if o == nil {
			o = &OutputLayer{}
		}
		var layout, info flatbuffers.UOffsetT
		if lay := o.Layout; lay != nil {
			vs := make([]flatbuffers.UOffsetT, 6)
			for i, v := range [][]int32{lay.YTile, lay.XTile, lay.TileOffset, lay.XLocal, lay.YLocal, lay.RowSize} {
				vs[i] = int32Vector(b, v)
			}
			b.StartObject(6)
			for i := range vs {
				b.PrependUOffsetTSlot(i, vs[i], 0)
			}
			layout = b.EndObject()
		}
		if si := o.ShapeInfo; si != nil {
			var sl []flatbuffers.UOffsetT
			for _, s := range si.Slices {
				sh := tensorShape(b, s.Shape)
				st := int32Vector(b, s.Stride)
				b.StartObject(2)
				b.PrependUOffsetTSlot(0, sh, 0)
				b.PrependUOffsetTSlot(1, st, 0)
				sl = append(sl, b.EndObject())
			}
			slv := vectorOfOffsets(b, sl)
			offv := int32Vector(b, si.Offsets)
			b.StartObject(2)
			b.PrependUOffsetTSlot(0, slv, 0)
			b.PrependUOffsetTSlot(1, offv, 0)
			info = b.EndObject()
		}
		b.StartObject(3)
		if layout != 0 {
			b.PrependUOffsetTSlot(0, layout, 0)
		}
		b.PrependInt16Slot(1, int16(o.DataType), 0)
		if info != 0 {
			b.PrependUOffsetTSlot(2, info, 0)
		}
		any = b.EndObject()
	case LayerInput:
		b.StartObject(0)
		any = b.EndObject()
	}
	var num flatbuffers.UOffsetT
	if n := l.Numerics; n != nil {
		b.StartObject(2)
		b.PrependInt32Slot(0, n.ZeroPoint, 0)
		b.PrependFloat32Slot(1, n.DequantizationFactor, 0)
		num = b.EndObject()
	}
	name := b.CreateString(l.Name)
	b.StartObject(12)
	b.PrependUOffsetTSlot(0, name, 0)
	b.PrependInt32Slot(1, l.SizeBytes, 0)
	b.PrependInt32Slot(2, l.Y, 0)
	b.PrependInt32Slot(3, l.X, 0)
	b.PrependInt32Slot(4, l.Z, 0)
	if num != 0 {
		b.PrependUOffsetTSlot(5, num, 0)
	}
	b.PrependInt16Slot(6, int16(l.DataType), 0)
	if any != 0 {
		b.PrependByteSlot(7, byte(l.Kind), 0)
		b.PrependUOffsetTSlot(8, any, 0)
	}
	b.PrependInt32Slot(9, l.ExecutionCount, 1)
	b.PrependBoolSlot(10, l.CacheOnDRAM, false)
	if shape != 0 {
		b.PrependUOffsetTSlot(11, shape, 0)
	}
	return b.EndObject()
}

// EncodeOptions builds the custom op's FlexBuffer map from the options and
// the serialised packages (the first under key "4", the others under "7").
func EncodeOptions(o CustomOptions, packages [][]byte) []byte {
	m := map[string]fbs.FlexValue{}
	if o.Version >= 0 {
		m["1"] = fbs.FlexValue{Type: fbs.FlexInt, Int: o.Version}
	}
	if o.ChipName != "" {
		m["2"] = fbs.FlexValue{Type: fbs.FlexString, Bytes: []byte(o.ChipName)}
	}
	if len(packages) > 0 {
		m["4"] = fbs.FlexValue{Type: fbs.FlexString, Bytes: packages[0]}
	}
	m["5"] = fbs.FlexValue{Type: fbs.FlexInt, Int: o.ExecutionPreference}
	if o.HasChips || len(o.Chips) > 0 {
		m["6"] = fbs.FlexValue{Type: fbs.FlexVector, Ints: o.Chips}
	}
	if o.HasExtra || len(packages) > 1 {
		var extra [][]byte
		if len(packages) > 1 {
			extra = packages[1:]
		}
		m["7"] = fbs.FlexValue{Type: fbs.FlexVectorString, Strings: extra}
	}
	return fbs.EncodeFlexMap(m)
}

// Write serialises a model: a raw package when m.TFLite is nil, else a
// TFLite model whose Edge TPU operators (m.Ops) get custom options built
// from their Options and Packages; other operators keep their bytes.
func Write(m *Model) ([]byte, error) { return WriteOptions{}.Model(m) }

// Model serialises a model with these options.
func (o WriteOptions) Model(m *Model) ([]byte, error) {
	if m.TFLite == nil {
		if len(m.Ops) != 1 || len(m.Ops[0].Packages) != 1 {
			return nil, errors.New("a raw package model holds exactly one package")
		}
		return o.Package(m.Ops[0].Packages[0])
	}
	t := m.TFLite
	opts := map[[2]int][]byte{}
	for _, op := range m.Ops {
		var pkgs [][]byte
		for _, p := range op.Packages {
			b, err := o.Package(p)
			if err != nil {
				return nil, err
			}
			pkgs = append(pkgs, b)
		}
		opts[[2]int{op.Subgraph, op.Operator}] = EncodeOptions(op.Options, pkgs)
	}
	size := 1024
	for _, o := range opts {
		size += len(o)
	}
	b := flatbuffers.NewBuilder(size)
	// Buffers: empty except those with BufferData (constants: weights,
	// shapes, permutations) and the metadata ones, which are written with
	// their size as zero bytes.
	mdSize := map[uint32]int{}
	for _, md := range t.Metadata {
		mdSize[md.Buffer] = md.BufferSize
	}
	var bufs []flatbuffers.UOffsetT
	for i := 0; i < t.NumBuffers; i++ {
		var data flatbuffers.UOffsetT
		if i < len(t.BufferData) && t.BufferData[i] != nil {
			data = b.CreateByteVector(t.BufferData[i])
		} else if n := mdSize[uint32(i)]; n > 0 {
			data = b.CreateByteVector(make([]byte, n))
		}
		b.StartObject(1)
		if data != 0 {
			b.PrependUOffsetTSlot(0, data, 0)
		}
		bufs = append(bufs, b.EndObject())
	}
	bufVec := vectorOfOffsets(b, bufs)
	var mds []flatbuffers.UOffsetT
	for _, md := range t.Metadata {
		n := b.CreateString(md.Name)
		b.StartObject(2)
		b.PrependUOffsetTSlot(0, n, 0)
		b.PrependUint32Slot(1, md.Buffer, 0)
		mds = append(mds, b.EndObject())
	}
	var mdVec flatbuffers.UOffsetT
	if len(mds) > 0 {
		mdVec = vectorOfOffsets(b, mds)
	}
	var sgs []flatbuffers.UOffsetT
	for si := range t.Subgraphs {
		sg := &t.Subgraphs[si]
		var ops []flatbuffers.UOffsetT
		for oi := range sg.Operators {
			op := &sg.Operators[oi]
			co, isTPU := opts[[2]int{si, oi}]
			if !isTPU {
				co = op.CustomOptions
			}
			var cov flatbuffers.UOffsetT
			if co != nil {
				cov = alignedBytes(b, co, 16)
			}
			in, out := int32Vector(b, op.Inputs), int32Vector(b, op.Outputs)
			b.StartObject(7)
			b.PrependUint32Slot(0, op.OpcodeIndex, 0)
			b.PrependUOffsetTSlot(1, in, 0)
			b.PrependUOffsetTSlot(2, out, 0)

			if cov != 0 {
				b.PrependUOffsetTSlot(5, cov, 0)
			}
			b.PrependInt8Slot(6, op.CustomOptionsFormat, 0)
			ops = append(ops, b.EndObject())
		}
		opVec := vectorOfOffsets(b, ops)
		var tens []flatbuffers.UOffsetT
		for _, ten := range sg.Tensors {
			var q flatbuffers.UOffsetT
			if ten.Scale != nil || ten.ZeroPoint != nil {
				b.StartVector(4, len(ten.Scale), 4)
				for i := len(ten.Scale) - 1; i >= 0; i-- {
					b.PrependFloat32(ten.Scale[i])
				}
				sv := b.EndVector(len(ten.Scale))
				b.StartVector(8, len(ten.ZeroPoint), 8)
				for i := len(ten.ZeroPoint) - 1; i >= 0; i-- {
					b.PrependInt64(ten.ZeroPoint[i])
				}
				zv := b.EndVector(len(ten.ZeroPoint))
				b.StartObject(4)
				b.PrependUOffsetTSlot(2, sv, 0)
				b.PrependUOffsetTSlot(3, zv, 0)
				q = b.EndObject()
			}
			shape := int32Vector(b, ten.Shape)
			var sig flatbuffers.UOffsetT
			if ten.ShapeSignature != nil {
				sig = int32Vector(b, ten.ShapeSignature)
			}
			name := b.CreateString(ten.Name)
			b.StartObject(8)
			b.PrependUOffsetTSlot(0, shape, 0)
			b.PrependBoolSlot(5, ten.IsVariable, false)
			if sig != 0 {
				b.PrependUOffsetTSlot(7, sig, 0)
			}
			b.PrependInt8Slot(1, int8(ten.Type), 0)
			b.PrependUint32Slot(2, ten.Buffer, 0)
			b.PrependUOffsetTSlot(3, name, 0)
			if q != 0 {
				b.PrependUOffsetTSlot(4, q, 0)
			}
			tens = append(tens, b.EndObject())
		}
		tenVec := vectorOfOffsets(b, tens)
		in, out := int32Vector(b, sg.Inputs), int32Vector(b, sg.Outputs)
		var name flatbuffers.UOffsetT
		if sg.Name != "" {
			name = b.CreateString(sg.Name)
		}
		b.StartObject(5)
		b.PrependUOffsetTSlot(0, tenVec, 0)
		b.PrependUOffsetTSlot(1, in, 0)
		b.PrependUOffsetTSlot(2, out, 0)
		b.PrependUOffsetTSlot(3, opVec, 0)
		if name != 0 {
			b.PrependUOffsetTSlot(4, name, 0)
		}
		sgs = append(sgs, b.EndObject())
	}
	sgVec := vectorOfOffsets(b, sgs)
	var codes []flatbuffers.UOffsetT
	for _, c := range t.OperatorCodes {
		var cc flatbuffers.UOffsetT
		if c.CustomCode != "" {
			cc = b.CreateString(c.CustomCode)
		}
		b.StartObject(4)
		b.PrependInt8Slot(0, c.DeprecatedBuiltinCode, 0)
		if cc != 0 {
			b.PrependUOffsetTSlot(1, cc, 0)
		}
		b.PrependInt32Slot(2, c.Version, 1)
		b.PrependInt32Slot(3, c.BuiltinCode, 0)
		codes = append(codes, b.EndObject())
	}
	codeVec := vectorOfOffsets(b, codes)
	desc := b.CreateString(t.Description)
	b.StartObject(7)
	b.PrependUint32Slot(0, t.Version, 0)
	b.PrependUOffsetTSlot(1, codeVec, 0)
	b.PrependUOffsetTSlot(2, sgVec, 0)
	b.PrependUOffsetTSlot(3, desc, 0)
	b.PrependUOffsetTSlot(4, bufVec, 0)
	if mdVec != 0 {
		b.PrependUOffsetTSlot(6, mdVec, 0)
	}
	b.FinishWithFileIdentifier(b.EndObject(), []byte("TFL3"))
	return b.FinishedBytes(), nil
}
