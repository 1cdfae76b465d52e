package edgetpu

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/tflite"
)

// synthModel writes a synthetic compiled model with npukit's writer and
// reads it back, as a user's file would be read.
func synthModel(t *testing.T, s Spec) *Model {
	t.Helper()
	b, err := Write(Synthetic(s))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(math.Abs(a), math.Abs(b), 1) }

// The parts of a compiled model's inference follow the transfer plan: the
// cached parameters load on the first inference only (every inference
// when another model evicts them), the streamed ones every inference, and
// a slower link or CPU costs more.
func TestLatencyParts(t *testing.T) {
	s := DemoSpec()
	s.CachedParams, s.StreamedParams = 1<<20, 256<<10
	m := synthModel(t, s)
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(m, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The parameter caching row is the cached parameters every other
	// command reports (MemoryOf), its detail says the same; the caching
	// executable's instructions are a row of their own (audit r3 #7: one
	// row said 312.9 KiB for 308.4 KiB of parameters plus 4.5 KiB of
	// instructions).
	mem := MemoryOf(m.Ops[0].Packages[0])
	var caching, streamed float64
	var cachingRows int
	for _, p := range l.Parts {
		switch {
		case p.FirstOnly:
			caching += p.Us
			cachingRows++
			switch p.Kind {
			case PartParameters:
				if p.Bytes != mem.Cached || p.Bytes != int64(s.CachedParams) || !strings.Contains(p.Detail, humanize.Bytes(p.Bytes)+" of parameters") {
					t.Errorf("caching part moves %d bytes (%s), want the %d cached", p.Bytes, p.Detail, mem.Cached)
				}
			case PartTransfer:
				if !strings.Contains(p.Name, "caching instructions") || p.Bytes <= 0 || p.Bytes >= int64(s.CachedParams) {
					t.Errorf("caching instructions row %+v", p)
				}
			default:
				t.Errorf("first-only row %+v", p)
			}
		case p.Kind == PartParameters:
			streamed += p.Us
			if p.Bytes != int64(s.StreamedParams) {
				t.Errorf("streamed part moves %d bytes, want %d", p.Bytes, s.StreamedParams)
			}
		}
	}
	if cachingRows != 2 || caching == 0 || streamed == 0 || !near(l.FirstInferenceUs-l.SteadyStateUs, caching) {
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
		om := synthModel(t, o)
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

// A plain TFLite model runs on the host CPU, operator by operator, with no
// Edge TPU invocation (it makes no device round trip): a convolution
// costs its MACs at the host's rate, a reshape nothing but its dispatch,
// and the plan of the same model puts both on the Edge TPU, where the
// convolution's 67 M MACs take less than the CPU's time, and the
// invocation is paid.
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
	if len(l.Parts) != 2 || l.Parts[0].MACs != 32*32*256*256 || l.Parts[1].Us >= l.Parts[0].Us/10 {
		t.Fatalf("parts %+v", l.Parts)
	}
	if l.UsesEdgeTPU || l.ByKind[PartInvoke] != 0 || l.FloatCPUOps != 0 {
		t.Errorf("a CPU-only int8 model: uses Edge TPU %v, invocation %v us, float ops %d", l.UsesEdgeTPU, l.ByKind[PartInvoke], l.FloatCPUOps)
	}
	if want := float64(32*32*256*256) / (h.CPUGMACs * 1e3); l.Parts[0].Us < want {
		t.Errorf("conv %v us, at least %v at the host's MAC rate", l.Parts[0].Us, want)
	}
	p := PlanModel(tm, PlanOptions{})
	pl := EstimatePlan(tm, p, h, LatencyOptions{})
	if pl.ByKind[PartCPU] != 0 || pl.ByKind[PartTPU] == 0 || pl.ByKind[PartInvoke] == 0 || !pl.UsesEdgeTPU || pl.SteadyStateUs >= l.SteadyStateUs {
		t.Errorf("planned: %+v", pl.ByKind)
	}
}

// A float32 model with no Edge TPU operator (audit item 8): no Edge TPU
// invocation, transfer or compute; its float operators are priced at the
// int8 rates (the convolution; the reshape moves nothing, whatever its
// type) and the estimate says so, in the text and in the JSON; the
// text is not framed as an accelerator run and quotes only the CPU rate.
func TestLatencyFloatCPUModel(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorFloat32, 1, 16, 16, 8)
	f := g.constant("w", tflite.TensorFloat32, make([]byte, 4*8*16), 16, 1, 1, 8)
	bias := g.constant("b", tflite.TensorFloat32, make([]byte, 4*16), 16)
	y := g.act("y", tflite.TensorFloat32, 1, 16, 16, 16)
	g.op(opConv2D, []int32{x, f, bias}, y)
	z := g.act("z", tflite.TensorFloat32, 16, 16, 16)
	g.op(opReshape, []int32{y, g.ints("shape", 16, 16, 16)}, z)
	tm := g.build(t, []int32{x}, []int32{z})
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(&Model{TFLite: tm}, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Parts {
		if p.Kind != PartCPU || p.Resource != "host" {
			t.Errorf("part %q (%s on %s) in a model wholly on the CPU", p.Name, p.Kind, p.Resource)
		}
	}
	if g := l.Timeline(true); len(g.Resources) != 1 {
		t.Errorf("the timeline of a model wholly on the CPU has %d resources, want the host CPU only", len(g.Resources))
	}
	if l.UsesEdgeTPU || l.FloatCPUOps != 1 || !strings.Contains(l.Parts[0].Detail, "int8") {
		t.Errorf("uses Edge TPU %v, float ops %d, detail %q", l.UsesEdgeTPU, l.FloatCPUOps, l.Parts[0].Detail)
	}
	j, err := json.Marshal(l)
	if err != nil || !strings.Contains(string(j), `"float_cpu_ops_at_int8_rate":1`) || !strings.Contains(string(j), `"uses_edgetpu":false`) {
		t.Errorf("JSON: %v %s", err, j)
	}
	var b strings.Builder
	if err := l.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"no Edge TPU work", "1 CPU operator computes in floating point: priced at the int8 kernels' rates", "an assumption", "host CPU 16.50 GMAC/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"USB Accelerator", "invocation overhead", "host link", "GB/s", "GMAC/s on each layer", "GMAC/s effective on the estimated MACs"} {
		if strings.Contains(text, not) {
			t.Errorf("text has %q:\n%s", not, text)
		}
	}
}

// A long latency table keeps to the parts of no operator and the longest
// operators, and says how many it left out and their time; AllParts (the
// CLI's --layers) lists every part.
func TestLatencyTextLongTable(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 8, 8, 8)
	for i := range 3 * shownParts {
		x = g.conv(x, 8, 8, 8, 8+int32(i%3))
		x = g.conv(x, 8, 8, 8+int32(i%3), 8)
	}
	tm := g.build(t, []int32{0}, []int32{x})
	h, _ := HostByName(DefaultHost)
	l, err := EstimateModel(&Model{TFLite: tm}, h, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := func(all bool) string {
		l.AllParts = all
		var b strings.Builder
		if err := l.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	short, long := text(false), text(true)
	rows := func(s string) int { return strings.Count(s, "\n  op ") }
	hidden := len(l.Parts) - shownParts
	if rows(short) != shownParts || !strings.Contains(short, fmt.Sprintf("… %d shorter operators not listed", hidden)) || !strings.Contains(short, "--layers") {
		t.Errorf("short table: %d rows of %d parts:\n%s", rows(short), len(l.Parts), short)
	}
	if rows(long) != len(l.Parts) || strings.Contains(long, "not listed") {
		t.Errorf("--layers table: %d rows of %d parts", rows(long), len(l.Parts))
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

// From the compiled file alone, the Edge TPU MACs follow the class of
// network its outputs show: vectors (a classifier), maps at one
// resolution (a single-scale dense predictor) or at several, counting a
// map a detection head flattened to [c, h*w] (its h*w is the input's
// pixels over a power of 4) as a resolution.
func TestEstimatedMACsByOutputScales(t *testing.T) {
	in := []LayerSpec{{Name: "image", Y: 64, X: 64, Z: 3, DataType: FixedPoint8, Scale: 1}}
	const params = 64 << 10
	cases := []struct {
		name string
		outs []LayerSpec
		k    float64
	}{
		{"classifier", []LayerSpec{{Name: "scores", Y: 1, X: 1, Z: 10}}, classifierMACsPerParamPixel},
		{"single scale", []LayerSpec{{Name: "mask", Y: 4, X: 4, Z: 21}, {Name: "pooled", Y: 1, X: 1, Z: 32}}, denseMACsPerParamPixel},
		{"multi scale", []LayerSpec{{Name: "p3", Y: 8, X: 8, Z: 70}, {Name: "p4", Y: 4, X: 4, Z: 70}}, multiScaleMACsPerParamPixel},
		{"flattened head", []LayerSpec{{Name: "p3", Y: 8, X: 8, Z: 70}, {Name: "p5", Y: 1, X: 70, Z: 4}}, multiScaleMACsPerParamPixel},
		{"not positions", []LayerSpec{{Name: "boxes", Y: 1, X: 70, Z: 12}}, classifierMACsPerParamPixel},
	}
	for _, c := range cases {
		for i := range c.outs {
			c.outs[i].DataType, c.outs[i].Scale = FixedPoint8, 1
		}
		p := SynthPackage(Spec{Name: c.name, Token: 1, CachedParams: params, Inputs: in, Outputs: c.outs, Seed: 1})
		want := int64(c.k * float64(MemoryOf(p).Cached+MemoryOf(p).Streamed) * 64 * 64)
		if got := estimatedMACs(p); got != want {
			t.Errorf("%s: %d MACs, want %d (1/%.0f per parameter byte and pixel)", c.name, got, want, 1/c.k)
		}
	}
}

// The weight bytes the MAC estimate counts leave out the compiler's channel
// padding: runs of one byte value (the weights' zero point, 0 or 128 or
// another) of at least paddingRunBytes; shorter runs are weights.
func TestWeightBytesLeaveOutPadding(t *testing.T) {
	in := []LayerSpec{{Name: "image", Y: 64, X: 64, Z: 3, DataType: FixedPoint8, Scale: 1}}
	out := []LayerSpec{{Name: "scores", Y: 1, X: 1, Z: 10, DataType: FixedPoint8, Scale: 1}}
	p := SynthPackage(Spec{Name: "m", Token: 1, CachedParams: 64 << 10, Inputs: in, Outputs: out, Seed: 1})
	full := weightBytes(p)
	if full != 64<<10 {
		t.Fatalf("random parameters: %d weight bytes, want all %d", full, 64<<10)
	}
	c := p.Caching()
	for i := 1000; i < 1000+4096; i++ {
		c.Parameters[i] = 0 // a padded block
	}
	for i := 9000; i < 9000+paddingRunBytes; i++ {
		c.Parameters[i] = 128 // the shortest run counted
	}
	for i := 20000; i < 20000+paddingRunBytes-1; i++ {
		c.Parameters[i] = 7 // one byte short: weights
	}
	want := int64(64<<10 - 4096 - paddingRunBytes)
	if got := weightBytes(p); got < want || got > want+2 {
		// the neighbours of a run may equal it by chance (a byte or two)
		t.Errorf("%d weight bytes, want %d (padding runs left out)", got, want)
	}
	if got, k := estimatedMACs(p), classifierMACsPerParamPixel; float64(got) > k*float64(want+2)*64*64+1 {
		t.Errorf("%d MACs estimated: the padding was counted as weights", got)
	}
}

// A model whose DMA hints are not fully deterministic fails every
// inference on a USB Accelerator with the default settings (check's
// edgetpu/not-fully-deterministic): the estimate on a USB host class says
// so, in the headline and in a field a script reads, and names the setting
// it assumes; PCIe host classes run it as is. A model check does not warn
// about runs everywhere.
func TestLatencyUSBFailsByDefault(t *testing.T) {
	for _, deterministic := range []bool{true, false} {
		b, err := Write(Synthetic(DemoSpec()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(b)
		if err != nil {
			t.Fatal(err)
		}
		m.Ops[0].Packages[0].Executables[0].DMAHints.FullyDeterministic = deterministic
		warned := false
		for _, d := range Check(m) {
			warned = warned || d.Rule == RuleNotDeterministic
		}
		if warned == deterministic {
			t.Fatalf("deterministic %v: check warns %v", deterministic, warned)
		}
		for _, h := range Hosts() {
			l, err := EstimateModel(m, h, LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fails := warned && h.USB()
			if l.RunsByDefault == nil || *l.RunsByDefault == fails || (l.FailsByDefault != nil) != fails {
				t.Errorf("%s, deterministic %v: runs by default %v, fails %+v; want fails %v", h.Name, deterministic, l.RunsByDefault, l.FailsByDefault, fails)
				continue
			}
			var sb strings.Builder
			if err := l.WriteText(&sb); err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(sb.String(), "\n")
			if got := strings.Contains(head, "FAILS with the default runtime settings") && strings.Contains(head, "USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE=1"); got != fails {
				t.Errorf("%s, deterministic %v: headline %q", h.Name, deterministic, head)
			}
			j, _ := json.Marshal(l)
			var back struct {
				Runs  *bool `json:"runs_with_default_settings"`
				Fails *struct {
					Rule    string `json:"rule"`
					Assumes string `json:"estimate_assumes"`
				} `json:"fails_with_default_settings"`
			}
			if err := json.Unmarshal(j, &back); err != nil || back.Runs == nil || *back.Runs == fails ||
				fails && (back.Fails == nil || back.Fails.Rule != RuleNotDeterministic || back.Fails.Assumes != "USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE=1") {
				t.Errorf("%s, deterministic %v: JSON %s", h.Name, deterministic, j)
			}
		}
	}
}

// The latency table words a MAC count at its scale (audit r3 #17: a small
// fully-connected layer read "0.0M MACs", a large one "5337.0M MACs").
func TestMACsText(t *testing.T) {
	for n, want := range map[int64]string{600: "600 MACs", 38_400: "38,400 MACs", 14_300_000: "14.3M MACs", 5_337_000_000: "5.34G MACs"} {
		if got := macsText(n); got != want {
			t.Errorf("macsText(%d) = %q, want %q", n, got, want)
		}
	}
}

// A host CPU whose MobileNet v2 time two published sources (TFLite builds)
// measured prices its depthwise convolutions at their centre, and an
// estimate with enough depthwise time says how far apart they were, in
// percent and in time; a host measured by one source says nothing of the
// kind. The host's own code (the invocation overhead, the image resize)
// and every kernel but the depthwise convolution run at its general
// slowness: a faster depthwise kernel leaves them as they were, a faster
// host in general speeds them up.
func TestLatencyDepthwiseSpreadNote(t *testing.T) {
	note := func(name string, dwUs float64) string {
		h, ok := HostByName(name)
		if !ok {
			t.Fatalf("no host %s", name)
		}
		l := &Latency{Host: h, depthwiseUs: dwUs}
		l.add(LatencyPart{Name: "op 0 DEPTHWISE_CONV_2D", Kind: PartCPU, Us: dwUs + 10, Op: 0, Resource: "host"})
		l.finish()
		for _, n := range l.Notes {
			if strings.Contains(n, "CPU depthwise convolutions") {
				f := math.Sqrt(h.DepthwiseSpread) - 1
				if !strings.Contains(n, fmt.Sprintf("%.2fx apart", h.DepthwiseSpread)) || !strings.Contains(n, fmt.Sprintf("about %.0f%% (%s)", f*100, humanize.Micros(f*dwUs))) {
					t.Errorf("%s: note %q does not give the spread %.2f and its effect", name, n, h.DepthwiseSpread)
				}
				return n
			}
		}
		return ""
	}
	if note("devboard-pcie", 20000) == "" {
		t.Error("devboard-pcie: two sources, 20 ms of depthwise, no note")
	}
	if note("devboard-pcie", 10) != "" {
		t.Error("devboard-pcie: 10 us of depthwise, yet a note")
	}
	if note("rpi4-usb3", 20000) != "" {
		t.Error("rpi4-usb3: one source, yet a spread note")
	}
	// A class of two boards says so.
	pi3, _ := HostByName("rpi3-usb2")
	l := &Latency{Host: pi3}
	l.add(LatencyPart{Name: "op 0 CONV_2D", Kind: PartCPU, Us: 1000, Op: 0, Resource: "host"})
	l.finish()
	if !slices.ContainsFunc(l.Notes, func(n string) bool {
		return strings.Contains(n, "centre of two boards") && strings.Contains(n, fmt.Sprintf("%.2fx apart", pi3.BoardSpread))
	}) {
		t.Errorf("rpi3-usb2: no two-board note in %q", l.Notes)
	}
	h, _ := HostByName("devboard-pcie")
	w := OpWork{InElems: 1e5, OutElems: 1e5}
	fastDW := h
	fastDW.DepthwiseSlowness /= 2
	if invokeUs(h) != invokeUs(fastDW) || preprocessUs(h, 1e6) != preprocessUs(fastDW, 1e6) || cpuOpUs(h, "ADD", w) != cpuOpUs(fastDW, "ADD", w) {
		t.Error("the host's own code or an ADD follows the depthwise factor")
	}
	if cpuOpUs(fastDW, "DEPTHWISE_CONV_2D", w) >= cpuOpUs(h, "DEPTHWISE_CONV_2D", w) {
		t.Error("a faster depthwise kernel, no faster depthwise convolution")
	}
	fast := h
	fast.HostSlowness /= 2
	if invokeUs(fast) >= invokeUs(h) || preprocessUs(fast, 1e6) >= preprocessUs(h, 1e6) || cpuOpUs(fast, "RESIZE_BILINEAR", w) >= cpuOpUs(h, "RESIZE_BILINEAR", w) {
		t.Error("a faster host in general, no faster invocation, resize or resize operator")
	}
}

// Streamed parameters overlap the Edge TPU compute they feed: the
// inference pays the longer of the two, the part keeps its bytes and says
// how much was hidden, and the hidden time is the smaller of the stream and
// the compute (a cached model hides nothing).
func TestLatencyStreamedOverlapsCompute(t *testing.T) {
	estimate := func(streamed int) *Latency {
		s := DemoSpec()
		s.CachedParams, s.StreamedParams = 1<<20, streamed
		m := synthModel(t, s)
		h, _ := HostByName(DefaultHost)
		l, err := EstimateModel(m, h, LatencyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, n := range []int{64 << 10, 4 << 20} {
		l := estimate(n)
		var stream *LatencyPart
		for i := range l.Parts {
			if l.Parts[i].Kind == PartParameters && !l.Parts[i].FirstOnly {
				stream = &l.Parts[i]
			}
		}
		compute := l.ByKind[PartTPU]
		if stream == nil || compute <= 0 {
			t.Fatalf("%d streamed bytes: parts %+v", n, l.Parts)
		}
		full := linkUs(l.Host, int64(n))
		if stream.Bytes != int64(n) || !near(stream.OverlappedUs, min(full, compute)) || !near(stream.Us+stream.OverlappedUs, full) {
			t.Errorf("%d streamed bytes: part %+v, full transfer %v us, compute %v us", n, *stream, full, compute)
		}
		if !strings.Contains(stream.Detail, "overlaps the Edge TPU compute") || !slices.ContainsFunc(l.Notes, func(s string) bool { return strings.Contains(s, "overlaps the Edge TPU compute") }) {
			t.Errorf("%d streamed bytes: the overlap is not said: %q, notes %q", n, stream.Detail, l.Notes)
		}
	}
	for _, p := range estimate(0).Parts {
		if p.OverlappedUs != 0 {
			t.Errorf("nothing streamed, yet %+v overlaps", p)
		}
	}
}

// The Edge TPU takes a matrix layer's output channels paramChannelAlign
// at a time: a layer of 24 output channels takes as long per output
// position as one of 64, so its effective rate (MACs per microsecond) is
// 24/64 of the wide layer's, for CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED alike; channels that fill the groups run at
// tpuPaddedMACsPerUs; an element-wise layer does no MACs and costs
// nothing.
func TestTPULayerPadsOutputChannels(t *testing.T) {
	const (
		opDepthwise = 4
		opFC        = 9
	)
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 16, 16, 64)
	narrow := g.conv(x, 16, 16, 64, 24)
	wide := g.conv(x, 16, 16, 64, 64)
	wider := g.conv(x, 16, 16, 64, 128)
	dwIn := g.act("dwin", tflite.TensorInt8, 1, 16, 16, 32)
	f := g.constant("dw", tflite.TensorInt8, make([]byte, 9*32), 1, 3, 3, 32)
	b := g.constant("b", tflite.TensorInt32, make([]byte, 4*32), 32)
	dw := g.act("dwout", tflite.TensorInt8, 1, 16, 16, 32)
	g.op(opDepthwise, []int32{dwIn, f, b}, dw)
	vec := g.act("vec", tflite.TensorInt8, 1, 1024)
	fw := g.constant("fc", tflite.TensorInt8, make([]byte, 1024*1001), 1001, 1024)
	fb := g.constant("fcb", tflite.TensorInt32, make([]byte, 4*1001), 1001)
	logits := g.act("logits", tflite.TensorInt8, 1, 1001)
	g.op(opFC, []int32{vec, fw, fb}, logits)
	sum := g.act("sum", tflite.TensorInt8, 1, 16, 16, 64)
	g.op(opAdd, []int32{wide, wide}, sum)
	m := g.build(t, []int32{x, dwIn, vec}, []int32{narrow, wider, dw, logits, sum})
	sg := &m.Subgraphs[0]
	cost := make([]tpuCost, len(sg.Operators))
	for i := range sg.Operators {
		cost[i] = tpuLayerCost(m, sg, i)
	}
	rate := func(c tpuCost) float64 { return float64(c.MACs) / c.us() }
	if cost[0].MACs != 16*16*64*24 || cost[0].PaddedMACs != cost[1].PaddedMACs || !near(cost[0].us(), cost[1].us()) {
		t.Errorf("24 output channels: %+v, 64: %+v; want the padded MACs and time of the 64-channel layer", cost[0], cost[1])
	}
	if r := rate(cost[0]) / rate(cost[1]); !near(r, 24.0/64) {
		t.Errorf("the narrow layer's effective rate is %.3f of the wide one's, want 24/64", r)
	}
	if !near(rate(cost[1]), tpuPaddedMACsPerUs) || !near(rate(cost[2]), tpuPaddedMACsPerUs) {
		t.Errorf("64 and 128 output channels run at %.0f and %.0f MAC/us, want %.0f", rate(cost[1]), rate(cost[2]), float64(tpuPaddedMACsPerUs))
	}
	if cost[3].MACs != 16*16*32*9 || cost[3].PaddedMACs != 2*cost[3].MACs {
		t.Errorf("a 32-channel depthwise layer: %+v, want its MACs doubled (32 of 64 channels)", cost[3])
	}
	if cost[4].MACs != 1024*1001 || cost[4].PaddedMACs != 1024*1024 {
		t.Errorf("a 1001-output fully-connected layer: %+v, want 1024 padded outputs", cost[4])
	}
	if cost[5].MACs != 0 || cost[5].us() != 0 {
		t.Errorf("an ADD: %+v, want no MACs and no time", cost[5])
	}
}

// Layer by layer (a plan, or a compiled model with its twin), a network of
// wide layers reaches a higher effective Edge TPU rate than one of narrow
// layers with the same MACs, and the text says how the compute was priced;
// from the compiled file alone the estimated MACs run at the effective
// rate of the network's class.
func TestTPUEffectiveRateByWidth(t *testing.T) {
	h, _ := HostByName(DefaultHost)
	plan := func(ch int32, n int) *Latency {
		g := newGraph()
		x := g.act("x", tflite.TensorInt8, 1, 32, 32, ch)
		y := x
		for range n {
			y = g.conv(y, 32, 32, ch, ch)
		}
		m := g.build(t, []int32{x}, []int32{y})
		return EstimatePlan(m, PlanModel(m, PlanOptions{}), h, LatencyOptions{})
	}
	rate := func(l *Latency) float64 {
		var macs int64
		for _, p := range l.Parts {
			if p.Kind == PartTPU {
				macs += p.MACs
			}
		}
		return float64(macs) / l.ByKind[PartTPU]
	}
	// 32 layers of 32 channels and 8 of 64: the same MACs.
	narrow, wide := plan(32, 32), plan(64, 8)
	if rn, rw := rate(narrow), rate(wide); !near(rn*2, rw) || !near(rw, tpuPaddedMACsPerUs) {
		t.Errorf("effective rates: %.0f MAC/us with 32 channels, %.0f with 64; want half and %.0f", rn, rw, float64(tpuPaddedMACsPerUs))
	}
	var b strings.Builder
	if err := wide.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("Edge TPU %.0f GMAC/s on each layer's MACs with its output channels padded to 64", tpuPaddedMACsPerUs/1e3); !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}

	in := []LayerSpec{{Name: "image", Y: 64, X: 64, Z: 3, DataType: FixedPoint8, Scale: 1}}
	for _, c := range []struct {
		name string
		outs []LayerSpec
		rate float64
	}{
		{"a classifier", []LayerSpec{{Name: "scores", Y: 1, X: 1, Z: 10, DataType: FixedPoint8, Scale: 1}}, classifierMACsPerUs},
		{"a single-scale dense predictor", []LayerSpec{{Name: "mask", Y: 4, X: 4, Z: 21, DataType: FixedPoint8, Scale: 1}}, denseMACsPerUs},
		{"a multi-scale dense predictor", []LayerSpec{{Name: "p3", Y: 8, X: 8, Z: 70, DataType: FixedPoint8, Scale: 1}, {Name: "p4", Y: 4, X: 4, Z: 70, DataType: FixedPoint8, Scale: 1}}, multiScaleMACsPerUs},
	} {
		s := Spec{Name: "m", Token: 1, CachedParams: 256 << 10, Inputs: in, Outputs: c.outs, Seed: 1}
		m := synthModel(t, s)
		l, err := EstimateModel(m, h, LatencyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		macs := estimatedMACs(m.Ops[0].Packages[0])
		if got := l.ByKind[PartTPU]; macs == 0 || !near(got, float64(macs)/c.rate) {
			t.Errorf("%s: Edge TPU %.1f us for %d estimated MACs, want them at %.0f MAC/us", c.name, got, macs, c.rate)
		}
		var text strings.Builder
		if err := l.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("Edge TPU %.0f GMAC/s effective on the estimated MACs (%s; fitted on the class's shared twins)", c.rate/1e3, c.name); !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
