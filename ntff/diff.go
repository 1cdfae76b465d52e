package ntff

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// DiffRow is one compared quantity of two captures.
type DiffRow struct {
	What  string  `json:"what"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Ratio float64 `json:"ratio"` // B/A, 0 when A is 0
	// Changed is A != B: the text prints the rows that changed, the JSON
	// every compared quantity.
	Changed bool `json:"changed"`
	// OtherSpans, when set, says why A and B are counts over different
	// spans of the run (one capture's whole capture, the other's profiled
	// window: format 4 records no window; or one counted to the capture's
	// end, as neuron-profile counts format 5, the other inside its
	// recorded window), so their difference is not one of the kernel.
	OtherSpans string `json:"counted_over_different_spans,omitempty"`
}

// StringDiff is a quantity that is not a number and differs (a version,
// the NEFF's UUID, a core present in one capture only).
type StringDiff struct {
	What string `json:"what"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// DiffResult compares two captures: versions, total time, kernel time and
// launch per core, instructions and busy time per engine, packets and
// bytes per queue.
type DiffResult struct {
	A, B string
	// WindowA and WindowB are how each capture's counts were windowed
	// (Summary.Window: "recorded", ToCaptureEnd or WholeCapture).
	WindowA string       `json:"window_a"`
	WindowB string       `json:"window_b"`
	Strings []StringDiff `json:"string_differences,omitempty"`
	Rows    []DiffRow    `json:"rows"`
	Same    bool         `json:"identical"`
}

// Diff compares two summaries (of two runs of one NEFF, or of two NEFFs).
func Diff(a, b *Summary) *DiffResult {
	r := &DiffResult{A: a.File, B: b.File, WindowA: a.Window, WindowB: b.Window, Same: true}
	spans := ""
	if (a.Window == WholeCapture) != (b.Window == WholeCapture) {
		spans = fmt.Sprintf("A counts %s, B %s: format 4 captures record no profiled window", spanWords(a.Window), spanWords(b.Window))
	} else if (a.Window == ToCaptureEnd) != (b.Window == ToCaptureEnd) {
		spans = fmt.Sprintf("A counts %s, B %s: a format 5 capture records no window, and is counted as neuron-profile counts it, to its end (the runtime's postamble included)", spanWords(a.Window), spanWords(b.Window))
	}
	add := func(what string, x, y float64, counted bool) {
		row := DiffRow{What: what, A: x, B: y, Changed: x != y}
		if x != 0 {
			row.Ratio = y / x
		}
		if counted {
			row.OtherSpans = spans
		}
		if x != y {
			r.Same = false
		}
		r.Rows = append(r.Rows, row)
	}
	for _, s := range []struct{ what, x, y string }{{"instance", a.Instance, b.Instance}, {"runtime", a.Runtime, b.Runtime}, {"neff uuid", a.NeffUUID, b.NeffUUID}} {
		if s.x != s.y {
			r.Same = false
			r.Strings = append(r.Strings, StringDiff{What: s.what, A: s.x, B: s.y})
		}
	}
	byName := func(s *Summary, name string) *CoreStat {
		for i := range s.Cores {
			if s.Cores[i].Name == name {
				return &s.Cores[i]
			}
		}
		return nil
	}
	for _, ca := range a.Cores {
		cb := byName(b, ca.Name)
		if cb == nil {
			r.Same = false
			r.Strings = append(r.Strings, StringDiff{What: "core " + ca.Name, A: "present", B: "absent"})
			continue
		}
		add(ca.Name+" total us", ca.TotalTimeUs, cb.TotalTimeUs, false)
		if ca.KernelUs > 0 && cb.KernelUs > 0 {
			// The kernel's own instructions and the launch around them
			// (inspect's split; sim --measured compares the kernel).
			add(ca.Name+" kernel us", ca.KernelUs, cb.KernelUs, false)
			add(ca.Name+" launch before us", ca.LaunchBeforeUs, cb.LaunchBeforeUs, false)
			add(ca.Name+" launch after us", ca.LaunchAfterUs, cb.LaunchAfterUs, false)
		}
		for i, e := range ca.Engines {
			if i < len(cb.Engines) {
				add(ca.Name+" "+e.Engine+" instructions", float64(e.Instructions), float64(cb.Engines[i].Instructions), true)
				if e.NotMeasured == "" && cb.Engines[i].NotMeasured == "" {
					// (A time one capture does not measure is not compared.)
					add(ca.Name+" "+e.Engine+" busy us", e.BusyNs/1e3, cb.Engines[i].BusyNs/1e3, false)
				}
			}
		}
		qb := map[string]QueueStat{}
		var qbOrder []string
		for _, q := range cb.Queues {
			k := fmt.Sprintf("%s %d.%d", q.Name, q.DMAEngine, q.Queue)
			qb[k] = q
			qbOrder = append(qbOrder, k)
		}
		for _, q := range ca.Queues {
			k := fmt.Sprintf("%s %d.%d", q.Name, q.DMAEngine, q.Queue)
			o := qb[k]
			delete(qb, k)
			add(ca.Name+" "+k+" packets", float64(q.Packets), float64(o.Packets), true)
			add(ca.Name+" "+k+" bytes", float64(q.Bytes), float64(o.Bytes), true)
		}
		for _, k := range qbOrder {
			if q, ok := qb[k]; ok {
				add(ca.Name+" "+k+" packets", 0, float64(q.Packets), true)
				add(ca.Name+" "+k+" bytes", 0, float64(q.Bytes), true)
			}
		}
	}
	for _, cb := range b.Cores {
		if byName(a, cb.Name) == nil {
			r.Same = false
			r.Strings = append(r.Strings, StringDiff{What: "core " + cb.Name, A: "absent", B: "present"})
		}
	}
	return r
}

// spanWords says over what a capture with window how counts.
func spanWords(how string) string {
	switch how {
	case WholeCapture:
		return "over the whole capture"
	case ToCaptureEnd:
		return "from its estimated window's start to its last event"
	}
	return "inside the profiled window (" + how + ")"
}

// WriteText prints what differs: the string differences, then the
// compared quantities that changed (the JSON has every one, with
// "changed"), counts over different spans marked.
func (r *DiffResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", r.A, r.B)
	if r.Same {
		_, err := fmt.Fprintln(w, "the captures measure the same")
		return err
	}
	for _, s := range r.Strings {
		fmt.Fprintf(w, "%s: %s -> %s\n", s.What, orDash(s.A), orDash(s.B))
	}
	marked := ""
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHAT\tA\tB\tB/A")
	for _, row := range r.Rows {
		if !row.Changed {
			continue
		}
		ratio := "-"
		if row.Ratio != 0 {
			ratio = fmt.Sprintf("%.3f", row.Ratio)
		}
		if row.OtherSpans != "" {
			ratio, marked = "*", row.OtherSpans
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.What, row.value(row.A), row.value(row.B), ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if marked != "" {
		_, err := fmt.Fprintf(w, "* counted over different spans of the run, not a change of the kernel: %s\n", marked)
		return err
	}
	return nil
}

// value prints one side of a row as inspect prints the quantity: times
// in microseconds with three decimals, counts and bytes whole with
// thousands separators (%g printed 1573760 bytes as 1.57376e+06).
func (r DiffRow) value(v float64) string {
	if strings.HasSuffix(r.What, " us") {
		return fmt.Sprintf("%.3f", v)
	}
	return humanize.Count(int64(math.Round(v)))
}
