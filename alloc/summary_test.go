package alloc

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestMinimizeMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 300; iter++ {
		p := randomProblem(r, false)
		for i := range p.Buffers {
			p.Buffers[i].Fixed = false
		}
		m, err := Minimize(context.Background(), p, Exact, Options{Workers: 1})
		if err != nil || !m.Proven {
			t.Fatalf("problem %d: %v %+v", iter, err, m)
		}
		q := *p
		q.Capacity = m.Capacity
		if rep := Validate(&q, m.Solution); len(rep) > 0 {
			t.Fatalf("problem %d: %v", iter, rep)
		}
		if m.Capacity > 0 {
			q.Capacity = m.Capacity - 1
			if bruteForce(&q) {
				t.Fatalf("problem %d %+v: capacity %d also works", iter, p, q.Capacity)
			}
		}
	}
}

func TestSummaryAndCheck(t *testing.T) {
	in := "id,lower,upper,size,offset\na,0,10,8,0\nb,5,15,8,4\n"
	tb, err := ReadCSV(strings.NewReader(in), 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(tb)
	if s.Peak != 16 || s.Height == nil || *s.Height != 12 || s.Buffers != 2 {
		t.Errorf("summary %+v", s)
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil || !strings.Contains(out.String(), "peak alive") {
		t.Errorf("text: %v %q", err, out.String())
	}
	rep := Check(tb)
	if len(rep) != 1 || rep[0].Rule != RuleOverlap {
		t.Errorf("check: %v", rep)
	}
	if c, ok := CapacityFromName("/x/A.1048576.csv"); !ok || c != 1048576 {
		t.Errorf("capacity from name: %d %v", c, ok)
	}
	if _, ok := CapacityFromName("problem.csv"); ok {
		t.Error("capacity from a plain name")
	}
}

// The naming conventions of shared suites: NAME.capN.csv as well as
// NAME.N.csv, and a copy's __suffix ignored.
func TestCapacityFromNameConventions(t *testing.T) {
	for name, want := range map[string]int64{
		"cnn_3.cap43664.csv": 43664, "stress_1.CAP578.csv": 578, "A.1048576__64ec1cd4.csv": 1048576,
		"x/B.2048.csv": 2048, "plain.csv": 0, "a.cap.csv": 0, "a.capx1.csv": 0, "a.1024.txt": 0,
	} {
		got, ok := CapacityFromName(name)
		if got != want || ok != (want > 0) {
			t.Errorf("%s: %d %v, want %d", name, got, ok, want)
		}
	}
}

// An offset column on every row with no fixed column is a previous
// solution by default (a compiler's own placement): the problem places
// every buffer anew and keeps the previous height to compare; --offsets
// fixed pins them; a partial column pins its rows.
func TestOffsetColumnUse(t *testing.T) {
	full := "id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,10,10\n"
	tb, err := ReadCSV(strings.NewReader(full), 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, o := tb.ProblemFor(OffsetsAuto)
	if o.Use != OffsetsPrevious || !o.Assumed || o.PreviousHeight != 20 || p.Buffers[0].Fixed || p.Buffers[1].Fixed {
		t.Errorf("auto on a full column: %+v %+v", o, p.Buffers)
	}
	if p, o := tb.ProblemFor(OffsetsFixed); o.Use != OffsetsFixed || !p.Buffers[1].Fixed || p.Buffers[1].Offset != 10 {
		t.Errorf("fixed: %+v %+v", o, p.Buffers)
	}
	if !tb.Problem.Buffers[0].Fixed {
		t.Error("ProblemFor changed the table")
	}
	partial, err := ReadCSV(strings.NewReader("id,lower,upper,size,offset\na,0,2,10,5\nb,1,3,10,\n"), 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p, o := partial.ProblemFor(OffsetsAuto); o.Use != OffsetsFixed || !p.Buffers[0].Fixed || p.Buffers[1].Fixed {
		t.Errorf("auto on a partial column: %+v %+v", o, p.Buffers)
	}
}

// A problem written with half-open ends under an `end` column (as
// MiniMalloc's own files were for a while) is over capacity when read as
// inclusive; check says it fits with the other convention (a warning, not
// an over-capacity error), and HalfOpenEnds gives that reading.
func TestEndConvention(t *testing.T) {
	// Two 10-byte buffers back to back in time: [0,5) and [5,10) half-open.
	tb, err := ReadCSV(strings.NewReader("buffer,start,end,size\na,0,5,10\nb,5,10,10\n"), 10, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !tb.InclusiveEnd || Peak(&tb.Problem) != 20 {
		t.Fatalf("inclusive reading: peak %d", Peak(&tb.Problem))
	}
	q := tb.HalfOpenEnds(&tb.Problem)
	if q == nil || Peak(q) != 10 || tb.Problem.Buffers[0].Upper != 6 {
		t.Fatalf("half-open reading: %+v", q)
	}
	rep := Check(tb)
	if len(rep) != 1 || rep[0].Rule != RuleEndConvention {
		t.Fatalf("check: %v", rep)
	}
	upper, _ := ReadCSV(strings.NewReader("id,lower,upper,size\na,0,5,10\n"), 10, Limits{})
	if upper.HalfOpenEnds(&upper.Problem) != nil {
		t.Error("an upper column has no other reading")
	}
}
