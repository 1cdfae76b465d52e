package neff

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

// Variants of real NEFFs (notes/neff.md, the spec): each must be read, must
// check with no error, and must summarise. warn lists rules allowed as
// warnings or infos.
type variant struct {
	name string
	mod  func(b *Builder)
	opt  PackOptions
	// want inspects the summary (nil: nothing beyond "no error").
	want func(t *testing.T, s *Summary, rep diag.Report)
}

// setJSON overrides a member with literal JSON.
func setJSON(b *Builder, name, js string) { b.Files[name] = []byte(js) }

func npyOf(descr string, shape string, data int) []byte {
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := []byte(npyMagic)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	return append(b, make([]byte, data)...)
}

func variants() []variant {
	return []variant{
		{name: "base"},
		{name: "pkg1-sha256", mod: func(b *Builder) { b.Header.PkgVersion = 1 }},
		{name: "md5-natural", opt: PackOptions{HashForm: HashNatural}},
		{name: "no-padding", opt: PackOptions{NoPadding: true}},
		{name: "neff-major-2", mod: func(b *Builder) { b.Header.NeffVersionMajor = 2; b.Header.FeatureBits = 0x3 }},
		{name: "target-cayman-lnc2", mod: func(b *Builder) {
			b.Target = "cayman"
			b.Header.LNCSize = 2
			sg0(b).Engines[0].JSON.DMA[0].RemoteSemaphores = []int64{3}
		}},
		{name: "target-v3", mod: func(b *Builder) { b.Target = "v3" }},
		{name: "target-mariana", mod: func(b *Builder) { b.Target = "mariana" }},
		{name: "target-v4", mod: func(b *Builder) { b.Target = "v4" }},
		{name: "target-any", mod: func(b *Builder) { b.Target = "*" }},
		{name: "target-empty", mod: func(b *Builder) { b.Target = "" }},
		{name: "target-inf1", mod: func(b *Builder) {
			b.Target = "inf1"
			for _, q := range sg0(b).Def.DMAQueue {
				q.NumQueues = ptr(int64(1))
				q.Pinned = ptr(true)
			}
			for _, e := range sg0(b).Engines {
				for _, ent := range e.JSON.DMA {
					for _, d := range ent.Desc {
						d.Op = nil
					}
				}
			}
		}},
		{name: "two-subgraphs", mod: func(b *Builder) {
			sg := b.Subgraph("sg01")
			sg.AddVar("in1", "input", 256)
			sg.AddVar("out1", "output", 256)
			sg.AddQueue("q", "in", 16, "sp")
			sg.Engine("sp", "SP").AddDMA("q", "c", Copy("in1", 0, []int64{256}, []int64{1}, "out1", 0, []int64{256}, []int64{1}))
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if len(s.Subgraphs) != 2 || len(s.Outputs) != 2 {
				t.Errorf("subgraphs %d outputs %d", len(s.Subgraphs), len(s.Outputs))
			}
			// Every subgraph counts: IO 4096+4096+256+256; rings 16 B per
			// descriptor: sg00 2 x (128+128) + 2 queue sets x 2 x 16,
			// sg01 (1+1) + 1 x 2 x 16.
			if s.Memory.IO != 8704 || s.Memory.DMARings != (2*256+64+2+32)*16 {
				t.Errorf("memory %+v", s.Memory)
			}
		}},
		{name: "second-kelf", mod: func(b *Builder) {
			sg := b.Subgraph("sg01")
			sg.AddVar("x1", "input", 64)
			sg.AddVar("y1", "output", 64)
			b.Files["kelf-b.json"] = []byte(`{"graphs":[{"definition":"sg01/def.json","name":"sg01"}],"version":"0.5","target":"sunda"}`)
			b.Files["kelf-a.json"] = []byte(`{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"version":"0.5","target":"sunda"}`)
			b.Files["kelf-0.json"] = nil
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if len(s.Targets) != 2 || len(s.Subgraphs) != 2 {
				t.Errorf("targets %v", s.Targets)
			}
		}},
		{name: "multi-signature", mod: func(b *Builder) {
			setJSON(b, "neff.json", `{"metadata":{"signatures":{
				"default":{"inputs":{"in":{"id":0,"dtype":"float32","shape":[1024]}},"outputs":{"out":{"id":0,"dtype":"float32","shape":[1024]}}},
				"serving":{"inputs":{"in":{"id":0,"dtype":"float32","shape":[1024]}},"outputs":{}}}}}`)
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if len(s.Inputs) != 2 || len(s.Outputs) != 1 {
				t.Errorf("inputs %v outputs %v", s.Inputs, s.Outputs)
			}
		}},
		{name: "signature-outputs-empty", mod: func(b *Builder) { b.Signature.Outputs = map[string]SigTensor{} },
			want: func(t *testing.T, s *Summary, _ diag.Report) {
				if len(s.Outputs) != 1 || s.Outputs[0].Name != "out" || s.Outputs[0].Bytes != 4096 {
					t.Errorf("outputs %v", s.Outputs)
				}
			}},
		{name: "signature-dynamic-dims", mod: func(b *Builder) {
			setJSON(b, "neff.json", `{"metadata":{"signatures":{"default":{
				"inputs":{"in":{"id":0,"dtype":"float32","shape":[-1,1024]},"z":{"id":1,"dtype":"float16","shape":[0,8]},"s":{"id":2,"dtype":"int64","shape":[]},"mask":{"id":3,"dtype":"bool","shape":[4]},"d":{"id":4,"dtype":"float64","shape":[2]},"q":{"id":5,"dtype":"float8_e4m3fn","shape":[3]},"u":{"id":6,"dtype":"string","shape":[3]},"noshape":{"id":7,"dtype":"float32"},"strshape":{"id":8,"dtype":"float32","shape":"(2, 3)"}},
				"outputs":{"out":{"id":0,"dtype":"float32","shape":[null,"?",1024]}}}}}}`)
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			got := map[string]int64{}
			for _, x := range append(append([]TensorSummary{}, s.Inputs...), s.Outputs...) {
				got[x.Name] = x.Bytes
			}
			if got["in"] != -1 || got["z"] != 0 || got["s"] != 8 || got["out"] != -1 || got["mask"] != 4 || got["d"] != 16 || got["q"] != 3 || got["u"] != -1 || got["noshape"] != -1 || got["strshape"] != -1 {
				t.Errorf("bytes %v (inputs %v outputs %v)", got, s.Inputs, s.Outputs)
			}
		}},
		{name: "signature-no-id", mod: func(b *Builder) {
			setJSON(b, "neff.json", `{"metadata":{"signatures":{"default":{"inputs":{"in":{"dtype":"float32","shape":[1024]}},"outputs":{"out":{"dtype":"float32","shape":[1024]}}}}}}`)
		}},
		{name: "neff-json-absent", mod: func(b *Builder) { b.Files["neff.json"] = nil },
			want: func(t *testing.T, s *Summary, _ diag.Report) {
				if len(s.Inputs) != 1 || len(s.Outputs) != 1 {
					t.Errorf("io from def.json: %v %v", s.Inputs, s.Outputs)
				}
			}},
		{name: "neff-json-no-metadata", mod: func(b *Builder) { setJSON(b, "neff.json", `{"nodes":[],"heads":[]}`) }},
		{name: "info-metrics-absent", mod: func(b *Builder) { b.Files["info.json"] = nil; b.Files["metrics.json"] = nil }},
		{name: "metrics-odd-values", mod: func(b *Builder) {
			setJSON(b, "metrics.json", `[{"MetricName":"TPBCount","Value":1,"Unit":"Count"},{"MetricName":"X","Value":"N/A","Unit":null},{"MetricName":"Y","Value":1.5e3,"Unit":"Bytes"}]`)
		}},
		{name: "info-odd", mod: func(b *Builder) {
			setJSON(b, "info.json", `{"tool_version":"2.21.0","num_tpb":"1","name":null,"kelp_version":"Dynamic"}`)
		}, want: func(t *testing.T, s *Summary, rep diag.Report) {
			if s.Compiler != "2.21.0" || len(rep) != 0 {
				t.Errorf("compiler %q, %v", s.Compiler, rep)
			}
		}},
		{name: "tensor-map", mod: func(b *Builder) {
			setJSON(b, "sg00/tensor_map.json", `{"in":{"dtype":"float32","kind":"input","is_const":false,"sim_shape":[1024],"tf_shape":[1024]},
				"out":{"dtype":"float32","kind":"output","is_const":"0","sim_shape":[1024],"tf_shape":[1024]}}`)
			b.Signature.Outputs = map[string]SigTensor{}
		}, want: func(t *testing.T, s *Summary, rep diag.Report) {
			if len(rep) != 0 || len(s.Outputs) != 1 || s.Outputs[0].DType != "float32" {
				t.Errorf("outputs %v, %v", s.Outputs, rep)
			}
		}},
		{name: "tensor-map-absent-engines-absent", mod: func(b *Builder) {
			sg0(b).Engines = nil
			sg0(b).Def.DMAQueue = nil
		}},
		{name: "activation-dve", mod: func(b *Builder) {
			sg := sg0(b)
			act := sg.Engine("act", "Activation")
			act.JSON.ActivationFunctionSets = []string{"exp_and_others"}
			act.JSON.Extra = Extra{"act_info": jsonString("act_info.json")}
			sg.Files["exp_and_others.json"] = []byte(`{}`)
			sg.Files["exp_and_others_bkt.bin"] = make([]byte, 100)
			sg.Files["exp_and_others_ctrl.bin"] = make([]byte, 10)
			sg.Files["act_info.json"] = []byte(`{}`)
			dve := sg.Engine("dve", "DVE")
			dve.JSON.DVETables = []DVETable{{ControlTable: "default_control_table.bin", DatapathTable: "default_datapath_table.bin", OpcodeTable: "default_opcode_table.bin"}}
			for _, n := range []string{"default_control_table.bin", "default_datapath_table.bin", "default_opcode_table.bin"} {
				sg.Files[n] = make([]byte, 2048)
			}
		}},
		{name: "every-var-type", mod: func(b *Builder) {
			sg := sg0(b)
			sg.AddVar("tmp", "tmp-buf", 1<<20)
			v := sg.AddVar("shared", "virtual", 1<<20)
			v.BackingVariableOff = ptr(int64(3 << 20))
			p := sg.AddVar("ptr", "pointer", 8)
			p.ReferencedVarID = sg.Def.Var["tmp"].VarID
			d := sg.AddVar("table", "dge-table", 64)
			d.List = []int64{*sg.Def.Var["in"].VarID, *sg.Def.Var["out"].VarID}
			sg.AddVar("empty", "tmp-buf", 0)
			sg.Engine("sp", "SP").AddDMA("qIn", "spill", Copy("SB", 0, []int64{512, 128}, []int64{1, SBPartitionStride}, "shared", 0, []int64{512, 128}, []int64{1, 512}),
				Copy("empty", 0, []int64{0}, []int64{1}, "tmp", 0, []int64{0}, []int64{1}))
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if s.Memory.SharedScratchpad != 64<<20 || s.Memory.PrivateScratchpad != 1<<20 {
				t.Errorf("memory %+v", s.Memory)
			}
		}},
		{name: "desc-object", mod: func(b *Builder) {
			for _, e := range sg0(b).Engines {
				for _, ent := range e.JSON.DMA {
					ent.DescObject = true
				}
			}
		}},
		{name: "many-queue-sets", mod: func(b *Builder) {
			sg := sg0(b)
			for i := range 40 {
				q := sg.AddQueue(fmt.Sprintf("qData%d", i), []string{"in", "out", "data", "embedding_update", "dynamic"}[i%5], int64(1+i%16), "sp")
				q.SemaphoreSet = make([]int64, q.Queues())
				q.FabricPath = ptr([]string{"main", "alt"}[i%2])
			}
		}},
		{name: "queue-instances-trn2", mod: func(b *Builder) {
			b.Target = "cayman"
			sg := sg0(b)
			sg.Def.DMAQueue["qIn"].QueueInstances = []string{"qIn_a", "qIn_b"}
			ent := sg.Engine("sp", "SP").JSON.DMA[0]
			ent.InstanceName = ptr("qIn_b")
			ent.Queue = nil
			ent.FunctionStart = ptr("main")
			ent.SectionStartDesc = ptr(true)
		}},
		{name: "default-valued-fields", mod: func(b *Builder) {
			sg := sg0(b)
			sg.Def.DMAQueue["qIn"].Pinned = ptr(false)
			ent := sg.Engine("sp", "SP").JSON.DMA[0]
			ent.FunctionStart = ptr("")
			ent.SectionStartDesc = ptr(false)
			ent.RemoteSemaphores = []int64{}
			d := ent.Desc[0]
			d.ScaleDType = ptr("float32")
			d.Scale = ptr(1.0)
		}},
		{name: "dma-ops", mod: func(b *Builder) {
			sg := sg0(b)
			sg.AddVar("h", "tmp-buf", 4096)
			sp := sg.Engine("sp", "SP")
			cast := Copy("in", 0, []int64{4096}, []int64{1}, "h", 0, []int64{2048}, []int64{1})
			cast.Op, cast.FromDType, cast.ToDType = ptr("cast"), ptr("float32"), ptr("float16")
			fma := Copy("in", 0, []int64{4096}, []int64{1}, "h", 0, []int64{4096}, []int64{1})
			fma.Op, fma.ScaleDType, fma.Scale, fma.FromDType, fma.ToDType = ptr("fma"), ptr("float32"), ptr(0.5), ptr("float32"), ptr("float32")
			mn := Copy("in", 0, []int64{4096}, []int64{1}, "h", 0, []int64{4096}, []int64{1})
			mn.Op, mn.ConstantDType = ptr("max"), ptr("float32")
			c := jsonNumber("-3.4e38")
			mn.Constant = &c
			tr := Copy("in", 0, []int64{4096}, []int64{1}, "h", 0, []int64{4096}, []int64{1})
			tr.Op, tr.TransposeShape, tr.TransposeElementSize = ptr("transpose"), []int64{1, 1, 32, 32}, ptr(int64(4))
			add := &Desc{Op: ptr("add"), To: ptr("h"), ToOff: ptr(int64(0)), ToSizes: []int64{1024}, ToSteps: []int64{1}}
			for i := range 16 {
				add.FromArr = append(add.FromArr, &Source{From: ptr("in"), FromOff: ptr(int64(i * 64)), FromSizes: []int64{1024}, FromSteps: []int64{1}, FromDType: ptr("bfloat16")})
			}
			sp.AddDMA("qIn", "ops", cast, fma, mn, tr, add)
		}},
		{name: "dtypes", mod: func(b *Builder) {
			sg := sg0(b)
			sp := sg.Engine("sp", "SP")
			for _, dt := range []string{"float8e3", "float8e4", "float8e5", "float16", "float32", "float32r", "bfloat16", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"} {
				d := Copy("in", 0, []int64{64}, []int64{1}, "out", 0, []int64{64}, []int64{1})
				d.FromDType, d.ToDType = ptr(dt), ptr(dt)
				sp.AddDMA("qIn", dt, d)
			}
		}},
		{name: "npy-constants-every-dtype", mod: func(b *Builder) {
			sg := sg0(b)
			for i, c := range []struct {
				descr string
				n     int
			}{{"<f2", 2}, {"<f4", 4}, {"<f8", 8}, {"|i1", 1}, {"<i2", 2}, {"<i4", 4}, {"<i8", 8}, {"|u1", 1}, {"<u2", 2}, {"<u4", 4}, {"<u8", 8}, {"|b1", 1}, {"<V2", 2}, {"|V1", 1}, {">f4", 4}} {
				data := npyOf(c.descr, "(128, 1, 1, 1)", 128*c.n)
				sg.AddConstant(fmt.Sprintf("c%d", i), fmt.Sprintf("value_c%d.npy", i), int64(128*c.n), data)
			}
			sg.AddConstant("scalar", "scalar.npy", 4, npyOf("<f4", "()", 4))
			// A writer padding the data to 64 bytes: the array is 8 bytes.
			sg.AddConstant("padded", "padded.npy", 8, npyOf("<f4", "(2,)", 64))
			sg.AddConstant("raw", "weights.bin", 100, make([]byte, 100))
			sg.AddConstant("noext", "weights", 64, make([]byte, 64))
			fv := sg.AddVar("filekey", "file", 64)
			fv.Extra = Extra{"file": jsonString("filekey.bin")}
			sg.Files["filekey.bin"] = make([]byte, 64)
			sg.AddConstant("dotslash", "dot.bin", 64, make([]byte, 64)).FileName = ptr("./dot.bin")
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			for _, c := range s.Constants {
				if strings.Contains(c.Format, "unreadable") || c.Format == "missing" {
					t.Errorf("constant %v", c)
				}
			}
		}},
		{name: "big-weights", mod: func(b *Builder) {
			w := make([]byte, 24<<20)
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < len(w); i += 8 {
				binary.LittleEndian.PutUint64(w[i:], r.Uint64())
			}
			sg0(b).AddConstant("big", "big.bin", int64(len(w)), w)
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if s.Memory.Constants < 24<<20 {
				t.Errorf("constants %d", s.Memory.Constants)
			}
		}},
		{name: "sb-full-partitions", mod: func(b *Builder) {
			sg := sg0(b)
			sg.Def.Var["in"].Size = ptr(int64(196608 * 128))
			sg.Engine("sp", "SP").AddDMA("qIn", "full", Copy("in", 0, []int64{196608, 128}, []int64{1, 196608}, "SB", 0, []int64{196608, 128}, []int64{1, SBPartitionStride}))
		}},
		{name: "unknown-fields", mod: func(b *Builder) {
			sg := sg0(b)
			sg.Def.Extra["neff_features"] = []byte(`["dge"]`)
			sg.Def.Extra["cc_streams"] = []byte(`{"num_streams":2}`)
			sg.Def.Var["in"].Extra = Extra{"ops": []byte(`[]`), "future": []byte(`{"a":1}`)}
			sg.Engine("sp", "SP").JSON.DMA[0].Extra = Extra{"x_new": []byte(`"y"`)}
		}},
		{name: "version-numbers", mod: func(b *Builder) {
			def := string(must(b.Members())["sg00/def.json"])
			def = strings.Replace(def, `"version": "0.6"`, `"version": 0.6`, 1)
			setJSON(b, "sg00/def.json", def)
			setJSON(b, "kelf-0.json", `{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"version":0.5,"target":"sunda"}`)
		}},
		{name: "no-target-field-pinned", mod: func(b *Builder) {
			// An INF1-era kelf without a target field: pinned is not an error.
			setJSON(b, "kelf-0.json", `{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"version":"0.5"}`)
			for _, q := range sg0(b).Def.DMAQueue {
				q.Pinned = ptr(true)
			}
		}},
		{name: "unknown-target-pinned", mod: func(b *Builder) {
			b.Target = "pluto"
			for _, q := range sg0(b).Def.DMAQueue {
				q.Pinned = ptr(true)
			}
		}},
		{name: "empty-var-fields", mod: func(b *Builder) {
			sg0(b).Def.Var["in"].FileName = ptr("")
			sg0(b).Def.Var["out"].List = []int64{}
		}},
		{name: "neuronx-cc-2.24-types", mod: func(b *Builder) {
			sg := sg0(b)
			sg.AddVar("l", "local", 64)
			sg.AddVar("s", "shared", 64)
			sg.AddVar("r", "remote", -1)
			sg.Def.Var["s"].BackingVariableOff = ptr(int64(4096))
			sg.Def.Var["tmpx"] = &Var{Type: ptr("virtual"), VarID: ptr(int64(len(sg.Def.Var))), Size: ptr(int64(64)), FabricPath: ptr("sharded")}
			sg.AddQueue("qAct", "act_load", 1, "act")
			sg.Def.DMAQueue["qIn"].Pinned = ptr(true)
			sg.Def.Extra["neff_features"] = []byte(`["neff_feature_DMA_desc_higher_dim"]`)
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if f := s.Subgraphs[0].Features; len(f) != 1 || f[0] != "neff_feature_DMA_desc_higher_dim" {
				t.Errorf("features %v", f)
			}
		}},
		{name: "tensor-map-new-schema", mod: func(b *Builder) {
			setJSON(b, "sg00/tensor_map.json", `{"inputs":[{"name":"in"}],"alias_map":[{"input_name":"in","output_name":"out"}],"must_alias":false}`)
		}},
		{name: "neff-json-graphs-manifest", mod: func(b *Builder) {
			setJSON(b, "neff.json", `{"revision":"1","target_arch":"sunda","graphs":{"main":{},"sg_coreV10":{"op":"__kelf","subgraph":"0","size":161}}}`)
		}, want: func(t *testing.T, s *Summary, _ diag.Report) {
			if len(s.Inputs) != 1 || len(s.Outputs) != 1 {
				t.Errorf("io from def.json: %v %v", s.Inputs, s.Outputs)
			}
		}},
		{name: "feature-bit-newer-runtime", mod: func(b *Builder) { b.Header.NeffVersionMajor = 2; b.Header.FeatureBits = 0x100 }},
		{name: "no-sb-size-no-queue-type-default", mod: func(b *Builder) {
			sg0(b).Def.DMAQueue["qIn"].NumQueues = nil
		}},
	}
}

func jsonNumber(s string) json.Number { return json.Number(s) }

func must(ms []Member, err error) map[string][]byte {
	if err != nil {
		panic(err)
	}
	out := map[string][]byte{}
	for _, m := range ms {
		out[m.Name] = m.Data
	}
	return out
}

func TestVariantsCheckClean(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			b := baseBuilder(t)
			if v.mod != nil {
				v.mod(b)
			}
			raw, err := b.Bytes(v.opt)
			if err != nil {
				t.Fatal(err)
			}
			// NEFF_VARIANTS_DIR=dir keeps the files, to run the CLI on them.
			if dir := os.Getenv("NEFF_VARIANTS_DIR"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, v.name+".neff"), raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, m := CheckBytes(raw, DefaultLimits(), DefaultRuntime)
			for _, d := range rep {
				if d.Severity == diag.Error {
					t.Errorf("%v", d)
				}
			}
			if m == nil {
				t.Fatal("not read")
			}
			s := Summarize(m)
			if err := s.WriteText(io.Discard); err != nil {
				t.Fatal(err)
			}
			if s.Problems != 0 {
				t.Errorf("inspect counts %d decode problems: %v", s.Problems, m.Problems)
			}
			if v.want != nil {
				v.want(t, s, rep)
			}
			// Unpack-free round trip: repacking the members keeps them.
			again, err := Pack(m.File.Header, m.File.Members, v.opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep2, _ := CheckBytes(again, DefaultLimits(), DefaultRuntime); rep2.HasErrors() {
				t.Errorf("repacked: %v", rep2)
			}
		})
	}
}

// FuzzSignatures: any neff.json, tensor_map.json or info.json is read
// leniently by inspect and check, never a panic.
func FuzzSignatures(f *testing.F) {
	b := baseBuilder(f)
	ms, _ := b.Members()
	f.Add([]byte(`{"metadata":{"signatures":{"default":{"inputs":{"in":{"id":0,"dtype":"float32","shape":[-1,null,"?",1e3]}},"outputs":[]}}}}`),
		[]byte(`{"inputs":[{"name":"in"}],"alias_map":[]}`))
	f.Add([]byte(`{"metadata":{"signatures":[]}}`), []byte(`{"in":{"dtype":"float32","tf_shape":[1024]}}`))
	f.Fuzz(func(t *testing.T, neffJSON, tensorMap []byte) {
		members := append([]Member(nil), ms...)
		members = append(members, Member{Name: "sg00/tensor_map.json", Data: tensorMap})
		for i := range members {
			if members[i].Name == "neff.json" {
				members[i].Data = neffJSON
			}
		}
		file := &File{Header: b.Header, Members: members}
		file.Hash.OK = true
		m := Decode(file)
		Check(m, DefaultRuntime)
		s := Summarize(m)
		if err := s.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	})
}
