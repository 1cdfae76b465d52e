package alloc

import (
	"fmt"

	"github.com/npukit/npukit/internal/humanize"
)

// OffsetUse says what an offset column of a problem CSV stands for.
type OffsetUse string

const (
	// OffsetsAuto: a column with an offset on every row and no `fixed`
	// column is a previous solution (a compiler's own placement, such as
	// the IREE traces users share); otherwise the offsets given are fixed
	// (MiniMalloc's meaning, and the rows a `fixed` column marks).
	OffsetsAuto OffsetUse = "auto"
	// OffsetsFixed pins every offset given.
	OffsetsFixed OffsetUse = "fixed"
	// OffsetsPrevious places every buffer freely; the offsets are a
	// previous solution to compare with.
	OffsetsPrevious OffsetUse = "previous"
)

// ParseOffsetUse reads auto, fixed or previous.
func ParseOffsetUse(s string) (OffsetUse, error) {
	switch u := OffsetUse(s); u {
	case OffsetsAuto, OffsetsFixed, OffsetsPrevious:
		return u, nil
	case "":
		return OffsetsAuto, nil
	}
	return "", fmt.Errorf("%q: want auto, fixed or previous", s)
}

// Offsets is what the offset column of a table was taken as.
type Offsets struct {
	Use OffsetUse `json:"use"` // fixed or previous; "" without a column
	// Previous is the previous solution when Use is previous, and its
	// height (max offset+size).
	Previous       *Solution `json:"-"`
	PreviousHeight int64     `json:"previous_height,omitempty"`
	// Assumed says the reading was npukit's choice (auto), not the user's.
	Assumed bool   `json:"assumed"`
	Text    string `json:"text"`
}

// ProblemFor returns the problem to solve with the offset column used as
// use says, and how it was used. The table is not changed.
func (t *Table) ProblemFor(use OffsetUse) (*Problem, Offsets) {
	p := t.Problem
	if !t.HasOffsetColumn() {
		return &p, Offsets{}
	}
	sol, full := t.fullSolution()
	o := Offsets{Use: use, Assumed: use == OffsetsAuto}
	if use == OffsetsAuto {
		o.Use = OffsetsFixed
		if full && !t.hasFixedCol {
			o.Use = OffsetsPrevious
		}
	}
	switch o.Use {
	case OffsetsPrevious:
		p.Buffers = append([]Buffer(nil), p.Buffers...)
		for i := range p.Buffers {
			p.Buffers[i].Fixed = false
		}
		if full {
			o.Previous = sol
			o.PreviousHeight = Height(&p, sol)
		}
		o.Text = "the offset column is read as a previous solution and every buffer is placed anew"
		if full {
			o.Text += fmt.Sprintf(" (its height: %s bytes)", humanize.Count(o.PreviousHeight))
		}
		if o.Assumed {
			o.Text += "; every row has an offset and no `fixed` column says otherwise (--offsets fixed pins them)"
		}
	default:
		p.Buffers = append([]Buffer(nil), p.Buffers...)
		n := 0
		for i, ok := range t.HasOffset {
			if ok && (use == OffsetsFixed || p.Buffers[i].Fixed) {
				p.Buffers[i].Offset, p.Buffers[i].Fixed = t.Offsets[i], true
				n++
			}
		}
		o.Text = fmt.Sprintf("%d offsets of the offset column are fixed", n)
		if o.Assumed {
			o.Text += " (MiniMalloc's meaning; --offsets previous places them anew)"
		}
	}
	return &p, o
}

// HalfOpenEnds returns a copy of a problem read from an inclusive `end`
// column with the ends taken as half-open instead (one less): the other
// convention, which MiniMalloc's own benchmark files used while their
// column was already half-open. It returns nil when the table's ends were
// not inclusive.
func (t *Table) HalfOpenEnds(p *Problem) *Problem {
	if !t.InclusiveEnd {
		return nil
	}
	q := *p
	q.Buffers = append([]Buffer(nil), p.Buffers...)
	for i := range q.Buffers {
		b := &q.Buffers[i]
		if b.Upper > b.Lower {
			b.Upper--
		}
		if len(b.Gaps) > 0 {
			gs := append([]Gap(nil), b.Gaps...)
			for k := range gs {
				if gs[k].Upper > gs[k].Lower {
					gs[k].Upper--
				}
			}
			b.Gaps = gs
		}
	}
	return &q
}

// EndsHalfOpen marks a table read from an inclusive `end` column as
// holding half-open ends (HalfOpenEnds' reading, once chosen): its header
// names that column `upper`, so a solution written from it (WriteSolution)
// reads back with the ends it was solved with.
func (t *Table) EndsHalfOpen() {
	if !t.InclusiveEnd {
		return
	}
	for i, name := range t.Header {
		if c, incl, ok := CanonicalColumn(name); ok && c == ColUpper && incl {
			t.Header[i] = string(ColUpper)
		}
	}
	t.InclusiveEnd = false
}
