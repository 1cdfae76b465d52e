package edgetpu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/tflite"
)

// A matrix operator's parameters take the compiler's layout: output
// channels padded to 64, each with 8 more bytes; the plan caches them on
// chip while they fit the 7 MiB and streams the rest, as the compiler's
// "On-chip memory used for caching model parameters" / "Off-chip memory
// used for streaming uncached model parameters" lines report.
func TestPlanParametersCompilerLayout(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorInt8, 1, 8, 8, 16)
	y := g.conv(x, 8, 8, 16, 10) // 10 output channels: padded to 64
	m := g.build(t, []int32{x}, []int32{y})
	p := PlanModel(m, PlanOptions{})
	if want := int64(64 * (16 + 8)); p.Parameters.Compiled != want || p.Parameters.OnChip != want || p.Parameters.Streamed != 0 {
		t.Errorf("parameters %+v, want %d compiled bytes, all on chip", p.Parameters, want)
	}
	if p.Parameters.Bytes != 16*10+4*10 {
		t.Errorf("TFLite bytes %d, want %d", p.Parameters.Bytes, 16*10+4*10)
	}

	// Three 3 MiB layers: two fit the 7 MiB cache, the third is streamed.
	g = newGraph()
	x = g.act("x", tflite.TensorInt8, 1, 1, 1, 1536)
	a := g.conv(x, 1, 1, 1536, 2048)
	b := g.conv(a, 1, 1, 2048, 1536)
	c := g.conv(b, 1, 1, 1536, 2048)
	p = PlanModel(g.build(t, []int32{x}, []int32{c}), PlanOptions{})
	l1, l2 := int64(2048*(1536+8)), int64(1536*(2048+8))
	if p.Parameters.OnChip != l1+l2 || p.Parameters.Streamed != l1 {
		t.Errorf("on chip %d, streamed %d; want %d and %d", p.Parameters.OnChip, p.Parameters.Streamed, l1+l2, l1)
	}
	var buf strings.Builder
	if err := p.CompilerForm(&buf, "m.tflite", 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Off-chip memory used for streaming uncached model parameters: 3.02MiB") {
		t.Errorf("compiler form:\n%s", buf.String())
	}
}

// The parameter layout against every shared compiled twin: the plan of the
// uncompiled model predicts the caching executable's parameter bytes within
// 10%.
func TestPlanParametersMatchCompiledTwins(t *testing.T) {
	n := 0
	for _, tw := range sharedTwins(t) {
		p := PlanModel(tw.u, PlanOptions{})
		mem := MemoryOf(tw.c.Ops[0].Packages[0])
		got := float64(mem.Cached + mem.Streamed)
		if got < 10000 {
			continue // a model of no real parameters (a few bytes of padding)
		}
		n++
		r := float64(p.Parameters.Compiled) / got
		t.Logf("%-50.50s compiled %9.0f predicted %9d (%.2f); TFLite bytes %d", tw.name, got, p.Parameters.Compiled, r, p.Parameters.Bytes)
		if math.Abs(r-1) > 0.10 {
			t.Errorf("%s: predicted %d parameter bytes, the compiled file holds %.0f", tw.name, p.Parameters.Compiled, got)
		}
	}
	if n == 0 {
		t.Skip("no twins")
	}
}

// A tensor held whole while the network works at another resolution (a
// skip connection across a downsampling and upsampling path) that does not
// fit the on-chip room for held activations is spilled to host memory,
// written once and read back once; the same skip across operators at its
// own resolution streams in bands with them and spills nothing, nor does a
// plain chain.
func TestPlanActivationSpill(t *testing.T) {
	build := func(skip, down bool) (*tflite.Model, *Plan) {
		g := newGraph()
		x := g.act("x", tflite.TensorInt8, 1, 128, 128, 8)
		a := g.conv(x, 128, 128, 8, 96) // 1.5 MiB
		y := a
		side := int32(128)
		if down {
			side = 64
		}
		y = g.conv(y, side, side, 96, 96)
		y = g.conv(y, side, side, 96, 96)
		y = g.conv(y, 128, 128, 96, 96)
		if skip {
			z := g.act("sum", tflite.TensorInt8, 1, 128, 128, 96)
			g.op(opAdd, []int32{a, y}, z)
			y = z
		}
		m := g.build(t, []int32{x}, []int32{y})
		return m, PlanModel(m, PlanOptions{})
	}
	m, p := build(true, true)
	size := int64(128 * 128 * 96)
	if p.Spill == nil || p.Spill.ScratchBytes != size || p.Spill.TrafficBytes != 2*size || p.Spill.Uncertain == "" {
		t.Fatalf("spill %+v, want %d bytes of scratch written and read back once, flagged uncertain", p.Spill, size)
	}
	h, _ := HostByName(DefaultHost)
	var priced int64
	for _, part := range EstimatePlan(m, p, h, LatencyOptions{}).Parts {
		if strings.Contains(part.Name, "scratch spill") {
			priced += part.Bytes
		}
	}
	if priced != 2*size {
		t.Errorf("the latency estimate prices %d spilled bytes, want %d", priced, 2*size)
	}
	if _, q := build(true, false); q.Spill != nil {
		t.Errorf("a skip at one resolution spills %+v", q.Spill)
	}
	if _, q := build(false, true); q.Spill != nil {
		t.Errorf("a chain spills %+v", q.Spill)
	}
}

// The spill rule against the compiled twins' scratch: the plan spills in
// exactly the twins whose compiled package has scratch, and its traffic is
// within 25% of what their DMA hints move to and from scratch.
func TestPlanSpillMatchesCompiledTwins(t *testing.T) {
	n := 0
	for _, tw := range sharedTwins(t) {
		pk := tw.c.Ops[0].Packages[0]
		p := PlanModel(tw.u, PlanOptions{})
		plan, err := dmaplan.Build(PlanInput(pk), dmaplan.DefaultLinks())
		if err != nil {
			t.Fatal(err)
		}
		got := plan.Steady.ByTarget["SCRATCH"]
		var pred int64
		if p.Spill != nil {
			pred = p.Spill.TrafficBytes
		}
		t.Logf("%-50.50s scratch traffic compiled %9d predicted %9d", tw.name, got, pred)
		if (got > 0) != (pred > 0) {
			t.Errorf("%s: compiled scratch traffic %d, predicted %d", tw.name, got, pred)
			continue
		}
		if got > 0 {
			n++
			if r := float64(pred) / float64(got); math.Abs(r-1) > 0.25 {
				t.Errorf("%s: predicted %d bytes of scratch traffic, the compiled file's hints move %d (%.2f)", tw.name, pred, got, r)
			}
		}
	}
	if n == 0 {
		t.Skip("no twin with scratch")
	}
}

// The segment's inputs and outputs are priced in the device layout (the
// innermost dimension of an output padded to 4 bytes, every layer to 8
// bytes) and the instruction estimate grows with the input and output
// layers.
func TestPlanPackageLayout(t *testing.T) {
	g := newGraph()
	x := g.act("x", tflite.TensorUint8, 1, 8, 8, 3)
	y := g.conv(x, 8, 8, 3, 1)
	p := PlanModel(g.build(t, []int32{x}, []int32{y}), PlanOptions{})
	if p.Package == nil || p.Package.InputBytes != 192 || p.Package.OutputBytes != 256 || p.Package.InputLayers != 1 || p.Package.OutputLayers != 1 {
		t.Fatalf("package %+v, want 192 input bytes, 256 output bytes (8x8x1 padded to 4 bytes per position)", p.Package)
	}
	one := p.Package.InstructionBytes
	g = newGraph()
	x = g.act("x", tflite.TensorUint8, 1, 8, 8, 3)
	y = g.conv(x, 8, 8, 3, 1)
	z := g.act("z", tflite.TensorUint8, 1, 8, 8, 3)
	g.op(opAdd, []int32{x, x}, z)
	p = PlanModel(g.build(t, []int32{x}, []int32{y, z}), PlanOptions{})
	if p.Package.OutputLayers != 2 || p.Package.InstructionBytes-one < instrBytesPerIO {
		t.Errorf("two outputs: %+v (one output: %d instruction bytes)", p.Package, one)
	}
}

// twinPair is an uncompiled model and its compiled twin.
type twinPair struct {
	name string
	u    *tflite.Model
	c    *Model
}

// sharedTwins reads the twin pairs of ../shared/corpus2/edgetpu-pairs
// whose compiled file maps something, and the MobileNet v2 pair of
// ../shared/hw/edgetpu/models.
func sharedTwins(t *testing.T) []twinPair {
	t.Helper()
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	var out []twinPair
	for _, pr := range twinFiles(t, dir) {
		um, err := tflite.ReadFile(pr[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pr[1])
		if err != nil {
			continue
		}
		cm, err := Read(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.Ops) > 0 {
			out = append(out, twinPair{filepath.Base(pr[1]), um, cm})
		}
	}
	hw := filepath.Join(filepath.Dir(filepath.Dir(dir)), "hw/edgetpu/models")
	ups, _ := filepath.Glob(filepath.Join(hw, "*.tflite"))
	for _, up := range ups {
		cp := strings.TrimSuffix(up, ".tflite") + "_edgetpu.tflite"
		if strings.HasSuffix(up, "_edgetpu.tflite") {
			continue
		}
		b, err := os.ReadFile(cp)
		if err != nil {
			continue
		}
		um, err := tflite.ReadFile(up)
		if err != nil {
			t.Fatal(err)
		}
		cm, err := Read(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, twinPair{filepath.Base(cp), um, cm})
	}
	return out
}

// From the compiled file alone, the Edge TPU MACs (weight bytes times
// input pixels at the constant of the network's class) are within 15% of
// the layer MACs of the uncompiled twin, on every shared twin with real
// compute (0.90 to 1.12; a multi-layer perceptron of 0.1M MACs is left
// out: its time is the invocation).
func TestEstimatedMACsMatchTwins(t *testing.T) {
	n := 0
	for _, tw := range sharedTwins(t) {
		p := PlanModel(tw.u, PlanOptions{})
		sg := &tw.u.Subgraphs[0]
		var layers int64
		for _, o := range p.Ops {
			if o.Placement == "TPU" {
				layers += Work(tw.u, sg, &sg.Operators[o.Index]).MACs
			}
		}
		if layers < 1e6 {
			continue
		}
		n++
		est := estimatedMACs(tw.c.Ops[0].Packages[0])
		r := float64(est) / float64(layers)
		t.Logf("%-50.50s layers %12d estimated %12d (%.2f)", tw.name, layers, est, r)
		if math.Abs(r-1) > 0.15 {
			t.Errorf("%s: %d MACs estimated from the file, the twin's layers have %d (%.2f)", tw.name, est, layers, r)
		}
	}
	if n == 0 {
		t.Skip("no twins")
	}
}
