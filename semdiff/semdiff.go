// Package semdiff holds what every kind's semantic diff shares: a change
// of one quantity in the user's terms (bytes, counts, names), exact in
// JSON (numbers stay numbers, never 1.720404e+06) and readable in text,
// and the rendering of a verdict-first difference report. It knows no
// format; each format package computes its own quantities.
package semdiff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
)

// Units of a Change.
const (
	Bytes  = "bytes"
	Count  = "count"
	Cycles = "cycles"
	Nanos  = "ns" // a time in nanoseconds, worded at its scale
	Text   = ""   // a name, version or other word
)

// Change is one quantity that differs between A and B. A or B is nil when
// the thing is absent on that side (a layer, an input, a member).
type Change struct {
	What string `json:"what"`
	Unit string `json:"unit,omitempty"`
	A    any    `json:"a"`
	B    any    `json:"b"`
}

// String renders "What: A -> B" with bytes in binary units, counts with
// thousands separators and a signed difference for numbers.
func (c Change) String() string {
	s := fmt.Sprintf("%s: %s -> %s", c.What, c.format(c.A, true), c.format(c.B, true))
	if a, ok := c.A.(int64); ok {
		if b, ok := c.B.(int64); ok && c.Unit != Text {
			d := b - a
			sign := "+"
			if d < 0 {
				sign, d = "-", -d
			}
			s += " (" + sign + c.format(d, false) + ")"
		}
	}
	return s
}

// Short renders "what A -> B" with rounded units only, for a one-line
// statement.
func (c Change) Short() string {
	s := fmt.Sprintf("%s %s -> %s", c.What, c.format(c.A, false), c.format(c.B, false))
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// format renders a value; exact adds the byte count to a rounded size.
func (c Change) format(v any, exact bool) string {
	switch x := v.(type) {
	case nil:
		return "absent"
	case int64:
		switch c.Unit {
		case Bytes:
			if exact && (x >= 1024 || x <= -1024) {
				return fmt.Sprintf("%s (%s B)", humanize.Bytes(x), humanize.Count(x))
			}
			return humanize.Bytes(x)
		case Text:
			return fmt.Sprint(x)
		case Nanos:
			return humanize.Nanos(x)
		}
		return humanize.Count(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}

// List collects changes, keeping only quantities that differ.
type List []Change

// Int adds what when a != b.
func (l *List) Int(what, unit string, a, b int64) {
	if a != b {
		*l = append(*l, Change{What: what, Unit: unit, A: a, B: b})
	}
}

// Str adds what when a != b; "" counts as absent.
func (l *List) Str(what, a, b string) {
	if a != b {
		*l = append(*l, Change{What: what, A: orNil(a), B: orNil(b)})
	}
}

// Presence adds what as present on one side only (onA: present in A).
func (l *List) Presence(what string, desc string, onA bool) {
	if onA {
		*l = append(*l, Change{What: what, A: desc, B: nil})
	} else {
		*l = append(*l, Change{What: what, A: nil, B: desc})
	}
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Hex renders a 64-bit token or address the way inspect prints it.
func Hex(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// Value converts a decoded JSON value (decoded with UseNumber) to what a
// Change holds: an int64 when the number is integral and fits, the exact
// number text otherwise, strings as they are, anything else as compact
// JSON.
func Value(v any) any {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		return x
	case string, bool:
		return x
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// Statement joins the first n changes' short forms with "; " and says
// how many more there are.
func (l List) Statement(n int) string {
	var parts []string
	for i, c := range l {
		if i == n {
			parts = append(parts, fmt.Sprintf("%d more", len(l)-n))
			break
		}
		parts = append(parts, c.Short())
	}
	return strings.Join(parts, "; ")
}

// WriteVerdict writes the changes as indented lines under a heading, or
// nothing when there are none.
func WriteVerdict(b *strings.Builder, heading string, l List) {
	if len(l) == 0 {
		return
	}
	fmt.Fprintf(b, "%s\n", heading)
	for _, c := range l {
		fmt.Fprintf(b, "  %s\n", c)
	}
}
