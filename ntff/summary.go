package ntff

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/internal/humanize"
)

// EngineStat is one engine's work inside the profiled window.
type EngineStat struct {
	Engine       string `json:"engine"`
	Instructions int    `json:"instructions"`
	// InstructionNs sums the durations of the instructions other than
	// semaphore waits (EVENT_SEMAPHORE, which lasts as long as the engine
	// waits): neuron-profile's "instruction time". BusyNs is the time at
	// least one of them ran. WaitNs sums the semaphore waits.
	//
	// NotMeasured, when set, says why these three are not measurements of
	// the kernel (they are then zero and left out of the JSON): the
	// capture records no profiled window (format 4), or a time exceeds the
	// window it was counted in (Sanity).
	InstructionNs float64 `json:"instruction_time_ns,omitempty"`
	BusyNs        float64 `json:"busy_ns,omitempty"`
	WaitNs        float64 `json:"semaphore_wait_ns,omitempty"`
	NotMeasured   string  `json:"times_not_measured,omitempty"`
}

// QueueStat is one DMA queue's packets inside the profiled window.
type QueueStat struct {
	Name      string `json:"name"`
	DMAEngine int    `json:"dma_engine"`
	Queue     int    `json:"queue"`
	Kind      string `json:"kind"` // static, hardware_dynamic, software_dynamic
	Packets   int    `json:"packets"`
	Bytes     int64  `json:"bytes"`
	// BusyNs is the time at least one of the queue's packets was between
	// its data event and its completion. NotMeasured, when set, says why
	// it is not a measurement (BusyNs is then zero and left out of the
	// JSON): see Sanity.
	BusyNs      float64 `json:"busy_ns,omitempty"`
	NotMeasured string  `json:"busy_not_measured,omitempty"`
}

// CoreStat summarises one NeuronCore.
type CoreStat struct {
	Name        string  `json:"name"`
	Index       int     `json:"neuroncore"`
	TotalTimeUs float64 `json:"total_time_us"`
	// KernelUs is how long the kernel's own instructions ran (first start
	// to last end, Core.KernelSpan); LaunchBeforeUs and LaunchAfterUs the
	// window's time before and after it: the runtime's launch. All zero
	// when the capture does not lay its streams out.
	KernelUs       float64      `json:"kernel_us,omitempty"`
	LaunchBeforeUs float64      `json:"launch_before_us,omitempty"`
	LaunchAfterUs  float64      `json:"launch_after_us,omitempty"`
	Engines        []EngineStat `json:"engines"`
	Queues         []QueueStat  `json:"dma_queues"`
	Memory         []MemUsage   `json:"memory"`
	// ClockShiftUs gives, per engine name, how far its instruction events
	// were moved onto the capture's common clock (Core.ClockShiftPs).
	ClockShiftUs map[string]float64 `json:"engine_clock_shift_us,omitempty"`
}

// Summary is what `npukit inspect` prints of a capture. Where
// neuron-profile's summary prints a quantity (its names are used in the
// JSON), the value is computed the same way: totals over every core,
// over the span neuron-profile counts (Profile.Counting: the profiled
// window, or on format 5 from its start to the capture's end).
type Summary struct {
	File        string `json:"file"`
	Format      int    `json:"ntff_version"`
	NeffName    string `json:"neff_name"`
	NeffUUID    string `json:"neff_uuid"`
	Instance    string `json:"instance_type"`
	Runtime     string `json:"runtime_version"`
	Driver      string `json:"driver_version"`
	Collectives string `json:"collectives_version"`
	// TotalTimeUs is core 0's kernel time (neuron-profile's total_time).
	TotalTimeUs float64    `json:"total_time_us"`
	TotalTimePs int64      `json:"total_time_ps"`
	Window      string     `json:"window"` // how the counted span was placed (Profile.Counting)
	Records     int        `json:"event_records"`
	Cores       []CoreStat `json:"cores"`

	EngineCounts           map[string]int `json:"engine_instruction_counts"`
	StaticDMAPackets       int            `json:"static_dma_packet_count"`
	StaticDMABytes         int64          `json:"static_dma_size"`
	HardwareDynamicPackets int            `json:"hardware_dynamic_dma_packet_count"`
	HardwareDynamicBytes   int64          `json:"hardware_dynamic_dma_size"`
	SoftwareDynamicPackets int            `json:"software_dynamic_dma_packet_count"`
	SoftwareDynamicBytes   int64          `json:"software_dynamic_dma_size"`
	NeffNamed              bool           `json:"neff_named,omitempty"`

	// EngineInstructionNs and EngineActiveNs are, per engine name, its
	// instruction time and active time over every core (neuron-profile's
	// <engine>_engine_instruction_time and _active_time): the durations of
	// its instructions other than semaphore waits summed over the cores,
	// and the time at least one core's engine ran one of them (the union
	// of their intervals across cores, not the sum of the cores' busy
	// times). Both equal the five shared JSON reports' summaries to the
	// picosecond (format 6). An engine is left out where its times are
	// not measurements (format 4, or a core's withdrawn by Sanity). On
	// format 5 captures neuron-profile 2.25 prints, for the same
	// instructions, times less by a constant per engine (see
	// TestSummaryTextConformance).
	EngineInstructionNs map[string]float64 `json:"engine_instruction_time_ns,omitempty"`
	EngineActiveNs      map[string]float64 `json:"engine_active_time_ns,omitempty"`
}

// busy is the length of the union of [s, e) intervals.
func busy(iv [][2]int64) int64 {
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	var total, cs, ce int64
	open := false
	for _, x := range iv {
		if !open || x[0] > ce {
			if open {
				total += ce - cs
			}
			cs, ce, open = x[0], x[1], true
		} else if x[1] > ce {
			ce = x[1]
		}
	}
	if open {
		total += ce - cs
	}
	return total
}

// QueueName names a packet's queue: the core's name for it, else
// "dmaE.qQ".
func (c *Core) QueueName(p Packet) string {
	if q, ok := c.QueueOf(p); ok && q.Name != "" {
		return q.Name
	}
	return fmt.Sprintf("dma%d.q%d", p.DMAEngine, p.Queue)
}

// Summarize computes the summary of a capture named file.
func Summarize(p *Profile, file string) *Summary {
	s := &Summary{File: file, Format: p.Format, NeffName: p.NeffName, NeffUUID: p.UUID(), Instance: p.Instance,
		Runtime: p.Runtime.String(), Driver: p.Driver.String(), Collectives: p.Collectives.String(), Records: p.Records,
		EngineCounts: map[string]int{}}
	// Counts and times over the span neuron-profile counts; the launch
	// around the kernel within the kernel time (the window).
	start, end, how := p.Counting()
	ws, we, _ := p.Window()
	s.Window = how
	allIvs := make([][][2]int64, len(Engines)) // every core's non-wait instructions, per engine
	allNs := make([]int64, len(Engines))
	withdrawn := make([]bool, len(Engines))
	if len(p.Cores) > 0 {
		s.TotalTimePs = p.Cores[0].TotalPs
		s.TotalTimeUs = float64(s.TotalTimePs) / 1e6
	}
	for i := range p.Cores {
		c := &p.Cores[i]
		cs := CoreStat{Name: c.Name, Index: c.Index, TotalTimeUs: float64(c.TotalPs) / 1e6, Memory: c.Memory}
		for e, d := range c.ClockShiftPs {
			if cs.ClockShiftUs == nil {
				cs.ClockShiftUs = map[string]float64{}
			}
			cs.ClockShiftUs[EngineName(e)] = float64(d) / 1e6
		}
		if how != WholeCapture {
			if f, l, ok := c.KernelSpan(ws, we); ok {
				cs.KernelUs = float64(l-f) / 1e6
				cs.LaunchBeforeUs = float64(f-ws) / 1e6
				cs.LaunchAfterUs = float64(we-l) / 1e6
			}
		}
		ivs := make([][][2]int64, len(Engines))
		es := make([]EngineStat, len(Engines))
		for e := range es {
			es[e].Engine = Engines[e]
		}
		for _, in := range c.Instrs {
			if in.Engine >= len(Engines) || !in.In(start, end) {
				continue
			}
			es[in.Engine].Instructions++
			if in.Opcode == OpEventSemaphore {
				es[in.Engine].WaitNs += float64(in.End-in.Start) / 1e3
				continue
			}
			es[in.Engine].InstructionNs += float64(in.End-in.Start) / 1e3
			ivs[in.Engine] = append(ivs[in.Engine], [2]int64{in.Start, in.End})
			allNs[in.Engine] += in.End - in.Start
		}
		for e := range es {
			allIvs[e] = append(allIvs[e], ivs[e]...)
			es[e].BusyNs = float64(busy(ivs[e])) / 1e3
			s.EngineCounts[Engines[e]] += es[e].Instructions
		}
		cs.Engines = es
		type qk struct{ e, q int }
		qs := map[qk]*QueueStat{}
		qiv := map[qk][][2]int64{}
		var order []qk
		for _, pi := range c.Counted(start, end) {
			pk := c.Packets[pi]
			k := qk{pk.DMAEngine, pk.Queue}
			st := qs[k]
			if st == nil {
				q, _ := c.QueueOf(pk)
				st = &QueueStat{Name: c.QueueName(pk), DMAEngine: pk.DMAEngine, Queue: pk.Queue, Kind: q.Kind()}
				qs[k] = st
				order = append(order, k)
			}
			st.Packets++
			st.Bytes += int64(pk.Bytes)
			qiv[k] = append(qiv[k], [2]int64{pk.Start, pk.End})
			switch st.Kind {
			case "hardware_dynamic":
				s.HardwareDynamicPackets++
				s.HardwareDynamicBytes += int64(pk.Bytes)
			case "software_dynamic":
				s.SoftwareDynamicPackets++
				s.SoftwareDynamicBytes += int64(pk.Bytes)
			default:
				s.StaticDMAPackets++
				s.StaticDMABytes += int64(pk.Bytes)
			}
		}
		sort.Slice(order, func(i, j int) bool {
			a, b := qs[order[i]], qs[order[j]]
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			if a.DMAEngine != b.DMAEngine {
				return a.DMAEngine < b.DMAEngine
			}
			return a.Queue < b.Queue
		})
		for _, k := range order {
			qs[k].BusyNs = float64(busy(qiv[k])) / 1e3
			cs.Queues = append(cs.Queues, *qs[k])
		}
		Sanity(&cs, how, end-start, p.Instance)
		for e := range cs.Engines {
			withdrawn[e] = withdrawn[e] || cs.Engines[e].NotMeasured != ""
		}
		s.Cores = append(s.Cores, cs)
	}
	if how != WholeCapture && len(p.Cores) > 0 {
		s.EngineInstructionNs, s.EngineActiveNs = map[string]float64{}, map[string]float64{}
		for e, name := range Engines {
			if !withdrawn[e] {
				s.EngineInstructionNs[name] = float64(allNs[e]) / 1e3
				s.EngineActiveNs[name] = float64(busy(allIvs[e])) / 1e3
			}
		}
	}
	return s
}

// EngineBytesPerNs is the rate of one DMA engine on an instance type, as
// AWS's NKI DMA bandwidth guide gives it: 17 B/ns on Trn1 (and Inf2, the
// same NeuronCore-v2), 23 on Trn2, 33 on Trn3; 33, the fastest, when the
// instance is not recognised.
func EngineBytesPerNs(instance string) float64 {
	switch {
	case strings.HasPrefix(instance, "trn1"), strings.HasPrefix(instance, "inf2"):
		return 17
	case strings.HasPrefix(instance, "trn2"):
		return 23
	}
	return 33
}

// QueueRateMargin is how far above its engine's documented rate a
// queue's bytes over its busy time may go and still be a measurement:
// room for timestamp granularity and a packet's data overlapping its
// neighbours'. On the shared format 5 and 6 captures the measured queues
// stay under 1.1 times the Trn2 rate, but for one whose large packets
// complete right after their data event (4.6 times).
const QueueRateMargin = 2

// Format4NoWindow is why a format 4 capture's engine times are not
// measurements of the kernel.
const Format4NoWindow = "not measured in format 4 captures: they record no profiled window, and these times span the runtime's pre- and postamble (a wait for the launch among them), not the kernel"

// Sanity withdraws the times of a core's summary that cannot be
// measurements, so that none is printed or compared as one: every
// engine's times when the window is the whole capture (format 4), an
// engine's busy or semaphore-wait time longer than the window it was
// counted in (windowPs; an engine runs or waits on one thing at a time),
// and a queue's busy time during which its bytes would have moved faster
// than QueueRateMargin times its engine's rate on the instance
// (EngineBytesPerNs): a queue is served by one DMA engine. Each withdrawn quantity is zeroed and its
// NotMeasured says why.
func Sanity(cs *CoreStat, how string, windowPs int64, instance string) {
	for i := range cs.Engines {
		e := &cs.Engines[i]
		switch {
		case how == WholeCapture:
			if e.InstructionNs > 0 || e.BusyNs > 0 || e.WaitNs > 0 {
				e.NotMeasured = Format4NoWindow
			}
		case e.WaitNs*1e3 > float64(windowPs):
			e.NotMeasured = fmt.Sprintf("not measured: a semaphore wait of %s is longer than the %s window", humanize.Micros(e.WaitNs/1e3), humanize.Micros(float64(windowPs)/1e6))
		case e.BusyNs*1e3 > float64(windowPs):
			e.NotMeasured = fmt.Sprintf("not measured: %s busy is longer than the %s window", humanize.Micros(e.BusyNs/1e3), humanize.Micros(float64(windowPs)/1e6))
		}
		if e.NotMeasured != "" {
			e.InstructionNs, e.BusyNs, e.WaitNs = 0, 0, 0
		}
	}
	for i := range cs.Queues {
		q := &cs.Queues[i]
		if limit := QueueRateMargin * EngineBytesPerNs(instance); q.Bytes > 0 && float64(q.Bytes) > limit*q.BusyNs {
			q.NotMeasured = fmt.Sprintf("not measured: the queue's bytes over its busy time exceed %g B/ns, %g times the %g B/ns of one DMA engine (AWS, NKI DMA bandwidth guide): its packets' events do not bound their transfer", limit, float64(QueueRateMargin), EngineBytesPerNs(instance))
			q.BusyNs = 0
		}
	}
}

// Span says how the capture's window was placed and what its counts
// span, for the text beside its total time: "window recorded" (format 6),
// "window whole capture" (format 4), and on a format 5 capture "window
// estimated; counts run from its start to the capture's last event". The
// total is the kernel time the runtime recorded on every format; only
// the counts run past it on format 5 (Profile.Counting).
func (s *Summary) Span() string {
	if s.Window == ToCaptureEnd {
		return "window estimated; counts run from its start to the capture's last event"
	}
	return "window " + s.Window
}

// WriteText prints the summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: Neuron profile capture (NTFF format %d) of %s\n", s.File, s.Format, orDash(s.NeffName))
	fmt.Fprintf(w, "NEFF UUID %s, instance %s\n", orDash(s.NeffUUID), orDash(s.Instance))
	fmt.Fprintf(w, "Versions: runtime %s, driver %s, collectives %s\n", s.Runtime, s.Driver, s.Collectives)
	fmt.Fprintf(w, "Total time: %s (core 0; %s), %s event records\n", humanize.Micros(s.TotalTimeUs), s.Span(), humanize.Count(int64(s.Records)))
	fmt.Fprintf(w, "Instructions: ")
	for i, e := range Engines {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %s", e, humanize.Count(int64(s.EngineCounts[e])))
	}
	if len(s.EngineActiveNs) > 0 {
		fmt.Fprintf(w, "\nEngine time over all cores (instructions / active): ")
		first := true
		for _, e := range Engines {
			a, ok := s.EngineActiveNs[e]
			if !ok {
				continue
			}
			if !first {
				fmt.Fprint(w, ", ")
			}
			first = false
			fmt.Fprintf(w, "%s %s / %s", e, humanize.Micros(s.EngineInstructionNs[e]/1e3), humanize.Micros(a/1e3))
		}
	}
	fmt.Fprintf(w, "\nDMA packets: static %s (%s), hardware-generated %s (%s), software-generated %s (%s)\n",
		humanize.Count(int64(s.StaticDMAPackets)), humanize.Bytes(s.StaticDMABytes), humanize.Count(int64(s.HardwareDynamicPackets)), humanize.Bytes(s.HardwareDynamicBytes),
		humanize.Count(int64(s.SoftwareDynamicPackets)), humanize.Bytes(s.SoftwareDynamicBytes))
	for _, c := range s.Cores {
		fmt.Fprintf(w, "\nCore %s (NeuronCore %d): total %s", c.Name, c.Index, humanize.Micros(c.TotalTimeUs))
		if c.KernelUs > 0 {
			fmt.Fprintf(w, ": kernel instructions %s, launch %s before and %s after", humanize.Micros(c.KernelUs), humanize.Micros(c.LaunchBeforeUs), humanize.Micros(c.LaunchAfterUs))
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ENGINE\tINSTRUCTIONS\tINSTRUCTION us\tBUSY us\tSEMAPHORE WAIT us\t")
		var notes []note
		for _, e := range c.Engines {
			if e.NotMeasured != "" {
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t\n", e.Engine, humanize.Count(int64(e.Instructions)))
				notes = appendNote(notes, e.Engine, e.NotMeasured)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t\n", e.Engine, humanize.Count(int64(e.Instructions)), e.InstructionNs/1e3, e.BusyNs/1e3, e.WaitNs/1e3)
		}
		tw.Flush()
		writeNotes(w, "times", "engine", notes)
		for _, e := range Engines {
			if d, ok := c.ClockShiftUs[e]; ok {
				fmt.Fprintf(w, "  - %s instruction events moved by %s onto the capture's clock: the capture stamps them from a clock of another origin (aligned on the engine's notifications, to within a few hundred ns)\n", e, humanize.Micros(d))
			}
		}
		if len(c.Queues) > 0 {
			notes = nil
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "DMA QUEUE\tENGINE.QUEUE\tKIND\tPACKETS\tBYTES\tBUSY us\t")
			for _, q := range c.Queues {
				b := fmt.Sprintf("%.3f", q.BusyNs/1e3)
				if q.NotMeasured != "" {
					b = "-"
					notes = appendNote(notes, q.Name, q.NotMeasured)
				}
				fmt.Fprintf(tw, "%s\t%d.%d\t%s\t%s\t%s\t%s\t\n", q.Name, q.DMAEngine, q.Queue, q.Kind, humanize.Count(int64(q.Packets)), humanize.Bytes(q.Bytes), b)
			}
			tw.Flush()
			writeNotes(w, "busy", "queue", notes)
		}
		if len(c.Memory) > 0 {
			var parts []string
			unnamed := false
			for _, m := range c.Memory {
				if m.Bytes > 0 {
					parts = append(parts, fmt.Sprintf("%s %s", m.Name, humanize.Bytes(m.Bytes)))
					unnamed = unnamed || m.Unnamed()
				}
			}
			fmt.Fprintf(w, "Memory: %s\n", strings.Join(parts, ", "))
			if unnamed {
				fmt.Fprintln(w, "  (#N: a category the capture records by position only, without a name, and that its sizes do not identify)")
			}
		}
	}
	return nil
}

// note gathers the quantities one reason withdrew (Sanity): who, with
// how many times each was named.
type note struct {
	reason string
	who    []string
	n      map[string]int
}

// appendNote adds who to the note with reason, or starts a note.
func appendNote(notes []note, who, reason string) []note {
	for i := range notes {
		if notes[i].reason == reason {
			if notes[i].n[who] == 0 {
				notes[i].who = append(notes[i].who, who)
			}
			notes[i].n[who]++
			return notes
		}
	}
	return append(notes, note{reason: reason, who: []string{who}, n: map[string]int{who: 1}})
}

// writeNotes prints what appendNote gathered under the table it follows:
// "- busy not measured: ... (16 qPoolIO0 queues)".
func writeNotes(w io.Writer, what, unit string, notes []note) {
	for _, nt := range notes {
		var ws []string
		for _, x := range nt.who {
			if k := nt.n[x]; k > 1 {
				ws = append(ws, fmt.Sprintf("%s %s %ss", humanize.Count(int64(k)), x, unit))
			} else {
				ws = append(ws, x)
			}
		}
		fmt.Fprintf(w, "  - %s %s (%s)\n", what, nt.reason, strings.Join(ws, ", "))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Base is the file's base name (for captions).
func (s *Summary) Base() string { return filepath.Base(s.File) }
