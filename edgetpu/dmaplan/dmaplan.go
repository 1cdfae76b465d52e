// Package dmaplan derives the ordered transfer plan the Edge TPU USB
// runtime follows from an executable's DMA hints
// (../shared/notes/edgetpu.md, "DMA hints"): descriptor hints move a byte
// range of an input, output, the parameters or scratch (INFEED host to
// device, OUTFEED device to host); instruction hints send a whole chunk;
// interrupt hints wait for a scalar-core interrupt; fence hints order
// everything before them. PCIe devices ignore hints.
//
// Times are lower bounds: bytes over the link's raw bandwidth, with no
// protocol overhead, no latency and no compute.
package dmaplan

import (
	"fmt"
	"sort"
)

// HintKind is the AnyHint union member.
type HintKind int

// Hint kinds, numbered as the schema's union tags.
const (
	Descriptor  HintKind = 1
	Instruction HintKind = 2
	Interrupt   HintKind = 3
	Fence       HintKind = 4
)

func (k HintKind) String() string {
	switch k {
	case Descriptor:
		return "dma"
	case Instruction:
		return "instructions"
	case Interrupt:
		return "interrupt"
	case Fence:
		return "fence"
	}
	return fmt.Sprintf("hint(%d)", int(k))
}

// Direction of a transfer.
type Direction int

// Directions, numbered as in the schema.
const (
	Infeed  Direction = 0
	Outfeed Direction = 1
)

func (d Direction) String() string {
	if d == Outfeed {
		return "device->host"
	}
	return "host->device"
}

// Hint is one DmaHint with its payload.
type Hint struct {
	Kind      HintKind
	Direction Direction
	// Descriptor hints: what is moved (INPUT, OUTPUT, PARAMETER, SCRATCH),
	// the layer name and batch, and the byte range.
	Target string
	Name   string
	Batch  int
	Offset int64
	Size   int64
	// Instruction hints: the chunk index.
	Chunk int
	// Interrupt hints: the scalar-core interrupt number.
	Interrupt int
}

// Executable is what a plan needs of one executable.
type Executable struct {
	Name               string
	Type               string // STAND_ALONE, PARAMETER_CACHING, EXECUTION_ONLY
	Hints              []Hint
	FullyDeterministic bool
	ChunkSizes         []int64
}

// Step is one entry of the plan.
type Step struct {
	Index      int    `json:"index"`
	Executable string `json:"executable"`
	Kind       string `json:"kind"`
	Direction  string `json:"direction,omitempty"`
	Target     string `json:"target,omitempty"`
	Layer      string `json:"layer,omitempty"`
	Batch      int    `json:"batch,omitempty"`
	Offset     int64  `json:"offset,omitempty"`
	Size       int64  `json:"size,omitempty"`
	Chunk      int    `json:"chunk,omitempty"`
	Interrupt  int    `json:"interrupt,omitempty"`
}

// Link is a host interface with its raw bandwidth.
type Link struct {
	Name       string  `json:"name"`
	BitsPerSec float64 `json:"bits_per_second"`
}

// DefaultLinks are USB 2.0 (480 Mb/s), USB 3.0 (5 Gb/s) and PCIe Gen2 x1
// (5 GT/s with 8b/10b coding: 4 Gb/s), the Coral M.2/Mini PCIe interface.
func DefaultLinks() []Link {
	return []Link{{"USB 2.0", 480e6}, {"USB 3.0", 5e9}, {"PCIe Gen2 x1", 4e9}}
}

// Totals sums bytes by direction.
type Totals struct {
	HostToDevice int64            `json:"host_to_device_bytes"`
	DeviceToHost int64            `json:"device_to_host_bytes"`
	ByTarget     map[string]int64 `json:"bytes_by_target"`
	// LowerBoundUs is the transfer time per link, in microseconds, as a
	// lower bound (raw bandwidth, nothing else).
	LowerBoundUs map[string]float64 `json:"lower_bound_us"`
}

// Plan is the transfer plan of a package.
type Plan struct {
	FirstInference []Step    `json:"first_inference"` // caching executable, then the run
	SteadyState    []Step    `json:"steady_state"`    // every later inference
	First          Totals    `json:"first_inference_totals"`
	Steady         Totals    `json:"steady_state_totals"`
	Links          []Link    `json:"links"`
	USBRejects     []string  `json:"usb_rejects,omitempty"` // executables the USB runtime would reject (NotDeterministicAdvice)
	Warnings       []string  `json:"warnings,omitempty"`
	Executables    []ExeInfo `json:"executables"`
}

// ExeInfo summarises one executable's hints.
type ExeInfo struct {
	Name               string         `json:"name"`
	Type               string         `json:"type"`
	Hints              int            `json:"hints"`
	ByKind             map[string]int `json:"hints_by_kind"`
	FullyDeterministic bool           `json:"fully_deterministic"`
}

// Build makes the plan. With a parameter-caching executable, the first
// inference runs it before the execution executable; later inferences run
// only the execution executable (while the cache holds).
func Build(exes []Executable, links []Link) (*Plan, error) {
	if len(links) == 0 {
		links = DefaultLinks()
	}
	p := &Plan{Links: links}
	var caching, run []*Executable
	for i := range exes {
		e := &exes[i]
		info := ExeInfo{Name: e.Name, Type: e.Type, Hints: len(e.Hints), ByKind: map[string]int{}, FullyDeterministic: e.FullyDeterministic}
		for _, h := range e.Hints {
			info.ByKind[h.Kind.String()]++
			if h.Kind == Instruction && (h.Chunk < 0 || h.Chunk >= len(e.ChunkSizes)) {
				return nil, fmt.Errorf("%s: instruction hint names chunk %d of %d", e.Name, h.Chunk, len(e.ChunkSizes))
			}
		}
		p.Executables = append(p.Executables, info)
		if !e.FullyDeterministic && len(e.Hints) > 0 {
			p.USBRejects = append(p.USBRejects, e.Name)
		}
		switch e.Type {
		case "PARAMETER_CACHING":
			caching = append(caching, e)
		case "STAND_ALONE":
			if len(exes) == 1 {
				run = append(run, e)
			}
		default:
			run = append(run, e)
		}
	}
	if len(run) == 0 && len(exes) > 0 {
		run = append(run, &exes[0])
	}
	for _, e := range caching {
		p.FirstInference = appendSteps(p.FirstInference, e)
	}
	for _, e := range run {
		p.FirstInference = appendSteps(p.FirstInference, e)
		p.SteadyState = appendSteps(p.SteadyState, e)
	}
	p.First = totals(p.FirstInference, links)
	p.Steady = totals(p.SteadyState, links)
	for _, e := range exes {
		for _, h := range e.Hints {
			if h.Kind == Descriptor && h.Size <= 0 {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: a %s descriptor hint moves %d bytes", e.Name, h.Target, h.Size))
			}
		}
	}
	return p, nil
}

func appendSteps(steps []Step, e *Executable) []Step {
	for _, h := range e.Hints {
		s := Step{Index: len(steps), Executable: e.Name, Kind: h.Kind.String()}
		switch h.Kind {
		case Descriptor:
			s.Direction, s.Target, s.Layer, s.Batch, s.Offset, s.Size = h.Direction.String(), h.Target, h.Name, h.Batch, h.Offset, h.Size
		case Instruction:
			s.Direction, s.Chunk, s.Size = Infeed.String(), h.Chunk, e.ChunkSizes[h.Chunk]
		case Interrupt:
			s.Interrupt = h.Interrupt
		}
		steps = append(steps, s)
	}
	return steps
}

func totals(steps []Step, links []Link) Totals {
	t := Totals{ByTarget: map[string]int64{}, LowerBoundUs: map[string]float64{}}
	for _, s := range steps {
		if s.Size <= 0 {
			continue
		}
		target := s.Target
		if s.Kind == "instructions" {
			target = "INSTRUCTIONS"
		}
		t.ByTarget[target] += s.Size
		if s.Direction == Outfeed.String() {
			t.DeviceToHost += s.Size
		} else {
			t.HostToDevice += s.Size
		}
	}
	for _, l := range links {
		// USB and PCIe are full duplex, but a lower bound over one
		// direction's bytes is the safe statement: the larger one.
		bytes := max(t.HostToDevice, t.DeviceToHost)
		t.LowerBoundUs[l.Name] = float64(bytes) * 8 / l.BitsPerSec * 1e6
	}
	return t
}

// TargetNames lists the byte targets of a totals map, sorted.
func (t Totals) TargetNames() []string {
	names := make([]string, 0, len(t.ByTarget))
	for k := range t.ByTarget {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// NotDeterministicAdvice says what an executable whose DMA hints are not
// fully deterministic means for the user and what to do about it: with
// its default settings libedgetpu's USB driver refuses to run it
// (driver/usb/usb_driver.cc, DoCreateRequest: "must have fully
// deterministic DMA hints when DMA descriptors from device are disabled");
// the setting is the environment variable read in
// driver/beagle/beagle_usb_driver_provider.cc; the PCIe driver does not
// use the hints.
const NotDeterministicAdvice = "on a USB Accelerator every inference of this model fails with the default runtime settings (the compiler left some transfers for the device to request, which libedgetpu's USB driver refuses unless told to accept them): set USB_ENABLE_BULK_DESCRIPTORS_FROM_DEVICE=1 in the environment of the process, or run it on a PCIe Edge TPU (M.2, Mini PCIe, Dev Board), which runs it as is"
