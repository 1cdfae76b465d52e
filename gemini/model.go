// Package gemini models the multi-core schedules written by the Gemini
// scheduler (HPCA 2024, "Gemini: Mapping and Architecture Co-exploration for
// Large-scale DNN Chiplet Accelerators"): per-core workloads in program
// order, the transfers between cores and DRAM, and the L2/WL0 buffer
// snapshots with their addresses.
//
// Two variants exist and both are read into the same model:
//   - the final compiler IR (file *_stschedule.json, has "buffersize"):
//     sizes in bytes, core keys 0..N-1, buffer snapshots with addresses;
//   - the raw IR of the public Gemini code: sizes in bits, core keys on a
//     mesh with DRAM columns (key = y*(xlen+2)+x+1), buffer sizes in KiB
//     blocks and no addresses.
//
// The model is normalised: every Size is in bytes, every core has a compact
// ID 0..N-1 (Core.ID) and keeps its key from the file (Core.Key), DRAM is
// core -1, destinations use one shape whatever the file called the key
// ("id" or "core_id"), WL0 sources "DDR"/"DRAM" read as "DRAM". Keys the
// reader does not know are kept verbatim in Extra maps, never dropped.
//
// Coordinates are kept as written. In the compiler IR the lower/upper of a
// workload's ifmap/ofmap entries are local to the workload (see
// Workload.Absolute); in the raw IR they are absolute.
package gemini

import (
	"encoding/json"
	"fmt"
)

// Variant of the IR a schedule was read from.
type Variant string

// Variants.
const (
	Compiler Variant = "compiler" // final compiler IR (stschedule.json)
	Raw      Variant = "raw"      // raw IR of the public Gemini generator
)

// DRAM is the compact core ID used for DRAM in destinations and sources.
const DRAM = -1

// UnknownCore is the compact ID of a destination or source naming a core
// key that the schedule does not have (a broken link, reported by Check).
const UnknownCore = -2

// Extra holds object members the reader does not model, as raw JSON, keyed
// by member name. It is nil when there are none.
type Extra map[string]json.RawMessage

// Box is a [lower, upper] coordinate range (both inclusive), of rank 4
// (N, C, H, W) or rank 1 (a channel range, as raw-IR weights write it).
// Rank 0 means the file had no coordinates.
type Box struct {
	Lower, Upper [4]int32
	Rank         uint8
}

// Schedule is one Gemini scheduler IR file.
type Schedule struct {
	Variant Variant
	// BufferSize is the L2 buffer size in bytes (compiler IR); 0 when the
	// file does not say (raw IR).
	BufferSize  int64
	TopBatchCut int64
	XLen, YLen  int64
	// Cores in ascending order of their key; Cores[i].ID == i.
	Cores []*Core
	// DRAMWrites is "-1".in: tensors written to DRAM by core workloads.
	DRAMWrites []DRAMWrite
	// DRAMReads is "-1".out: tensors read from DRAM (weights, fmaps).
	DRAMReads []DRAMRead
	Extra     Extra
}

// Core is one core of the mesh with its workloads in file order (which is
// program order when workload IDs ascend, as Check verifies).
type Core struct {
	ID  int   // compact ID, 0..len(Cores)-1
	Key int64 // key in the file: 0..N-1 (compiler) or y*(xlen+2)+x+1 (raw)
	// X, Y is the mesh position derived from Key for the raw IR, or
	// (ID mod xlen, ID div xlen) for the compiler IR; -1 when unknown.
	X, Y      int64
	Workloads []Workload
}

// Workload is one COMP tile of a core.
type Workload struct {
	ID        int64
	LayerName string
	// LayerType as written: pe/vp/dt (compiler) or conv2d/fc/pool/
	// element_wise/point_to_point (raw).
	LayerType string
	// Time is the scheduler's compute estimate in core cycles; it is the
	// authoritative compute duration (tile_info does not reproduce it).
	Time      int64
	Range     Box // "workload": the workload's ofmap range, absolute
	Ifmaps    []Ifmap
	Ofmaps    []Ofmap
	OfmapSize int64 // bytes
	Weight    *Weight
	// Buffer is the L2 snapshot before the workload starts.
	Buffer []BufferEntry
	// WeightBuffer is the WL0 (or WL1) snapshot: weights only.
	WeightBuffer []BufferEntry
	// WeightBufferKey is the member name the file used: "wl0_buffer" or
	// "wl1_buffer" ("" when absent).
	WeightBufferKey string
	// RingRegions are the ring-buffer regions [start, end) in bytes.
	RingRegions    [][2]int64
	TilePadding    []int64         // tile_padding_tblr
	TileInfo       json.RawMessage // tile_info, verbatim
	HasRingRegions bool
	// IfmapsFromBuffer says the file has no ifmap list for this raw-IR
	// workload: Ifmaps were read from its ifmap-typed buffer entries, which
	// carry the workload's inputs in that dialect (their simulator loads
	// every source of the buffer). WeightFromBuffer says the same of a
	// Weight read from a weight-typed entry of a workload without one.
	// The writer, whose output is the compiler IR, writes them as lists.
	IfmapsFromBuffer bool
	WeightFromBuffer bool
	Extra            Extra
}

// Absolute converts a box local to the workload (compiler IR ifmap/ofmap
// coordinates) to absolute coordinates by adding the workload's lower
// corner. Boxes of the raw IR are already absolute and returned as is.
func (s *Schedule) Absolute(w *Workload, b Box) Box {
	if s.Variant != Compiler || b.Rank != 4 || w.Range.Rank != 4 {
		return b
	}
	for i := 0; i < 4; i++ {
		b.Lower[i] += w.Range.Lower[i]
		b.Upper[i] += w.Range.Lower[i]
	}
	return b
}

// Ifmap is one input tensor of a workload.
type Ifmap struct {
	Box
	Size        int64 // bytes; 0 when the file does not say (raw IR)
	Align       int64
	Bitwidth    int64
	TransferIDs []int64
	// MaxWorkloadID is the raw IR's max_workload_id (-1 when absent).
	MaxWorkloadID int64
	Extra         Extra
}

// Ofmap is one output tensor of a workload with its destinations.
type Ofmap struct {
	Box
	Size         int64 // bytes
	TransferID   int64
	Destinations []Destination
	Extra        Extra
}

// Weight is the weight tensor of a workload.
type Weight struct {
	Box
	Size        int64 // bytes; 0 when absent (raw IR)
	TransferIDs []int64
	Extra       Extra
}

// Destination says where a transfer goes: a core workload or DRAM.
type Destination struct {
	// Type is "core" or "DRAM" as written.
	Type string
	// Core is the compact core ID (DRAM for DRAM, UnknownCore when the key
	// names no core); CoreKey the key as written ("id" or "core_id").
	Core        int
	CoreKey     int64
	Workload    int64
	HasWorkload bool
	LayerName   string
	Extra       Extra
}

// IsDRAM reports whether the destination is DRAM.
func (d *Destination) IsDRAM() bool { return d.Core == DRAM }

// DRAMWrite is an entry of "-1".in: a tensor a core workload writes to DRAM.
type DRAMWrite struct {
	TransferID   int64
	Core         int // compact ID of the producing core (UnknownCore if none)
	CoreKey      int64
	Workload     int64
	LayerName    string
	Box          Box
	RelatedOfmap []int64 // DRAM reads (transfer IDs) overlapping this write
	Extra        Extra
}

// DRAMRead is an entry of "-1".out: a tensor read from DRAM.
type DRAMRead struct {
	TransferID   int64
	Type         string // "weight" or "fmap"
	LayerName    string
	Box          Box
	Size         int64   // bytes
	RelatedIfmap []int64 // DRAM writes (transfer IDs) this read depends on
	Destinations []Destination
	Extra        Extra
}

// BufferEntry is one tensor of an L2 or WL0 buffer snapshot.
type BufferEntry struct {
	Type      string // ifmap, ofmap or weight
	LayerName string
	Box
	// Size in bytes. For the raw IR, which gives KiB blocks, it is
	// Blocks*1024 when the entry has no size of its own.
	Size       int64
	Blocks     int64 // raw IR "block" (KiB), 0 when absent
	Address    int64 // bytes; valid when HasAddress
	HasAddress bool
	// Unallocated marks an entry whose address is a placeholder rather
	// than a number (a converter's "address": true or false, a string
	// that is not an integer): the schedule does not place it yet.
	Unallocated bool
	Align       int64
	Bitwidth    int64
	TensorID    int64 // valid when HasTensorID
	// TensorOrder is the position in the DRAM access queue; valid when
	// HasTensorOrder (null in the file leaves it false).
	TensorOrder    int64
	HasTensorID    bool
	HasTensorOrder bool
	NewlyAdded     bool
	HasNewlyAdded  bool // the file has newly_added (ofmap-typed entries do not)
	CurWLIfmap     bool
	StartSend      bool
	TransferIDs    []int64
	// Sources of an L2 entry (one DRAM source or per-core pieces).
	Sources []Source
	// SourceKind of a WL0 entry: "DRAM" (file: "DDR" or "DRAM") or "CORE".
	SourceKind string
	// Workload is the raw IR's workload_id on an ifmap entry (valid when
	// HasWorkload).
	Workload    int64
	HasWorkload bool
	Extra       Extra
}

// FromDRAM reports whether the entry is loaded from DRAM.
func (e *BufferEntry) FromDRAM() bool {
	if e.SourceKind != "" {
		return e.SourceKind == "DRAM"
	}
	return len(e.Sources) > 0 && e.Sources[0].Core == DRAM
}

// Source is one piece of a buffer entry: a DRAM read or a core's ofmap.
type Source struct {
	Type       string // "DRAM" or "core"
	Core       int    // compact ID, DRAM or UnknownCore
	CoreKey    int64
	LayerName  string
	Box        Box
	Size       int64 // bytes
	TransferID int64
	Channel    []int64 // raw IR "channel"
	Extra      Extra
}

// CoreByKey returns the core with a file key, or nil.
func (s *Schedule) CoreByKey(key int64) *Core {
	for _, c := range s.Cores {
		if c.Key == key {
			return c
		}
	}
	return nil
}

// Name is how every command names the core: "core ID" by its compact ID,
// with the file's key where it differs ("core 1 (key 2)" in a raw IR,
// whose keys skip the mesh's DRAM columns).
func (c *Core) Name() string { return CoreName(c.ID, c.Key) }

// CoreName names a core by compact ID and file key as Core.Name does.
func CoreName(id int, key int64) string {
	if int64(id) != key {
		return fmt.Sprintf("core %d (key %d)", id, key)
	}
	return fmt.Sprintf("core %d", id)
}
