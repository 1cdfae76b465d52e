package zebu

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// Summary is what a trace holds in numbers: its total, the busy time per
// unit class and the extent of every layer.
type Summary struct {
	File          string      `json:"file"`
	TotalCycles   int64       `json:"total_cycles"`
	Instructions  int         `json:"instructions"`
	Configuration int         `json:"configuration_instructions"`
	Classes       []ClassStat `json:"classes"`
	Layers        []Span      `json:"layers"`
	Workloads     int         `json:"workloads"`
	Longest       []Span      `json:"-"`
}

// ClassName says what an instruction class of the emulator is ("pe": "PE
// array"); "" for a class it does not know.
func ClassName(class string) string { return classNames[class] }

var classNames = map[string]string{
	"ct": "control", "ld": "DRAM load", "lda": "DRAM load (ifmap)", "ldw": "DRAM load (weights)",
	"lw": "weight buffer load", "pe": "PE array", "vp": "vector unit", "dt": "data transform",
	"st": "store", "sta": "store to DRAM",
}

// textLayers bounds the layer table of the text output (JSON has all).
const textLayers = 10

func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: ZeBu emulator trace (Gemini run)\n", s.File)
	fmt.Fprintf(w, "  total          %s cycles (end of the last instruction)\n", humanize.Count(s.TotalCycles))
	fmt.Fprintf(w, "  instructions   %s (%s configuration)\n", humanize.Count(int64(s.Instructions)), humanize.Count(int64(s.Configuration)))
	fmt.Fprintf(w, "  layers         %s, workloads %s\n\n", humanize.Count(int64(len(s.Layers))), humanize.Count(int64(s.Workloads)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CLASS\tUNIT\tINSTRUCTIONS\tSUM (cycles)\tBUSY (cycles)\tBUSY %\t")
	for _, c := range s.Classes {
		pct := 0.0
		if s.TotalCycles > 0 {
			pct = 100 * float64(c.Busy) / float64(s.TotalCycles)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f%%\t\n", c.Class, classNames[c.Class], humanize.Count(int64(c.Insts)),
			humanize.Count(c.Sum), humanize.Count(c.Busy), pct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Longest) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nLongest layers (%s of %s; --json lists all). A trace numbers its layers and names none: `npukit sim SCHEDULE --zebu TRACE` names them (column TRACE). A layer here spans all its instructions, DRAM loads included; sim --zebu compares compute instructions only.\n", humanize.Count(int64(len(s.Longest))), humanize.Count(int64(len(s.Layers))))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LAYER\tSTART\tEND\tCYCLES\tINSTRUCTIONS\t")
	for _, l := range s.Longest {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", l.ID, humanize.Count(l.Start), humanize.Count(l.End), humanize.Count(l.End-l.Start), humanize.Count(int64(l.Insts)))
	}
	return tw.Flush()
}

// Summarize sums up a trace; name is its file's name.
func Summarize(t *Trace, name string) *Summary {
	s := &Summary{File: name, TotalCycles: t.Total(), Instructions: len(t.Insts),
		Classes: t.Classes(), Layers: t.Layers(), Workloads: len(t.Workloads())}
	for _, in := range t.Insts {
		if in.Config {
			s.Configuration++
		}
	}
	s.Longest = append([]Span(nil), s.Layers...)
	sort.SliceStable(s.Longest, func(i, j int) bool {
		return s.Longest[i].End-s.Longest[i].Start > s.Longest[j].End-s.Longest[j].Start
	})
	if len(s.Longest) > textLayers {
		s.Longest = s.Longest[:textLayers]
	}
	return s
}
