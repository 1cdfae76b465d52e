package alloc

import (
	"strings"
	"testing"
)

func rules(t *testing.T, p *Problem, offs ...int64) []string {
	t.Helper()
	var out []string
	for _, d := range Validate(p, &Solution{Offsets: offs}) {
		out = append(out, d.Rule+": "+d.Location+": "+d.Message)
	}
	return out
}

func TestValidateEachRule(t *testing.T) {
	base := func() *Problem {
		return &Problem{Capacity: 32, Buffers: []Buffer{
			{ID: "a", Lower: 0, Upper: 10, Size: 8},
			{ID: "b", Lower: 5, Upper: 15, Size: 8},
		}}
	}
	for _, tc := range []struct {
		name string
		mod  func(p *Problem)
		offs []int64
		want string // "" means valid
	}{
		{"valid", nil, []int64{0, 8}, ""},
		{"overlap", nil, []int64{0, 4}, RuleOverlap},
		{"capacity", nil, []int64{0, 25}, RuleCapacity},
		{"negative", nil, []int64{-8, 8}, RuleNegativeOffset},
		{"alignment", func(p *Problem) { p.Buffers[1].Alignment = 16 }, []int64{0, 8}, RuleAlignment},
		{"fixed", func(p *Problem) { p.Buffers[1].Fixed, p.Buffers[1].Offset = true, 16 }, []int64{0, 8}, RuleFixedOffset},
		{"solution size", nil, []int64{0}, RuleSolutionSize},
		{"disjoint in time", func(p *Problem) { p.Buffers[1].Lower = 10 }, []int64{0, 0}, ""},
		{"gap avoids overlap", func(p *Problem) { p.Buffers[0].Gaps = []Gap{{Lower: 5, Upper: 10}} }, []int64{0, 0}, ""},
		{"window overlaps", func(p *Problem) { p.Buffers[0].Gaps = []Gap{{Lower: 5, Upper: 10, Window: &Window{4, 8}}} }, []int64{0, 4}, RuleOverlap},
		{"window avoids", func(p *Problem) { p.Buffers[0].Gaps = []Gap{{Lower: 5, Upper: 10, Window: &Window{0, 4}}} }, []int64{0, 4}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			if tc.mod != nil {
				tc.mod(p)
			}
			got := rules(t, p, tc.offs...)
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("want valid, got %v", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want+":") {
				t.Errorf("want exactly %s, got %v", tc.want, got)
			}
		})
	}
}

func TestValidateReportsEveryPair(t *testing.T) {
	p := &Problem{Capacity: 100, Buffers: []Buffer{
		{ID: "a", Lower: 0, Upper: 10, Size: 8},
		{ID: "b", Lower: 0, Upper: 10, Size: 8},
		{ID: "c", Lower: 0, Upper: 10, Size: 8},
	}}
	got := rules(t, p, 0, 0, 0)
	if len(got) != 3 {
		t.Fatalf("want 3 overlaps, got %v", got)
	}
	if !strings.Contains(got[0], "buffer a (row 1): overlaps buffer b (row 2) during [0, 10) in [0, 8)") {
		t.Errorf("message: %s", got[0])
	}
}

func TestCheckProblem(t *testing.T) {
	p := &Problem{Capacity: 10, Buffers: []Buffer{
		{ID: "a", Lower: 0, Upper: 10, Size: 8, Fixed: true, Offset: 0},
		{ID: "b", Lower: 5, Upper: 15, Size: 8, Fixed: true, Offset: 4, Alignment: 8},
	}}
	var got []string
	for _, d := range CheckProblem(p) {
		got = append(got, d.Rule)
	}
	want := map[string]bool{RuleOverPeak: true, RuleAlignment: true, RuleCapacity: true, RuleOverlap: true}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for _, r := range got {
		if !want[r] {
			t.Errorf("unexpected %s", r)
		}
	}
	if pk := Peak(p); pk != 16 {
		t.Errorf("peak %d", pk)
	}
}

func TestPieces(t *testing.T) {
	b := Buffer{Lower: 0, Upper: 10, Size: 8, Gaps: []Gap{{Lower: 2, Upper: 4}, {Lower: 6, Upper: 20, Window: &Window{2, 6}}}}
	got := Pieces(&b)
	want := []Piece{{0, 2, 0, 8}, {4, 6, 0, 8}, {6, 10, 2, 6}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("piece %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCheckProblemPeakOnly(t *testing.T) {
	p := &Problem{Capacity: 15, Buffers: []Buffer{
		{ID: "a", Lower: 0, Upper: 10, Size: 8},
		{ID: "b", Lower: 5, Upper: 15, Size: 8},
	}}
	rep := CheckProblem(p)
	if len(rep) != 1 || rep[0].Rule != RuleOverPeak {
		t.Errorf("want exactly %s, got %v", RuleOverPeak, rep)
	}
	p.Capacity = 16
	if rep := CheckProblem(p); len(rep) != 0 {
		t.Errorf("want none, got %v", rep)
	}
}
