package diag

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestStringForms(t *testing.T) {
	cases := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.neff", Severity: Error, Rule: "neff/hash-mismatch", Location: "offset 0xa0", Message: "bad"}, "a.neff: offset 0xa0: error [neff/hash-mismatch] bad"},
		{Diagnostic{Severity: Warning, Rule: "x/y", Message: "m"}, "warning [x/y] m"},
		{Diagnostic{File: "f", Severity: Info, Rule: "x/y", Message: "m"}, "f: info [x/y] m"},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestSortDeterministic(t *testing.T) {
	r := Report{
		{File: "b", Severity: Error, Rule: "r/a", Location: "workload 10", Message: "x"},
		{File: "a", Severity: Info, Rule: "r/a", Location: "", Message: "x"},
		{File: "b", Severity: Error, Rule: "r/a", Location: "workload 9", Message: "x"},
		{File: "a", Severity: Error, Rule: "r/b", Location: "z", Message: "x"},
		{File: "b", Severity: Warning, Rule: "r/a", Location: "a", Message: "x"},
	}
	r.Sort()
	var got []string
	for _, d := range r {
		got = append(got, d.File+"|"+d.Severity.String()+"|"+d.Location)
	}
	want := "a|error|z a|info| b|error|workload 9 b|error|workload 10 b|warning|a"
	if strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

func TestNaturalLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"w9", "w10", true}, {"w10", "w9", false}, {"a", "b", true}, {"w09", "w9", false}, {"w9", "w09", true}, {"", "a", true}, {"a", "a", false},
	} {
		if got := NaturalLess(c.a, c.b); got != c.want {
			t.Errorf("NaturalLess(%q,%q)=%v", c.a, c.b, got)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	d := Diagnostic{File: "f", Severity: Warning, Rule: "x/y", Location: "l", Message: "m"}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"file":"f","severity":"warning","rule":"x/y","location":"l","message":"m"}` {
		t.Fatalf("json %s", b)
	}
	var back Diagnostic
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Fatalf("round trip %v %+v", err, back)
	}
	if err := json.Unmarshal([]byte(`{"severity":"fatal"}`), &back); err == nil {
		t.Fatal("accepted unknown severity")
	}
}

func TestRegistry(t *testing.T) {
	Register(Rule{ID: "test/some-rule", Severity: Warning, Description: "d"})
	var r Report
	r.Add("test/some-rule", "loc", "n=%d", 3)
	r.Add("test/unregistered-rule", "loc", "x")
	if r[0].Severity != Warning || r[0].Message != "n=3" {
		t.Fatalf("%+v", r[0])
	}
	if r[1].Severity != Error {
		t.Fatal("unregistered rule must be an error")
	}
	if !r.HasErrors() || r.Summary() != "1 error, 1 warning, 0 infos" {
		t.Fatal(r.Summary())
	}
	for _, bad := range []Rule{{ID: "nope", Severity: Error}, {ID: "test/some-rule", Severity: Error}, {ID: "a/b", Severity: 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", bad)
				}
			}()
			Register(bad)
		}()
	}
	found := false
	for _, rr := range Rules() {
		found = found || rr.ID == "test/some-rule"
	}
	if !found {
		t.Fatal("Rules() misses registered rule")
	}
}

func TestGroup(t *testing.T) {
	Register(Rule{ID: "test/grouped", Severity: Info}, Rule{ID: "test/single", Severity: Warning})
	var r Report
	r.Add("test/grouped", "core 0 / workload 3", "x at 3")
	r.Add("test/single", "core 0", "once")
	r.Add("test/grouped", "core 1 / workload 1", "x at 1")
	r.Add("test/grouped", "core 1 / workload 2", "x at 2")
	g := r.Group("test/grouped", "test/single")
	if len(g) != 2 || g[0].Count != 3 || g[0].Location != "core 0 / workload 3" ||
		g[0].Message != "3 findings like this one; the first: x at 3" || g[1].Count != 0 || g[1].Message != "once" {
		t.Fatalf("%+v", g)
	}
	if len(r) != 4 || r[0].Count != 0 {
		t.Fatalf("Group changed its receiver: %+v", r)
	}
}

// Finding counts carry thousands separators like every other count
// ("in 163 lines", "1,442 instructions"): check printed "6784 warnings".
func TestCountsSeparators(t *testing.T) {
	if got, want := Counts(1, 6784, 35033), "1 error, 6,784 warnings, 35,033 infos"; got != want {
		t.Errorf("Counts = %q, want %q", got, want)
	}
	if got, want := Counts(0, 1, 999), "0 errors, 1 warning, 999 infos"; got != want {
		t.Errorf("Counts = %q, want %q", got, want)
	}
}

// Fold is the one folding rule: text and JSON fold more than RepeatLimit
// findings of one rule in one file; --all, SARIF and annotations do not.
func TestFold(t *testing.T) {
	var r Report
	for i := range RepeatLimit + 1 {
		r = append(r, Diagnostic{File: "f", Rule: "x/y", Severity: Info, Message: fmt.Sprint(i)})
	}
	r = append(r, Diagnostic{File: "g", Rule: "x/y", Severity: Info, Message: "other file"})
	for _, c := range []struct {
		format string
		all    bool
		lines  int
	}{{"text", false, 2}, {"json", false, 2}, {"text", true, RepeatLimit + 2}, {"sarif", false, RepeatLimit + 2}, {"github", false, RepeatLimit + 2}} {
		got := append(Report(nil), r...).Fold(c.format, c.all)
		if len(got) != c.lines || got.Findings() != len(r) {
			t.Errorf("%s all=%v: %d lines for %d findings, want %d lines for %d", c.format, c.all, len(got), got.Findings(), c.lines, len(r))
		}
	}
	if r[:RepeatLimit].Fold("text", false)[0].Count != 0 {
		t.Error("RepeatLimit findings were folded")
	}
}
