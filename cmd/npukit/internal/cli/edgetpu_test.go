package cli_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/edgetpu/dmaplan"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/trace"
	"github.com/sbinet/npyio/npy"
)

func edgetpuFile(t *testing.T, name string) string {
	return filepath.Join(conformance.Corpus(t, "edgetpu"), name)
}

func TestEdgeTPUInspectCheckJSON(t *testing.T) {
	f := edgetpuFile(t, "keras_lstm_mnist_ptq_edgetpu.tflite")
	r := run(t, "", "inspect", "--json", f)
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{`"runtime_compatibility"`, `"narrow_memory_capacity_per_tile": 196608`, `"parameter_caching_token": "0x6cad28922f0b3db3"`, `"runs_on": "Edge TPU"`, `"fully_deterministic": false`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect --json lacks %s", want)
		}
	}
	r = run(t, "", "check", f)
	if r.code != 0 || !strings.Contains(r.stdout, "edgetpu/not-fully-deterministic") {
		t.Fatalf("check: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestEdgeTPUMemoryOneGroup(t *testing.T) {
	files, _ := filepath.Glob(edgetpuFile(t, "*_cocompiled_with_3quant_edgetpu.tflite"))
	r := run(t, "", append([]string{"edgetpu", "memory", "--json"}, files...)...)
	var rep struct {
		Groups []struct{ Files []any } `json:"groups"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("%v %d %s", err, r.code, r.stderr)
	}
	if len(files) != 3 || len(rep.Groups) != 1 || len(rep.Groups[0].Files) != 3 {
		t.Fatalf("%d files, groups %+v", len(files), rep.Groups)
	}
}

func TestEdgeTPUExtract(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	f := edgetpuFile(t, "tools__split_concat_edgetpu.tflite")
	if r := run(t, "", "edgetpu", "extract", f, "-o", dir); r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "edgetpu", "extract", f, "-o", dir); r.code != 2 {
		t.Fatalf("overwriting without --force: %d", r.code)
	}
}

func TestEdgeTPULinkRelayoutDMA(t *testing.T) {
	f := edgetpuFile(t, "deeplab_mobilenet_edgetpu_slim_cityscapes_quant_edgetpu.tflite")
	tmp := t.TempDir()
	r := run(t, "", "edgetpu", "link", f, "--layer", "MobilenetEdgeTPU/MobilenetEdgeTPU/input=0x1000", "--layer", "ResizeBilinear=0x123456789",
		"--parameters", "0x2000", "--scratch", "0x3000", "-o", filepath.Join(tmp, "linked"), "--verify")
	if r.code != 0 || !strings.Contains(r.stdout, "Verified") {
		t.Fatalf("link: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "edgetpu", "link", f, "--layer", "nope=1", "-o", filepath.Join(tmp, "l2")); r.code != 2 {
		t.Fatalf("unknown name: exit %d", r.code)
	}
	raw := make([]byte, 21784)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	in, out := filepath.Join(tmp, "raw.bin"), filepath.Join(tmp, "out.npy")
	os.WriteFile(in, raw, 0o644)
	if r := run(t, "", "edgetpu", "relayout", f, "--layer", "ResizeBilinear", "--in", in, "-o", out); r.code != 0 {
		t.Fatalf("relayout: %d %s", r.code, r.stderr)
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rd, err := npy.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	if s := rd.Header.Descr.Shape; len(s) != 3 || s[0] != 33 || s[1] != 33 || s[2] != 19 || rd.Header.Descr.Type != "|u1" {
		t.Fatalf("header %+v", rd.Header)
	}
	var data []uint8
	if err := rd.Read(&data); err != nil {
		t.Fatal(err)
	}
	// (y=10, x=20, z=5) lives at device element 8885.
	if got := data[(10*33+20)*19+5]; got != raw[8885] {
		t.Fatalf("plain (10,20,5) = %d, device[8885] = %d", got, raw[8885])
	}
	r = run(t, "", "edgetpu", "dma", "--json", f)
	if r.code != 0 || !strings.Contains(r.stdout, `"steady_state"`) {
		t.Fatalf("dma: %d %s", r.code, r.stderr)
	}
	if r := run(t, "", "diff", f, f); r.code != 0 || !strings.Contains(r.stdout, "identical") {
		t.Fatalf("diff: %d %s", r.code, r.stdout)
	}
}

// A package needing a newer runtime than the last public one: check exits 1
// and inspect says plainly that it will not load.
func TestEdgeTPURuntimeTooNew(t *testing.T) {
	m := edgetpu.Synthetic(edgetpu.DemoSpec())
	m.Ops[0].Packages[0].MinRuntimeVersion = 15
	b, err := edgetpu.Write(m)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "new_edgetpu.tflite")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "check", f)
	if r.code != 1 || !strings.Contains(r.stdout, "[edgetpu/runtime-too-new]") {
		t.Fatalf("check: exit %d\n%s", r.code, r.stdout)
	}
	r = run(t, "", "inspect", f)
	if r.code != 0 || !strings.Contains(r.stdout, "requires runtime version 15") || !strings.Contains(r.stdout, "will not load") {
		t.Fatalf("inspect: exit %d\n%s", r.code, r.stdout)
	}
}

// TestEdgeTPURelayoutHalf: a HALF (float16) output is written to .npy
// kept as float16 in the .npy (NumPy has the type), exactly.
func TestEdgeTPURelayoutHalf(t *testing.T) {
	spec := edgetpu.DemoSpec()
	spec.Outputs[1].DataType = edgetpu.Half
	b, err := edgetpu.Write(edgetpu.Synthetic(spec))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	f := filepath.Join(tmp, "half_edgetpu.tflite")
	os.WriteFile(f, b, 0o644)
	m, err := edgetpu.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	name := spec.Outputs[1].Name
	var size int
	for _, e := range m.Ops[0].Packages[0].Executables {
		for _, l := range e.OutputLayers {
			if l.Name == name {
				size = int(l.SizeBytes)
			}
		}
	}
	raw := make([]byte, size)
	for i := 0; i+1 < len(raw); i += 2 {
		raw[i], raw[i+1] = 0x00, 0x3c // 1.0 in float16
	}
	in, out := filepath.Join(tmp, "raw.bin"), filepath.Join(tmp, "out.npy")
	os.WriteFile(in, raw, 0o644)
	r := run(t, "", "edgetpu", "relayout", f, "--layer", name, "--in", in, "-o", out)
	if r.code != 0 {
		t.Fatalf("relayout: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// float16 stays float16 in the .npy ('<f2'), values unchanged.
	nb, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	info, err := neff.NpyInfo(nb)
	if err != nil || info.Descr != "<f2" {
		t.Fatalf("header %+v %v", info, err)
	}
	data := nb[int64(len(nb))-info.DataBytes:]
	if len(data) == 0 || len(data)%2 != 0 || data[0] != 0x00 || data[1] != 0x3c || data[len(data)-1] != 0x3c {
		t.Fatalf("%d data bytes, starting % x", len(data), data[:min(4, len(data))])
	}
}

// Every TFLite model of both corpora, compiled or not (corpus2 holds plain
// models: one shipped under an _edgetpu name, and the uncompiled halves of
// the compiler-ground-truth pairs), inspects and checks with exit 0, and no
// operator is shown by number.
func TestEveryTFLiteReads(t *testing.T) {
	files := conformance.CorpusFiles(t, "edgetpu", "*.tflite")
	files = append(files, conformance.CorpusFiles(t, "edgetpu-pairs", "models/*.tflite")...)
	plain := 0
	for _, f := range files {
		name := filepath.Base(f)
		r := run(t, "", "inspect", f)
		if r.code != 0 {
			t.Errorf("%s: inspect exit %d: %s", name, r.code, r.stderr)
			continue
		}
		if strings.Contains(r.stdout, "builtin:") {
			t.Errorf("%s: an operator is shown by number:\n%s", name, r.stdout)
		}
		c := run(t, "", "check", f)
		if c.code != 0 {
			t.Errorf("%s: check exit %d:\n%s", name, c.code, c.stdout)
		}
		if strings.Contains(c.stdout, "edgetpu/no-edgetpu-op") {
			plain++
		}
	}
	if plain == 0 {
		t.Error("no plain TFLite model among the corpus files")
	}
}

// edgetpu plan on every uncompiled model of the pairs: exit 0, the
// compiler's words, and --json with one entry per operator; a compiled
// model is pointed to inspect.
func TestEdgeTPUPlanCommand(t *testing.T) {
	n := 0
	for _, f := range conformance.CorpusFiles(t, "edgetpu-pairs", "models/*.tflite") {
		r := run(t, "", "edgetpu", "plan", f)
		if r.code == 2 {
			// A compiled twin (one with an Edge TPU op).
			if !strings.Contains(r.stderr, "compiled Edge TPU model") {
				t.Errorf("%s: %s", filepath.Base(f), r)
			}
			continue
		}
		n++
		if r.code != 0 || !strings.Contains(r.stdout, "as Edge TPU compiler 16 would map them") {
			t.Errorf("%s: %s", filepath.Base(f), r)
		}
		j := run(t, "", "--json", "edgetpu", "plan", f)
		var p struct {
			Ops []struct{ Placement, Status string } `json:"operators"`
		}
		if err := json.Unmarshal([]byte(j.stdout), &p); err != nil || len(p.Ops) == 0 || p.Ops[0].Status == "" {
			t.Errorf("%s: --json: %v %.200s", filepath.Base(f), err, j.stdout)
		}
	}
	if n == 0 {
		t.Fatal("no uncompiled model")
	}
}

// sim estimates an Edge TPU model's latency on a host class: first
// inference above steady state (parameter caching), a slower host and link
// slower than the default, a Perfetto trace, --host help, an unknown host
// refused.
func TestEdgeTPUSimHosts(t *testing.T) {
	f := edgetpuFile(t, "mobilenet_v1_0.5_160_quant_edgetpu.tflite")
	type lat struct {
		First  float64 `json:"first_inference_us"`
		Steady float64 `json:"steady_state_us"`
		Parts  []struct {
			Kind string `json:"kind"`
		} `json:"parts"`
	}
	get := func(args ...string) lat {
		r := run(t, "", append([]string{"sim", "--json", f}, args...)...)
		if r.code != 0 {
			t.Fatalf("sim %v: %d %s", args, r.code, r.stderr)
		}
		var l lat
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	d, pi := get(), get("--host", "rpi3-usb2")
	if !(d.First > d.Steady && d.Steady > 0) {
		t.Errorf("desktop: first %v, steady %v", d.First, d.Steady)
	}
	if pi.Steady < 2*d.Steady {
		t.Errorf("rpi3-usb2 steady %v not well above desktop %v", pi.Steady, d.Steady)
	}
	kinds := map[string]bool{}
	for _, p := range d.Parts {
		kinds[p.Kind] = true
	}
	for _, k := range []string{"invoke", "transfer", "parameters", "edgetpu"} {
		if !kinds[k] {
			t.Errorf("no %s part: %v", k, kinds)
		}
	}
	if ev := get("--evicted"); ev.Steady <= d.Steady {
		t.Errorf("--evicted steady %v not above %v", ev.Steady, d.Steady)
	}
	tr := filepath.Join(t.TempDir(), "t.json")
	if r := run(t, "", "sim", f, "--trace", tr); r.code != 0 {
		t.Fatalf("trace: %s", r.stderr)
	}
	if b, err := os.ReadFile(tr); err != nil || !strings.Contains(string(b), "Edge TPU") {
		t.Errorf("trace: %v", err)
	} else if _, err := trace.Validate(strings.NewReader(string(b))); err != nil {
		t.Errorf("trace does not validate: %v", err)
	}
	if r := run(t, "", "sim", "--host", "help"); r.code != 0 || !strings.Contains(r.stdout, "devboard-pcie") {
		t.Errorf("--host help: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", "sim", f, "--host", "nope"); r.code == 0 {
		t.Errorf("unknown host accepted")
	}
}

// sim of a compiled model finds its uncompiled twin beside it (the
// compiler's X.tflite for X_edgetpu.tflite) and says which file priced the
// Edge TPU compute, in text and JSON; --no-uncompiled keeps to the
// compiled file; an --uncompiled model that is not the twin is refused.
func TestEdgeTPUSimFindsTwin(t *testing.T) {
	dir := filepath.Join(conformance.Shared(t, "corpus2/edgetpu-pairs"), "models")
	f := filepath.Join(dir, "Face_Mask_RPi__model_edgetpu.tflite")
	type lat struct {
		Uncompiled *struct {
			Path string `json:"path"`
			How  string `json:"how"`
		} `json:"uncompiled"`
		TPUPricing []string `json:"tpu_pricing"`
		Parts      []struct {
			Kind       string `json:"kind"`
			MACs       int64  `json:"macs"`
			PaddedMACs int64  `json:"padded_macs"`
			Detail     string `json:"detail"`
		} `json:"parts"`
	}
	get := func(args ...string) lat {
		r := run(t, "", append([]string{"sim", "--json", f}, args...)...)
		if r.code != 0 {
			t.Fatalf("sim %v: %d %s", args, r.code, r.stderr)
		}
		var l lat
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := get(); l.Uncompiled == nil || filepath.Base(l.Uncompiled.Path) != "Face_Mask_RPi__model.tflite" || !strings.Contains(l.Uncompiled.How, "beside") {
		t.Errorf("twin not found beside: %+v", l.Uncompiled)
	}
	// --json says how the Edge TPU time was priced, and each layer's
	// padded MACs (what the layer rate prices): the face-mask
	// classifier's narrow layers pad.
	pricing := func(l lat, want string) {
		t.Helper()
		if len(l.TPUPricing) != 1 || !strings.Contains(l.TPUPricing[0], want) || !strings.Contains(l.TPUPricing[0], "fitted") {
			t.Errorf("tpu_pricing %q, want one line with %q that says what it is fitted on", l.TPUPricing, want)
		}
	}
	l := get()
	pricing(l, "on each layer's MACs with its output channels padded to 64")
	layers, padded := 0, 0
	for _, p := range l.Parts {
		if p.Kind != "edgetpu" || p.MACs == 0 {
			continue
		}
		layers++
		if p.PaddedMACs < p.MACs || !strings.Contains(p.Detail, "padded to 64 output channels a group") {
			t.Errorf("layer part: %d MACs, %d padded (%q)", p.MACs, p.PaddedMACs, p.Detail)
		}
		if p.PaddedMACs > p.MACs {
			padded++
		}
	}
	if layers == 0 || padded == 0 {
		t.Errorf("%d Edge TPU layers with MACs, %d padded: want both", layers, padded)
	}
	alone := get("--no-uncompiled")
	pricing(alone, "effective on the estimated MACs (a classifier")
	for _, p := range alone.Parts {
		if p.PaddedMACs != 0 {
			t.Errorf("the compiled file alone gives %s padded MACs: it has no layers", p.Detail)
		}
	}
	if r := run(t, "", "sim", f); r.code != 0 || !strings.Contains(r.stdout, "from the uncompiled model Face_Mask_RPi__model.tflite (found beside the compiled file)") {
		t.Errorf("text does not name the twin: %d %s", r.code, r.stdout)
	}
	if l := get("--no-uncompiled"); l.Uncompiled != nil {
		t.Errorf("--no-uncompiled used %+v", l.Uncompiled)
	}
	if r := run(t, "", "sim", f, "--uncompiled", filepath.Join(dir, "Franco__model.tflite")); r.code == 0 || !strings.Contains(r.stderr, "is not the model") {
		t.Errorf("a model that is not the twin was accepted: %d %s", r.code, r.stderr)
	}
}

// plan takes the compiler's flags under their short and long names, and
// -s prints the compiler's own table beside the prediction. A flag plan
// would not honour is refused, not accepted silently (audit r3 #28): -n
// above 1 (pipeline segments), -m, -k without -d or above 1, -i naming no
// tensor, -s with --json.
func TestEdgeTPUPlanCompilerFlags(t *testing.T) {
	f := filepath.Join(conformance.Shared(t, "corpus2/edgetpu-pairs"), "models", "Franco__model.tflite")
	m, err := edgetpu.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	sg := &m.TFLite.Subgraphs[0]
	last := sg.Tensors[sg.Operators[len(sg.Operators)-1].Outputs[0]].Name
	short := run(t, "", "edgetpu", "plan", "-a", "-d", "-k", "1", "-n", "1", "-s", "-i", last, f)
	long := run(t, "", "edgetpu", "plan", "--enable_multiple_subgraphs", "--search_delegate", "--delegate_search_step", "1",
		"--num_segments", "1", "--show_operations", "--intermediate_tensors", last, f)
	if short.code != 0 || long.code != 0 || short.stdout != long.stdout {
		t.Fatalf("short %d %s / long %d %s", short.code, short.stderr, long.code, long.stderr)
	}
	for _, want := range []string{"Operator                       Count      Status", "On-chip memory used for caching model parameters:", "Number of Edge TPU subgraphs: 1"} {
		if !strings.Contains(short.stdout, want) {
			t.Errorf("plan -s lacks %q:\n%s", want, short.stdout)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-k", "-1"}, "positive"},
		{[]string{"-n", "3"}, "-n 3 (--num_segments) is not modelled"},
		{[]string{"--num_segments", "2"}, "-n 2 (--num_segments) is not modelled"},
		{[]string{"-m", "13"}, "-m 13 (--min_runtime_version) is not modelled"},
		{[]string{"-k", "2"}, "applies to the search of -d"},
		{[]string{"-d", "-k", "2"}, "-k 2 (--delegate_search_step) is not modelled"},
		{[]string{"-i", "x," + last}, `no tensor of the model's main subgraph is named "x"`},
		{[]string{"--json", "-s"}, "with --json every operator's status"},
	} {
		args := append([]string{"edgetpu", "plan"}, c.args...)
		if c.args[0] == "--json" {
			args = append([]string{"--json", "edgetpu", "plan"}, c.args[1:]...)
		}
		if r := run(t, "", append(args, f)...); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
			t.Errorf("plan %v: exit %d, stderr %q, stdout %d bytes; want exit 2 and %q", c.args, r.code, r.stderr, len(r.stdout), c.want)
		}
	}
}

// One link rate has one value across commands (audit item 24): check's
// streamed-parameters info, edgetpu dma and sim each give USB 3.0's raw
// rate (dmaplan's, the lower bounds') and the effective rate sim charges
// on the default host, and print no other rate: each output relates the
// two.
func TestEdgeTPULinkRatesAgree(t *testing.T) {
	f := edgetpuFile(t, "cocompilation__mobilenet_v1_0.25_128_quant_cocompiled_with_3quant_edgetpu.tflite")
	h, _ := edgetpu.HostByName(edgetpu.DefaultHost)
	gb := func(bytesPerSec float64) string { return strconv.FormatFloat(bytesPerSec/1e9, 'g', 3, 64) }
	allowed := map[string]bool{}
	var raw string
	for _, l := range dmaplan.DefaultLinks() {
		allowed[gb(l.BitsPerSec/8)] = true
		if l.Name == h.Link {
			raw = gb(l.BitsPerSec / 8)
		}
	}
	for _, c := range edgetpu.Hosts() {
		allowed[gb(c.LinkMBps*1e6)] = true
	}
	eff := gb(h.LinkMBps * 1e6)
	rate := regexp.MustCompile(`([0-9.]+) GB/s`)
	for _, args := range [][]string{{"check", f}, {"edgetpu", "dma", f}, {"sim", f}} {
		r := run(t, "", args...)
		if r.code != 0 {
			t.Fatalf("%v: %s", args, r)
		}
		for _, want := range []string{raw + " GB/s", eff + " GB/s effective"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s does not give %q:\n%s", args[len(args)-2], want, r.stdout)
			}
		}
		for _, m := range rate.FindAllStringSubmatch(r.stdout, -1) {
			if !allowed[m[1]] {
				t.Errorf("%s prints a link rate %s GB/s that is neither a raw rate nor a host class's effective rate", args[len(args)-2], m[1])
			}
		}
	}
}

// No floods (audit item 18): edgetpu plan keeps its per-operator latency
// table to the longest operators, with a hint, unless --layers; sim does
// the same; edgetpu dma shortens a 300-character layer name, so its rows
// stay narrow.
func TestEdgeTPULongTables(t *testing.T) {
	y := filepath.Join(conformance.Shared(t, "corpus2/edgetpu-pairs"), "models", "edgetpu_lite__yolov8n_full_integer_quant.tflite")
	short, long := run(t, "", "edgetpu", "plan", y), run(t, "", "edgetpu", "plan", "--layers", y)
	if short.code != 0 || long.code != 0 {
		t.Fatalf("plan: %s / %s", short, long)
	}
	ops := func(s string) int { return strings.Count(s, "\n  op ") }
	if n := strings.Count(short.stdout, "\n"); n > 120 || !strings.Contains(short.stdout, "(--layers lists every one") {
		t.Errorf("plan prints %d lines by default, or no --layers hint:\n%s", n, short.stdout)
	}
	if ops(long.stdout) <= ops(short.stdout)+100 || strings.Contains(long.stdout, "--layers lists") {
		t.Errorf("plan --layers: %d operator rows, default %d", ops(long.stdout), ops(short.stdout))
	}
	ecg := filepath.Join(conformance.Shared(t, "corpus2/edgetpu"), "coral_ecg__model_edgetpu.tflite")
	s, l := run(t, "", "sim", ecg), run(t, "", "sim", "--layers", ecg)
	if s.code != 0 || l.code != 0 || ops(l.stdout) <= ops(s.stdout) || !strings.Contains(s.stdout, "--layers") {
		t.Errorf("sim: %d operator rows, with --layers %d: %s / %s", ops(s.stdout), ops(l.stdout), s, l)
	}
	d := run(t, "", "edgetpu", "dma", edgetpuFile(t, "pipeline__ssd_mobilenet_v1_coco_quant_postprocess_segment_1_of_2_edgetpu.tflite"))
	if d.code != 0 || !strings.Contains(d.stdout, "…") {
		t.Fatalf("dma: %s", d)
	}
	for _, line := range strings.Split(d.stdout, "\n") {
		if strings.HasPrefix(line, "  ") && len([]rune(line)) > 160 {
			t.Errorf("dma row of %d characters: %.120s…", len([]rune(line)), line)
		}
	}
}

// sim of a plain float32 model with no Edge TPU operator (audit item 8)
// is not an accelerator run: no invocation overhead, no link or Edge TPU
// rate, and the float kernels' pricing is stated in the text and --json.
func TestEdgeTPUSimFloatCPUModel(t *testing.T) {
	f := filepath.Join(conformance.Shared(t, "corpus2/edgetpu"), "coral_ecg__model_edgetpu.tflite")
	r := run(t, "", "sim", f)
	if r.code != 0 {
		t.Fatal(r)
	}
	for _, not := range []string{"invocation overhead", "USB Accelerator", "host link", "GMAC/s on each layer", "GMAC/s effective on the estimated MACs"} {
		if strings.Contains(r.stdout, not) {
			t.Errorf("sim of a CPU-only model says %q:\n%s", not, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "no Edge TPU work") || !strings.Contains(r.stdout, "priced at the int8 kernels' rates") {
		t.Errorf("sim does not say the model is CPU-only and float kernels are priced as int8:\n%s", r.stdout)
	}
	j := run(t, "", "sim", "--json", f)
	var l struct {
		UsesEdgeTPU *bool `json:"uses_edgetpu"`
		Float       int   `json:"float_cpu_ops_at_int8_rate"`
		Parts       []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(j.stdout), &l); err != nil || l.UsesEdgeTPU == nil || *l.UsesEdgeTPU || l.Float == 0 {
		t.Fatalf("--json: %v %+v", err, l)
	}
	for _, p := range l.Parts {
		if p.Kind != edgetpu.PartCPU {
			t.Errorf("a %s part in a CPU-only model", p.Kind)
		}
	}
}

// edgetpu memory given a plain TFLite model among compiled ones reports
// the compiled ones and lists the plain one as not on the Edge TPU,
// instead of failing as a whole (audit r3 #8).
func TestEdgeTPUMemoryPlainModelAmongOthers(t *testing.T) {
	plain := filepath.Join(conformance.Shared(t, "corpus2/edgetpu-pairs"), "models", "Franco__model.tflite")
	f := edgetpuFile(t, "keras_lstm_mnist_ptq_edgetpu.tflite")
	r := run(t, "", "edgetpu", "memory", plain, f)
	if r.code != 0 || !strings.Contains(r.stdout, "Not on the Edge TPU: "+plain) || !strings.Contains(r.stdout, f) {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
