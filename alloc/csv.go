package alloc

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits bound what the CSV reader accepts, so that malformed or hostile
// input cannot make it allocate without bound. The zero value means
// DefaultLimits.
type Limits struct {
	MaxBytes   int64 // total input bytes read
	MaxBuffers int   // data rows
	MaxGaps    int   // gaps per buffer
}

// DefaultLimits are generous for real problems (MiniMalloc's benchmark has
// a few hundred buffers).
var DefaultLimits = Limits{MaxBytes: 256 << 20, MaxBuffers: 1 << 20, MaxGaps: 4096}

func (l Limits) orDefault() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxBuffers <= 0 {
		l.MaxBuffers = DefaultLimits.MaxBuffers
	}
	if l.MaxGaps <= 0 {
		l.MaxGaps = DefaultLimits.MaxGaps
	}
	return l
}

// MaxValue bounds the magnitudes the reader accepts: times, offsets and
// the sum of all sizes (1 EiB); MaxAlignment bounds alignments (4 GiB).
// Within them no offset, end or sum the solvers compute (fixed top + all
// sizes + alignment padding of up to MaxBuffers buffers) overflows int64.
const (
	MaxValue     = 1 << 60
	MaxAlignment = 1 << 32
)

const bom = "\ufeff"

// Table is a parsed allocation CSV: the problem plus the raw rows, so a
// solution can be written back as "the input CSV plus an offset column".
type Table struct {
	Problem Problem
	Header  []string   // the header row as read
	Rows    [][]string // data rows as read, index-aligned with Problem.Buffers
	// Offsets holds the offset column when present (a solution file, or
	// fixed offsets of a problem); HasOffset[i] is false for empty cells.
	Offsets   []int64
	HasOffset []bool
	offsetCol int // index of the offset column in Header, -1 when absent
	// InclusiveEnd says the lifespans came from an inclusive `end` column
	// (converted to half-open by adding one).
	InclusiveEnd bool
	hasFixedCol  bool
}

// HasOffsetColumn reports whether the file has an offset column.
func (t *Table) HasOffsetColumn() bool { return t.offsetCol >= 0 }

// limitedReader fails (instead of silently truncating) once more than n
// bytes have been read.
type limitedReader struct {
	r io.Reader
	n int64
}

var errTooLarge = errors.New("input too large")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// ReadCSV reads a MiniMalloc-style allocation CSV. Columns are matched by
// name through aliases (see CanonicalColumn); `end` is inclusive and is
// converted to a half-open upper bound. An `offset` column marks fixed
// offsets (as in MiniMalloc) unless a `fixed` column says which rows are
// fixed. capacity is stored in the problem as given (CSV files carry none).
func ReadCSV(r io.Reader, capacity int64, lim Limits) (*Table, error) {
	lim = lim.orDefault()
	// The input is read whole (within MaxBytes) so that the rows can be
	// counted and the tables sized once: growing them row by row copied
	// and cleared hundreds of MB on 10^6 rows (6 s, most of the read).
	var in bytes.Buffer
	if l, ok := r.(interface{ Len() int }); ok {
		in.Grow(int(min(int64(l.Len()), lim.MaxBytes)) + bytes.MinRead) // one allocation
	}
	if _, err := in.ReadFrom(&limitedReader{r: r, n: lim.MaxBytes}); err != nil {
		return nil, err
	}
	data := in.Bytes()
	rows := min(bytes.Count(data, []byte{'\n'})+1, lim.MaxBuffers+1)
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	// MiniMalloc splits on commas and knows no quoting: a stray quote in
	// an id is data, not a syntax error.
	cr.LazyQuotes = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("line 1: empty file, expected a header row")
		}
		return nil, fmt.Errorf("line 1: %w", err)
	}
	if len(header) > 0 {
		// A byte order mark (spreadsheet exports) is not part of the name.
		header[0] = strings.TrimPrefix(header[0], bom)
	}
	cols := map[Column]int{}
	inclusiveEnd := false
	for i, name := range header {
		c, incl, ok := CanonicalColumn(name)
		if !ok {
			continue // unknown columns are carried along untouched
		}
		if _, dup := cols[c]; dup {
			return nil, fmt.Errorf("line 1: column %q: %s given twice", name, c)
		}
		cols[c] = i
		if c == ColUpper {
			inclusiveEnd = incl
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("line 1: no header row: the first line must name the columns id, lower, upper, size (got %q)", strings.Join(header, ","))
	}
	for _, c := range []Column{ColID, ColLower, ColUpper, ColSize} {
		if _, ok := cols[c]; !ok {
			return nil, fmt.Errorf("line 1: missing required column %q (header: %s)", c, strings.Join(header, ","))
		}
	}
	_, hasFixedCol := cols[ColFixed]
	t := &Table{Header: header, offsetCol: -1, Problem: Problem{Capacity: capacity}, InclusiveEnd: inclusiveEnd, hasFixedCol: hasFixedCol}
	if i, ok := cols[ColOffset]; ok {
		t.offsetCol = i
	}
	t.Problem.Buffers = make([]Buffer, 0, rows)
	t.Rows = make([][]string, 0, rows)
	t.Offsets = make([]int64, 0, rows)
	t.HasOffset = make([]bool, 0, rows)
	// Column positions, looked up once rather than per cell (-1: absent).
	var at [numColumns]int
	for c := range at {
		at[c] = -1
	}
	for c, i := range cols {
		at[c.index()] = i
	}
	var total int64 // sum of sizes, bounded by MaxValue
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // a csv.ParseError names the line
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		line, _ := cr.FieldPos(0)
		if len(t.Rows) >= lim.MaxBuffers {
			return nil, fmt.Errorf("line %d: more than %d buffers", line, lim.MaxBuffers)
		}
		if len(rec) > len(header) {
			for _, extra := range rec[len(header):] {
				if strings.TrimSpace(extra) != "" {
					return nil, fmt.Errorf("line %d: %d fields, but the header names %d columns", line, len(rec), len(header))
				}
			}
		}
		cell := func(c Column) (string, bool) {
			i := at[c.index()]
			if i < 0 || i >= len(rec) {
				return "", false
			}
			s := strings.TrimSpace(rec[i])
			return s, s != ""
		}
		num := func(c Column) (int64, bool, error) {
			s, ok := cell(c)
			if !ok {
				return 0, false, nil
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, false, fmt.Errorf("line %d: column %s: %q is not an integer", line, c, s)
			}
			return v, true, nil
		}
		var b Buffer
		// Ids are names (MiniMalloc keeps them as strings and accepts
		// repeats; SolutionFrom matches repeated ids by row).
		id, ok := cell(ColID)
		if !ok {
			return nil, fmt.Errorf("line %d: empty id", line)
		}
		b.ID = id
		for _, f := range []struct {
			c   Column
			dst *int64
		}{{ColLower, &b.Lower}, {ColUpper, &b.Upper}, {ColSize, &b.Size}} {
			v, ok, err := num(f.c)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("line %d: buffer %q: empty %s", line, id, f.c)
			}
			*f.dst = v
		}
		if inclusiveEnd {
			if b.Upper == math.MaxInt64 {
				return nil, fmt.Errorf("line %d: buffer %q: end %d overflows", line, id, b.Upper)
			}
			b.Upper++
		}
		// Times may be negative (MiniMalloc reads signed integers); they
		// are bounded so that lengths and sums cannot overflow.
		if b.Upper < b.Lower {
			return nil, fmt.Errorf("line %d: buffer %q: lifespan [%d, %d) is not a valid range", line, id, b.Lower, b.Upper)
		}
		if b.Lower < -MaxValue || b.Upper > MaxValue {
			return nil, fmt.Errorf("line %d: buffer %q: lifespan [%d, %d) beyond ±%d", line, id, b.Lower, b.Upper, int64(MaxValue))
		}
		if b.Size < 0 {
			return nil, fmt.Errorf("line %d: buffer %q: negative size %d", line, id, b.Size)
		}
		if total += b.Size; b.Size > MaxValue || total > MaxValue {
			return nil, fmt.Errorf("line %d: buffer %q: the sizes up to this row add up to more than %d bytes", line, id, int64(MaxValue))
		}
		if v, ok, err := num(ColAlignment); err != nil {
			return nil, err
		} else if ok {
			if v < 0 || v > MaxAlignment {
				return nil, fmt.Errorf("line %d: buffer %q: alignment %d outside [0, %d]", line, id, v, int64(MaxAlignment))
			}
			b.Alignment = v
		}
		if v, ok, err := num(ColHint); err != nil {
			return nil, err
		} else if ok {
			b.Hint, b.HasHint = v, true
		}
		if s, ok := cell(ColGaps); ok {
			gaps, err := parseGaps(s, lim.MaxGaps, inclusiveEnd)
			if err != nil {
				return nil, fmt.Errorf("line %d: buffer %q: gaps: %w", line, id, err)
			}
			b.Gaps = gaps
		}
		off, hasOff, err := num(ColOffset)
		if err != nil {
			return nil, err
		}
		if hasOff && (off < -MaxValue || off > MaxValue) {
			return nil, fmt.Errorf("line %d: buffer %q: offset %d beyond ±%d", line, id, off, int64(MaxValue))
		}
		fixed := hasOff
		if s, ok := cell(ColFixed); ok {
			switch strings.ToLower(s) {
			case "1", "true", "yes":
				fixed = true
			case "0", "false", "no":
				fixed = false
			default:
				return nil, fmt.Errorf("line %d: column fixed: %q is not a boolean", line, s)
			}
			if fixed && !hasOff {
				return nil, fmt.Errorf("line %d: buffer %q: fixed without an offset", line, id)
			}
		} else if hasFixedCol {
			fixed = false
		}
		if fixed {
			b.Offset, b.Fixed = off, true
		}
		t.Problem.Buffers = append(t.Problem.Buffers, b)
		t.Rows = append(t.Rows, rec)
		t.Offsets = append(t.Offsets, off)
		t.HasOffset = append(t.HasOffset, hasOff)
	}
	return t, nil
}

// parseGaps parses space-separated `lo-hi` or `lo-hi@wlo:whi` items. In a
// file with an inclusive `end` column, gap ends are inclusive too
// (MiniMalloc adds one to both).
func parseGaps(s string, max int, inclusive bool) ([]Gap, error) {
	var gaps []Gap
	for _, item := range strings.Fields(s) {
		if len(gaps) >= max {
			return nil, fmt.Errorf("more than %d gaps", max)
		}
		span, win, hasWin := strings.Cut(item, "@")
		lo, hi, ok := strings.Cut(span, "-")
		if !ok {
			return nil, fmt.Errorf("%q: expected lo-hi", item)
		}
		var g Gap
		var err error
		if g.Lower, err = strconv.ParseInt(lo, 10, 64); err != nil {
			return nil, fmt.Errorf("%q: bad lower bound", item)
		}
		if g.Upper, err = strconv.ParseInt(hi, 10, 64); err != nil {
			return nil, fmt.Errorf("%q: bad upper bound", item)
		}
		if g.Lower < -MaxValue || g.Upper > MaxValue {
			return nil, fmt.Errorf("%q: beyond ±%d", item, int64(MaxValue))
		}
		if inclusive {
			g.Upper++
		}
		if g.Upper < g.Lower {
			return nil, fmt.Errorf("%q: upper bound below lower bound", item)
		}
		if hasWin {
			wl, wh, ok := strings.Cut(win, ":")
			if !ok {
				return nil, fmt.Errorf("%q: expected @wlo:whi", item)
			}
			w := &Window{}
			if w.Lo, err = strconv.ParseInt(wl, 10, 64); err != nil {
				return nil, fmt.Errorf("%q: bad window start", item)
			}
			if w.Hi, err = strconv.ParseInt(wh, 10, 64); err != nil {
				return nil, fmt.Errorf("%q: bad window end", item)
			}
			if w.Lo < 0 || w.Hi < w.Lo || w.Hi > MaxValue {
				return nil, fmt.Errorf("%q: window is not a valid range", item)
			}
			g.Window = w
		}
		gaps = append(gaps, g)
	}
	return gaps, nil
}

func formatGaps(gaps []Gap) string {
	var sb strings.Builder
	for i, g := range gaps {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d-%d", g.Lower, g.Upper)
		if g.Window != nil {
			fmt.Fprintf(&sb, "@%d:%d", g.Window.Lo, g.Window.Hi)
		}
	}
	return sb.String()
}

// WriteSolution writes the table's rows with the solution's offsets in the
// offset column (replacing an existing one, or appended as a new last
// column).
func (t *Table) WriteSolution(w io.Writer, sol *Solution) error {
	if sol == nil || len(sol.Offsets) != len(t.Rows) {
		return errors.New("solution does not match the table")
	}
	cw := csv.NewWriter(w)
	col := t.offsetCol
	header := append([]string(nil), t.Header...)
	if col < 0 {
		col = len(header)
		header = append(header, string(ColOffset))
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, r := range t.Rows {
		row := make([]string, len(header))
		copy(row, r)
		row[col] = strconv.FormatInt(sol.Offsets[i], 10)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSV writes a problem (and, when sol is not nil, its solution) in
// canonical columns: id,lower,upper,size plus alignment, hint and gaps when
// any buffer uses them, and offset (the solution, or fixed offsets).
func WriteCSV(w io.Writer, p *Problem, sol *Solution) error {
	if sol != nil && len(sol.Offsets) != len(p.Buffers) {
		return errors.New("solution does not match the problem")
	}
	var align, hint, gaps, fixed bool
	for _, b := range p.Buffers {
		align = align || b.Alignment > 1
		hint = hint || b.HasHint
		gaps = gaps || len(b.Gaps) > 0
		fixed = fixed || b.Fixed
	}
	header := []string{"id", "lower", "upper", "size"}
	if align {
		header = append(header, "alignment")
	}
	if hint {
		header = append(header, "hint")
	}
	if gaps {
		header = append(header, "gaps")
	}
	if sol != nil || fixed {
		header = append(header, "offset")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for i, b := range p.Buffers {
		row := []string{b.ID, i64(b.Lower), i64(b.Upper), i64(b.Size)}
		if align {
			row = append(row, i64(max(b.Alignment, 1)))
		}
		if hint {
			s := ""
			if b.HasHint {
				s = i64(b.Hint)
			}
			row = append(row, s)
		}
		if gaps {
			row = append(row, formatGaps(b.Gaps))
		}
		switch {
		case sol != nil:
			row = append(row, i64(sol.Offsets[i]))
		case fixed:
			s := ""
			if b.Fixed {
				s = i64(b.Offset)
			}
			row = append(row, s)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SolutionFrom reads the offsets of a solution table for problem p. Rows
// are matched by buffer id; when the solution lists the same ids in the
// same order (always the case for files written by WriteSolution) they
// are matched by row, which also serves ids used more than once.
func SolutionFrom(p *Problem, t *Table) (*Solution, error) {
	if !t.HasOffsetColumn() {
		return nil, errors.New("solution has no offset column")
	}
	sol := &Solution{Offsets: make([]int64, len(p.Buffers))}
	take := func(i, j int) error {
		if !t.HasOffset[j] {
			return fmt.Errorf("buffer %q (row %d): empty offset in the solution", p.Buffers[i].ID, j+1)
		}
		sol.Offsets[i] = t.Offsets[j]
		return nil
	}
	sameRows := len(t.Problem.Buffers) == len(p.Buffers)
	for i := 0; sameRows && i < len(p.Buffers); i++ {
		sameRows = t.Problem.Buffers[i].ID == p.Buffers[i].ID
	}
	if sameRows {
		for i := range p.Buffers {
			if err := take(i, i); err != nil {
				return nil, err
			}
		}
		return sol, nil
	}
	byID := make(map[string]int, len(t.Problem.Buffers))
	for i, b := range t.Problem.Buffers {
		if _, dup := byID[b.ID]; dup {
			byID[b.ID] = -1
			continue
		}
		byID[b.ID] = i
	}
	for i, b := range p.Buffers {
		j, ok := byID[b.ID]
		switch {
		case !ok:
			return nil, fmt.Errorf("buffer %q: not in the solution", b.ID)
		case j < 0:
			return nil, fmt.Errorf("buffer %q: id used more than once in the solution, whose rows differ from the problem's", b.ID)
		}
		if err := take(i, j); err != nil {
			return nil, err
		}
	}
	return sol, nil
}

// numColumns is the number of canonical columns; index numbers them for
// the reader's per-row lookups.
const numColumns = 9

func (c Column) index() int {
	switch c {
	case ColID:
		return 0
	case ColLower:
		return 1
	case ColUpper:
		return 2
	case ColSize:
		return 3
	case ColAlignment:
		return 4
	case ColGaps:
		return 5
	case ColOffset:
		return 6
	case ColHint:
		return 7
	}
	return 8 // ColFixed
}
