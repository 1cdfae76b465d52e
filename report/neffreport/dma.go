package neffreport

import (
	"fmt"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
	"github.com/npukit/npukit/report"
)

// neffReportMaxTimelineDescs bounds the descriptors drawn in the report's
// DMA timeline (one span each; the page must stay small and fast). Larger
// programs get the traffic and the timing table without the chart.
const neffReportMaxTimelineDescs = 20000

// neffDMASections returns the DMA sections of a NEFF report, for the NEFF
// reporter to append: per subgraph, traffic by engine and queue (run-size
// classes) and the simulated DMA timeline (one track per DMA engine) with
// the DMA model of the NEFF's NeuronCore generation. Section IDs are "dma-traffic" and "dma-timeline",
// suffixed with "-SUBGRAPH" when the NEFF has several subgraphs. The
// efficiency findings are among the check findings the page is given
// (link them with neffDMASectionFor).
func neffDMASections(m *neff.Model) []report.Section {
	progs := dmaprog.FromModel(m)
	var secs []report.Section
	setup := dmaprog.SetupFor(m)
	for _, p := range progs {
		if len(p.Descriptors) == 0 {
			continue
		}
		a := dma.Analyze(p.Descriptors, p.Layout)
		res, tl, err := dma.Simulate(p.Ordered(), p.Queues, setup.Params)
		if err != nil {
			res, tl = nil, nil
		}
		drawn := tl
		if len(p.Descriptors) > neffReportMaxTimelineDescs {
			drawn = nil
		}
		ss := report.NeffDMASections(a, res, drawn)
		if drawn == nil && res != nil {
			ss = append(ss, report.Section{ID: "dma-timeline", Title: "Simulated DMA time",
				Intro: fmt.Sprintf("Total DMA time %s at %.1f GB/s achieved over %d engines; %s descriptors are too many to draw (use npukit sim --trace and ui.perfetto.dev).",
					humanize.Nanos(res.TotalNs), res.AchievedGBps, res.Params.Engines, humanize.Count(int64(len(p.Descriptors))))})
		}
		for i := range ss {
			for _, b := range ss[i].Blocks {
				if t, ok := b.(*report.Timeline); ok {
					t.Exact = "the Perfetto trace of `npukit sim --trace OUT.json` (ui.perfetto.dev)"
				}
			}
			if len(progs) > 1 {
				ss[i].ID += "-" + p.Subgraph
				ss[i].Title += " (" + p.Subgraph + ")"
			}
		}
		secs = append(secs, ss...)
	}
	return secs
}

// neffDMASectionFor links a DMA efficiency finding to its traffic section
// ("" for other diagnostics).
func neffDMASectionFor(m *neff.Model, d diag.Diagnostic) string {
	switch d.Rule {
	case dma.RuleSmallRuns, dma.RuleSmallPartition, dma.RuleFewPartitions, dma.RuleStridedInnermost:
	default:
		return ""
	}
	if len(m.Subgraphs) <= 1 {
		return "dma-traffic"
	}
	for _, sg := range m.Subgraphs {
		if sg.Dir != "" && len(d.Location) > len(sg.Dir) && d.Location[:len(sg.Dir)+1] == sg.Dir+"/" {
			return "dma-traffic-" + sg.Name
		}
	}
	return ""
}
