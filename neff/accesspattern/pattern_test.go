package accesspattern

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// naive enumerates every byte in access order and merges touching bytes.
func naive(p Pattern) []Run {
	var runs []Run
	var rec func(d int, off int64)
	emit := func(off int64) {
		if n := len(runs); n > 0 && runs[n-1].End() == off {
			runs[n-1].Len++
			return
		}
		runs = append(runs, Run{off, 1})
	}
	rec = func(d int, off int64) {
		if d < 0 {
			emit(off)
			return
		}
		for i := int64(0); i < p.Sizes[d]; i++ {
			rec(d-1, off+i*p.Steps[d])
		}
	}
	rec(len(p.Sizes)-1, p.Offset)
	return runs
}

func randomPattern(rng *rand.Rand) Pattern {
	n := 1 + rng.Intn(4)
	p := Pattern{Offset: int64(rng.Intn(64))}
	for i := 0; i < n; i++ {
		size := int64(rng.Intn(5))
		if rng.Intn(10) > 0 {
			size++
		}
		var step int64
		switch rng.Intn(6) {
		case 0:
			step = 1
		case 1:
			step = size
		case 2:
			step = -int64(rng.Intn(8))
		default:
			step = int64(rng.Intn(24))
		}
		if i == 0 && rng.Intn(3) > 0 {
			step = 1
		}
		if i > 0 && rng.Intn(3) == 0 { // contiguous with the dimension below
			ext := p.Sizes[0]
			for j := 1; j < i; j++ {
				ext *= p.Sizes[j]
			}
			step = ext
		}
		p.Sizes = append(p.Sizes, size)
		p.Steps = append(p.Steps, step)
	}
	p.Offset += 200
	return p
}

// Property: expansion equals the naive byte-by-byte reference on random
// patterns, and the summary, byte count and bounds agree with it.
func TestRunsMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	for iter := 0; iter < 20000; iter++ {
		p := randomPattern(rng)
		want := naive(p)
		got := slices.Collect(p.Runs())
		if !slices.Equal(got, want) {
			t.Fatalf("%+v:\n got %v\nwant %v", p, got, want)
		}
		var bytes int64
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		minRun, maxRun := int64(0), int64(0)
		for i, r := range want {
			bytes += r.Len
			lo, hi = min(lo, r.Off), max(hi, r.End())
			if i == 0 || r.Len < minRun {
				minRun = r.Len
			}
			maxRun = max(maxRun, r.Len)
		}
		if p.Bytes() != bytes {
			t.Fatalf("%+v: Bytes %d want %d", p, p.Bytes(), bytes)
		}
		s := p.Summarize()
		if s.Runs != int64(len(want)) || s.MinRun != minRun || s.MaxRun != maxRun {
			t.Fatalf("%+v: summary %+v, want runs %d min %d max %d", p, s, len(want), minRun, maxRun)
		}
		if bytes > 0 {
			blo, bhi := p.Bounds()
			if blo != lo || bhi != hi {
				t.Fatalf("%+v: bounds [%d,%d) want [%d,%d)", p, blo, bhi, lo, hi)
			}
		}
	}
}

func TestRealShapes(t *testing.T) {
	// A state-buffer read: 128 partitions of 1776 bytes, partition stride 262144.
	sb := Pattern{Offset: 40968, Sizes: []int64{1776, 128}, Steps: []int64{1, 262144}}
	if s := sb.Summarize(); s.Runs != 128 || s.MinRun != 1776 || s.Bytes != 1776*128 {
		t.Fatalf("%+v", s)
	}
	// A row-major HBM write whose rows are adjacent folds into one run.
	hbm := Pattern{Offset: 0, Sizes: []int64{888, 128}, Steps: []int64{1, 888}}
	if runs := slices.Collect(hbm.Runs()); len(runs) != 1 || runs[0] != (Run{0, 888 * 128}) {
		t.Fatalf("%v", runs)
	}
	lo, hi := sb.Bounds()
	if lo != 40968 || hi != 40968+127*262144+1776 {
		t.Fatalf("[%d,%d)", lo, hi)
	}
}

func TestValidate(t *testing.T) {
	bad := []Pattern{
		{},
		{Sizes: []int64{1, 2, 3, 4, 5}, Steps: []int64{1, 1, 1, 1, 1}},
		{Sizes: []int64{4}, Steps: []int64{1, 2}},
		{Sizes: []int64{-1}, Steps: []int64{1}},
		{Sizes: []int64{math.MaxInt64, 2}, Steps: []int64{1, 1}},
		{Sizes: []int64{2, 2}, Steps: []int64{1, math.MaxInt64}},
	}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
		for range p.Runs() {
			t.Errorf("%+v yielded runs", p)
		}
	}
}

// A pattern describing a huge transfer is summarised without walking it.
func TestHugeSummaryIsArithmetic(t *testing.T) {
	p := Pattern{Sizes: []int64{64, 1 << 20, 1 << 10}, Steps: []int64{1, 128, 1 << 28}}
	s := p.Summarize()
	if s.Runs != 1<<30 || s.Bytes != 64<<30 {
		t.Fatalf("%+v", s)
	}
}

func FuzzRuns(f *testing.F) {
	f.Add(int64(0), int64(4), int64(1), int64(3), int64(8))
	f.Fuzz(func(t *testing.T, off, s0, st0, s1, st1 int64) {
		p := Pattern{Offset: off, Sizes: []int64{s0 % 64, s1 % 64}, Steps: []int64{st0, st1}}
		var total int64
		for r := range p.Runs() {
			if r.Len <= 0 {
				t.Fatalf("empty run %v", r)
			}
			total += r.Len
		}
		if p.Validate() == nil && total != p.Bytes() {
			t.Fatalf("%+v: runs cover %d bytes, Bytes %d", p, total, p.Bytes())
		}
	})
}
