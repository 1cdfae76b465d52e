package edgetpu

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// normalize clears what reading adds (buffers, offsets, present slots,
// derived option fields) so that a written model compares with its source.
func normalize(m *Model) *Model {
	m.Data = nil
	if m.TFLite != nil {
		m.TFLite.BufferSizes, m.TFLite.BufferData = nil, nil // derived from the buffers written
		for si := range m.TFLite.Subgraphs {
			for oi := range m.TFLite.Subgraphs[si].Operators {
				op := &m.TFLite.Subgraphs[si].Operators[oi]
				op.CustomOptions, op.CustomOptionsOffset = nil, 0
			}
		}
	}
	var pkg func(p *Package)
	pkg = func(p *Package) {
		p.Data, p.FileOffset, p.Source, p.Slots, p.MultiExecutable, p.MultiExecutableOffset = nil, 0, "", nil, nil, 0
		if p.Identifier != PackageIdentifier {
			p.Identifier = ""
		}
		for _, sub := range p.MultiChip {
			pkg(sub)
		}
		for _, e := range p.Executables {
			e.Data, e.Offset, e.Identifier, e.Slots, e.ParametersOffset = nil, 0, "", nil, 0
			if len(e.Parameters) == 0 {
				e.Parameters = nil
			}
			for i := range e.Bitstreams {
				e.Bitstreams[i].Offset = 0
			}
		}
	}
	for _, op := range m.Ops {
		op.Options.Offset, op.Options.Size, op.Options.Keys, op.Options.KeyTypes = 0, 0, nil, nil
		op.Options.HasChips = op.Options.HasChips || len(op.Options.Chips) > 0
		op.Options.HasExtra = op.Options.HasExtra || op.Options.Extra > 0 || len(op.Packages) > 1
		if op.Options.HasExtra {
			op.Options.Extra = len(op.Packages) - 1
		}
		for _, p := range op.Packages {
			pkg(p)
		}
	}
	return m
}

func roundTrip(t *testing.T, m *Model) *Model {
	t.Helper()
	b, err := Write(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatalf("reading what was written: %v", err)
	}
	want := normalize(m)
	if !reflect.DeepEqual(normalize(got), want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("read(write(x)) != x\n got %s\nwant %s", gj, wj)
	}
	// Re-read for callers (normalize cleared the buffers).
	got, _ = Read(b)
	return got
}

// Synthetic cases the corpus lacks.
func syntheticCases() map[string]*Model {
	cases := map[string]*Model{}
	cases["demo"] = Synthetic(DemoSpec())

	m := Synthetic(DemoSpec())
	sub := SynthPackage(DemoSpec())
	sub.Identifier = ""
	m.Ops[0].Packages[0].MultiChip = []*Package{sub, SynthPackage(DemoSpec())}
	cases["multi_chip_package"] = m

	m = Synthetic(DemoSpec())
	l := m.Ops[0].Packages[0].Executables[0].OutputLayers[0]
	l.Output.ShapeInfo = &OutputShapeInfo{
		Slices: []TensorLayout{
			{Shape: []Range{{0, 0}, {0, 3}, {0, 7}, {0, 5}}, Stride: []int32{384, 48, 6, 1}},
			{Shape: []Range{{0, 0}, {4, 7}, {0, 7}, {0, 5}}, Stride: []int32{384, 48, 6, 1}},
		},
		Offsets: []int32{0, 192},
	}
	cases["shape_info"] = m

	m = Synthetic(DemoSpec())
	m.Ops[0].Packages[0].Executables[0].OutputLayers[1].ExecutionCount = 3
	cases["execution_count"] = m

	s := DemoSpec()
	s.Inputs[0].DataType = SignedFixedPoint16
	s.Outputs[1].DataType = SignedFixedPoint16
	cases["signed16"] = Synthetic(s)

	m = Synthetic(DemoSpec())
	p := m.Ops[0].Packages[0]
	st := SynthPackage(DemoSpec()).Executables[0]
	st.Type = StandAlone
	p.Executables = append(p.Executables, st)
	cases["three_executables"] = m

	m = Synthetic(DemoSpec())
	p = m.Ops[0].Packages[0]
	p.Executables = p.Executables[:1]
	p.Executables[0].Type = StandAlone
	cases["stand_alone"] = m

	m = Synthetic(DemoSpec())
	m.Ops[0].Packages[0].Identifier = ""
	cases["no_identifier"] = m

	m = Synthetic(DemoSpec())
	m.Ops[0].Options.Chips = []int64{17, 18}
	m.Ops[0].Packages = append(m.Ops[0].Packages, SynthPackage(DemoSpec()))
	cases["two_packages"] = m

	raw := SynthPackage(DemoSpec())
	cases["raw"] = &Model{Ops: []*CustomOp{{Subgraph: -1, Operator: -1, Options: CustomOptions{Version: -1, ExecutionPreference: -1}, Packages: []*Package{raw}}}}
	return cases
}

// syntheticSeeds are small fuzz seeds: synthetic models with tiny
// parameters, written with 8-byte alignment.
func syntheticSeeds() [][]byte {
	var out [][]byte
	for _, name := range []string{"demo", "shape_info", "raw", "multi_chip_package"} {
		m := syntheticCases()[name]
		var trim func(p *Package)
		trim = func(p *Package) {
			for _, e := range p.Executables {
				if len(e.Parameters) > 16 {
					e.Parameters = e.Parameters[:16]
				}
			}
			for _, sub := range p.MultiChip {
				trim(sub)
			}
		}
		for _, p := range m.Packages() {
			trim(p)
		}
		b, err := WriteOptions{Align: 8}.Model(m)
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}

func TestWriteReadRoundTrip(t *testing.T) {
	for name, m := range syntheticCases() {
		t.Run(name, func(t *testing.T) { roundTrip(t, m) })
	}
	for _, s := range syntheticSeeds() {
		if len(s) > 16<<10 {
			t.Fatalf("fuzz seed of %d bytes", len(s))
		}
		if _, err := Read(s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriterShapes(t *testing.T) {
	cases := syntheticCases()
	got := roundTrip(t, cases["no_identifier"])
	if id := got.Packages()[0].Identifier; id == PackageIdentifier {
		t.Fatalf("identifier %q written", id)
	}
	got = roundTrip(t, cases["demo"])
	p := got.Packages()[0]
	if p.Identifier != PackageIdentifier || len(p.Executables) != 2 {
		t.Fatalf("package %q with %d executables", p.Identifier, len(p.Executables))
	}
	for _, e := range p.Executables {
		if e.Offset%4096 != 0 {
			t.Fatalf("executable at %d, not page aligned in the package", e.Offset)
		}
	}
	got = roundTrip(t, cases["multi_chip_package"])
	if n := len(got.Packages()[0].MultiChip); n != 2 {
		t.Fatalf("%d nested packages", n)
	}
	got = roundTrip(t, cases["raw"])
	if got.TFLite != nil || len(got.Packages()) != 1 {
		t.Fatal("raw package not read as one")
	}
}

// Each synthetic output layer's layout is valid for the relayout package.
func TestSyntheticLayoutsValid(t *testing.T) {
	for name, m := range syntheticCases() {
		for _, p := range m.Packages() {
			for _, e := range p.Executables {
				for _, l := range e.OutputLayers {
					if err := l.RelayoutOutput().Validate(); err != nil {
						t.Errorf("%s: %s: %v", name, l.Name, err)
					}
					st, err := l.LayoutStats()
					if err != nil || !st.Injective || !st.WithinSize {
						t.Errorf("%s: %s: %+v %v", name, l.Name, st, err)
					}
				}
			}
		}
	}
}

// Bitstreams that are one slice are written as one vector that every chunk
// references (the file stays at its own size), and read back as equal
// chunks; distinct slices with the same bytes are written apart.
func TestWriteSharesAliasedBitstreams(t *testing.T) {
	build := func(alias bool) []byte {
		m := Synthetic(DemoSpec())
		e := m.Ops[0].Packages[0].Executables[0]
		bs := e.Bitstreams[0]
		bs.Data = make([]byte, 64<<10)
		for i := range bs.Data {
			bs.Data[i] = byte(i * 13)
		}
		e.Bitstreams = nil
		for range 8 {
			c := bs
			if !alias {
				c.Data = append([]byte(nil), bs.Data...)
			}
			e.Bitstreams = append(e.Bitstreams, c)
		}
		b, err := Write(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	shared, apart := build(true), build(false)
	if len(apart)-len(shared) < 7*(64<<10) {
		t.Fatalf("aliased chunks not shared: %d bytes vs %d apart", len(shared), len(apart))
	}
	m, err := Read(shared)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Ops[0].Packages[0].Executables[0]
	if len(e.Bitstreams) != 8 {
		t.Fatalf("%d chunks", len(e.Bitstreams))
	}
	for i, bs := range e.Bitstreams {
		if !bytes.Equal(bs.Data, e.Bitstreams[0].Data) || len(bs.Data) != 64<<10 || bs.Data[1] != 13 {
			t.Fatalf("chunk %d differs", i)
		}
	}
}
