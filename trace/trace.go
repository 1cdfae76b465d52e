// Package trace writes a sim.Timeline as Chrome trace-event JSON, the
// format chrome://tracing and ui.perfetto.dev open ("JSON Object Format":
// {"traceEvents": [...], "displayTimeUnit": "ns"}).
//
// Mapping:
//   - each Resource.Group is a process (pid, "M" process_name), in order of
//     first appearance; each resource lane is a thread (tid, "M"
//     thread_name); sort-index metadata keeps the graph's order;
//   - each task on a resource is a complete event ("ph":"X") on its lane, so
//     events on one track never overlap (Perfetto's JSON importer does not
//     draw overlapping, non-nested slices on one track);
//   - edges marked Flow become flow events ("s" on the producer, "f" with
//     "bp":"e" on the consumer, sharing an id) drawn as arrows;
//   - counters become "C" events in their group's process.
//
// Tasks without a resource (pure delays) have no track and are not drawn;
// flows through them are not drawn either.
//
// Timestamps are microseconds. Times are converted to integer picoseconds
// first and printed exactly, so adjacent slices share their boundary
// instead of overlapping by a rounding error.
//
// The writer streams: memory use does not grow with the number of events.
package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/sim"
)

// Options control the conversion.
type Options struct {
	// NanosPerUnit is the length of one sim time unit in nanoseconds
	// (40 for cycles of a 25 MHz clock). 0 means 1000: one unit per µs.
	NanosPerUnit float64
	// DisplayTimeUnit is "ns" (default) or "ms".
	DisplayTimeUnit string
	// Args, when set, adds arguments to a task's event.
	Args func(t sim.TaskID, a *Args)
	// NoFlows leaves out the flow arrows.
	NoFlows bool
	// Metadata goes to the top-level "otherData" object (string values).
	Metadata [][2]string
}

// Args appends "args" members of one event.
type Args struct {
	buf []byte
	n   int
}

func (a *Args) key(k string) {
	if a.n == 0 {
		a.buf = append(a.buf, `,"args":{`...)
	} else {
		a.buf = append(a.buf, ',')
	}
	a.n++
	a.buf = appendString(a.buf, k)
	a.buf = append(a.buf, ':')
}

// Int adds an integer argument.
func (a *Args) Int(k string, v int64) { a.key(k); a.buf = strconv.AppendInt(a.buf, v, 10) }

// Float adds a number argument (non-finite values are written as null).
func (a *Args) Float(k string, v float64) {
	a.key(k)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		a.buf = append(a.buf, "null"...)
		return
	}
	a.buf = strconv.AppendFloat(a.buf, v, 'g', -1, 64)
}

// Str adds a string argument.
func (a *Args) Str(k, v string) { a.key(k); a.buf = appendString(a.buf, v) }

// Write converts tl to trace JSON on w.
func Write(w io.Writer, tl *sim.Timeline, opt Options) error {
	g := tl.Graph
	if opt.NanosPerUnit < 0 || math.IsNaN(opt.NanosPerUnit) || math.IsInf(opt.NanosPerUnit, 0) {
		return fmt.Errorf("trace: invalid NanosPerUnit %v", opt.NanosPerUnit)
	}
	psPerUnit := opt.NanosPerUnit * 1000
	if psPerUnit == 0 {
		psPerUnit = 1e6
	}
	unit := opt.DisplayTimeUnit
	if unit == "" {
		unit = "ns"
	}
	if unit != "ns" && unit != "ms" {
		return fmt.Errorf("trace: displayTimeUnit must be \"ns\" or \"ms\", not %q", unit)
	}
	ps := func(t int64) int64 { return int64(math.Round(float64(t) * psPerUnit)) }

	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 512)
	first := true
	emit := func() {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		bw.Write(buf)
	}

	buf = append(buf[:0], `{"displayTimeUnit":`...)
	buf = appendString(buf, unit)
	if len(opt.Metadata) > 0 || g.Unit != "" {
		buf = append(buf, `,"otherData":{`...)
		n := 0
		if g.Unit != "" {
			buf = append(buf, `"time_unit":`...)
			buf = appendString(buf, g.Unit)
			n++
		}
		for _, kv := range opt.Metadata {
			if n > 0 {
				buf = append(buf, ',')
			}
			n++
			buf = appendString(buf, kv[0])
			buf = append(buf, ':')
			buf = appendString(buf, kv[1])
		}
		buf = append(buf, '}')
	}
	buf = append(buf, ",\n\"traceEvents\":[\n"...)
	bw.Write(buf)

	// Processes: one per group, resources first, then counter groups.
	pidOf := map[string]int{}
	var groups []string
	group := func(name string) int {
		if p, ok := pidOf[name]; ok {
			return p
		}
		p := len(groups) + 1
		pidOf[name] = p
		groups = append(groups, name)
		return p
	}
	resPid := make([]int, len(g.Resources))
	resTid := make([]int, len(g.Resources)) // tid of lane 0; lanes follow
	nextTid := 1
	for r := range g.Resources {
		resPid[r] = group(groupName(g.Resources[r].Group, "resources"))
		resTid[r] = nextTid
		lanes := 1
		if r < len(tl.Resources) && tl.Resources[r].Lanes > 1 {
			lanes = tl.Resources[r].Lanes
		}
		nextTid += lanes
	}
	cntPid := make([]int, len(g.Counters))
	for c := range g.Counters {
		cntPid[c] = group(groupName(g.Counters[c].Group, "counters"))
	}
	for i, name := range groups {
		buf = appendMeta(buf[:0], "process_name", i+1, 0, name)
		emit()
		buf = appendSortIndex(buf[:0], "process_sort_index", i+1, 0, i)
		emit()
	}
	for r := range g.Resources {
		lanes := 1
		if r < len(tl.Resources) && tl.Resources[r].Lanes > 1 {
			lanes = tl.Resources[r].Lanes
		}
		for l := 0; l < lanes; l++ {
			name := g.Resources[r].Name
			if name == "" {
				name = "resource " + strconv.Itoa(r)
			}
			if lanes > 1 {
				name += " #" + strconv.Itoa(l)
			}
			buf = appendMeta(buf[:0], "thread_name", resPid[r], resTid[r]+l, name)
			emit()
			buf = appendSortIndex(buf[:0], "thread_sort_index", resPid[r], resTid[r]+l, resTid[r]+l)
			emit()
		}
	}

	var args Args
	for i := range g.Tasks {
		t := &g.Tasks[i]
		if t.Resource < 0 {
			continue
		}
		r := t.Resource
		s, e := ps(tl.Start[i]), ps(tl.End[i])
		buf = append(buf[:0], `{"ph":"X","name":`...)
		buf = appendString(buf, taskName(t, i))
		if t.Cat != "" {
			buf = append(buf, `,"cat":`...)
			buf = appendString(buf, t.Cat)
		}
		buf = appendTrack(buf, resPid[r], resTid[r]+int(tl.Lane[i]))
		buf = append(buf, `,"ts":`...)
		buf = appendMicros(buf, s)
		buf = append(buf, `,"dur":`...)
		buf = appendMicros(buf, e-s)
		args.buf, args.n = buf, 0
		if t.Bytes > 0 {
			args.Int("bytes", t.Bytes)
		}
		if tl.Start[i] > tl.Ready[i] {
			args.Int("queued_"+unitName(g), tl.Start[i]-tl.Ready[i])
		}
		if opt.Args != nil {
			opt.Args(sim.TaskID(i), &args)
		}
		buf = args.buf
		if args.n > 0 {
			buf = append(buf, '}')
		}
		buf = append(buf, '}')
		emit()
	}

	if !opt.NoFlows {
		for k, ed := range g.Edges {
			if !ed.Flow {
				continue
			}
			from, to := &g.Tasks[ed.From], &g.Tasks[ed.To]
			if from.Resource < 0 || to.Resource < 0 {
				continue
			}
			id := k + 1
			buf = append(buf[:0], `{"ph":"s","name":"flow","cat":"flow","id":`...)
			buf = strconv.AppendInt(buf, int64(id), 10)
			buf = appendTrack(buf, resPid[from.Resource], resTid[from.Resource]+int(tl.Lane[ed.From]))
			buf = append(buf, `,"ts":`...)
			buf = appendMicros(buf, ps(tl.Start[ed.From]))
			buf = append(buf, '}')
			emit()
			buf = append(buf[:0], `{"ph":"f","bp":"e","name":"flow","cat":"flow","id":`...)
			buf = strconv.AppendInt(buf, int64(id), 10)
			buf = appendTrack(buf, resPid[to.Resource], resTid[to.Resource]+int(tl.Lane[ed.To]))
			buf = append(buf, `,"ts":`...)
			buf = appendMicros(buf, ps(tl.Start[ed.To]))
			buf = append(buf, '}')
			emit()
		}
	}

	for c := range g.Counters {
		if c >= len(tl.Counters) {
			break
		}
		for _, p := range tl.Counters[c].Points {
			buf = append(buf[:0], `{"ph":"C","name":`...)
			buf = appendString(buf, g.Counters[c].Name)
			buf = appendTrack(buf, cntPid[c], 0)
			buf = append(buf, `,"ts":`...)
			buf = appendMicros(buf, ps(p.T))
			buf = append(buf, `,"args":{"value":`...)
			buf = strconv.AppendInt(buf, p.V, 10)
			buf = append(buf, "}}"...)
			emit()
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func groupName(g, def string) string {
	if g == "" {
		return def
	}
	return g
}

func unitName(g *sim.Graph) string {
	if g.Unit == "" {
		return "units"
	}
	return g.Unit
}

func taskName(t *sim.Task, i int) string {
	if t.Name != "" {
		return t.Name
	}
	return "task " + strconv.Itoa(i)
}

func appendTrack(b []byte, pid, tid int) []byte {
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	return strconv.AppendInt(b, int64(tid), 10)
}

func appendMeta(b []byte, what string, pid, tid int, name string) []byte {
	b = append(b, `{"ph":"M","name":"`...)
	b = append(b, what...)
	b = append(b, '"')
	b = appendTrack(b, pid, tid)
	b = append(b, `,"args":{"name":`...)
	b = appendString(b, name)
	return append(b, "}}"...)
}

func appendSortIndex(b []byte, what string, pid, tid, idx int) []byte {
	b = append(b, `{"ph":"M","name":"`...)
	b = append(b, what...)
	b = append(b, '"')
	b = appendTrack(b, pid, tid)
	b = append(b, `,"args":{"sort_index":`...)
	b = strconv.AppendInt(b, int64(idx), 10)
	return append(b, "}}"...)
}

// appendMicros writes ps picoseconds as an exact decimal microsecond count.
func appendMicros(b []byte, ps int64) []byte {
	if ps < 0 {
		b = append(b, '-')
		ps = -ps
	}
	b = strconv.AppendInt(b, ps/1e6, 10)
	frac := ps % 1e6
	if frac == 0 {
		return b
	}
	var d [7]byte
	d[0] = '.'
	for i := 6; i >= 1; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 7
	for d[n-1] == '0' {
		n--
	}
	return append(b, d[:n]...)
}

// appendString appends s as a JSON string (invalid UTF-8 becomes U+FFFD).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// WriteFile writes the trace to path atomically (temp file and rename).
func WriteFile(path string, tl *sim.Timeline, opt Options) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return Write(w, tl, opt) })
}
