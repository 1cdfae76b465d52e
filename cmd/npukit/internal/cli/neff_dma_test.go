package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/neff"
	"github.com/sbinet/npyio/npy"
)

func TestNeffDMACorpus(t *testing.T) {
	for _, f := range neffCorpus(t) {
		r := run(t, "", "neff", "dma", "--json", f)
		if r.code != 0 {
			t.Fatalf("%s: %s", f, r)
		}
		var out struct {
			Subgraphs []struct {
				Analysis struct {
					Descriptors int `json:"descriptors"`
					Queues      []struct {
						Engine string `json:"engine"`
					} `json:"queues"`
				} `json:"analysis"`
				Skipped []any `json:"skipped"`
			} `json:"subgraphs"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(out.Subgraphs) == 0 || out.Subgraphs[0].Analysis.Descriptors == 0 || len(out.Subgraphs[0].Skipped) > 0 {
			t.Errorf("%s: %+v", f, out)
		}
		if r := run(t, "", "neff", "dma", f); r.code != 0 || !strings.Contains(r.stdout, "PARTITIONS") {
			t.Errorf("%s text: %s", f, r)
		}
		if r := run(t, "", "sim", f); r.code != 0 || !strings.Contains(r.stdout, "Predicted time") {
			t.Errorf("%s sim: %s", f, r)
		}
	}
}

// writeDMANeff builds a NEFF whose DMA program loads a float32 input into
// two state-buffer partitions and stores it, cast to float16, to the output.
func writeDMANeff(t *testing.T, dir string) string {
	t.Helper()
	b := neff.NewBuilder("dma.neff")
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 16)
	sg.AddVar("y", "output", 8)
	sg.AddQueue("qSPIO0", "in", 16, "sp")
	sp := sg.Engine("sp", "SP")
	sp.AddDMA("qSPIO0", "load", neff.Copy("x", 0, []int64{8, 2}, []int64{1, 8}, "SB", 64, []int64{8, 2}, []int64{1, neff.SBPartitionStride}))
	st := neff.Copy("SB", 64, []int64{8, 2}, []int64{1, neff.SBPartitionStride}, "y", 0, []int64{4, 2}, []int64{1, 4})
	st.Op = ptrTo("cast")
	st.FromDType, st.ToDType = ptrTo("float32"), ptrTo("float16")
	sp.AddDMA("qSPIO0", "store", st)
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "dma.neff")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ptrTo[T any](v T) *T { return &v }

func TestNeffDMAExecute(t *testing.T) {
	dir := t.TempDir()
	f := writeDMANeff(t, dir)
	in := filepath.Join(dir, "x.npy")
	fh, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(fh, []float32{1, -2, 0.5, 65504}); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	out := filepath.Join(dir, "out")
	r := run(t, "", "neff", "dma", f, "--execute", "--input", "x="+in, "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr, "engine instructions are not executed") {
		t.Fatalf("%s", r)
	}
	// y is float16: written as float16 ('<f2'), values exact.
	yb, err := os.ReadFile(filepath.Join(out, "y.npy"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := neff.NpyInfo(yb)
	if err != nil || info.Descr != "<f2" {
		t.Fatalf("y.npy header %+v %v", info, err)
	}
	data := yb[int64(len(yb))-info.DataBytes:]
	want := []uint16{0x3c00, 0xc000, 0x3800, 0x7bff} // 1, -2, 0.5, 65504
	if len(data) != 2*len(want) {
		t.Fatalf("y holds %d bytes", len(data))
	}
	for i, w := range want {
		if got := uint16(data[2*i]) | uint16(data[2*i+1])<<8; got != w {
			t.Fatalf("y[%d] = %#04x, want %#04x", i, got, w)
		}
	}
	// Usage errors: unknown variable, wrong size, -o without --execute.
	for _, args := range [][]string{
		{"neff", "dma", f, "--execute", "--input", "nope=" + in, "-o", filepath.Join(dir, "o2")},
		{"neff", "dma", f, "--execute", "--input", "y=" + in, "-o", filepath.Join(dir, "o3")},
		{"neff", "dma", f, "-o", filepath.Join(dir, "o4")},
		{"neff", "dma", filepath.Join(dir, "missing.neff")},
	} {
		if r := run(t, "", args...); r.code != 2 {
			t.Errorf("%v: %s", args, r)
		}
	}
}

// npukit sim on a NEFF, through the shared command (needs the NEFF format
// registered for detection, which the container CLI provides).
func TestNeffSimCommand(t *testing.T) {
	dir := t.TempDir()
	f := writeDMANeff(t, dir)
	tr := filepath.Join(dir, "t.json")
	r := run(t, "", "sim", f, "--trace", tr, "--dma-overhead-ns", "100", "--dma-gibps", "10")
	if r.code == 2 && strings.Contains(r.stderr, "not supported yet") {
		t.Skip("the NEFF format is not registered in this build")
	}
	if r.code != 0 || !strings.Contains(r.stdout, "Predicted time") || !strings.Contains(r.stdout, "100 ns fixed latency per DMA") {
		t.Fatalf("%s", r)
	}
	if _, err := os.Stat(tr); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "sim", f, "--dma-engines", "0"); r.code != 2 {
		t.Fatalf("--dma-engines 0: %s", r)
	}
}

// Two subgraphs: --execute writes DIR/SUBGRAPH/NAME.npy and sim writes
// one trace per subgraph.
func TestNeffDMATwoSubgraphs(t *testing.T) {
	b := neff.NewBuilder("two.neff")
	for _, name := range []string{"sg00", "sg01"} {
		sg := b.Subgraph(name)
		sg.AddVar("x", "input", 8)
		sg.AddVar("y", "output", 8)
		sg.AddQueue("q", "in", 1, "sp")
		sg.Engine("sp", "SP").AddDMA("q", "move", neff.Copy("x", 0, []int64{8}, []int64{1}, "y", 0, []int64{8}, []int64{1}))
	}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "two.neff")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "x.npy")
	fh, _ := os.Create(in)
	npy.Write(fh, []uint8{1, 2, 3, 4, 5, 6, 7, 8})
	fh.Close()
	out := filepath.Join(dir, "out")
	if r := run(t, "", "neff", "dma", f, "--execute", "--input", "x="+in, "-o", out); r.code != 0 {
		t.Fatalf("%s", r)
	}
	for _, sg := range []string{"sg00", "sg01"} {
		b, err := os.ReadFile(filepath.Join(out, sg, "y.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(b), "\x01\x02\x03\x04\x05\x06\x07\x08") {
			t.Errorf("%s/y.npy: % x", sg, b)
		}
	}
	tr := filepath.Join(dir, "t.json")
	r := run(t, "", "sim", "--json", f, "--trace", tr)
	if r.code != 0 || !strings.Contains(r.stdout, `"bytes_per_ns"`) {
		t.Fatalf("%s", r)
	}
	// one trace, at the path named, with both subgraphs (it wrote
	// t.sg00.json and t.sg01.json instead)
	tb, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range []string{"sg00", "sg01"} {
		if _, err := os.Stat(filepath.Join(dir, "t."+sg+".json")); err == nil {
			t.Errorf("t.%s.json written beside t.json", sg)
		}
		if !strings.Contains(string(tb), sg+" kernel") {
			t.Errorf("the trace has no %s", sg)
		}
	}
}

// neff dma --execute -o DIR deleted an existing non-empty DIR without
// asking; now it needs --force, like unpack, extract and link.
func TestNeffDMAExecuteKeepsExistingDir(t *testing.T) {
	dir := t.TempDir()
	f := writeDMANeff(t, dir)
	in := filepath.Join(dir, "x.npy")
	fh, _ := os.Create(in)
	npy.Write(fh, []float32{1, 2, 3, 4})
	fh.Close()
	out := filepath.Join(dir, "results")
	os.MkdirAll(out, 0o755)
	keep := filepath.Join(out, "thesis.tex")
	os.WriteFile(keep, []byte("years of work"), 0o644)
	r := run(t, "", "neff", "dma", f, "--execute", "--input", "x="+in, "-o", out)
	if r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("non-empty DIR: %s", r)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "years of work" {
		t.Fatalf("user file lost: %v", err)
	}
	if r := run(t, "", "neff", "dma", f, "--execute", "--input", "x="+in, "-o", out, "--force"); r.code != 0 {
		t.Fatalf("--force: %s", r)
	}
	if _, err := os.Stat(filepath.Join(out, "y.npy")); err != nil {
		t.Fatal(err)
	}
}
