package alloc

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func TestReadCSVAliasesAndInclusiveEnd(t *testing.T) {
	in := "buffer_id,start,end,size,alignment,gaps,hint,extra\n" +
		"a,0,9,16,8,2-4 5-6@0:8,3,x\n" +
		"b,5,5,4,,,,y\n"
	tb, err := ReadCSV(strings.NewReader(in), 100, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p := tb.Problem
	if p.Capacity != 100 || len(p.Buffers) != 2 {
		t.Fatalf("problem %+v", p)
	}
	a := p.Buffers[0]
	if a.ID != "a" || a.Lower != 0 || a.Upper != 10 || a.Size != 16 || a.Alignment != 8 || !a.HasHint || a.Hint != 3 {
		t.Errorf("buffer a = %+v", a)
	}
	// With an inclusive end column gap ends are inclusive too (MiniMalloc
	// adds one to them as well).
	if len(a.Gaps) != 2 || a.Gaps[0] != (Gap{Lower: 2, Upper: 5}) || a.Gaps[1].Upper != 7 || a.Gaps[1].Window == nil || *a.Gaps[1].Window != (Window{0, 8}) {
		t.Errorf("gaps = %+v", a.Gaps)
	}
	if b := p.Buffers[1]; b.Upper != 6 || b.Fixed {
		t.Errorf("buffer b = %+v", b)
	}
	var out bytes.Buffer
	if err := tb.WriteSolution(&out, &Solution{Offsets: []int64{8, 0}}); err != nil {
		t.Fatal(err)
	}
	want := "buffer_id,start,end,size,alignment,gaps,hint,extra,offset\n" +
		"a,0,9,16,8,2-4 5-6@0:8,3,x,8\n" +
		"b,5,5,4,,,,y,0\n"
	if out.String() != want {
		t.Errorf("solution CSV:\n%s\nwant:\n%s", out.String(), want)
	}
	// Reading the solution back gives the same problem with fixed offsets.
	back, err := ReadCSV(strings.NewReader(out.String()), 100, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := SolutionFrom(&p, back)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Offsets[0] != 8 || sol.Offsets[1] != 0 || !back.Problem.Buffers[0].Fixed {
		t.Errorf("read back %+v", sol)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	p := &Problem{Capacity: 64, Buffers: []Buffer{
		{ID: "x", Lower: 0, Upper: 4, Size: 8, Alignment: 4, Gaps: []Gap{{Lower: 1, Upper: 2}}},
		{ID: "y", Lower: 2, Upper: 6, Size: 8, Fixed: true, Offset: 16},
	}}
	var out bytes.Buffer
	if err := WriteCSV(&out, p, nil); err != nil {
		t.Fatal(err)
	}
	tb, err := ReadCSV(&out, 64, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := tb.Problem
	if len(got.Buffers) != 2 || got.Buffers[0].Alignment != 4 || len(got.Buffers[0].Gaps) != 1 ||
		got.Buffers[0].Fixed || !got.Buffers[1].Fixed || got.Buffers[1].Offset != 16 {
		t.Errorf("round trip: %+v", got)
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"missing column", "id,lower,size\n", "missing required column \"upper\""},
		{"duplicate column", "id,lower,upper,end,size\n", "given twice"},
		{"not integer", "id,lower,upper,size\na,0,x,1\n", "line 2: column upper"},
		{"bad range", "id,lower,upper,size\na,5,1,1\n", "not a valid range"},
		{"negative size", "id,lower,upper,size\na,0,1,-1\n", "negative size"},
		{"no header", "0,0,10,4\n1,5,15,4\n", "line 1: no header row"},
		{"too many fields", "id,lower,upper,size\na,0,1,1\nb,0,1,1,7\n", "line 3: 5 fields"},
		{"float", "id,lower,upper,size\na,0,1e3,1\n", "line 2: column upper"},
		{"huge size", "id,lower,upper,size\na,0,1,9223372036854775807\n", "line 2: buffer \"a\": the sizes"},
		{"huge sum", "id,lower,upper,size\na,0,1,1152921504606846976\nb,0,1,1\n", "line 3: buffer \"b\": the sizes"},
		{"huge time", "id,lower,upper,size\na,0,9223372036854775806,1\n", "line 2: buffer \"a\": lifespan"},
		{"huge alignment", "id,lower,upper,size,alignment\na,0,1,1,9223372036854775807\n", "line 2: buffer \"a\": alignment"},
		{"huge offset", "id,lower,upper,size,offset\na,0,1,1,-9223372036854775807\n", "line 2: buffer \"a\": offset"},
		{"empty id", "id,lower,upper,size\n,0,1,1\n", "line 2: empty id"},
		{"bad gap", "id,lower,upper,size,gaps\na,0,1,1,3\n", "expected lo-hi"},
		{"overflow end", "id,lower,end,size\na,0,9223372036854775807,1\n", "overflows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), 1, Limits{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadCSVVariants reads the ways real files differ from the canonical
// form: MiniMalloc accepts them (or, for the byte order mark, CRLF and
// stray quotes, spreadsheets produce them), so the reader does too.
func TestReadCSVVariants(t *testing.T) {
	want := []Buffer{{ID: "0", Lower: 0, Upper: 10, Size: 4}, {ID: "1", Lower: 5, Upper: 15, Size: 4}}
	for _, tc := range []struct{ name, in string }{
		{"canonical", "id,lower,upper,size\n0,0,10,4\n1,5,15,4\n"},
		{"crlf", "id,lower,upper,size\r\n0,0,10,4\r\n1,5,15,4\r\n"},
		{"bom", "\ufeffid,lower,upper,size\n0,0,10,4\n1,5,15,4\n"},
		{"no final newline", "id,lower,upper,size\n0,0,10,4\n1,5,15,4"},
		{"trailing blank lines", "id,lower,upper,size\n0,0,10,4\n1,5,15,4\n\n\n\r\n"},
		{"column order", "size,upper,id,lower\n4,10,0,0\n4,15,1,5\n"},
		{"extra columns", "id,lower,note,upper,size\n0,0,x,10,4\n1,5,,15,4\n"},
		{"trailing comma", "id,lower,upper,size\n0,0,10,4,\n1,5,15,4,\n"},
		{"whitespace", " ID , Lower ,upper,SIZE \n 0 , 0 , 10 , 4 \n1,\t5,15,+4\n"},
		{"aliases", "buffer_id,begin,end,size\n0,0,9,4\n1,5,14,4\n"},
		{"start", "buffer,start,upper,size\n0,0,10,4\n1,5,15,4\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := ReadCSV(strings.NewReader(tc.in), 8, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tb.Problem.Buffers) != len(want) {
				t.Fatalf("%d buffers, want %d", len(tb.Problem.Buffers), len(want))
			}
			for i, b := range tb.Problem.Buffers {
				if b.ID != want[i].ID || b.Lower != want[i].Lower || b.Upper != want[i].Upper || b.Size != want[i].Size {
					t.Errorf("buffer %d = %+v, want %+v", i, b, want[i])
				}
			}
			if strings.HasPrefix(tb.Header[0], "\ufeff") {
				t.Errorf("header kept the byte order mark: %q", tb.Header[0])
			}
		})
	}
	// Edge values MiniMalloc accepts: zero sizes, empty and negative
	// lifespans, repeated and non-numeric ids, a quote inside an id.
	in := "id,lower,upper,size\nz,0,10,0\ne,5,5,4\nn,-3,2,4\nn,0,1,1\nbuf\"7,0,1,1\n"
	tb, err := ReadCSV(strings.NewReader(in), 8, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	bs := tb.Problem.Buffers
	if len(bs) != 5 || bs[0].Size != 0 || bs[1].Upper != bs[1].Lower || bs[2].Lower != -3 || bs[3].ID != "n" || bs[4].ID != "buf\"7" {
		t.Errorf("edge values read as %+v", bs)
	}
	sol, st, err := Exact(context.Background(), &tb.Problem, Options{})
	if st != Solved || len(Validate(&tb.Problem, sol)) != 0 {
		t.Fatalf("edge problem: %v %v", st, err)
	}
	// A solution with repeated ids is matched by row.
	var out bytes.Buffer
	if err := tb.WriteSolution(&out, sol); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&out, 8, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SolutionFrom(&tb.Problem, back)
	if err != nil || !slices.Equal(got.Offsets, sol.Offsets) {
		t.Errorf("read back %v (%v), want %v", got, err, sol.Offsets)
	}
	// Rows in another order are matched by id, unless the id repeats.
	shuffled := "id,lower,upper,size,offset\nb,0,1,1,4\na,0,1,1,0\n"
	st2, _ := ReadCSV(strings.NewReader(shuffled), 8, Limits{})
	p := &Problem{Capacity: 8, Buffers: []Buffer{{ID: "a", Upper: 1, Size: 1}, {ID: "b", Upper: 1, Size: 1}}}
	if got, err := SolutionFrom(p, st2); err != nil || got.Offsets[0] != 0 || got.Offsets[1] != 4 {
		t.Errorf("by id: %v %v", got, err)
	}
	if _, err := SolutionFrom(&tb.Problem, st2); err == nil {
		t.Error("a solution without the problem's ids was accepted")
	}
}

func TestReadCSVLimits(t *testing.T) {
	in := "id,lower,upper,size\na,0,1,1\nb,0,1,1\nc,0,1,1\n"
	if _, err := ReadCSV(strings.NewReader(in), 1, Limits{MaxBuffers: 2}); err == nil || !strings.Contains(err.Error(), "more than 2 buffers") {
		t.Errorf("buffer limit: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader(in), 1, Limits{MaxBytes: 10}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("byte limit: %v", err)
	}
	g := "id,lower,upper,size,gaps\na,0,9,1,1-2 3-4 5-6\n"
	if _, err := ReadCSV(strings.NewReader(g), 1, Limits{MaxGaps: 2}); err == nil || !strings.Contains(err.Error(), "more than 2 gaps") {
		t.Errorf("gap limit: %v", err)
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add("id,lower,upper,size\n0,0,10,4\n1,5,15,4\n")
	f.Add("buffer,begin,end,size,alignment,offset,hint,gaps\na,0,9,16,8,0,3,2-4 5-6@0:8\n")
	f.Add("id,lower,upper,size,fixed,offset\na,0,1,1,true,4\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := ReadCSV(strings.NewReader(in), 1<<20, Limits{MaxBytes: 1 << 16, MaxBuffers: 256, MaxGaps: 16})
		if err != nil {
			return
		}
		p := &tb.Problem
		_ = CheckProblem(p)
		sol := &Solution{Offsets: make([]int64, len(p.Buffers))}
		_ = Validate(p, sol)
		var out bytes.Buffer
		if err := tb.WriteSolution(&out, sol); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCSV(&out, 1<<20, Limits{}); err != nil {
			t.Fatalf("written solution does not read back: %v\n%s", err, out.String())
		}
	})
}
