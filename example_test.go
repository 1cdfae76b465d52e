package npukit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/detect/detecttest"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/ntff"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/report"
)

// Open a compiled Edge TPU model (here one written by npukit's own
// writer), check it and read its summary. npukit.Open(path) does the same
// for a file on disk.
func Example() {
	data, err := edgetpu.Write(edgetpu.Synthetic(edgetpu.DemoSpec()))
	if err != nil {
		log.Fatal(err)
	}
	a, err := npukit.OpenBytes("demo_edgetpu.tflite", data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Describe())
	rep, err := a.Check(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("errors:", rep.Count(diag.Error))
	m, err := a.EdgeTPUModel()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Edge TPU ops:", len(edgetpu.Summarize(m).EdgeTPUOps))
	// Output:
	// Edge TPU model (TFLite with edgetpu-custom-op)
	// errors: 0
	// Edge TPU ops: 1
}

// Open a model on disk, check it and read it decoded: the code of the
// package documentation (compiled, not run: it needs the file).
func Example_open() {
	a, err := npukit.Open("model_edgetpu.tflite")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := a.Check(nil) // the findings, a diag.Report
	if err != nil {
		log.Fatal(err)
	}
	m, err := a.EdgeTPUModel() // the decoded model, an *edgetpu.Model
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Count(diag.Error), "errors,", len(edgetpu.Summarize(m).EdgeTPUOps), "Edge TPU ops")
}

// Build a NEFF with neff.Builder, open it, and check it against the
// default Neuron runtime.
func ExampleOpenBytes_neff() {
	b := neff.NewBuilder("tiny.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 512)
	sg.AddVar("y", "output", 512)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSPIO0", "copy x to y", neff.Copy("x", 0, []int64{512}, []int64{1}, "y", 0, []int64{512}, []int64{1}))
	b.Signature.Inputs["x"] = neff.SigTensor{DType: "float32", Shape: []int64{128}}
	b.Signature.Outputs["y"] = neff.SigTensor{DType: "float32", Shape: []int64{128}}
	data, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	a, err := npukit.OpenBytes("tiny.neff", data)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := a.Check(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind, "errors:", rep.Count(diag.Error))
	m, err := a.Neff(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("subgraphs:", len(m.Subgraphs))
	// Output:
	// neff errors: 0
	// subgraphs: 1
}

// Simulate a multi-core Gemini schedule (a synthetic one here) and render
// its report page, which includes the simulation.
func ExampleArtifact_Simulate() {
	var buf bytes.Buffer
	if err := gemini.SynthWrite(&buf, gemini.SynthConfig{Cores: 4, Workloads: 8}); err != nil {
		log.Fatal(err)
	}
	a, err := npukit.OpenBytes("synthetic_bw16_schedule.json", buf.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	out, err := a.Simulate(nil)
	if err != nil {
		log.Fatal(err)
	}
	sim := out.(*npukit.GeminiSimulation)
	fmt.Printf("cores: %d, DRAM %.2f GB/s\n", len(sim.Cores), sim.Params.DRAMGBps)
	page, err := a.Report(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := report.Render(io.Discard, page); err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Title)
	// Output:
	// cores: 4, DRAM 17.18 GB/s
	// Gemini schedule
}

// Read an allocation problem in MiniMalloc's CSV form and place its
// buffers within the capacity with the exact solver.
func ExampleArtifact_AllocTable() {
	csv := "id,lower,upper,size\n" +
		"a,0,2,400\n" +
		"b,1,3,300\n" +
		"c,2,4,500\n" +
		"d,3,5,200\n"
	a, err := npukit.OpenBytes("problem.1024.csv", []byte(csv))
	if err != nil {
		log.Fatal(err)
	}
	t, err := a.AllocTable(0) // capacity 1024 from the name
	if err != nil {
		log.Fatal(err)
	}
	sol, status, err := alloc.Exact(context.Background(), &t.Problem, alloc.Options{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(status, "height:", alloc.Height(&t.Problem, sol), "of", t.Problem.Capacity)
	fmt.Println("valid:", !alloc.Validate(&t.Problem, sol).HasErrors())
	// Output:
	// solved height: 800 of 1024
	// valid: true
}

// Check a NeuronCore SBUF allocation plan (docs/sbuf-plan.md): two tensors
// placed by hand at overlapping addresses are an error.
func ExampleArtifact_Check_sbufPlan() {
	plan := `name: overlap
arch: v2
tensors:
  - {name: a, partitions: 128, free: [512], dtype: float32, buffer: sbuf, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: b, partitions: 128, free: [512], dtype: float32, buffer: sbuf, alloc: {mod_alloc: {base_addr: 1024}}}
body:
  - {op: activation, func: exp, read: a, write: b}
`
	a, err := npukit.OpenBytes("plan.yaml", []byte(plan))
	if err != nil {
		log.Fatal(err)
	}
	rep, err := a.Check(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range rep {
		if strings.Contains(d.Rule, "overlap") {
			fmt.Println(d.Severity, d.Rule)
		}
	}
	// Output:
	// error sbuf/lifetime-overlap
}

// Summarise a ZeBu emulator trace of a Gemini run (the timing ground
// truth npukit sim compares a schedule's simulation with: Options.ZebuTrace).
func ExampleArtifact_ZebuTrace() {
	trace := `[ct_st, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': -1}, {'inst_idx': 1, 'time': [0, 33]}, {}]
[ldw_mov, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': 0}, {'inst_idx': 2, 'time': [33, 400]}, {}]
[pe_conv, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': 0}, {'inst_idx': 3, 'time': [400, 1000]}, {}]
[ct_ed, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': -1}, {'inst_idx': 4, 'time': [1000, 1010]}, {}]
`
	a, err := npukit.OpenBytes("run_sim.txt", []byte(trace))
	if err != nil {
		log.Fatal(err)
	}
	t, err := a.ZebuTrace()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind, "total cycles:", t.Total())
	for _, c := range t.Classes() {
		fmt.Println(c.Class, c.Busy)
	}
	// Output:
	// zebu-trace total cycles: 1010
	// ct 43
	// ldw 367
	// pe 600
}

// Open a raw DarwiNN package (the executable container an Edge TPU
// compiler wraps in a TFLite custom op; here written by npukit) and check
// it with the same rules as the model it would sit in.
func ExampleOpenBytes_darwinnPackage() {
	data, err := edgetpu.WritePackage(edgetpu.SynthPackage(edgetpu.DemoSpec()))
	if err != nil {
		log.Fatal(err)
	}
	a, err := npukit.OpenBytes("demo.dwn", data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind)
	rep, err := a.Check(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("errors:", rep.Count(diag.Error))
	// Output:
	// darwinn-package
	// errors: 0
}

// A TFLite model that was never compiled for the Edge TPU (what a Coral
// user holds before running the compiler) opens as plain TFLite, and its
// check says so; `npukit edgetpu plan` predicts its mapping.
func ExampleOpenBytes_tflite() {
	a, err := npukit.OpenBytes("model.tflite", detecttest.PlainTFLite())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind)
	rep, err := a.Check(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range rep {
		fmt.Println(d.Severity, d.Rule)
	}
	// Output:
	// tflite
	// info edgetpu/no-edgetpu-op
}

// An unpacked NEFF (the directory neuronx-cc writes before packing, or
// `npukit neff unpack` gives) opens as one artifact of kind neff-dir and
// reads, checks and simulates as the packed file does.
func ExampleArtifact_Neff_directory() {
	b := neff.NewBuilder("tiny.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 4096)
	sg.AddVar("y", "output", 4096)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSPIO0", "copy x to y", neff.Copy("x", 0, []int64{4096}, []int64{1}, "y", 0, []int64{4096}, []int64{1}))
	members, err := b.Members()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tiny-neff")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, m := range members {
		p := filepath.Join(dir, filepath.FromSlash(m.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, m.Data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	a, err := npukit.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	m, err := a.Neff(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Kind, "subgraphs:", len(m.Subgraphs), "first:", m.Subgraphs[0].Name)
	out, err := a.Simulate(nil)
	if err != nil {
		log.Fatal(err)
	}
	sim := out.(*npukit.NeffSimulation)
	fmt.Println("DMA bytes:", sim.Subgraphs[0].Result.Bytes)
	// Output:
	// neff-dir subgraphs: 1 first: sg00
	// DMA bytes: 4096
}

// Read a Neuron profile capture (neuron-profile's .ntff, not written by
// npukit, so this example is compiled but not run) and summarise it as
// neuron-profile does; Simulate replays the measured run.
func ExampleArtifact_Ntff() {
	a, err := npukit.Open("profile.ntff")
	if err != nil {
		log.Fatal(err)
	}
	p, err := a.Ntff()
	if err != nil {
		log.Fatal(err)
	}
	s := ntff.Summarize(p, a.Name)
	fmt.Printf("%s on %s: %.3f us\n", s.NeffName, s.Instance, s.TotalTimeUs)
	out, err := a.Simulate(&npukit.Options{TracePath: "profile.trace.json"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed:", out.(*npukit.NtffReplay).TotalNs, "ns")
}

// List a NEFF's DMA program (what `npukit neff dma` prints): per subgraph
// the descriptors and bytes each queue moves and the efficiency findings.
func ExampleArtifact_NeffDMA() {
	b := neff.NewBuilder("tiny.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 4096)
	sg.AddVar("y", "output", 4096)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSPIO0", "copy x to y", neff.Copy("x", 0, []int64{4096}, []int64{1}, "y", 0, []int64{4096}, []int64{1}))
	data, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	a, err := npukit.OpenBytes("tiny.neff", data)
	if err != nil {
		log.Fatal(err)
	}
	l, err := a.NeffDMA(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, sg := range l.Subgraphs {
		fmt.Println(sg.Subgraph, "descriptors:", sg.Analysis.Descriptors, "bytes:", sg.Analysis.Bytes)
	}
	// Output:
	// sg00 descriptors: 1 bytes: 4096
}
