// Package zebu reads the instruction traces the ZeBu hardware emulator prints
// for a Gemini schedule run, the timing ground truth npukit's Gemini simulator
// is checked against.
//
// Format (one instruction per line, a Python literal):
//
//	[name, {'slyr': 0, 'clyr': [..], 's_flyr': 0, 'c_flyr': [..], 'wkl': 0, 'tile': -1},
//	       {'inst_idx': 7, 'time': [161, 23549]}, {'RS': 0, 'Tile': [1, 3, 224, 224], ...}]
//
// name is the instruction (ct_st, lda_mov, ldw_mov, lw_mov, pe_conv, vp_self,
// sta_mov, *_cfg_* ...); its prefix up to the first '_' is the unit class: ct
// (control), ld/lda/ldw (DRAM loads), lw (weight buffer WL0 loads), pe, vp, dt
// (compute units), st/sta (stores to DRAM). Times are core cycles. The run's
// total is the end of the last instruction (ct_ed). Configuration
// instructions (_cfg) take a few cycles on their unit's queue and are kept but
// left out of the per-workload spans.
//
// Values are the subset of Python literals the emulator emits: integers,
// floats, quoted strings, True/False/None, lists, dicts and enum reprs
// (<DataFmt.FP16: 3>).
package zebu

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/inputfile"
)

// MaxLine bounds one line of a trace (real lines are under 1 KiB).
const MaxLine = 1 << 20

// Inst is one emulated instruction.
type Inst struct {
	Line     int    // 1-based line number in the trace
	Name     string // ldw_mov
	Class    string // ldw: the unit, the name up to the first '_'
	Config   bool   // a configuration instruction (_cfg in the name)
	Layer    int64  // slyr: scheduler layer index
	Workload int64  // wkl: workload id in the schedule
	Tile     int64  // intra-workload tile, -1 for whole-workload instructions
	Index    int64  // inst_idx
	Start    int64  // cycles
	End      int64  // cycles
	Args     Value  // the fourth element: instruction fields (a Dict, possibly empty)
}

// Duration is End-Start in cycles.
func (in Inst) Duration() int64 { return in.End - in.Start }

// Trace is a parsed emulator trace, instructions in file order.
type Trace struct {
	Insts []Inst
	// CutLine is the line number of a malformed last line that Parse left
	// out (a trace cut while being written); 0 when every line parsed.
	CutLine int
}

// ReadFile parses the trace at path.
func ReadFile(path string) (*Trace, error) {
	f, err := inputfile.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads a trace. Blank lines are skipped; any other malformed line is an
// error naming its line and column.
func Parse(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	t := &Trace{}
	line := 0
	var pending error
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte{0xef, 0xbb, 0xbf}) // a UTF-8 byte order mark
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		if pending != nil { // a malformed line with more after it
			return nil, pending
		}
		in, err := parseLine(string(b))
		if err != nil {
			pending = fmt.Errorf("line %d: %w", line, err)
			continue
		}
		in.Line = line
		t.Insts = append(t.Insts, in)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, MaxLine)
		}
		return nil, err
	}
	if pending != nil {
		if len(t.Insts) == 0 {
			return nil, pending
		}
		// Only the last line is malformed: the trace was cut while being
		// written (an emulator run stopped). Keep what is complete; Check
		// reports the missing end.
		t.CutLine = line
	}
	if len(t.Insts) == 0 {
		return nil, errors.New("no instructions: not an emulator trace")
	}
	return t, nil
}

func parseLine(s string) (Inst, error) {
	p := &parser{s: s}
	v, err := p.value(0)
	if err != nil {
		return Inst{}, err
	}
	p.skip()
	if p.pos != len(s) {
		return Inst{}, p.errf("trailing text after the instruction")
	}
	if v.Kind != List || len(v.Items) < 3 {
		return Inst{}, errors.New("not a [name, {location}, {time}, ...] list")
	}
	name := v.Items[0]
	if name.Kind != Ident && name.Kind != String {
		return Inst{}, errors.New("element 0: instruction name is not a word")
	}
	in := Inst{Name: name.Str, Tile: -1}
	in.Class, _, _ = strings.Cut(in.Name, "_")
	in.Config = strings.Contains(in.Name, "_cfg")
	loc := v.Items[1]
	if loc.Kind != Dict {
		return Inst{}, errors.New("element 1: location is not a dict")
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"slyr", &in.Layer}, {"wkl", &in.Workload}, {"tile", &in.Tile}} {
		if x, ok := loc.Get(f.key); ok {
			if x.Kind != Int {
				return Inst{}, fmt.Errorf("element 1: %q is not an integer", f.key)
			}
			*f.dst = x.Int
		} else if f.key != "tile" {
			return Inst{}, fmt.Errorf("element 1: no %q", f.key)
		}
	}
	tm := v.Items[2]
	if tm.Kind != Dict {
		return Inst{}, errors.New("element 2: timing is not a dict")
	}
	if x, ok := tm.Get("inst_idx"); ok && x.Kind == Int {
		in.Index = x.Int
	}
	tv, ok := tm.Get("time")
	ts, ok2 := tv.Ints()
	if !ok || !ok2 || tv.Kind != List || len(ts) != 2 {
		return Inst{}, errors.New("element 2: 'time' is not [start, end]")
	}
	in.Start, in.End = ts[0], ts[1]
	if in.Start < 0 || in.End < in.Start {
		return Inst{}, fmt.Errorf("element 2: time [%d, %d] is not an interval", in.Start, in.End)
	}
	in.Args = Value{Kind: Dict}
	if len(v.Items) > 3 {
		if v.Items[3].Kind != Dict {
			return Inst{}, errors.New("element 3: arguments are not a dict")
		}
		in.Args = v.Items[3]
	}
	return in, nil
}

// Total is the run's length in cycles: the end of the last instruction.
func (t *Trace) Total() int64 {
	var end int64
	for _, in := range t.Insts {
		end = max(end, in.End)
	}
	return end
}

// Span is the extent of a group of instructions (a workload or a layer).
type Span struct {
	ID    int64 `json:"id"`           // workload id or layer index
	Start int64 `json:"start"`        // earliest start of a non-config instruction
	End   int64 `json:"end"`          // latest end
	Insts int   `json:"instructions"` // non-config instructions in the group
}

// Workloads gives per workload id the span of its non-config instructions,
// ordered by id.
func (t *Trace) Workloads() []Span {
	return t.spans(func(in Inst) int64 { return in.Workload })
}

// Layers gives per scheduler layer (slyr) the span of its non-config
// instructions, ordered by layer.
func (t *Trace) Layers() []Span {
	return t.spans(func(in Inst) int64 { return in.Layer })
}

func (t *Trace) spans(key func(Inst) int64) []Span {
	idx := map[int64]int{}
	var out []Span
	for _, in := range t.Insts {
		if in.Config {
			continue
		}
		k := key(in)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Span{ID: k, Start: in.Start, End: in.End})
		}
		s := &out[i]
		s.Start = min(s.Start, in.Start)
		s.End = max(s.End, in.End)
		s.Insts++
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// addSat adds non-negative cycle counts, stopping at math.MaxInt64: the
// sum of many long instructions overflowed to a negative total.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// ClassStat is the activity of one unit class over the run.
type ClassStat struct {
	Class string `json:"class"`
	Insts int    `json:"instructions"` // non-config instructions
	Sum   int64  `json:"sum_cycles"`   // sum of their durations (cycles)
	Busy  int64  `json:"busy_cycles"`  // length of the union of their intervals (cycles)
}

// Classes gives per unit class (ct, lda, ldw, lw, pe, vp, dt, sta, ...) the
// busy time of its non-config instructions, ordered by class name.
func (t *Trace) Classes() []ClassStat {
	byClass := map[string][][2]int64{}
	for _, in := range t.Insts {
		if !in.Config {
			byClass[in.Class] = append(byClass[in.Class], [2]int64{in.Start, in.End})
		}
	}
	out := make([]ClassStat, 0, len(byClass))
	for c, iv := range byClass {
		st := ClassStat{Class: c, Insts: len(iv)}
		sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
		var curS, curE int64 = -1, -1
		for _, x := range iv {
			st.Sum = addSat(st.Sum, x[1]-x[0])
			if x[0] > curE {
				if curE > curS {
					st.Busy += curE - curS
				}
				curS, curE = x[0], x[1]
			} else {
				curE = max(curE, x[1])
			}
		}
		if curE > curS {
			st.Busy += curE - curS
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Class < out[j].Class })
	return out
}
