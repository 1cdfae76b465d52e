package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Summary describes a validated trace.
type Summary struct {
	Events  int            // all events
	Phases  map[string]int // events per "ph"
	Tracks  int            // distinct (pid, tid) with X events
	Names   map[string]int // thread names ("pid/tid" -> name) count by name
	Flows   int            // complete s->f pairs
	Process []string       // process names, in pid order
}

// Validate reads Chrome trace JSON (object format) and checks what the
// Perfetto JSON importer relies on:
//   - valid JSON with a "traceEvents" array; displayTimeUnit "ns" or "ms";
//   - every event has "ph"; X events have name, integer pid/tid, ts and a
//     non-negative dur; C events have name, ts and numeric args; M events
//     are process_name/thread_name (args.name) or *_sort_index;
//     flow "s"/"f" events have an id, and every "f" has an "s" with the
//     same id and category;
//   - on one track (pid, tid) X events are either disjoint or properly
//     nested: Perfetto does not draw partially overlapping slices.
func Validate(r io.Reader) (*Summary, error) {
	var doc struct {
		DisplayTimeUnit *string           `json:"displayTimeUnit"`
		TraceEvents     []json.RawMessage `json:"traceEvents"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("trace: not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trace: data after the top-level object")
	}
	if doc.TraceEvents == nil {
		return nil, fmt.Errorf("trace: no traceEvents array")
	}
	if u := doc.DisplayTimeUnit; u != nil && *u != "ns" && *u != "ms" {
		return nil, fmt.Errorf("trace: displayTimeUnit %q is not \"ns\" or \"ms\"", *u)
	}
	type slice struct{ s, e int64 }
	type track struct{ pid, tid int64 }
	sum := &Summary{Phases: map[string]int{}, Names: map[string]int{}}
	tracks := map[track][]slice{}
	flowStart := map[string]string{} // id -> cat
	var flowEnds []struct{ id, cat string }
	procs := map[int64]string{}
	for i, raw := range doc.TraceEvents {
		var ev struct {
			Ph   *string                    `json:"ph"`
			Name *string                    `json:"name"`
			Cat  string                     `json:"cat"`
			Pid  *json.Number               `json:"pid"`
			Tid  *json.Number               `json:"tid"`
			Ts   *json.Number               `json:"ts"`
			Dur  *json.Number               `json:"dur"`
			ID   *json.Number               `json:"id"`
			BP   string                     `json:"bp"`
			Args map[string]json.RawMessage `json:"args"`
		}
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if err := d.Decode(&ev); err != nil {
			return nil, fmt.Errorf("trace: traceEvents[%d]: %w", i, err)
		}
		at := func(format string, a ...any) error {
			return fmt.Errorf("trace: traceEvents[%d]: %s", i, fmt.Sprintf(format, a...))
		}
		if ev.Ph == nil {
			return nil, at("no \"ph\"")
		}
		ph := *ev.Ph
		sum.Events++
		sum.Phases[ph]++
		intField := func(name string, n *json.Number) (int64, error) {
			if n == nil {
				return 0, at("%s event without %q", ph, name)
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return 0, at("%q is not an integer: %s", name, n)
			}
			return v, nil
		}
		timeField := func(name string, n *json.Number) (int64, error) {
			if n == nil {
				return 0, at("%s event without %q", ph, name)
			}
			v, err := parseMicros(n.String())
			if err != nil {
				return 0, at("%q: %v", name, err)
			}
			return v, nil
		}
		switch ph {
		case "X":
			if ev.Name == nil {
				return nil, at("X event without name")
			}
			pid, err := intField("pid", ev.Pid)
			if err != nil {
				return nil, err
			}
			tid, err := intField("tid", ev.Tid)
			if err != nil {
				return nil, err
			}
			ts, err := timeField("ts", ev.Ts)
			if err != nil {
				return nil, err
			}
			dur, err := timeField("dur", ev.Dur)
			if err != nil {
				return nil, err
			}
			if dur < 0 {
				return nil, at("negative dur")
			}
			k := track{pid, tid}
			tracks[k] = append(tracks[k], slice{ts, ts + dur})
		case "C":
			if ev.Name == nil {
				return nil, at("C event without name")
			}
			if _, err := intField("pid", ev.Pid); err != nil {
				return nil, err
			}
			if _, err := timeField("ts", ev.Ts); err != nil {
				return nil, err
			}
			if len(ev.Args) == 0 {
				return nil, at("C event without args")
			}
			for k, v := range ev.Args {
				if _, err := strconv.ParseFloat(string(v), 64); err != nil {
					return nil, at("counter arg %q is not a number: %s", k, v)
				}
			}
		case "M":
			if ev.Name == nil {
				return nil, at("M event without name")
			}
			pid, err := intField("pid", ev.Pid)
			if err != nil {
				return nil, err
			}
			switch *ev.Name {
			case "process_name", "thread_name":
				var name string
				if err := json.Unmarshal(ev.Args["name"], &name); err != nil {
					return nil, at("%s without a string args.name", *ev.Name)
				}
				if *ev.Name == "process_name" {
					procs[pid] = name
				} else {
					if _, err := intField("tid", ev.Tid); err != nil {
						return nil, err
					}
					sum.Names[name]++
				}
			case "process_sort_index", "thread_sort_index":
				if _, err := strconv.ParseInt(string(ev.Args["sort_index"]), 10, 64); err != nil {
					return nil, at("%s without an integer args.sort_index", *ev.Name)
				}
			default:
				return nil, at("unknown metadata %q", *ev.Name)
			}
		case "s", "f":
			if ev.ID == nil {
				return nil, at("flow event without id")
			}
			if _, err := intField("pid", ev.Pid); err != nil {
				return nil, err
			}
			if _, err := intField("tid", ev.Tid); err != nil {
				return nil, err
			}
			if _, err := timeField("ts", ev.Ts); err != nil {
				return nil, err
			}
			id := ev.ID.String()
			if ph == "s" {
				if _, dup := flowStart[id]; dup {
					return nil, at("flow id %s started twice", id)
				}
				flowStart[id] = ev.Cat
			} else {
				if ev.BP != "" && ev.BP != "e" {
					return nil, at("flow end with bp %q", ev.BP)
				}
				flowEnds = append(flowEnds, struct{ id, cat string }{id, ev.Cat})
			}
		case "i", "I", "B", "E":
			if _, err := timeField("ts", ev.Ts); err != nil {
				return nil, err
			}
		default:
			return nil, at("unsupported phase %q", ph)
		}
	}
	for _, f := range flowEnds {
		cat, ok := flowStart[f.id]
		if !ok {
			return nil, fmt.Errorf("trace: flow id %s ends but never starts", f.id)
		}
		if cat != f.cat {
			return nil, fmt.Errorf("trace: flow id %s: category %q at start, %q at end", f.id, cat, f.cat)
		}
		sum.Flows++
	}
	keys := make([]track, 0, len(tracks))
	for k := range tracks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].pid < keys[j].pid || (keys[i].pid == keys[j].pid && keys[i].tid < keys[j].tid)
	})
	for _, k := range keys {
		ss := tracks[k]
		// Parents first: by start, longer first.
		sort.Slice(ss, func(i, j int) bool {
			return ss[i].s < ss[j].s || (ss[i].s == ss[j].s && ss[i].e > ss[j].e)
		})
		var stack []slice
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].e <= s.s {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.e > stack[len(stack)-1].e {
				p := stack[len(stack)-1]
				return nil, fmt.Errorf("trace: pid %d tid %d: slice [%s, %s] us overlaps [%s, %s] us without nesting",
					k.pid, k.tid, micros(s.s), micros(s.e), micros(p.s), micros(p.e))
			}
			stack = append(stack, s)
		}
	}
	sum.Tracks = len(tracks)
	pids := make([]int64, 0, len(procs))
	for p := range procs {
		pids = append(pids, p)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	for _, p := range pids {
		sum.Process = append(sum.Process, procs[p])
	}
	return sum, nil
}

// parseMicros parses a decimal microsecond count into picoseconds exactly
// (to 6 decimals; finer digits are rounded down).
func parseMicros(s string) (int64, error) {
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, err
		}
		return int64(f * 1e6), nil
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	if len(fp) > 6 {
		fp = fp[:6]
	}
	fp += strings.Repeat("0", 6-len(fp))
	a, err := strconv.ParseInt(ip, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	b, err := strconv.ParseInt(fp, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	v := a*1e6 + b
	if neg {
		v = -v
	}
	return v, nil
}

func micros(ps int64) string { return string(appendMicros(nil, ps)) }
