package nki

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// WriteText writes what the trace recorded as `npukit nki inspect` prints
// it: the tensors with their allocation, the loops with their trip
// counts, the engine calls with their counts.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s  %s  (API %s, NeuronCore %s", r.File, r.Function, r.API, r.NCVersion)
	if len(r.Grid) > 0 {
		fmt.Fprintf(w, ", grid %v", r.Grid)
	}
	// A site in the kernel's own file is its line:column (issue 32: a
	// 100-character file name repeated on every row).
	own := filepath.Base(r.File) + ":"
	short := func(site string) string { return strings.TrimPrefix(site, own) }
	fmt.Fprintf(w, ")\nSITE is line:column in %s unless another file is named.\n\nTensors (DECLARED: times the trace ran the declaration; AT RUNTIME: times it runs once every loop runs all its trips; a call's result is declared where it is first used, so a load read in a nested loop counts that loop's trips too)\n", filepath.Base(r.File))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tNAME\tSHAPE\tDTYPE\tBUFFER\tALLOCATION\tDECLARED\tAT RUNTIME\tSITE")
	for _, t := range r.Tensors {
		site := ""
		if t.Site != nil {
			site = short(t.Site.String())
		}
		fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Shape, t.DType, t.Buffer, t.Alloc.Describe(), humanize.Count(int64(t.Declared)), humanize.Count(int64(t.Instances)), site)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nLoops (TRIPS: NxE, N trips on E of the traced entries, e.g. 32x1: 32 trips, entered once; ENTRIES: entries traced / at runtime)\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tTRIPS\tENTRIES (TRACED/RUNTIME)\tPARENT\tSITE\tITER")
	for _, l := range r.Loops {
		var trips []string
		keys := make([]int64, 0, len(l.TripCounts))
		for k := range l.TripCounts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			trips = append(trips, fmt.Sprintf("%dx%d", k, l.TripCounts[k]))
		}
		kind := l.Kind
		if l.Symbolic {
			kind += " (symbolic)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s/%s\t%s\t%s\t%s\n", l.ID, kind, strings.Join(trips, ","), humanize.Count(int64(l.Entries)), humanize.Count(int64(l.Executed)), l.Parent, short(fmt.Sprint(l.Site)), l.Iter)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nEngine calls (TRACED: times the trace ran the call; AT RUNTIME: instructions the device runs, loops unrolled; READS/WRITES: tensor IDs)\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  CALL\tTRACED\tAT RUNTIME\tLOOP\tREADS\tWRITES\tSITE")
	for _, c := range r.Calls {
		fn := c.Fn
		if c.Accumulate {
			fn += " (+=)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", fn, humanize.Count(int64(c.Traced)), humanize.Count(int64(c.Executed)), c.Loop, strings.Join(c.Reads, ","), strings.Join(c.Writes, ","), short(fmt.Sprint(c.Site)))
	}
	return tw.Flush()
}

// Describe states an allocation as the kernel gives it, in one phrase:
// "address=(0, 512)", "sbuf.mod_alloc: 4 tiles on 2 locations [...]",
// "auto"; "-" for none.
func (a *Alloc) Describe() string {
	if a == nil {
		return "-"
	}
	switch {
	case a.Partition != nil:
		return fmt.Sprintf("address=(%d, %d)", *a.Partition, *a.Offset)
	case len(a.Tiles) > 0:
		s := fmt.Sprintf("%s: %s on %s", a.Kind, humanize.Plural(len(a.Tiles), "tile"), humanize.Plural(a.PhysicalTiles, "location"))
		if len(a.Tiles) <= 4 {
			s += fmt.Sprint(" ", a.Tiles)
		}
		return s
	}
	return a.Kind
}
