package neuroncore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

func mustParse(t *testing.T, src string) *Plan {
	t.Helper()
	p, err := ParsePlan([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

func rulesOf(rep diag.Report, min diag.Severity) []string {
	var out []string
	for _, d := range rep {
		if d.Severity >= min {
			out = append(out, d.Rule)
		}
	}
	sort.Strings(out)
	return out
}

func mustCheck(t *testing.T, p *Plan) diag.Report {
	t.Helper()
	rep, _, err := Check(p)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The guide's examples produce the outcomes the guide states.
func TestGuideExamples(t *testing.T) {
	cases := map[string][]string{
		"single-buffer.yaml":       nil,
		"double-buffer.yaml":       nil,
		"overlap-t0-t1.yaml":       {RuleLifetimeOverlap},
		"disjoint-t0-t1.yaml":      nil,
		"too-few-tiles.yaml":       {RuleTooFewTiles},
		"too-few-tiles-fixed.yaml": nil,
		"mod-alloc-table.yaml":     nil,
	}
	files, _ := filepath.Glob("../examples/sbuf/*.yaml")
	if len(files) < len(cases) {
		t.Fatalf("found %d example plans", len(files))
	}
	for _, f := range files {
		want, ok := cases[filepath.Base(f)]
		if !ok {
			continue
		}
		p, err := ReadPlanFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rep := mustCheck(t, p)
		got := rulesOf(rep, diag.Warning)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: rules %v, want %v\n%v", filepath.Base(f), got, want, rep)
		}
		for _, d := range rep {
			t.Logf("%s: %s", filepath.Base(f), d)
		}
	}
}

func TestGuideMessages(t *testing.T) {
	p, err := ReadPlanFile("../examples/sbuf/overlap-t0-t1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep := mustCheck(t, p)
	msg := rep[0].Message
	for _, want := range []string{"t0[1]", "t1[0]", "bytes 1024..2047", "load t0[i]"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	p, err = ReadPlanFile("../examples/sbuf/too-few-tiles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep = mustCheck(t, p)
	msg = rep[0].Message
	for _, want := range []string{"t1 has 2 physical tiles", "8 logical tiles are alive", "t1[7]"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
}

const okHead = `
arch: v2
hbm: [{name: out, output: true}]
tensors:
`

// Each rule has a plan that violates exactly it.
func TestRules(t *testing.T) {
	cases := []struct {
		rule string
		src  string
	}{
		{RuleStartPartition, okHead + `
  - {name: a, partitions: 64, free: [16], dtype: fp32, alloc: {table: [{partition: 32, addr: 0}]}}
body: [{op: load, write: a}, {op: store, read: a}]`},
		{RuleByteRange, okHead + `
  - {name: a, partitions: 128, free: [1024], dtype: fp32, alloc: {mod_alloc: {base_addr: 176200}}}
body: [{op: load, write: a}, {op: store, read: a}]`},
		{RuleAlignment, okHead + `
  - {name: a, partitions: 128, free: [256], dtype: fp32, buffer: psum, alloc: {table: [{bank: 0, addr: 2}]}}
  - {name: b, partitions: 128, free: [8], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: memset, write: a}, {op: tensor_copy, read: a, write: b}, {op: store, read: b}]`},
		{RulePSUMBank, okHead + `
  - {name: a, partitions: 128, free: [512], dtype: fp32, buffer: psum, alloc: {table: [{bank: 0, addr: 1024}]}}
  - {name: b, partitions: 128, free: [8], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: memset, write: a}, {op: tensor_copy, read: a, write: b}, {op: store, read: b}]`},
		{RulePSUMModBase, okHead + `
  - {name: a, partitions: 128, free: [256], dtype: fp32, buffer: psum, alloc: {mod_alloc: {base_bank: 0, base_addr: 64}}}
  - {name: b, partitions: 128, free: [8], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: memset, write: a}, {op: tensor_copy, read: a, write: b}, {op: store, read: b}]`},
		{RuleLifetimeOverlap, okHead + `
  - {name: a, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: b, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 32}}}
body: [{op: load, write: a}, {op: load, write: b}, {op: tensor_tensor, read: [a, b], write: a}, {op: store, read: a}]`},
		{RuleTooFewTiles, okHead + `
  - {name: a, block: [2], partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: load, write: "a[0]"}, {op: load, write: "a[1]"}, {op: store, read: "a[0]"}, {op: store, read: "a[1]"}]`},
		{RuleMixedAllocation, okHead + `
  - {name: a, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: b, partitions: 128, free: [16], dtype: fp32}
body: [{op: load, write: a}, {op: tensor_copy, read: a, write: b}, {op: store, read: b}]`},
		{RuleAccInterleave, okHead + `
  - {name: s, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: m, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 256}}}
  - {name: p, block: [2], partitions: 128, free: [128], dtype: fp32, buffer: psum, alloc: {table: [{bank: 0, addr: 0}, {bank: 0, addr: 512}]}}
  - {name: o, block: [2], partitions: 128, free: [128], dtype: fp32, alloc: {mod_alloc: {base_addr: 1024, num_free_tiles: [2]}}}
body:
  - {op: load, write: s}
  - {op: load, write: m}
  - {op: matmul, read: [s, m], write: "p[0]"}
  - {op: matmul, read: [s, m], write: "p[1]"}
  - {op: matmul, read: [s, m], write: "p[0]", accumulate: true}
  - {op: matmul, read: [s, m], write: "p[1]", accumulate: true}
  - {op: tensor_copy, read: "p[0]", write: "o[0]"}
  - {op: tensor_copy, read: "p[1]", write: "o[1]"}
  - {op: store, read: "o[0]"}
  - {op: store, read: "o[1]"}`},
		{RuleImplicitTensor, okHead + `
  - {name: a, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: p, partitions: 128, free: [128], dtype: fp32, buffer: psum, alloc: {mod_alloc: {base_bank: 0}}}
  - {name: b, partitions: 128, free: [128], dtype: fp32, alloc: {mod_alloc: {base_addr: 256}}}
body: [{op: load, write: a}, {op: transpose, read: a, write: p}, {op: tensor_copy, read: p, write: b}, {op: store, read: b}]`},
		{RuleNonIOHBM, `
arch: v2
hbm: [{name: out, output: true}, {name: scratch, kind: private_hbm}]
tensors:
  - {name: a, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: load, write: a}, {op: store, read: a}]`},
		{RuleIndexRange, okHead + `
  - {name: a, block: [2], partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0, num_free_tiles: [2]}}}
body: [{loop: i, range: 2, body: [{op: load, write: "a[i+1]"}]}]`},
		{RuleReadBeforeWrite, okHead + `
  - {name: a, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
body: [{op: store, read: a}]`},
		{RuleMatmulShape, okHead + `
  - {name: s, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: m, partitions: 128, free: [1024], dtype: bf16, alloc: {mod_alloc: {base_addr: 256}}}
  - {name: p, partitions: 128, free: [1024], dtype: bf16, buffer: psum, alloc: {mod_alloc: {base_bank: 0}}}
  - {name: o, partitions: 128, free: [1024], dtype: bf16, alloc: {mod_alloc: {base_addr: 4096}}}
body: [{op: load, write: s}, {op: load, write: m}, {op: matmul, read: [s, m], write: p}, {op: tensor_copy, read: p, write: o}, {op: store, read: o}]`},
		{RuleUnplaced, okHead + `
  - {name: a, partitions: 128, free: [16], dtype: fp32}
body: [{op: load, write: a}, {op: store, read: a}]`},
		{RuleUnusedPhysical, okHead + `
  - {name: a, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: b, partitions: 128, free: [16], dtype: fp32, alloc: {mod_alloc: {base_addr: 64}}}
body: [{op: load, write: a}, {op: store, read: a}]`},
		{RuleAccumulateNoGroup, okHead + `
  - {name: s, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: p, partitions: 128, free: [128], dtype: fp32, buffer: psum, alloc: {mod_alloc: {base_bank: 0}}}
  - {name: o, partitions: 128, free: [128], dtype: fp32, alloc: {mod_alloc: {base_addr: 256}}}
body: [{op: load, write: s}, {op: matmul, read: [s, s], write: p, accumulate: true}, {op: tensor_copy, read: p, write: o}, {op: store, read: o}]`},
		// Automatic tensors (so sbuf/unplaced accompanies it): an fp32 PSUM
		// tile of 4200 elements is 16800 bytes, past the 8 banks of 2 KiB
		// an automatic PSUM tensor may span.
		{RuleTileTooLarge, okHead + `
  - {name: a, partitions: 128, free: [4200], dtype: fp32, buffer: psum}
  - {name: b, partitions: 128, free: [4200], dtype: fp32}
body: [{op: memset, write: a}, {op: tensor_copy, read: a, write: b}, {op: store, read: b}]`},
		// Four 48000-byte fp32 tiles of 128 partitions alive together:
		// 192000 bytes at partition 0, past 180224.
		{RuleLiveOverCapacity, okHead + `
  - {name: a, block: [4], partitions: 128, free: [12000], dtype: fp32}
body:
  - {loop: i, range: 4, body: [{op: load, write: "a[i]"}]}
  - {loop: j, range: 4, body: [{op: store, read: "a[j]"}]}`},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			rep := mustCheck(t, mustParse(t, c.src))
			got := rulesOf(rep, diag.Info)
			if c.rule == RuleTileTooLarge || c.rule == RuleLiveOverCapacity {
				got = slices.DeleteFunc(got, func(r string) bool { return r == RuleUnplaced })
			}
			if len(got) != 1 || got[0] != c.rule {
				t.Errorf("rules %v, want exactly [%s]\n%v", got, c.rule, rep)
			}
			for _, d := range rep {
				t.Log(d)
			}
		})
		covered[c.rule] = true
	}
	for _, r := range diag.Rules() {
		if strings.HasPrefix(r.ID, "sbuf/") && !covered[r.ID] {
			t.Errorf("rule %s has no violating test", r.ID)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	cases := map[string]string{
		"":                     "empty",
		"arch: v9":             "arch",
		"tensors: [{name: a}]": "partitions",
		"tensors: [{name: a, partitions: 128, free: [4], dtype: fp33}]":                                                                                                   "dtype",
		"tensors: [{name: a, partitions: 129, free: [4], dtype: fp32}]":                                                                                                   "partitions",
		"tensors: [{name: a, block: [0], partitions: 1, free: [4], dtype: fp32}]":                                                                                         "block[0]",
		"tensors: [{name: a, block: [1048576, 2], partitions: 1, free: [4], dtype: fp32}]":                                                                                "logical tiles",
		"tensors: [{name: a, partitions: 1, free: [4], dtype: fp32, alloc: bogus}]":                                                                                       "alloc",
		"tensors: [{name: a, partitions: 1, free: [4], dtype: fp32, alloc: {table: []}}]":                                                                                 "0 entries",
		"body: [{op: load, write: nope}]":                                                                                                                                 "unknown tensor",
		"tensors: [{name: a, partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: load, write: \"a[i]\"}]":                                                                "indices",
		"tensors: [{name: a, block: [2], partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: load, write: \"a[j]\"}]":                                                    "not an enclosing",
		"tensors: [{name: a, block: [2], partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: frob, write: \"a[0]\"}]":                                                    "unknown operation",
		"tensors: [{name: a, block: [2], partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: store, write: \"a[0]\"}]":                                                   "read",
		"tensors: [{name: a, scope: k, partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: load, write: a}]":                                                             "does not enclose",
		"body: [{loop: i, range: 1048576, body: [{loop: j, range: 1048576, body: [{op: iota, write: a}]}]}]":                                                              "unknown tensor",
		"tensors: [{name: a, partitions: 1, free: [4], dtype: fp32}]\nbody: [{loop: i, range: 1048576, body: [{loop: j, range: 1048576, body: [{op: iota, write: a}]}]}]": "",
		"tensors: [{name: a, partitions: 1, free: [4], dtype: fp32}]\nbody: [{op: load}]":                                                                                 "moves no on-chip tile",
		"unknown_field: 1": "unknown_field",
	}
	for src, want := range cases {
		p, err := ParsePlan([]byte(src))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", src, err)
				continue
			}
			if _, _, err := Check(p); err == nil || !strings.Contains(err.Error(), "more than") {
				t.Errorf("%q: Check accepted a huge body: %v", src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", src, err, want)
		}
	}
}

func TestLifetimes(t *testing.T) {
	p, err := ReadPlanFile("../examples/sbuf/too-few-tiles-fixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	x, err := p.Execute()
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Events) != 24 {
		t.Errorf("%d events, want 24", len(x.Events))
	}
	// Four instances of t1 (one per iteration of o), two tiles each.
	n := 0
	for _, l := range x.Lifetimes {
		if p.Tensors[l.Key.Tensor].Name == "t1" {
			n++
			if l.End-l.Start != 1 {
				t.Errorf("t1 tile lives [%d, %d)", l.Start, l.End)
			}
		}
	}
	if n != 8 {
		t.Errorf("%d t1 tile instances, want 8", n)
	}
	alive, _ := x.MaxAlive()
	if alive[0] != 1 {
		t.Errorf("t1 max alive %d", alive[0])
	}
}

func TestExamplesReadable(t *testing.T) {
	files, _ := filepath.Glob("../examples/sbuf/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParsePlan(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func FuzzParsePlan(f *testing.F) {
	files, _ := filepath.Glob("../examples/sbuf/*.yaml")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"tensors": [{"name": "a", "partitions": 1, "free": [4], "dtype": "fp32"}], "body": [{"op": "load", "write": "a"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePlan(b)
		if err != nil {
			return
		}
		if n, err := p.Unrolled(); err != nil || n > 1<<16 {
			return
		}
		Check(p)
	})
}

// Only a Beta-1 plan rejects HBM tensors that are not outputs, a TensorE
// transpose (its identity is an implicit tensor) and automatic tensors
// beside direct ones; `api: current` (the nki.* API) accepts all three,
// and the key survives encoding.
func TestBeta1RulesByAPI(t *testing.T) {
	plan := `
hbm: [{name: out, output: true}, {name: scratch}]
tensors:
  - {name: a, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: p, partitions: 128, free: [128], dtype: bf16, buffer: psum, alloc: {mod_alloc: {base_bank: 0}}}
  - {name: auto, partitions: 128, free: [128], dtype: fp32, buffer: psum}
body: [{op: load, write: a}, {op: transpose, read: a, write: p}, {op: tensor_copy, read: p, write: a}, {op: store, read: a, hbm: scratch}, {op: store, read: a, hbm: out},
  {op: memset, write: auto}, {op: tensor_copy, read: auto, write: a}]`
	for _, c := range []struct {
		head string
		want bool
	}{{"arch: v2\n", true}, {"arch: v2\napi: beta1\n", true}, {"arch: v3\napi: current\n", false}} {
		p := mustParse(t, c.head+plan)
		rules := rulesOf(mustCheck(t, p), diag.Info)
		for _, r := range []string{RuleNonIOHBM, RuleImplicitTensor, RuleMixedAllocation} {
			if got := slices.Contains(rules, r); got != c.want {
				t.Errorf("%q: %s reported %v, want %v", c.head, r, got, c.want)
			}
		}
		q, err := ParsePlan(EncodePlan(p))
		if err != nil {
			t.Errorf("%q: encoded plan does not read back: %v", c.head, err)
		} else if q.API != p.API {
			t.Errorf("%q: encoded plan reads back with API %q, want %q", c.head, q.API, p.API)
		}
	}
	if _, err := ParsePlan([]byte("api: beta3\n" + plan)); err == nil || !strings.Contains(err.Error(), "api") {
		t.Errorf("api: beta3 accepted (%v)", err)
	}
}

// NeuronCore-v4's matmul writes a PSUM tile across all 8 banks (up to 4096
// FP32 values per partition); before v4 a directly allocated tile must stay
// in one 2 KiB bank, while an automatic tensor may span them all.
func TestPSUMTileAcrossBanks(t *testing.T) {
	body := `
tensors:
  - {name: s, partitions: 128, free: [128], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: m, partitions: 128, free: [2048], dtype: bf16, alloc: {mod_alloc: {base_addr: 256}}}
  - {name: p, partitions: 128, free: [2048], dtype: fp32, buffer: psum, %s}
  - {name: o, partitions: 128, free: [2048], dtype: fp32, alloc: {mod_alloc: {base_addr: 8192}}}
body: [{op: load, write: s}, {op: load, write: m}, {op: memset, write: p}, {op: tensor_copy, read: p, write: o}, {op: store, read: o}]`
	for _, c := range []struct {
		arch, alloc string
		want        string // the rule expected, "" for none
	}{
		{"v4", "alloc: {mod_alloc: {base_bank: 0}}", ""},
		{"v3", "alloc: {mod_alloc: {base_bank: 0}}", RulePSUMBank},
		{"v4", "alloc: auto", ""},
		// an automatic PSUM tensor may span every bank (a Beta-1 kernel
		// keeping a (128, 4096) fp32 tile in PSUM ran on trn2)
		{"v3", "alloc: auto", ""},
	} {
		rep := mustCheck(t, mustParse(t, "arch: "+c.arch+"\n"+fmt.Sprintf(body, c.alloc)))
		got := map[string]bool{}
		for _, d := range rep {
			got[d.Rule] = true
		}
		for _, r := range []string{RulePSUMBank, RuleTileTooLarge} {
			if got[r] != (r == c.want) {
				t.Errorf("%s %s: %s reported %v\n%v", c.arch, c.alloc, r, got[r], rep)
			}
		}
	}
}
