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
