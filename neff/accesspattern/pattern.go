// Package accesspattern is the one model of a NEFF DMA access pattern,
// used by the checker, the traffic analysis, the functional executor and
// the DMA simulator alike.
//
// A pattern is an offset plus up to four dimensions listed innermost
// first. sizes[0] counts bytes and every other size counts elements of the
// dimension below; every step is in bytes (NEFF spec, "from_sizes/to_sizes"
// and "from_steps/to_steps"). Byte i of the innermost dimension lies at
// i*steps[0], so steps[0] == 1 (the only value real files use) makes the
// innermost dimension one contiguous run.
//
// Expansion yields maximal contiguous runs in access order: dimensions
// whose step equals the extent of everything inside them are folded into
// the run arithmetically, and any further touching runs are merged as
// they stream out, so no byte list is ever built.
package accesspattern

import (
	"errors"
	"fmt"
	"iter"
	"math"
)

// MaxDims is the most dimensions a pattern may have.
const MaxDims = 4

// Pattern is one side (from or to) of a DMA descriptor.
type Pattern struct {
	Offset int64
	Sizes  []int64
	Steps  []int64
}

// Run is a contiguous byte range [Off, Off+Len).
type Run struct {
	Off, Len int64
}

// End is Off+Len.
func (r Run) End() int64 { return r.Off + r.Len }

// Validate checks the pattern's shape: 1..4 dimensions, as many steps as
// sizes, no negative size, and a total byte count and address range that
// fit in int64.
func (p Pattern) Validate() error {
	switch {
	case len(p.Sizes) == 0:
		return errors.New("access pattern has no dimensions")
	case len(p.Sizes) > MaxDims:
		return fmt.Errorf("access pattern has %d dimensions (at most %d)", len(p.Sizes), MaxDims)
	case len(p.Sizes) != len(p.Steps):
		return fmt.Errorf("access pattern has %d sizes but %d steps", len(p.Sizes), len(p.Steps))
	}
	for i, s := range p.Sizes {
		if s < 0 {
			return fmt.Errorf("size[%d] = %d is negative", i, s)
		}
	}
	if _, ok := p.bytes(); !ok {
		return errors.New("access pattern byte count overflows")
	}
	if _, _, ok := p.bounds(); !ok {
		return errors.New("access pattern address range overflows")
	}
	return nil
}

// Bytes is the number of bytes moved: sizes[0] * sizes[1] * ... (0 when
// the pattern is invalid).
func (p Pattern) Bytes() int64 {
	n, _ := p.bytes()
	return n
}

func (p Pattern) bytes() (int64, bool) {
	if len(p.Sizes) == 0 {
		return 0, true
	}
	n := int64(1)
	for _, s := range p.Sizes {
		if s == 0 {
			return 0, true
		}
		if s < 0 || n > math.MaxInt64/s {
			return 0, false
		}
		n *= s
	}
	return n, true
}

// Bounds returns the half-open byte range [lo, hi) the pattern touches
// (lo == hi when it moves nothing).
func (p Pattern) Bounds() (lo, hi int64) {
	lo, hi, _ = p.bounds()
	return lo, hi
}

func (p Pattern) bounds() (lo, hi int64, ok bool) {
	if n, _ := p.bytes(); n == 0 || len(p.Sizes) != len(p.Steps) {
		return p.Offset, p.Offset, true
	}
	lo, hi = p.Offset, p.Offset
	for i, s := range p.Sizes {
		span, ok := mul(s-1, p.Steps[i])
		if !ok {
			return 0, 0, false
		}
		if span < 0 {
			if lo, ok = add(lo, span); !ok {
				return 0, 0, false
			}
		} else if hi, ok = add(hi, span); !ok {
			return 0, 0, false
		}
	}
	if hi == math.MaxInt64 {
		return 0, 0, false
	}
	return lo, hi + 1, true
}

func mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func add(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// dim is one outer dimension after normalisation.
type dim struct{ size, step int64 }

// shape normalises the pattern into a base run length and the outer
// dimensions that remain after folding contiguous ones (innermost first).
func (p Pattern) shape() (runLen int64, dims []dim) {
	runLen = 1
	if p.Steps[0] == 1 {
		runLen = p.Sizes[0]
	} else {
		dims = append(dims, dim{p.Sizes[0], p.Steps[0]})
	}
	for i := 1; i < len(p.Sizes); i++ {
		dims = append(dims, dim{p.Sizes[i], p.Steps[i]})
	}
	// Fold: a dimension whose step equals the run length continues the run.
	out := dims[:0]
	for _, d := range dims {
		switch {
		case d.size == 1:
			continue
		case len(out) == 0 && d.step == runLen:
			runLen *= d.size
		default:
			out = append(out, d)
		}
	}
	return runLen, out
}

// Runs yields the maximal contiguous runs in access order. The pattern
// must be valid (see Validate); an invalid one yields nothing.
func (p Pattern) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		c := p.Cursor()
		for {
			r, ok := c.Next()
			if !ok || !yield(r) {
				return
			}
		}
	}
}

// Cursor walks a pattern's runs with explicit state (no goroutine or
// coroutine), for callers that advance two patterns in step.
type Cursor struct {
	runLen  int64
	dims    [MaxDims]dim
	nd      int
	idx     [MaxDims]int64
	off     int64
	done    bool
	pending Run
	have    bool
}

// Cursor returns a cursor at the pattern's first run. An invalid or empty
// pattern gives a cursor with no runs.
func (p Pattern) Cursor() *Cursor {
	c := &Cursor{done: true}
	if p.Validate() != nil || p.Bytes() == 0 {
		return c
	}
	runLen, dims := p.shape()
	c.runLen, c.nd, c.off, c.done = runLen, copy(c.dims[:], dims), p.Offset, false
	return c
}

// Next returns the next maximal run.
func (c *Cursor) Next() (Run, bool) {
	for !c.done {
		off := c.off
		c.advance()
		if c.have && off == c.pending.End() {
			c.pending.Len += c.runLen
			continue
		}
		if c.have {
			r := c.pending
			c.pending = Run{off, c.runLen}
			return r, true
		}
		c.pending, c.have = Run{off, c.runLen}, true
	}
	if c.have {
		c.have = false
		return c.pending, true
	}
	return Run{}, false
}

// advance moves the odometer to the next base run.
func (c *Cursor) advance() {
	for k := 0; k < c.nd; k++ {
		c.idx[k]++
		c.off += c.dims[k].step
		if c.idx[k] < c.dims[k].size {
			return
		}
		c.off -= c.dims[k].step * c.dims[k].size
		c.idx[k] = 0
	}
	c.done = true
}

// Summary describes a pattern's runs.
type Summary struct {
	Bytes  int64 `json:"bytes"`
	Runs   int64 `json:"runs"`
	MinRun int64 `json:"min_run"`
	MaxRun int64 `json:"max_run"`
}

// Summarize counts runs and their sizes. When no touching runs can merge
// beyond folding (the common case) it is computed arithmetically;
// otherwise it walks the runs.
func (p Pattern) Summarize() Summary {
	s := Summary{Bytes: p.Bytes()}
	if p.Validate() != nil || s.Bytes == 0 {
		return s
	}
	runLen, dims := p.shape()
	if canMergeAcrossDims(runLen, dims) {
		for r := range p.Runs() {
			if s.Runs == 0 || r.Len < s.MinRun {
				s.MinRun = r.Len
			}
			s.MaxRun = max(s.MaxRun, r.Len)
			s.Runs++
		}
		return s
	}
	s.Runs = s.Bytes / runLen
	s.MinRun, s.MaxRun = runLen, runLen
	return s
}

// canMergeAcrossDims reports whether two consecutive runs could touch, in
// which case the streaming merge (not arithmetic) decides. Consecutive
// runs touch only when an odometer step moves the offset by exactly runLen.
func canMergeAcrossDims(runLen int64, dims []dim) bool {
	var back int64 // how far the lower dimensions jump back when they wrap
	for _, d := range dims {
		if d.step-back == runLen {
			return true
		}
		back += d.step * (d.size - 1)
	}
	return false
}
