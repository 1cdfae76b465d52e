package edgetpu

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/bitfield"
	"github.com/npukit/npukit/internal/conformance"
)

// TestGolden compares every value of every golden/*.json (written by an
// independent reader) with what Read returns, for every corpus model. The
// comparison walks the golden JSON generically: each key it holds must be
// produced by goldenView with an equal value, so no field is skipped.
func TestGolden(t *testing.T) {
	dir := conformance.Corpus(t, "edgetpu")
	files := conformance.Files(t, dir, "*.tflite")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			gpath := filepath.Join(dir, "golden", strings.TrimSuffix(filepath.Base(path), ".tflite")+".json")
			gb, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatalf("golden: %v", err)
			}
			var golden any
			if err := json.Unmarshal(gb, &golden); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Read(data)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			view, err := goldenView(m, filepath.Base(path))
			if err != nil {
				t.Fatal(err)
			}
			// Round-trip the view through JSON so both sides have JSON types.
			vb, err := json.Marshal(view)
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal(vb, &got); err != nil {
				t.Fatal(err)
			}
			n := 0
			compare(t, "", golden, got, &n)
			if n < 50 {
				t.Fatalf("only %d values compared", n)
			}
			t.Logf("%d values compared", n)
		})
	}
}

func compare(t *testing.T, path string, want, got any, n *int) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: want an object, got %T", path, got)
			return
		}
		for k, wv := range w {
			if k == "generated_by" {
				continue
			}
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s: missing (golden %v)", path, k, short(wv))
				continue
			}
			compare(t, path+"."+k, wv, gv, n)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			t.Errorf("%s: want an array, got %v", path, short(got))
			return
		}
		if len(g) != len(w) {
			t.Errorf("%s: %d elements, golden %d", path, len(g), len(w))
			return
		}
		for i := range w {
			compare(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i], n)
		}
	case float64:
		*n++
		g, ok := got.(float64)
		if !ok || (g != w && float32(g) != float32(w)) {
			t.Errorf("%s: got %v, golden %v", path, short(got), w)
		}
	default:
		*n++
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: got %v, golden %v", path, short(got), short(want))
		}
	}
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// bytesRepr renders bytes as the golden does: quoted, \xNN for non-printable.
func bytesRepr(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			s.WriteByte(c)
		} else {
			fmt.Fprintf(&s, `\x%02x`, c)
		}
	}
	s.WriteByte('"')
	return s.String()
}

type obj = map[string]any

// goldenView renders a model in the golden files' vocabulary.
// goldenLabel is an operator code in the golden dumps' vocabulary:
// "custom:<code>" or "builtin:<number>" (the independent reader names
// builtins by number; npukit's Label names them).
func goldenLabel(c OperatorCode) string {
	if c.Custom() {
		return "custom:" + c.CustomCode
	}
	return fmt.Sprintf("builtin:%d", c.Code())
}

func goldenView(m *Model, file string) (obj, error) {
	t := m.TFLite
	v := obj{"file": file, "size": len(m.Data), "sha256": sha(m.Data),
		"tflite_file_identifier": t.Identifier, "tflite_schema_version": t.Version,
		"tflite_description": t.Description, "num_subgraphs": len(t.Subgraphs)}
	var codes, others []string
	for _, c := range t.OperatorCodes {
		codes = append(codes, goldenLabel(c))
		if c.CustomCode != "" && c.CustomCode != CustomCode {
			others = append(others, c.CustomCode)
		}
	}
	v["operator_codes"] = codes
	if others != nil {
		v["other_custom_op_codes"] = others
	}
	var perSG []int
	for i, sg := range t.Subgraphs {
		perSG = append(perSG, len(sg.Operators))
		var seq []string
		for _, op := range sg.Operators {
			seq = append(seq, goldenLabel(t.OperatorCodes[op.OpcodeIndex]))
		}
		v[fmt.Sprintf("operator_sequence_subgraph%d", i)] = seq
	}
	v["operators_per_subgraph"] = perSG
	var md []string
	for _, e := range t.Metadata {
		md = append(md, fmt.Sprintf("%s (buffer %d, %d bytes)", e.Name, e.Buffer, e.BufferSize))
	}
	v["tflite_metadata"] = md
	var ops []obj
	for _, op := range m.Ops {
		o, err := opView(m, op)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	v["edgetpu_custom_ops"] = ops
	return v, nil
}

func tensorView(sg *Subgraph, idx int32) obj {
	ten := sg.Tensors[idx]
	return obj{"index": idx, "name": ten.Name, "type": ten.Type.String(), "shape": ten.Shape,
		"scale": ten.Scale, "zero_point": ten.ZeroPoint}
}

func opView(m *Model, op *CustomOp) (obj, error) {
	sg := &m.TFLite.Subgraphs[op.Subgraph]
	top := sg.Operators[op.Operator]
	code := m.TFLite.OperatorCodes[top.OpcodeIndex]
	o := obj{"subgraph": op.Subgraph, "operator_index": op.Operator, "custom_code": code.CustomCode,
		"opcode_version": code.Version, "custom_options_size": op.Options.Size,
		"custom_options_file_offset": op.Options.Offset, "custom_options_format": top.CustomOptionsFormat,
		"flex_root_type": "MAP", "flex_keys": op.Options.Keys, "flex_key_types": op.Options.KeyTypes,
		"flex_1_version": op.Options.Version, "flex_5_execution_preference": op.Options.ExecutionPreference,
		"flex_3_deprecated_pc_executable_present": op.Options.HasCachingExecutable}
	if op.Options.HasChips {
		o["flex_6_chip_versions"] = op.Options.Chips
	}
	if op.Options.HasExtra {
		o["flex_7_remaining_executables"] = op.Options.Extra
	}
	var ins, outs []obj
	for _, i := range top.Inputs {
		ins = append(ins, tensorView(sg, i))
	}
	for _, i := range top.Outputs {
		outs = append(outs, tensorView(sg, i))
	}
	o["inputs"], o["outputs"] = ins, outs
	var pkgs []obj
	for _, p := range op.Packages {
		pv, err := pkgView(p)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, pv)
	}
	o["packages"] = pkgs
	return o, nil
}

func pkgView(p *Package) (obj, error) {
	v := obj{"source": p.Source, "file_offset": p.FileOffset, "size": len(p.Data), "sha256": sha(p.Data),
		"file_identifier": p.Identifier, "present_field_slots": p.Slots,
		"min_runtime_version": p.MinRuntimeVersion, "serialized_multi_executable_size": len(p.MultiExecutable),
		"serialized_multi_executable_offset_in_package": p.MultiExecutableOffset,
		"signature_len": len(p.Signature), "keypair_version": p.KeypairVersion,
		"compiler_version": p.CompilerVersion, "virtual_chip_id": p.VirtualChipID,
		"multi_chip_package_count": len(p.MultiChip), "model_identifier": p.ModelIdentifier,
		"num_executables": len(p.Executables)}
	if len(p.MultiExecutable) >= 8 {
		v["multi_executable_bytes_4_8"] = bytesRepr(p.MultiExecutable[4:8])
	}
	var exes []obj
	for i, e := range p.Executables {
		ev, err := exeView(p, i, e)
		if err != nil {
			return nil, err
		}
		exes = append(exes, ev)
	}
	v["executables"] = exes
	return v, nil
}

func metaView(o obj, m Meta) {
	o["desc"], o["position"], o["batch"] = m.Desc.String(), m.Position.String(), m.Batch
	if m.Name != "" {
		o["name"] = m.Name
	}
}

func exeView(p *Package, i int, e *Executable) (obj, error) {
	v := obj{"index": i, "serialized_size": len(e.Data), "offset_in_package": e.Offset,
		"file_offset": p.FileOffset + e.Offset, "file_identifier": e.Identifier,
		"present_field_slots": e.Slots, "version": e.Version, "name": e.Name,
		"serialized_model_len": len(e.SerializedModel), "batch_size": e.BatchSize,
		"scratch_size_bytes": e.ScratchSizeBytes, "instruction_bitstreams_count": len(e.Bitstreams),
		"chip": e.Chip, "estimated_cycles": e.EstimatedCycles,
		"used_narrow_memory_bytes_per_tile": e.NarrowMemPerTile, "type": e.Type.String(),
		"type_field_present": e.HasType, "parameter_caching_token": strconv.FormatUint(e.Token, 10),
		"parameter_caching_token_hex": fmt.Sprintf("0x%016x", e.Token),
		"use_tpu_dram_for_parameters": e.UseTPUDRAM, "estimated_cycles_64bit": e.EstimatedCycles64,
		"parameters_len": len(e.Parameters), "parameters_sha256": sha(e.Parameters),
		"parameters_offset_in_executable": e.ParametersOffset,
		"parameters_file_offset":          p.FileOffset + e.Offset + e.ParametersOffset,
	}
	total, fos := 0, 0
	byDP := map[string]int{}
	var bss []obj
	for _, b := range e.Bitstreams {
		total += len(b.Data)
		var fv []obj
		for _, f := range b.FieldOffsets {
			o := obj{"offset_bit": f.OffsetBit}
			metaView(o, f.Meta)
			pre, err := bitfield.Read(b.Data, int64(f.OffsetBit), 32)
			if err != nil {
				return nil, err
			}
			o["prefilled_value"] = pre
			fv = append(fv, o)
			byDP[f.Meta.Desc.String()+"/"+f.Meta.Position.String()]++
		}
		fos += len(b.FieldOffsets)
		bss = append(bss, obj{"size": len(b.Data), "sha256": sha(b.Data), "field_offsets_count": len(b.FieldOffsets), "field_offsets": fv})
	}
	v["instruction_bitstreams"], v["instruction_bitstreams_total_bytes"] = bss, total
	v["field_offsets_total"], v["field_offsets_by_desc_position"] = fos, byDP
	v["dma_hints_present"] = e.HasDMAHints
	if h := e.DMAHints; h != nil {
		byType, bytes := map[string]int{}, map[string]int64{}
		var hv []obj
		for _, x := range h.Hints {
			byType[x.Kind.String()]++
			o := obj{"kind": x.Kind.String(), "direction": x.Direction.String()}
			switch x.Kind {
			case HintDescriptor:
				metaView(o, x.Meta)
				o["offset_in_bytes"], o["size_in_bytes"] = x.OffsetInBytes, x.SizeInBytes
				bytes[x.Meta.Desc.String()+"/"+x.Direction.String()] += int64(x.SizeInBytes)
			case HintInstruction:
				o["instruction_chunk_index"] = x.Chunk
			case HintInterrupt:
				o["interrupt_type"] = x.Interrupt
			}
			hv = append(hv, o)
		}
		v["dma_hints_count"], v["dma_hints_by_type"] = len(h.Hints), byType
		v["dma_descriptor_bytes_by_desc_direction"], v["fully_deterministic"] = bytes, h.FullyDeterministic
		v["dma_hints"] = hv
	}
	var err error
	if v["input_layers"], err = layersView(e.InputLayers, e.HasInputLayersVec); err != nil {
		return nil, err
	}
	if v["output_layers"], err = layersView(e.OutputLayers, e.HasOutputLayersVec); err != nil {
		return nil, err
	}
	return v, nil
}

func layersView(ls []*Layer, present bool) ([]obj, error) {
	if !present {
		return nil, nil
	}
	out := []obj{}
	for _, l := range ls {
		o := obj{"name": l.Name, "size_bytes": l.SizeBytes, "y_dim": l.Y, "x_dim": l.X, "z_dim": l.Z,
			"data_type": l.DataType.String(), "any_layer_type": l.Kind.String(),
			"execution_count_per_inference": l.ExecutionCount, "cache_on_dram": l.CacheOnDRAM,
			"output_layout_present": l.Output != nil && l.Output.Layout != nil,
			"shape_info_present":    l.Output != nil && l.Output.ShapeInfo != nil}
		if l.Numerics != nil {
			o["zero_point"], o["dequantization_factor"] = l.Numerics.ZeroPoint, l.Numerics.DequantizationFactor
		}
		if l.HasShape {
			var sh [][2]int32
			for _, r := range l.Shape {
				sh = append(sh, [2]int32{r.Start, r.End})
			}
			o["shape"] = sh
		}
		if l.Output != nil && l.Output.Layout != nil {
			o["output_layout"] = l.Output.Layout
			st, err := l.LayoutStats()
			if err != nil {
				return nil, err
			}
			o["relayout_check"] = st
		}
		out = append(out, o)
	}
	return out, nil
}
