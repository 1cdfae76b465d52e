package zebu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/sim"
)

func TestParseLine(t *testing.T) {
	const line = `[lda_mov, {'slyr': 0, 'clyr': [1, 0], 's_flyr': 0, 'c_flyr': [0], 'wkl': 3, 'tile': -1}, {'inst_idx': 7, 'time': [161, 23549]}, {'RS': 0, 'DF': <DataFmt.FP16: 3>, 'QB': -14.0, 'USED': False, 'Tile': [1, 3, 224, 224], 'Prev_Insts': ['CT'], 'Next_Insts': ['VP', 'LW']}]`
	tr, err := Parse(strings.NewReader(line + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Insts) != 1 {
		t.Fatalf("%d instructions", len(tr.Insts))
	}
	in := tr.Insts[0]
	if in.Name != "lda_mov" || in.Class != "lda" || in.Config || in.Workload != 3 || in.Tile != -1 ||
		in.Index != 7 || in.Start != 161 || in.End != 23549 || in.Duration() != 23388 || in.Line != 1 {
		t.Fatalf("%+v", in)
	}
	tile, _ := in.Args.Get("Tile")
	if v, ok := tile.Ints(); !ok || len(v) != 4 || v[3] != 224 {
		t.Errorf("Tile = %+v", tile)
	}
	df, _ := in.Args.Get("DF")
	if df.Kind != Enum || df.Str != "DataFmt.FP16" || df.Int != 3 {
		t.Errorf("DF = %+v", df)
	}
	qb, _ := in.Args.Get("QB")
	if qb.Kind != Float || qb.Float != -14 {
		t.Errorf("QB = %+v", qb)
	}
	if tr.Total() != 23549 {
		t.Errorf("total %d", tr.Total())
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[x, {'slyr': 0, 'wkl': 0}, {'time': [5, 3]}]", "line 1: element 2: time [5, 3]"},
		{"ok\n[x, {'slyr': 0, 'wkl': 0}, {'time': [1, 3]}]", "line 1: not a [name"},
		{"[x, {'slyr': 0}, {'time': [1, 3]}]", `no "wkl"`},
		{"[x, {'slyr': 0, 'wkl': 0}, {'time': [1, 3]}", "line 1: column"},
		{"[x, {'slyr': 0, 'wkl': 0}, {'time': [1, 3]}] junk", "trailing text"},
		{"", "no instructions"},
		{"[x, {'slyr': 0, 'wkl': 0}, {'time': [1, 3]}]\nbad\n[x, {'slyr': 0, 'wkl': 0}, {'time': [3, 4]}]", "line 2: not a [name"},
		{strings.Repeat("[", 100), "nesting"},
	} {
		_, err := Parse(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestSpansAndClasses(t *testing.T) {
	src := `[ct_st, {'slyr': 0, 'wkl': 0, 'tile': -1}, {'inst_idx': 1, 'time': [0, 10]}, {}]
[pe_cfg_fm, {'slyr': 0, 'wkl': 0, 'tile': 0}, {'inst_idx': 2, 'time': [0, 500]}, {}]
[ldw_mov, {'slyr': 0, 'wkl': 0, 'tile': -1}, {'inst_idx': 3, 'time': [10, 100]}, {}]
[pe_conv, {'slyr': 0, 'wkl': 0, 'tile': 0}, {'inst_idx': 4, 'time': [100, 200]}, {}]
[ldw_mov, {'slyr': 1, 'wkl': 1, 'tile': -1}, {'inst_idx': 5, 'time': [50, 150]}, {}]
[pe_conv, {'slyr': 1, 'wkl': 1, 'tile': 0}, {'inst_idx': 6, 'time': [200, 300]}, {}]
`
	tr, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Total() != 500 {
		t.Errorf("total %d", tr.Total())
	}
	w := tr.Workloads()
	if len(w) != 2 || w[0] != (Span{ID: 0, Start: 0, End: 200, Insts: 3}) || w[1] != (Span{ID: 1, Start: 50, End: 300, Insts: 2}) {
		t.Errorf("workloads %+v", w)
	}
	var ldw ClassStat
	for _, c := range tr.Classes() {
		if c.Class == "ldw" {
			ldw = c
		}
	}
	if ldw != (ClassStat{Class: "ldw", Insts: 2, Sum: 190, Busy: 140}) {
		t.Errorf("ldw %+v", ldw)
	}
}

// TestCorpus parses every shared emulator trace: the run ends with ct_ed,
// per-workload spans lie inside the run, and the notes' totals hold.
func TestCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini/zebu")
	files := conformance.Files(t, dir, "*.txt")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			last := tr.Insts[len(tr.Insts)-1]
			if last.Name != "ct_ed" || last.End != tr.Total() {
				t.Errorf("last instruction %s ends %d, total %d", last.Name, last.End, tr.Total())
			}
			ws := tr.Workloads()
			if len(ws) < 2 {
				t.Fatalf("%d workloads", len(ws))
			}
			for _, w := range ws {
				if w.Start < 0 || w.End > tr.Total() || w.Start > w.End {
					t.Errorf("workload %+v outside [0, %d]", w, tr.Total())
				}
			}
			var loads int64
			for _, c := range tr.Classes() {
				if strings.HasPrefix(c.Class, "ld") {
					loads += c.Sum
				}
			}
			if loads == 0 {
				t.Error("no DRAM load time")
			}
			t.Logf("%d instructions, %d workloads, %d layers, total %d cycles", len(tr.Insts), len(ws), len(tr.Layers()), tr.Total())
		})
	}
	// The notes' numbers for the public runs.
	want := map[string]int64{
		"int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt": 1922067,
		"int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt": 2545655,
	}
	for name, total := range want {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		tr, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Total() != total {
			t.Errorf("%s: total %d, want %d", name, tr.Total(), total)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[ct_st, {'slyr': 0, 'clyr': [], 'wkl': 0, 'tile': -1}, {'inst_idx': 1, 'time': [0, 33]}, {'Prev_Insts': [], 'Next_Insts': ['LW']}]\n"))
	f.Add([]byte("[vp_cfg_qp, {'slyr': 0, 'wkl': 0, 'tile': 0}, {'inst_idx': 11, 'time': [63, 84]}, {'QCS': <Float2Fixed.ROUND: 2>, 'QB': -14.0, 'QK': 53.5, 'U': False, 'N': None}]"))
	f.Add([]byte("[x, {'slyr': 0, 'wkl': 0}, {'time': [1, 3]}]\n[y, {}, {}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		_ = tr.Total()
		_ = tr.Workloads()
		_ = tr.Layers()
		_ = tr.Classes()
		_ = Check(tr)
		tl, err := sim.Run(Lower(tr))
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		for id, task := range tl.Graph.Tasks {
			if in := tr.Insts[task.Tag]; tl.Start[id] != in.Start || tl.End[id] != in.End {
				t.Fatalf("line %d replayed [%d, %d], traced [%d, %d]", in.Line, tl.Start[id], tl.End[id], in.Start, in.End)
			}
		}
	})
}

// Three instructions of 2^62 cycles each: the class sum overflowed to a
// negative number.
func TestClassSumSaturates(t *testing.T) {
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, "[pe_conv, {'slyr': 0, 'wkl': %d, 'tile': 0}, {'inst_idx': %d, 'time': [0, 4611686018427387904]}, {}]\n", i, i)
	}
	tr, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tr.Classes() {
		if c.Sum < 0 || c.Busy < 0 {
			t.Errorf("%s: sum %d busy %d", c.Class, c.Sum, c.Busy)
		}
	}
}
