package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// corpusGlob lists the shared corpus files matching pattern (relative to
// corpus/ and corpus2/); the test skips when the corpus is absent.
func corpusGlob(t *testing.T, pattern string) []string {
	t.Helper()
	var out []string
	for _, c := range []string{"corpus", "corpus2"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", c, pattern))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skip("shared corpus absent")
	}
	for i, p := range out {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = abs
	}
	return out
}

// TestNeffInspectSimAgree: inspect's per-engine DMA descriptors and bytes
// add up, per subgraph, to what sim moves: one number for one thing
// (inspect counted the from side, twice the bytes of a two-source cast).
func TestNeffInspectSimAgree(t *testing.T) {
	type pair struct{ Descs, Bytes int64 }
	for _, f := range corpusGlob(t, "neff/*.neff") {
		var ins []struct {
			Result struct {
				Subgraphs []struct {
					Name    string
					Engines []struct {
						Descriptors int64
						DMABytes    int64 `json:"dma_bytes"`
					}
				}
			}
		}
		var sim struct {
			Subgraphs []struct {
				Subgraph string
				Result   struct{ Descriptors, Bytes int64 }
			}
		}
		ri, rs := run(t, ".", "inspect", "--json", f), run(t, ".", "sim", "--json", f)
		if err := json.Unmarshal([]byte(ri.stdout), &ins); err != nil || len(ins) != 1 {
			t.Fatalf("%s inspect: %v %s", f, err, ri)
		}
		if err := json.Unmarshal([]byte(rs.stdout), &sim); err != nil {
			t.Fatalf("%s sim: %v %s", f, err, rs)
		}
		a, b := map[string]pair{}, map[string]pair{}
		for _, sg := range ins[0].Result.Subgraphs {
			var p pair
			for _, e := range sg.Engines {
				p.Descs += e.Descriptors
				p.Bytes += e.DMABytes
			}
			a[sg.Name] = p
		}
		for _, sg := range sim.Subgraphs {
			b[sg.Subgraph] = pair{sg.Result.Descriptors, sg.Result.Bytes}
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s %s: inspect %+v, sim %+v", filepath.Base(f), k, v, b[k])
			}
		}
		if len(a) != len(b) {
			t.Errorf("%s: inspect has %d subgraphs, sim %d", filepath.Base(f), len(a), len(b))
		}
	}
}

// TestGeminiInspectSimAgree: a core's compute is one number: inspect's
// sum of the workloads' time equals sim's busy cycles (sim counted each
// tile's fixed cost as compute, 2,800 cycles more on resnet34).
func TestGeminiInspectSimAgree(t *testing.T) {
	for _, f := range corpusGlob(t, "gemini/*.json") {
		var ins []struct {
			Result struct {
				Cores []struct {
					ID      int   `json:"id"`
					TimeSum int64 `json:"time_sum_cycles"`
				}
			}
		}
		var sim struct {
			Cores []struct {
				Core int
				Busy int64 `json:"busy_cycles"`
			}
		}
		ri, rs := run(t, ".", "inspect", "--json", f), run(t, ".", "sim", "--json", f)
		if err := json.Unmarshal([]byte(ri.stdout), &ins); err != nil || len(ins) != 1 {
			t.Fatalf("%s inspect: %v %s", f, err, ri)
		}
		if err := json.Unmarshal([]byte(rs.stdout), &sim); err != nil {
			t.Fatalf("%s sim: %v %s", f, err, rs)
		}
		a, b := map[int]int64{}, map[int]int64{}
		for _, c := range ins[0].Result.Cores {
			a[c.ID] = c.TimeSum
		}
		for _, c := range sim.Cores {
			b[c.Core] = c.Busy
		}
		if len(a) == 0 || len(a) != len(b) {
			t.Errorf("%s: inspect %d cores, sim %d", filepath.Base(f), len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s core %d: inspect %d cycles of compute, sim busy %d", filepath.Base(f), k, v, b[k])
			}
		}
	}
}
