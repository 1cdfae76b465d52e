package l2alloc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/humanize"
)

// CoreReport is the re-allocation of one core, as `npukit gemini realloc`
// shows it (text and JSON have the same content).
type CoreReport struct {
	Core    int   `json:"core"`
	Key     int64 `json:"key"`
	Tensors int   `json:"tensors"`
	// RegionBytes is the ring-buffer region's size (the capacity the file
	// allows); 0 when the core has none (raw IR).
	RegionBytes int64 `json:"region_bytes,omitempty"`
	// FileExtent is the address extent the file's own placement uses.
	FileExtent int64 `json:"file_extent_bytes,omitempty"`
	// FileAlign is the granularity of the file's addresses.
	FileAlign int64 `json:"file_align_bytes,omitempty"`
	// LivePeak is the largest number of bytes alive at once: a lower
	// bound on any placement.
	LivePeak int64 `json:"live_peak_bytes"`
	// MinCapacity is the smallest L2 found that holds the schedule.
	MinCapacity int64  `json:"min_capacity_bytes,omitempty"`
	LowerBound  int64  `json:"lower_bound_bytes,omitempty"`
	Status      string `json:"status"`
	// FileWaits and Waits count the DRAM loads that must wait for the
	// previous workload to release their region (address write-after-
	// read), in the file's placement and in the new one.
	FileWaits   int    `json:"file_load_waits"`
	Waits       int    `json:"load_waits"`
	Probes      int    `json:"probes,omitempty"`
	SolveMicros int64  `json:"solve_us"`
	Note        string `json:"note,omitempty"`
	// Unallocated: the file's addresses are placeholders (no placement),
	// so its extent and load waits do not apply ("-" in the text).
	Unallocated bool `json:"unallocated_in_file,omitempty"`

	problem *CoreProblem
	result  *Result
}

// Report is the re-allocation of a whole schedule.
type Report struct {
	Variant  gemini.Variant `json:"variant"`
	Align    int64          `json:"align_bytes"`
	Prefetch string         `json:"prefetch"`
	// Identity says how the tensors were identified when it is not by
	// tensor_id (gemini.Tensors.Assumption); "" otherwise.
	Identity string       `json:"identity,omitempty"`
	Cores    []CoreReport `json:"cores"`
}

// StatusNoAddresses is the status of a core whose snapshots carry no
// addresses (raw IR): only its live peak is reported.
const StatusNoAddresses = "no addresses"

// Reallocate builds and minimises every core's L2 problem. A core without
// addresses (raw IR) is reported with its live peak and StatusNoAddresses.
// The schedule is not modified; see Rewrite.
func Reallocate(ctx context.Context, s *gemini.Schedule, opt Options, sopt SolveOptions) (*Report, error) {
	rep := &Report{Variant: s.Variant, Align: max(opt.Align, 1), Prefetch: string(opt.Prefetch)}
	if rep.Prefetch == "" {
		rep.Prefetch = "none"
	}
	if opt.Tensors == nil {
		opt.Tensors = gemini.IdentifyTensors(s)
	}
	rep.Identity = opt.Tensors.Assumption()
	for _, c := range s.Cores {
		cr := CoreReport{Core: c.ID, Key: c.Key}
		cp, err := Build(s, c, opt)
		if errors.Is(err, ErrNoAddresses) {
			cr.LivePeak = LivePeak(c)
			cr.Status = StatusNoAddresses
			cr.Note = "no buffer entry has an address; nothing to re-allocate"
			if s.Variant == gemini.Raw {
				cr.Note = "raw IR: snapshots have no addresses and no tensor identity; nothing to re-allocate"
			}
			rep.Cores = append(rep.Cores, cr)
			continue
		}
		if err != nil {
			return nil, err
		}
		res, err := Minimize(ctx, cp, sopt)
		if err != nil {
			return nil, err
		}
		cr.Tensors = len(cp.Tensors)
		cr.RegionBytes = cp.Problem.Capacity
		cr.FileExtent = cp.FileExtent
		cr.FileAlign = cp.FileAlign
		cr.LivePeak = alloc.Peak(&cp.Problem)
		cr.MinCapacity = res.Capacity
		cr.LowerBound = res.LowerBound
		cr.Status = string(res.Status)
		if !cp.Unallocated {
			cr.FileWaits = cp.Waits(cp.FileSolution.Offsets)
		} else {
			cr.Note = "not allocated in the file (placeholder addresses): no file placement to compare with"
			cr.Unallocated = true
		}
		cr.Waits = cp.Waits(res.Solution.Offsets)
		cr.Probes = res.Probes
		cr.SolveMicros = res.Elapsed.Microseconds()
		if res.TimedOut > 0 {
			cr.Note = fmt.Sprintf("%s timed out", humanize.Plural(res.TimedOut, "probe"))
		}
		if res.Capacity > cp.Problem.Capacity {
			cr.Note = "the best placement found exceeds the ring-buffer region"
		}
		cr.problem, cr.result = cp, res
		rep.Cores = append(rep.Cores, cr)
	}
	return rep, nil
}

// Rewrite applies the placements of a report to the schedule it was
// computed from (in place): every core with a placement gets its new
// addresses. It returns the number of cores rewritten; a schedule without
// addresses (raw IR) has none.
func (r *Report) Rewrite(s *gemini.Schedule) (int, error) {
	n := 0
	for i := range r.Cores {
		cr := &r.Cores[i]
		if cr.problem == nil || cr.result == nil {
			continue
		}
		if err := Apply(s, cr.problem, cr.result.Solution); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// addedWaits counts the cores whose new placement makes more DRAM loads
// wait than the file's, and the waits added.
func (r *Report) addedWaits() (cores, waits int) {
	for _, c := range r.Cores {
		if c.Status != StatusNoAddresses && c.Waits > c.FileWaits {
			cores++
			waits += c.Waits - c.FileWaits
		}
	}
	return cores, waits
}

// WriteText renders the report as an aligned table.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Cores by ID with the file's key, as inspect's CORE and KEY columns.
	fmt.Fprintf(tw, "core\tkey\ttensors\tfile extent\tlive peak\tmin L2\tlower bound\tsaved\tstatus\tload waits\tsolve\t\n")
	for _, c := range r.Cores {
		if c.Status == StatusNoAddresses {
			fmt.Fprintf(tw, "%d\t%d\t-\t-\t%s\t-\t-\t-\t%s\t-\t-\t\n", c.Core, c.Key, humanize.Bytes(c.LivePeak), c.Status)
			continue
		}
		saved := "-"
		if c.FileExtent > 0 {
			saved = fmt.Sprintf("%.1f%%", 100*float64(c.FileExtent-c.MinCapacity)/float64(c.FileExtent))
			if c.Waits > c.FileWaits {
				// The saving is not free: say so beside it.
				saved += " (+" + humanize.Plural(c.Waits-c.FileWaits, "wait") + ")"
			}
		}
		// No placement in the file: its extent and waits do not apply
		// (audit r3 #28: "file extent 0 B", "load waits 0 -> 0").
		extent, fileWaits := humanize.Bytes(c.FileExtent), fmt.Sprint(c.FileWaits)
		if c.Unallocated {
			extent, fileWaits = "-", "-"
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s -> %d\t%s\t\n", c.Core, c.Key, c.Tensors, extent,
			humanize.Bytes(c.LivePeak), humanize.Bytes(c.MinCapacity), humanize.Bytes(c.LowerBound), saved, c.Status,
			fileWaits, c.Waits, micros(c.SolveMicros))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Cores {
		if c.Note != "" {
			if _, err := fmt.Fprintf(w, "%s: %s\n", gemini.CoreName(c.Core, c.Key), c.Note); err != nil {
				return err
			}
		}
	}
	if n, more := r.addedWaits(); n > 0 {
		hint := "--prefetch file keeps every load that does not wait in the file from waiting (never more L2 than the file's placement); --prefetch all removes the waits"
		if Prefetch(r.Prefetch) != PrefetchNone {
			hint = "--prefetch all removes the waits (at the price of a larger L2)"
		}
		if _, err := fmt.Fprintf(w, "the smaller L2 of %s costs %d more DRAM load %s than the file (a load waits when its region is still held by the previous workload): %s\n", humanize.Plural(n, "core"), more, humanize.Agree(more, "wait", "waits"), hint); err != nil {
			return err
		}
	}
	if r.Identity != "" {
		if _, err := fmt.Fprintf(w, "tensors: %s\n", r.Identity); err != nil {
			return err
		}
	}
	mode := "loads may wait for the previous workload to release their region"
	switch Prefetch(r.Prefetch) {
	case PrefetchAll:
		mode = "prefetch all: every DRAM load's region is free one workload early"
	case PrefetchFile:
		mode = "prefetch file: loads that do not wait in the file keep not waiting"
	}
	_, err := fmt.Fprintf(w, "offsets aligned to %d B; %s; load waits: file -> new; exact byte counts in --json\n", r.Align, mode)
	return err
}

func micros(us int64) string { return humanize.Micros(float64(us)) }
