package alloc

import (
	"context"
	"github.com/npukit/npukit/internal/conformance"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A problem whose minimum (21) lies above its live-bytes peak (20): the
// window around the peak cannot stack at the peak, and its own minimum
// becomes the lower bound, matched by the placement found.
func TestPeakFirstRaisesLowerBound(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{Lower: 4, Upper: 6, Size: 5}, {Lower: 7, Upper: 10, Size: 8},
		{Lower: 1, Upper: 4, Size: 7}, {Lower: 1, Upper: 2, Size: 3},
		{Lower: 6, Upper: 9, Size: 9}, {Lower: 4, Upper: 7, Size: 5},
		{Lower: 5, Upper: 7, Size: 6}, {Lower: 0, Upper: 1, Size: 8},
		{Lower: 2, Upper: 5, Size: 9},
	}}
	if pk := Peak(p); pk != 20 {
		t.Fatalf("peak %d, want 20", pk)
	}
	best := &Minimum{Capacity: math.MaxInt64 / 8, LowerBound: 20}
	peakFirst(context.Background(), p, best, peakWindowWork, 1)
	if best.LowerBound != 21 {
		t.Fatalf("lower bound %d, want 21 (the window's minimum)", best.LowerBound)
	}
	if best.Capacity != 21 || best.Solution == nil {
		t.Fatalf("capacity %d, want 21", best.Capacity)
	}
	q := *p
	q.Capacity = best.Capacity
	if rep := Validate(&q, best.Solution); len(rep) > 0 {
		t.Fatal(rep[0])
	}
}

// MindSpore SOMAS PanGu 2.6B (18.7k buffers, past the exact search): the
// peak window placed first makes the placement reach the peak, a proven
// minimum (every greedy order ended 0.76-3.3% above).
func TestMinimizeLargeTraceReachesPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds")
	}
	f, err := os.Open(filepath.Join(conformance.SharedDir(), "corpus2", "alloc", "idealloc__somas_tensors_pangu_2.6B.csv"))
	if err != nil {
		t.Skip("corpus absent:", err)
	}
	tb, err := ReadCSV(f, 0, Limits{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := tb.ProblemFor("")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := Minimize(ctx, p, Exact, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Proven || m.Capacity != Peak(p) {
		t.Fatalf("capacity %d (peak %d), proven %v", m.Capacity, Peak(p), m.Proven)
	}
	q := *p
	q.Capacity = m.Capacity
	if rep := Validate(&q, m.Solution); len(rep) > 0 {
		t.Fatal(rep[0])
	}
}

// FuzzLargeMethods: the methods for problems past the exact search
// return valid placements, and the peak window never claims a lower bound
// above a proven minimum (the window is a subset, so its minimum cannot
// exceed the whole problem's).
func FuzzLargeMethods(f *testing.F) {
	f.Add("id,lower,upper,size\n0,0,10,4\n1,5,15,4\n2,9,12,7\n")
	f.Add("id,lower,upper,size\n0,4,6,5\n1,7,10,8\n2,1,4,7\n3,1,2,3\n4,6,9,9\n5,4,7,5\n6,5,7,6\n7,0,1,8\n8,2,5,9\n")
	f.Add("id,lower,upper,size,alignment,offset\na,0,9,16,8,\nb,-3,3,8,,16\nc,2,5,3,4,\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := ReadCSV(strings.NewReader(in), 0, Limits{MaxBytes: 1 << 12, MaxBuffers: 24, MaxGaps: 4})
		if err != nil {
			return
		}
		p := &tb.Problem
		q := *p
		q.Capacity = math.MaxInt64 / 4
		if CheckProblem(&q).HasErrors() {
			return // fixed offsets in conflict: nothing holds it
		}
		ctx := context.Background() // the solves below are bounded in work
		if s := skylinePortfolio(ctx, &q, 2); s != nil {
			if rep := Validate(&q, s); len(rep) > 0 {
				t.Fatalf("skyline: %v", rep[0])
			}
		}
		best := &Minimum{Capacity: math.MaxInt64 / 8, LowerBound: lowerBound(p)}
		peakFirst(ctx, p, best, 1e6, 1)
		if best.Solution != nil {
			r := *p
			r.Capacity = best.Capacity
			if rep := Validate(&r, best.Solution); len(rep) > 0 {
				t.Fatalf("peak-first: %v", rep[0])
			}
		}
		m, err := Minimize(ctx, p, Exact, Options{Workers: 1, Budget: testBudget})
		if err == nil && m.Proven && best.LowerBound > m.Capacity {
			t.Fatalf("lower bound %d above the proven minimum %d", best.LowerBound, m.Capacity)
		}
	})
}
