package neuroncore

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/dtype"
)

// Plans that differ from the examples: NKI dtype spellings, every
// partition count class, zero-trip loops, empty plans, v3 geometry.
func TestPlanVariants(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // rules at warning or above
	}{
		{"nki dtypes", `
tensors:
  - {name: a, partitions: 128, free: [64], dtype: nl.bfloat16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: b, partitions: 128, free: [64], dtype: np.float32, alloc: {mod_alloc: {base_addr: 128}}}
  - {name: c, partitions: 128, free: [64], dtype: nl.tfloat32, alloc: {mod_alloc: {base_addr: 384}}}
  - {name: d, partitions: 128, free: [64], dtype: nl.float8_e4m3fn, alloc: {mod_alloc: {base_addr: 640}}}
  - {name: e, partitions: 128, free: [64], dtype: nl.bool_, alloc: {mod_alloc: {base_addr: 704}}}
body: [{op: memset, write: a}, {op: tensor_copy, read: a, write: b}, {op: tensor_copy, read: b, write: c},
       {op: tensor_copy, read: c, write: d}, {op: tensor_copy, read: d, write: e}, {op: store, read: e}]`, nil},
		{"partition counts", `
tensors:
  - {name: p128, partitions: 128, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: p65, partitions: 65, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 256}}}
  - {name: p64, partitions: 64, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 512, base_partition: 64}}}
  - {name: p33, partitions: 33, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 768, base_partition: 64}}}
  - {name: p32, partitions: 32, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 1024, base_partition: 96}}}
  - {name: p1, partitions: 1, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 1280, base_partition: 32}}}
  - {name: q, block: [4], partitions: 32, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 2048, num_par_tiles: [4]}}}
body:
  - {op: memset, write: p128}
  - {op: memset, write: p65}
  - {op: memset, write: p64}
  - {op: memset, write: p33}
  - {op: memset, write: p32}
  - {op: memset, write: p1}
  - {op: store, read: p128}
  - {op: store, read: p65}
  - {op: store, read: p64}
  - {op: store, read: p33}
  - {op: store, read: p32}
  - {op: store, read: p1}
  - loop: i
    range: 4
    body: [{op: memset, write: "q[i]"}, {op: store, read: "q[i]"}]`, nil},
		{"zero trips", `
tensors:
  - {name: x, block: [4], partitions: 128, free: [512], dtype: bf16, alloc: {mod_alloc: {base_addr: 0, num_free_tiles: [2]}}}
body:
  - {loop: i, range: 0, body: [{op: load, write: "x[i]"}]}
  - {loop: j, range: [3, 3], body: [{op: load, write: "x[j]"}]}
  - {loop: k, range: [3, 1], body: [{op: load, write: "x[k]"}]}`, nil},
		{"no tensors", "tensors: []\n", nil},
		{"no body", "tensors:\n  - {name: a, partitions: 128, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}\n", []string{RuleUnusedPhysical}},
		{"sbuf tile too large", `
tensors:
  - {name: a, partitions: 128, free: [100000], dtype: bf16}
body: [{op: load, write: a}, {op: store, read: a}]`, []string{RuleTileTooLarge}},
		{"three live tiles fit", `
tensors:
  - {name: a, block: [4], partitions: 128, free: [12000], dtype: fp32}
body:
  - {loop: i, range: 4, body: [{op: load, write: "a[i]"}, {op: store, read: "a[i]"}]}`, nil},
		{"psum tiles over 8 banks", `
tensors:
  - {name: s, partitions: 128, free: [128], dtype: bf16}
  - {name: m, partitions: 128, free: [512], dtype: bf16}
  - {name: acc, block: [12], partitions: 128, free: [512], dtype: fp32, buffer: psum}
  - {name: o, block: [12], partitions: 128, free: [512], dtype: fp32}
body:
  - {op: load, write: s}
  - {op: load, write: m}
  - {loop: i, range: 12, body: [{op: matmul, read: [s, m], write: "acc[i]"}]}
  - {loop: j, range: 12, body: [{op: tensor_copy, read: "acc[j]", write: "o[j]"}, {op: store, read: "o[j]"}]}`, []string{RuleLiveOverCapacity}},
		{"v3 holds it", `
arch: v3
tensors:
  - {name: a, partitions: 128, free: [50000], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: load, write: a}, {op: store, read: a}]`, nil},
		{"psum 8 banks", `
tensors:
  - {name: s, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: m, partitions: 128, free: [512], dtype: bf16, alloc: {mod_alloc: {base_addr: 4096}}}
  - {name: acc, block: [8], partitions: 128, free: [512], dtype: fp32, buffer: psum, alloc: {mod_alloc: {base_bank: 0, num_bank_tiles: [8]}}}
  - {name: o, partitions: 128, free: [512], dtype: fp32, alloc: {mod_alloc: {base_addr: 256}}}
body:
  - {op: load, write: s}
  - {op: load, write: m}
  - loop: i
    range: 8
    body: [{op: matmul, read: [s, m], write: "acc[i]"}, {op: tensor_copy, read: "acc[i]", write: o}, {op: store, read: o}]`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.src)
			rep := mustCheck(t, p)
			got := rulesOf(rep, diag.Warning)
			if len(got) != len(c.want) {
				t.Fatalf("rules %v, want %v\n%v", got, c.want, rep)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("rules %v, want %v\n%v", got, c.want, rep)
				}
			}
			if _, err := Simulate(p); err != nil {
				t.Fatalf("simulate: %v", err)
			}
		})
	}
	p := mustParse(t, "tensors: [{name: c, partitions: 128, free: [1], dtype: nl.tfloat32}]")
	if p.Tensors[0].DType != dtype.Float32R {
		t.Errorf("tfloat32 read as %v", p.Tensors[0].DType)
	}
}

// A fractional number under an integer key is an error naming its line
// (yaml.v3 would truncate it); integral floats are read.
func TestPlanIntegerFields(t *testing.T) {
	for _, src := range []string{
		"tensors:\n  - {name: x, block: [8], partitions: 128, free: [64], dtype: fp32}\nbody:\n  - {loop: i, range: 1.5, body: [{op: load, write: \"x[i]\"}]}\n",
		"tensors:\n  - {name: x, partitions: 127.9, free: [64], dtype: fp32}\n",
		"tensors:\n  - {name: x, partitions: 128, free: [63.5], dtype: fp32}\n",
		"tensors:\n  - {name: x, partitions: 128, free: [64], dtype: fp32, alloc: {mod_alloc: {base_addr: .inf}}}\n",
	} {
		if _, err := ParsePlan([]byte(src)); err == nil || !strings.Contains(err.Error(), "is not an integer") || !strings.HasPrefix(err.Error(), "line ") {
			t.Errorf("%q: error %v", src, err)
		}
	}
	p := mustParse(t, "tensors:\n  - {name: x, partitions: 128, free: [1e3], dtype: fp32, alloc: {mod_alloc: {base_addr: 512.0}}}\n")
	if p.Tensors[0].Free[0] != 1000 || p.Tensors[0].Mod.BaseAddr != 512 {
		t.Errorf("integral floats read as %v, %d", p.Tensors[0].Free, p.Tensors[0].Mod.BaseAddr)
	}
}
