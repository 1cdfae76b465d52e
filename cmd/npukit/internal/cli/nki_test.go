package cli_test

import (
	"encoding/json"
	"github.com/npukit/npukit/internal/conformance"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const nkiKernel = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def add(a, b, scale=2):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        u = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=t + u)
    return out
`

func TestNkiInspect(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(nkiKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "nki", "inspect", "k.py", "--kernel", "add", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]", "--json")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var out struct {
		Tensors []struct {
			API       string  `json:"api"`
			Shape     []int64 `json:"shape"`
			Instances int64   `json:"runtime_instances"`
		} `json:"tensors"`
		Loops []struct {
			TripCounts map[string]int64 `json:"trip_counts"`
			Symbolic   bool             `json:"symbolic"`
		} `json:"loops"`
		Calls []struct {
			Fn       string `json:"fn"`
			Executed int64  `json:"executed"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Loops) != 1 || out.Loops[0].TripCounts["4"] != 1 || !out.Loops[0].Symbolic {
		t.Errorf("loops %+v", out.Loops)
	}
	var loads int64
	for _, c := range out.Calls {
		if c.Fn == "nl.load" {
			loads += c.Executed
		}
	}
	if loads != 8 {
		t.Errorf("nl.load executed %d times, want 8 (2 per iteration of 4)", loads)
	}
	found := false
	for _, ten := range out.Tensors {
		if ten.API == "result of nl.load" && len(ten.Shape) == 2 && ten.Shape[0] == 128 && ten.Shape[1] == 256 && ten.Instances == 4 {
			found = true
		}
	}
	if !found {
		t.Errorf("no implicit load tile of [128 256] x4: %+v", out.Tensors)
	}
	// text output names the loop and the calls
	r = run(t, dir, "nki", "inspect", "k.py", "--kernel", "add", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]")
	if r.code != 0 || !strings.Contains(r.stdout, "affine_range (symbolic)") || !strings.Contains(r.stdout, "operator.add") {
		t.Errorf("%s", r)
	}
}

func TestNkiInspectRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(nkiKernel, "value=t + u)", "value=t + u)\n        x = np.zeros(3)", 1)
	if err := os.WriteFile(filepath.Join(dir, "k.py"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "nki", "inspect", "k.py", "--kernel", "add", "--arg", "a=bfloat16[512,256]", "--arg", "b=bfloat16[512,256]")
	if r.code != 2 || !strings.Contains(r.stderr, "k.py:11:13") || !strings.Contains(r.stderr, "np") {
		t.Errorf("unknown name: %s", r)
	}
	for _, args := range [][]string{
		{"nki", "inspect", "k.py"},
		{"nki", "inspect", "k.py", "--kernel", "add", "--arg", "a=bogus[1]"},
		{"nki", "inspect", "k.py", "--kernel", "add", "--arch", "v9"},
		{"nki", "inspect", "--manifest", "none.json", "--entry", "x"},
	} {
		if r := run(t, dir, args...); r.code != 2 {
			t.Errorf("%v: %s", args, r)
		}
	}
}

// Every manifest entry either traces or is refused with file:line.
func TestNkiInspectManifest(t *testing.T) {
	man := filepath.Join(conformance.SharedDir(), "corpus2", "nki", "manifest.json")
	if _, err := os.Stat(man); err != nil {
		t.Skip("corpus2/nki not present")
	}
	r := run(t, ".", "nki", "inspect", "--manifest", man, "--entry", "samples.matmul_tiled", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"entry": "samples.matmul_tiled"`) {
		t.Errorf("%s", r)
	}
}
