package dmaprog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/trace"
)

// Timeline is the predicted run as one timeline in ns: the launch
// overhead first (process "launch"), then every physical core (a process
// each) with the tracks its subgraphs used as priced: each subgraph's
// kernel span, each engine's
// instructions, each DMA from its trigger to its completion on its queue
// (or, for DMAs the instructions describe, on the issuing engine's DGE
// track), each DMA engine's share of them. A subgraph without instruction
// streams is its DMA program alone (every descriptor on its DMA engines,
// then the fixed completion latency); when that program's time is what
// the subgraph was given (instruction streams that do not decode cleanly,
// entries no instruction triggers), it is drawn too, as a process of its
// own. The timeline ends at TotalNs. Engine slices need Setup.Trace.
//
// Task Tag is the subgraph's index in Subgraphs.
func (r *Run) Timeline() *sim.Timeline {
	rec := sim.NewRecorder("ns")
	if r.LaunchNs > 0 {
		rec.Add(rec.Resource("launch", "launch overhead"), sim.Task{Name: "launch (" + humanize.Nanos(r.LaunchNs) + ", modelled)", Cat: "launch", Tag: -1}, 0, r.LaunchNs)
	}
	onCore := map[int][]string{}
	for _, sr := range r.Subgraphs {
		onCore[sr.Core] = append(onCore[sr.Core], sr.Subgraph)
	}
	for i, sr := range r.Subgraphs {
		base := r.LaunchNs + sr.StartNs
		proc := fmt.Sprintf("physical core %d (%s)", sr.Core, strings.Join(onCore[sr.Core], ", "))
		// the subgraph's span, so that every core is drawn even when
		// nothing on it takes time
		rec.Add(rec.Resource(proc, "kernel"), sim.Task{Name: sr.Subgraph + " kernel (" + humanize.Nanos(sr.KernelNs) + ")", Cat: "kernel", Tag: int32(i)}, base, base+sr.KernelNs)
		e := sr.Engines
		if e != nil {
			tracks := map[string]bool{}
			for _, s := range e.Slices {
				tracks[s.Track] = true
			}
			// fixed order: engines, DMA queues, DMA engines
			for _, t := range e.Engines {
				if tracks[t.Engine] {
					rec.Resource(proc, t.Engine)
				}
			}
			names := make([]string, 0, len(tracks))
			for t := range tracks {
				names = append(names, t)
			}
			sort.Slice(names, func(a, b int) bool { return trackLess(names[a], names[b]) })
			for _, t := range names {
				rec.Resource(proc, t)
			}
			for _, s := range e.Slices {
				rec.Add(rec.Resource(proc, s.Track), sim.Task{Name: s.Name, Cat: s.Cat, Bytes: s.Bytes, Tag: int32(i)}, base+s.StartNs, base+s.EndNs)
			}
		}
		if e == nil || sr.KernelNs > e.KernelNs {
			p := proc
			if e != nil {
				p = fmt.Sprintf("%s: %s's DMA program alone (sets its time)", proc, sr.Subgraph)
			}
			addDMAProgram(rec, p, sr, i, base)
		}
	}
	return rec.Timeline()
}

// addDMAProgram draws a subgraph's DMA program alone: each descriptor's
// pieces on its DMA engines, then the fixed latency after the last.
func addDMAProgram(rec *sim.Recorder, proc string, sr SubgraphRun, sg int, base int64) {
	tl := sr.Timeline
	if tl == nil || len(tl.Graph.Tasks) == 0 {
		return
	}
	for k := range tl.Graph.Resources {
		if tl.Resources[k].Tasks > 0 {
			rec.Resource(proc, tl.Graph.Resources[k].Name)
		}
	}
	for k := range tl.Graph.Tasks {
		t := &tl.Graph.Tasks[k]
		if t.Resource < 0 {
			continue
		}
		d := sr.Ordered[t.Tag]
		name := d.Comment
		if name == "" {
			name = fmt.Sprintf("dma[%d].desc[%d]", d.Index, d.Desc)
		}
		rec.Add(rec.Resource(proc, tl.Graph.Resources[t.Resource].Name), sim.Task{Name: name, Cat: CatDMAEngine, Tag: int32(sg)}, base+tl.Start[k], base+tl.End[k])
	}
	if lat := sr.Result.TotalNs - tl.Makespan; lat > 0 {
		rec.Add(rec.Resource(proc, "DMA completion latency"), sim.Task{Name: "fixed DMA latency (" + humanize.Nanos(lat) + ")", Cat: CatDMA, Tag: int32(sg)}, base+tl.Makespan, base+sr.Result.TotalNs)
	}
}

// trackLess orders DMA queue tracks by name before DMA engines by number.
func trackLess(a, b string) bool {
	const eng = "DMA engine "
	ea, eb := strings.HasPrefix(a, eng), strings.HasPrefix(b, eng)
	if ea != eb {
		return eb
	}
	if ea {
		x, _ := strconv.Atoi(a[len(eng):])
		y, _ := strconv.Atoi(b[len(eng):])
		return x < y
	}
	return a < b
}

// WriteTrace writes the predicted run (Timeline) as a Perfetto-compatible
// trace file at path; file names the NEFF in the trace's metadata.
func (r *Run) WriteTrace(path, file string) error {
	tl := r.Timeline()
	return trace.WriteFile(path, tl, trace.Options{
		NanosPerUnit: 1,
		NoFlows:      true,
		Args: func(id sim.TaskID, a *trace.Args) {
			if sg := tl.Graph.Tasks[id].Tag; sg >= 0 && int(sg) < len(r.Subgraphs) {
				a.Str("subgraph", r.Subgraphs[sg].Subgraph)
			}
		},
		Metadata: [][2]string{
			{"file", file},
			{"model", "npukit NEFF simulation: the predicted run, launch included"},
			{"predicted_total_ns", strconv.FormatInt(r.TotalNs, 10)},
		},
	})
}
