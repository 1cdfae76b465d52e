package edgetpu

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/edgetpu/link"
	"github.com/npukit/npukit/internal/bitfield"
	"github.com/npukit/npukit/internal/conformance"
)

func corpusModels(t *testing.T) []NamedModel {
	dir := conformance.Corpus(t, "edgetpu")
	return readNamed(t, conformance.Files(t, dir, "*.tflite"))
}

func randomAddresses(rng *rand.Rand, e *Executable) link.Addresses {
	a := link.Addresses{Inputs: map[string][]uint64{}, Outputs: map[string][]uint64{}}
	batch := max(int(e.BatchSize), 1)
	for _, l := range e.InputLayers {
		for range batch {
			a.Inputs[l.Name] = append(a.Inputs[l.Name], rng.Uint64())
		}
	}
	for _, l := range e.OutputLayers {
		for range batch {
			a.Outputs[l.Name] = append(a.Outputs[l.Name], rng.Uint64())
		}
	}
	p, s := rng.Uint64(), rng.Uint64()
	a.Parameters, a.Scratch = &p, &s
	return a
}

// Issue 8: for every corpus executable, linking with random addresses then
// reading the 32-bit values back at every relocation gives the addresses,
// and every other bit of every chunk equals the original.
func TestLinkCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nm := range corpusModels(t) {
		for _, p := range nm.Model.Packages() {
			for ei, e := range p.Executables {
				a := randomAddresses(rng, e)
				in := e.LinkInput()
				orig := make([][]byte, len(in.Chunks))
				for i, c := range in.Chunks {
					orig[i] = append([]byte(nil), c...)
				}
				linked, patches, err := link.Link(in, a)
				if err != nil {
					t.Fatalf("%s exe %d: %v", nm.Path, ei, err)
				}
				if err := link.Verify(orig, linked, patches); err != nil {
					t.Fatalf("%s exe %d: %v", nm.Path, ei, err)
				}
				for i := range orig {
					if !bytes.Equal(orig[i], e.Bitstreams[i].Data) {
						t.Fatalf("%s: link modified the model's own chunk", nm.Path)
					}
				}
				// Read every relocation back independently.
				n := 0
				for _, r := range in.Relocations {
					var addr uint64
					switch r.Kind {
					case link.InputActivation:
						addr = a.Inputs[r.Name][r.Batch]
					case link.OutputActivation:
						addr = a.Outputs[r.Name][r.Batch]
					case link.Parameter:
						if !in.HasParams {
							continue
						}
						addr = *a.Parameters
					case link.Scratch:
						if in.ScratchBytes == 0 {
							continue
						}
						addr = *a.Scratch
					}
					want := addr & 0xffffffff
					if r.Position == link.Upper32 {
						want = addr >> 32
					}
					got, err := bitfield.Read(linked[r.Chunk], r.OffsetBit, 32)
					if err != nil || got != want {
						t.Fatalf("%s exe %d: relocation at bit %d holds %#x, want %#x", nm.Path, ei, r.OffsetBit, got, want)
					}
					n++
				}
				if n != len(patches) {
					t.Fatalf("%s: %d relocations read back, %d patches", nm.Path, n, len(patches))
				}
			}
		}
	}
}

// Issue 8: for every corpus output layer, relayout(toDevice(x)) == x for
// random x, and every element's device position lies inside size_bytes.
func TestRelayoutCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	layers := 0
	for _, nm := range corpusModels(t) {
		for _, p := range nm.Model.Packages() {
			for _, e := range p.Executables {
				for _, l := range e.OutputLayers {
					o := l.RelayoutOutput()
					if err := o.Validate(); err != nil {
						t.Fatalf("%s %s: %v", nm.Path, l.Name, err)
					}
					n, _ := o.PlainElements()
					for _, batch := range []int{1, 2} {
						x := make([]byte, int(n)*o.ElemSize*batch*max(o.ExecCount, 1))
						for i := range x {
							x[i] = byte(rng.Uint32())
						}
						dev, err := o.ToDevice(x, batch)
						if err != nil {
							t.Fatal(err)
						}
						back, err := o.ToPlain(dev, batch)
						if err != nil || !bytes.Equal(back, x) {
							t.Fatalf("%s %s batch %d: round trip failed (%v)", nm.Path, l.Name, batch, err)
						}
					}
					layers++
				}
			}
		}
	}
	t.Logf("%d output layers", layers)
}

// The deeplab slim output (33x33x19, 4x4 tiles) puts (10, 20, 5) at device
// element 8885 (notes, "Output re-layout").
func TestRelayoutDeeplabIndex(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	nm := readNamed(t, []string{filepath.Join(dir, "deeplab_mobilenet_edgetpu_slim_cityscapes_quant_edgetpu.tflite")})[0]
	l := nm.Model.Packages()[0].Main().OutputLayers[0]
	idx, err := l.RelayoutOutput().Layout.DeviceIndex(10, 20, 5)
	if err != nil || idx != 8885 {
		t.Fatalf("index %d, %v", idx, err)
	}
}

func TestPlanCorpus(t *testing.T) {
	for _, nm := range corpusModels(t) {
		for _, p := range nm.Model.Packages() {
			plan, err := dmaplan.Build(PlanInput(p), dmaplan.DefaultLinks())
			if err != nil {
				t.Fatalf("%s: %v", nm.Path, err)
			}
			if len(plan.SteadyState) == 0 || plan.Steady.HostToDevice == 0 {
				t.Fatalf("%s: empty plan", nm.Path)
			}
			if (filepath.Base(nm.Path) == "keras_lstm_mnist_ptq_edgetpu.tflite") != (len(plan.USBRejects) > 0) {
				t.Fatalf("%s: USB rejects %v", nm.Path, plan.USBRejects)
			}
		}
	}
}

// Synthetic layers: shape_info slices, execution count > 1 and signed
// 16-bit outputs, with hand-checked device bytes.
func TestRelayoutSynthetic(t *testing.T) {
	// Signed 16-bit 1-D output of 3 elements: device bytes are offset-binary
	// (MSB XOR 0x80), little-endian; plain -2, 0, 300.
	// Each layer goes through the writer and the reader first.
	viaWriter := func(l *Layer) *Layer {
		m := syntheticCases()["demo"]
		exe0(m).OutputLayers[1] = l
		return roundTrip(t, m).Packages()[0].Executables[0].OutputLayers[1]
	}
	l := viaWriter(synthLayer(LayerSpec{Name: "s16", Y: 1, X: 1, Z: 3, DataType: SignedFixedPoint16, Scale: 1}, true))
	if l.DataType != SignedFixedPoint16 || l.SizeBytes != 8 {
		t.Fatalf("layer %+v", l)
	}
	plain := []byte{0xfe, 0xff, 0x00, 0x00, 0x2c, 0x01}
	dev, err := l.RelayoutOutput().ToDevice(plain, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0xfe, 0x7f, 0x00, 0x80, 0x2c, 0x81, 0, 0}
	if !bytes.Equal(dev, want) {
		t.Fatalf("device % x, want % x", dev, want)
	}
	// Execution count 2 of a 1x1x3 uint8 output (size_bytes 8): iterations
	// are spaced size_bytes apart.
	l = synthLayer(LayerSpec{Name: "e2", Y: 1, X: 1, Z: 3, DataType: FixedPoint8, Scale: 1}, true)
	l.ExecutionCount = 2
	l = viaWriter(l)
	if l.ExecutionCount != 2 {
		t.Fatalf("execution count %d", l.ExecutionCount)
	}
	dev, err = l.RelayoutOutput().ToDevice([]byte{1, 2, 3, 4, 5, 6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 2, 3, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0}; !bytes.Equal(dev, want) {
		t.Fatalf("device % x, want % x", dev, want)
	}
	// Shape info: a 1x2x2x1 output streamed as two slices (rows) in reverse
	// order: row 1 at byte 0, row 0 at byte 4.
	m := syntheticCases()["demo"]
	l = m.Ops[0].Packages[0].Executables[0].OutputLayers[0]
	l.Y, l.X, l.Z, l.SizeBytes = 2, 2, 1, 8
	l.Shape = []Range{{0, 0}, {0, 1}, {0, 1}, {0, 0}}
	l.Output.Layout = nil
	l.Output.ShapeInfo = &OutputShapeInfo{
		Slices: []TensorLayout{
			{Shape: []Range{{0, 0}, {1, 1}, {0, 1}, {0, 0}}, Stride: []int32{4, 2, 1, 1}},
			{Shape: []Range{{0, 0}, {0, 0}, {0, 1}, {0, 0}}, Stride: []int32{4, 2, 1, 1}},
		},
		Offsets: []int32{0, 4},
	}
	got := roundTrip(t, m).Packages()[0].Executables[0].OutputLayers[0]
	dev, err = got.RelayoutOutput().ToDevice([]byte{10, 11, 20, 21}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{20, 21, 0, 0, 10, 11, 0, 0}; !bytes.Equal(dev, want) {
		t.Fatalf("device % x, want % x", dev, want)
	}
}
