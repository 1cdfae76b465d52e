package humanize

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	bad := map[string]string{
		"0 errors, 2 infos, 1 warnings":             "plural",
		"check: 1 infos (in 1 line)":                "plural",
		"model: 1 operators on the CPU":             "plural",
		"DRAM: 1 stores of 4 KiB":                   "plural",
		"total 1,530,664 cycles\ncore 0: 1128059":   "mixed",
		"busy 1,530,664 (of 1128059 cycles)":        "mixed",
		"loads: 2,048; stores: 123456.":             "mixed",
		"a 1 files and 99999 B beside 100,000 B ok": "plural",
		"1 output(s) are re-laid out":               "hedge",
		"differ in 3 field(s)":                      "hedge",
	}
	for text, want := range bad {
		got := strings.Join(Lint(text), "; ")
		if !strings.Contains(got, map[string]string{"plural": "plural after one", "mixed": "separators mixed", "hedge": "plural hedged"}[want]) {
			t.Errorf("%q: got %q, want a %s finding", text, got, want)
		}
	}
	good := []string{
		"0 errors, 1 warning, 2 infos",
		"core 1 workloads 12, layer 1 outputs",
		"1 us, 1 ns, 1 ms, 1 s; 1 status; 1 class; 1 bus; 1 axis",
		"total 1,530,664 cycles; core 0: 1,128,059",
		"shape [1 16384 3] of 12,345 elements",
		"sg00/x_bw16_12345.json 0x1f4000 v2.12345 12,345 B",
		"uuid 6ceac95ea7a04369ae2380ea5f38f95d, 1,000 nodes",
		"#123456 beside 1,000",
		"size: 1473280 -> 2619456 beside 1,000 bytes",
		`var.x: absent -> {"offset":25460736} beside 1,000 bytes`,
		"needs 1,048,576 bytes (--capacity 1048576)",
		"T27 tensor address=(0, 10464) of 1,266 tiles",
		"ncc.sbuf.mod_alloc(base_addr=16384) of 2,000 tiles",
		"1.5 files", // a fraction takes the plural
		"only bare 1128059 numbers 123456 without any separated one",
	}
	for _, text := range good {
		if got := Lint(text); len(got) != 0 {
			t.Errorf("%q: %v", text, got)
		}
	}
	// What Count and Plural write passes.
	var b strings.Builder
	for _, n := range []int{0, 1, 2, 999, 1000, 12345, 1530664} {
		b.WriteString(Plural(n, "error") + ", " + Plural(n, "operator") + ", " + Plural(n, "cycle") + "; " + Count(int64(n)) + " B\n")
	}
	if got := Lint(b.String()); len(got) != 0 {
		t.Errorf("Count and Plural's own output: %v", got)
	}
}

func TestBareCounts(t *testing.T) {
	bad := map[string]string{
		"attn on NeuronCore-v2: 8452 steps, 2.524 ms": "8452",
		"  Tensor   1280    374.492        14.9%":     "1280",
		"moves 1776 bytes per partition":              "1776",
		"(1000)":                                      "1000",
	}
	for text, want := range bad {
		if got := BareCounts(text); len(got) != 1 || got[0] != want {
			t.Errorf("%q: got %q, want [%s]", text, got, want)
		}
	}
	good := []string{
		"8,452 steps, 1,280 tiles; 999 bytes",
		"kernel.py:1189:9 nl.affine_range",
		"bytes 1024..2047 of each partition",
		"completes 1300 ns after its last row; 1000 B read",
		"shape [1 4096 128], address=(0, 12512), #4096, x_4096.json, 2.1024",
		"(2000, par_dim(128), 4096) float32; mod_alloc(base_addr=16384)",
		"size: 1473280 -> 2619456, --capacity 1048576",
	}
	for _, text := range good {
		if got := BareCounts(text); len(got) != 0 {
			t.Errorf("%q: %v", text, got)
		}
	}
	var b strings.Builder
	for _, n := range []int{0, 1, 999, 1000, 12345, 1530664} {
		b.WriteString(Plural(n, "step") + "; " + Count(int64(n)) + " bytes\n")
	}
	if got := BareCounts(b.String()); len(got) != 0 {
		t.Errorf("Count and Plural's own output: %v", got)
	}
}
