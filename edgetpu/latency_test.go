package edgetpu

import (
	"math"
	"testing"

	"github.com/npukit/npukit/tflite"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(math.Abs(a), math.Abs(b), 1) }

// The parts of a compiled model's inference follow the transfer plan: the
// cached parameters load on the first inference only (every inference
// when another model evicts them), the streamed ones every inference, and
// a slower link or CPU costs more.
func TestLatencyParts(t *testing.T) {
	s := DemoSpec()
	s.CachedParams, s.StreamedParams = 1<<20, 256<<10
	b, err := Write(Synthetic(s))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(m, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var caching, streamed float64
	for _, p := range l.Parts {
		switch {
		case p.FirstOnly:
			caching += p.Us
			if p.Bytes < int64(s.CachedParams) {
				t.Errorf("caching part moves %d bytes, want at least %d", p.Bytes, s.CachedParams)
			}
		case p.Kind == PartParameters:
			streamed += p.Us
			if p.Bytes != int64(s.StreamedParams) {
				t.Errorf("streamed part moves %d bytes, want %d", p.Bytes, s.StreamedParams)
			}
		}
	}
	if caching == 0 || streamed == 0 || !near(l.FirstInferenceUs-l.SteadyStateUs, caching) {
		t.Errorf("first %v steady %v caching %v streamed %v", l.FirstInferenceUs, l.SteadyStateUs, caching, streamed)
	}
	ev, _ := EstimateModel(m, h, LatencyOptions{Evicted: true})
	if !near(ev.SteadyStateUs, l.FirstInferenceUs) {
		t.Errorf("evicted steady %v, want the first inference %v", ev.SteadyStateUs, l.FirstInferenceUs)
	}
	// Run in turn with a co-compiled model (same token) the cache holds;
	// with a separately compiled one (another token) it reloads.
	other := func(token uint64) *Model {
		o := DemoSpec()
		o.Token = token
		b, err := Write(Synthetic(o))
		if err != nil {
			t.Fatal(err)
		}
		om, err := Read(b)
		if err != nil {
			t.Fatal(err)
		}
		return om
	}
	co, _ := EstimateModel(m, h, LatencyOptions{AlternateWith: other(s.Token)})
	sep, _ := EstimateModel(m, h, LatencyOptions{AlternateWith: other(s.Token + 1)})
	if !near(co.SteadyStateUs, l.SteadyStateUs) || !near(sep.SteadyStateUs, l.FirstInferenceUs) {
		t.Errorf("in turn: co-compiled steady %v (alone %v), separate %v (first %v)", co.SteadyStateUs, l.SteadyStateUs, sep.SteadyStateUs, l.FirstInferenceUs)
	}
	pi, _ := HostByName("rpi3-usb2")
	slow, _ := EstimateModel(m, pi, LatencyOptions{})
	if slow.ByKind[PartTransfer] < 10*l.ByKind[PartTransfer] || slow.ByKind[PartInvoke] <= l.ByKind[PartInvoke] {
		t.Errorf("rpi3-usb2 transfers %v / invoke %v vs desktop %v / %v", slow.ByKind[PartTransfer], slow.ByKind[PartInvoke], l.ByKind[PartTransfer], l.ByKind[PartInvoke])
	}
	if g := l.Timeline(true); len(g.Tasks) != len(l.Parts) {
		t.Errorf("first-inference timeline has %d tasks for %d parts", len(g.Tasks), len(l.Parts))
	}
}

// A plain TFLite model runs on the host CPU, operator by operator: a
// convolution costs its MACs at the host's rate, a reshape nothing but its
// dispatch, and the plan of the same model puts both on the Edge TPU,
// where the convolution's 67 M MACs take less than the CPU's time.
func TestLatencyCPUModel(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 32, 32, 256)
	y := g.conv(x, 32, 32, 256, 256)
	z := g.act("z", tflite.TensorInt8, 32, 32, 256)
	g.op(opReshape, []int32{y, g.ints("shape", 32, 32, 256)}, z)
	tm := g.build(t, []int32{x}, []int32{z})
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(&Model{TFLite: tm}, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Parts) != 3 || l.Parts[1].MACs != 32*32*256*256 || l.Parts[2].Us >= l.Parts[1].Us/10 {
		t.Fatalf("parts %+v", l.Parts)
	}
	if want := float64(32*32*256*256) / (h.CPUGMACs * 1e3); l.Parts[1].Us < want {
		t.Errorf("conv %v us, at least %v at the host's MAC rate", l.Parts[1].Us, want)
	}
	p := PlanModel(tm, PlanOptions{})
	pl := EstimatePlan(tm, p, h, LatencyOptions{})
	if pl.ByKind[PartCPU] != 0 || pl.ByKind[PartTPU] == 0 || pl.SteadyStateUs >= l.SteadyStateUs {
		t.Errorf("planned: %+v", pl.ByKind)
	}
}

// With the uncompiled twin, a compiled model's Edge TPU compute is given
// layer by layer from the twin's predicted mapping, one part per mapped
// layer, their MACs the twin's.
func TestLatencyUncompiledTwin(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 16, 16, 8)
	a := g.conv(x, 16, 16, 8, 16)
	y := g.conv(a, 16, 16, 16, 16)
	twin := g.build(t, []int32{x}, []int32{y})
	b, err := Write(Synthetic(DemoSpec()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(m, h, LatencyOptions{Uncompiled: twin})
	if err != nil {
		t.Fatal(err)
	}
	var layers int
	var macs int64
	for _, p := range l.Parts {
		if p.Kind == PartTPU {
			layers++
			macs += p.MACs
		}
	}
	if want := int64(16*16*8*16 + 16*16*16*16); layers != 2 || macs != want {
		t.Errorf("%d Edge TPU parts with %d MACs, want 2 layers with %d", layers, macs, want)
	}
}
