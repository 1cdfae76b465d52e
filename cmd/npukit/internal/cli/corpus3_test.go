package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/nki"
)

// Every NEFF of the shared corpora (corpus*/neff, and the NEFFs profiled in
// corpus3/ntff) checks with exit 0 and no error, as their READMEs say: all
// ran on hardware. corpus3's neuronx-cc 2.23 NEFF describes its dge-table
// with a list, not a size.
func TestCorpusNeffsCheckClean(t *testing.T) {
	base := conformance.Shared(t, ".")
	var files []string
	for _, pat := range []string{"corpus*/neff/*.neff", "corpus3/ntff/*.neff"} {
		m, _ := filepath.Glob(filepath.Join(base, pat))
		files = append(files, m...)
	}
	if !containsPath(files, "corpus3") {
		if os.Getenv("NPUKIT_REQUIRE_SHARED") != "" {
			t.Fatal("corpus3 NEFFs missing")
		}
		t.Skip("corpus3 not present")
	}
	for _, f := range files {
		r := run(t, "", "check", f)
		if r.code != 0 || !strings.Contains(r.stdout, " 0 errors") {
			t.Errorf("check %s: %s", filepath.Base(f), r)
		}
	}
}

func containsPath(files []string, part string) bool {
	for _, f := range files {
		if strings.Contains(f, string(filepath.Separator)+part+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Every corpus3 NKI entry checks with exit 0 (README: kernels as students
// and contributors write them, run on hardware by their authors).
func TestCorpus3NkiCheckExitZero(t *testing.T) {
	man := filepath.Join(conformance.Shared(t, "corpus3/nki"), "manifest.json")
	m, err := nki.ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries {
		r := run(t, "", "nki", "check", "--manifest", man, "--entry", e.ID)
		if r.code != 0 || !strings.Contains(r.stdout, " 0 errors") {
			t.Errorf("nki check %s: %s", e.ID, r)
		}
	}
}

// neff dma and sim on a NEFF with hardware descriptor generation say that
// they do not model its descriptor-generation tables.
func TestNeffDGENote(t *testing.T) {
	b := neff.NewBuilder("dge.neff")
	b.Header.NeffVersionMajor, b.Header.FeatureBits = 2, 0x209c00
	sg := b.Subgraph("sg00")
	sg.AddVar("x", "input", 4096)
	sg.AddVar("out", "output", 4096)
	sg.AddQueue("qSPDynamicHW", "dynamic", 16, "sp")
	sg.Engine("sp", "SP")
	sg.AddDGETable("DGETable0", "x", "out")
	b.Signature.Inputs["x"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{1024}}
	b.Signature.Outputs["out"] = neff.SigTensor{ID: 0, DType: "float32", Shape: []int64{1024}}
	raw, err := b.Bytes(neff.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "dge.neff")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", f}, {"inspect", f}, {"neff", "dma", f}, {"sim", f}} {
		r := run(t, dir, args...)
		if r.code != 0 {
			t.Errorf("%v: %s", args, r)
			continue
		}
		switch args[0] {
		case "inspect":
			if !strings.Contains(r.stdout, "DGE table DGETable0: descriptor-generation table of x (var_id 1), out (var_id 2)") {
				t.Errorf("inspect does not show the dge-table:\n%s", r.stdout)
			}
		case "neff", "sim":
			if !strings.Contains(r.stdout, "does not model descriptor-generation tables") || !strings.Contains(r.stdout, "DGETable0 (x, out)") {
				t.Errorf("%v says nothing of the dge-table:\n%s", args, r.stdout)
			}
		}
	}
}
