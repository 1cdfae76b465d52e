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
	InstructionNs float64 `json:"instruction_time_ns"`
	BusyNs        float64 `json:"busy_ns"`
	WaitNs        float64 `json:"semaphore_wait_ns"`
}

// QueueStat is one DMA queue's packets inside the profiled window.
type QueueStat struct {
	Name      string  `json:"name"`
	DMAEngine int     `json:"dma_engine"`
	Queue     int     `json:"queue"`
	Kind      string  `json:"kind"` // static, hardware_dynamic, software_dynamic
	Packets   int     `json:"packets"`
	Bytes     int64   `json:"bytes"`
	BusyNs    float64 `json:"busy_ns"`
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
}

// Summary is what `npukit inspect` prints of a capture. Where
// neuron-profile's summary prints a quantity (its names are used in the
// JSON), the value is computed the same way: totals over every core,
// inside the profiled window.
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
	Window      string     `json:"window"` // recorded or estimated
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
	start, end, how := p.Window()
	s.Window = how
	if len(p.Cores) > 0 {
		s.TotalTimePs = p.Cores[0].TotalPs
		s.TotalTimeUs = float64(s.TotalTimePs) / 1e6
	}
	for i := range p.Cores {
		c := &p.Cores[i]
		cs := CoreStat{Name: c.Name, Index: c.Index, TotalTimeUs: float64(c.TotalPs) / 1e6, Memory: c.Memory}
		if how != WholeCapture {
			if f, l, ok := c.KernelSpan(start, end); ok {
				cs.KernelUs = float64(l-f) / 1e6
				cs.LaunchBeforeUs = float64(f-start) / 1e6
				cs.LaunchAfterUs = float64(end-l) / 1e6
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
		}
		for e := range es {
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
		s.Cores = append(s.Cores, cs)
	}
	return s
}

// WriteText prints the summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: Neuron profile capture (NTFF format %d) of %s\n", s.File, s.Format, orDash(s.NeffName))
	fmt.Fprintf(w, "NEFF UUID %s, instance %s\n", orDash(s.NeffUUID), orDash(s.Instance))
	fmt.Fprintf(w, "Versions: runtime %s, driver %s, collectives %s\n", s.Runtime, s.Driver, s.Collectives)
	fmt.Fprintf(w, "Total time: %s (core 0; window %s), %s event records\n", humanize.Micros(s.TotalTimeUs), s.Window, humanize.Count(int64(s.Records)))
	fmt.Fprintf(w, "Instructions: ")
	for i, e := range Engines {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %d", e, s.EngineCounts[e])
	}
	fmt.Fprintf(w, "\nDMA packets: static %d (%s), hardware-generated %d (%s), software-generated %d (%s)\n",
		s.StaticDMAPackets, humanize.Bytes(s.StaticDMABytes), s.HardwareDynamicPackets, humanize.Bytes(s.HardwareDynamicBytes),
		s.SoftwareDynamicPackets, humanize.Bytes(s.SoftwareDynamicBytes))
	for _, c := range s.Cores {
		fmt.Fprintf(w, "\nCore %s (NeuronCore %d): total %s", c.Name, c.Index, humanize.Micros(c.TotalTimeUs))
		if c.KernelUs > 0 {
			fmt.Fprintf(w, ": kernel instructions %s, launch %s before and %s after", humanize.Micros(c.KernelUs), humanize.Micros(c.LaunchBeforeUs), humanize.Micros(c.LaunchAfterUs))
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ENGINE\tINSTRUCTIONS\tINSTRUCTION us\tBUSY us\tSEMAPHORE WAIT us\t")
		for _, e := range c.Engines {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", e.Engine, e.Instructions, e.InstructionNs/1e3, e.BusyNs/1e3, e.WaitNs/1e3)
		}
		tw.Flush()
		if len(c.Queues) > 0 {
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "DMA QUEUE\tENGINE.QUEUE\tKIND\tPACKETS\tBYTES\tBUSY us\t")
			for _, q := range c.Queues {
				fmt.Fprintf(tw, "%s\t%d.%d\t%s\t%d\t%s\t%.3f\t\n", q.Name, q.DMAEngine, q.Queue, q.Kind, q.Packets, humanize.Bytes(q.Bytes), q.BusyNs/1e3)
			}
			tw.Flush()
		}
		if len(c.Memory) > 0 {
			var parts []string
			for _, m := range c.Memory {
				if m.Bytes > 0 {
					parts = append(parts, fmt.Sprintf("%s %s", m.Name, humanize.Bytes(m.Bytes)))
				}
			}
			fmt.Fprintf(w, "Memory: %s\n", strings.Join(parts, ", "))
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Base is the file's base name (for captions).
func (s *Summary) Base() string { return filepath.Base(s.File) }
