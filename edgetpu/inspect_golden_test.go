package edgetpu

import (
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/tflite"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// TestInspectGolden compares what `npukit inspect --json` shows (Summarize)
// with the golden dumps, field by field, for every corpus model: the
// summary is built from the file's bytes alone, so a value matched here is
// not matched by name or size of the corpus file.
func TestInspectGolden(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	for _, path := range conformance.Files(t, dir, "*.tflite") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var g obj
			gb, err := os.ReadFile(filepath.Join(dir, "golden", strings.TrimSuffix(filepath.Base(path), ".tflite")+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(gb, &g); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Read(data)
			if err != nil {
				t.Fatal(err)
			}
			sb, err := json.Marshal(Summarize(m))
			if err != nil {
				t.Fatal(err)
			}
			var s obj
			if err := json.Unmarshal(sb, &s); err != nil {
				t.Fatal(err)
			}
			n := 0
			eq := func(where string, want, got any) {
				t.Helper()
				n++
				wj, _ := json.Marshal(want)
				gj, _ := json.Marshal(got)
				if string(wj) != string(gj) {
					t.Errorf("%s: inspect %s, golden %s", where, gj, wj)
				}
			}
			// Operators and where they run.
			var codes []any
			for _, o := range s["operators"].([]any) {
				if o.(obj)["subgraph"].(float64) == 0 {
					codes = append(codes, o.(obj)["code"])
				}
			}
			// The golden dumps name builtins by number; inspect by name.
			var want []any
			for _, c := range g["operator_sequence_subgraph0"].([]any) {
				var code int32
				if _, err := fmt.Sscanf(c.(string), "builtin:%d", &code); err == nil {
					c = tflite.BuiltinName(code)
				}
				want = append(want, c)
			}
			eq("operator_sequence_subgraph0", want, codes)
			// Model inputs/outputs the op reads and writes.
			tensors := map[string]obj{}
			for _, k := range []string{"inputs", "outputs"} {
				if v, ok := s[k].([]any); ok {
					for _, x := range v {
						tensors[x.(obj)["name"].(string)] = x.(obj)
					}
				}
			}
			gops := g["edgetpu_custom_ops"].([]any)
			sops := s["edgetpu_ops"].([]any)
			eq("edgetpu op count", len(gops), len(sops))
			for i := range min(len(gops), len(sops)) {
				gop, sop := gops[i].(obj), sops[i].(obj)
				w := fmt.Sprintf("op %d", i)
				eq(w+".subgraph", gop["subgraph"], sop["subgraph"])
				eq(w+".operator", gop["operator_index"], sop["operator"])
				eq(w+".execution_preference", gop["flex_5_execution_preference"], sop["execution_preference"])
				if c, ok := gop["flex_6_chip_versions"]; ok {
					eq(w+".chips", c, sop["chips"])
				}
				for _, k := range []string{"inputs", "outputs"} {
					for _, x := range gop[k].([]any) {
						gt := x.(obj)
						st, ok := tensors[gt["name"].(string)]
						if !ok {
							continue // an op tensor that is not a model input/output
						}
						for _, f := range []string{"type", "shape", "scale", "zero_point"} {
							eq(w+"."+k+"."+gt["name"].(string)+"."+f, gt[f], st[f])
						}
					}
				}
				gps, sps := gop["packages"].([]any), sop["packages"].([]any)
				eq(w+" package count", len(gps), len(sps))
				for j := range min(len(gps), len(sps)) {
					comparePackage(eq, fmt.Sprintf("%s package %d", w, j), gps[j].(obj), sps[j].(obj))
				}
			}
			if n < 40 {
				t.Fatalf("only %d values compared", n)
			}
		})
	}
}

func comparePackage(eq func(string, any, any), w string, gp, sp obj) {
	for gk, sk := range map[string]string{"source": "source", "file_offset": "file_offset", "size": "bytes",
		"file_identifier": "file_identifier", "min_runtime_version": "min_runtime_version",
		"compiler_version": "compiler_version", "keypair_version": "keypair_version",
		"signature_len": "signature_bytes", "virtual_chip_id": "virtual_chip_id"} {
		eq(w+"."+gk, gp[gk], sp[sk])
	}
	if id := gp["model_identifier"]; id != "" {
		eq(w+".model_identifier", id, sp["model_identifier"])
	}
	ges, ses := gp["executables"].([]any), sp["executables"].([]any)
	eq(w+" executable count", gp["num_executables"], float64(len(ses)))
	var cached, streamed float64
	for k := range min(len(ges), len(ses)) {
		ge, se := ges[k].(obj), ses[k].(obj)
		x := fmt.Sprintf("%s executable %d", w, k)
		switch ge["type"] {
		case "PARAMETER_CACHING":
			cached = ge["parameters_len"].(float64)
		default:
			streamed = ge["parameters_len"].(float64)
		}
		for gk, sk := range map[string]string{"type": "type", "name": "name", "batch_size": "batch_size", "chip": "chip",
			"instruction_bitstreams_count": "instruction_chunks", "instruction_bitstreams_total_bytes": "instruction_bytes",
			"parameters_len": "parameter_bytes", "scratch_size_bytes": "scratch_bytes",
			"used_narrow_memory_bytes_per_tile": "narrow_memory_bytes_per_tile",
			"parameter_caching_token_hex":       "parameter_caching_token"} {
			eq(x+"."+gk, ge[gk], se[sk])
		}
		cycles := ge["estimated_cycles_64bit"].(float64)
		if cycles == 0 {
			cycles = ge["estimated_cycles"].(float64)
		}
		got := se["estimated_cycles"]
		if got == nil {
			got = 0.0
		}
		eq(x+".estimated_cycles", cycles, got)
		var chunks []any
		for _, b := range ge["instruction_bitstreams"].([]any) {
			chunks = append(chunks, b.(obj)["size"])
		}
		eq(x+".chunk sizes", chunks, se["instruction_chunk_bytes"])
		byKind := obj{}
		for k, v := range ge["field_offsets_by_desc_position"].(obj) {
			kind := strings.Split(k, "/")[0]
			f, _ := byKind[kind].(float64)
			byKind[kind] = f + v.(float64)
		}
		eq(x+".relocations by kind", byKind, se["relocations_by_kind"])
		if ge["dma_hints_present"] == true {
			eq(x+".dma hints", ge["dma_hints_count"], se["dma_hints"])
			eq(x+".dma hints by kind", ge["dma_hints_by_type"], se["dma_hints_by_kind"])
			want := ge["dma_descriptor_bytes_by_desc_direction"]
			if len(want.(obj)) == 0 {
				want = nil
			}
			eq(x+".dma bytes", want, se["dma_bytes_by_kind_direction"])
			eq(x+".fully_deterministic", ge["fully_deterministic"], se["fully_deterministic"])
		}
		for _, k := range []string{"input_layers", "output_layers"} {
			gl, _ := ge[k].([]any)
			sl, _ := se[k].([]any)
			eq(x+"."+k+" count", len(gl), len(sl))
			for li := range min(len(gl), len(sl)) {
				a, b := gl[li].(obj), sl[li].(obj)
				y := fmt.Sprintf("%s.%s[%d]", x, k, li)
				for gk, sk := range map[string]string{"name": "name", "y_dim": "y", "x_dim": "x", "z_dim": "z",
					"data_type": "data_type", "zero_point": "zero_point", "dequantization_factor": "scale",
					"size_bytes": "padded_size_bytes", "execution_count_per_inference": "execution_count"} {
					if gk == "dequantization_factor" {
						eq(y+"."+gk, float32(a[gk].(float64)), float32(b[sk].(float64)))
						continue
					}
					eq(y+"."+gk, a[gk], b[sk])
				}
			}
		}
	}
	eq(w+".on-chip cached", cached, sp["on_chip_cached_parameter_bytes"])
	eq(w+".off-chip streamed", streamed, sp["off_chip_streamed_parameter_bytes"])
}
