// Package neuroncore models the on-chip memories and engines of an AWS
// NeuronCore (v2: Trainium/Inferentia2, v3: Trainium2, v4: Trainium3; v1,
// Inferentia, for NEFF simulation only) and the instance families each
// generation powers (Generations), as far as an NKI kernel author who
// allocates SBUF and PSUM directly needs them: geometry,
// the direct-allocation semantics (alloc tables and mod_alloc), a plan file
// describing tensors and a kernel body, checks of a plan, automatic
// placement, and a timing model that lowers a plan onto package sim.
//
// Sources of the facts: the NeuronDevice architecture guide (engines, clocks,
// cost formulas, start_partition rule, PSUM banks), the NKI direct allocation
// developer guide (alloc, mod_alloc, lifetime errors) and the NKI API
// reference of nki.compiler.sbuf/psum.mod_alloc (the exact modulo formula).
package neuroncore

import (
	"fmt"
	"strings"

	"github.com/npukit/npukit/dtype"
)

// Engine is a compute engine of a NeuronCore, or the DMA queues.
type Engine int

const (
	TensorE Engine = iota // TensorE (PE array)
	VectorE               // VectorE
	ScalarE               // ScalarE (activation)
	GpSimdE               // GpSimdE
	DMA                   // the DMA engines (HBM <-> SBUF)
	numEngines
)

var engineNames = [...]string{TensorE: "tensor", VectorE: "vector", ScalarE: "scalar", GpSimdE: "gpsimd", DMA: "dma"}

// String returns the engine's short name ("tensor", "vector", ...).
func (e Engine) String() string {
	if e >= 0 && e < numEngines {
		return engineNames[e]
	}
	return fmt.Sprintf("engine(%d)", int(e))
}

// Engines lists every engine in a fixed order.
func Engines() []Engine { return []Engine{TensorE, VectorE, ScalarE, GpSimdE, DMA} }

// Arch describes one NeuronCore version.
type Arch struct {
	Name string // "v2", "v3"

	// Assumed names the figures public documentation does not give for
	// this version, which are taken from NeuronCore-v2 ("" when none are).
	Assumed string

	Partitions int // SBUF and PSUM partitions (128)

	// SBUFPartitionBytes is the physical size of one SBUF partition;
	// SBUFUsableBytes is what direct allocation may use (byte_addr plus
	// tile size must stay at or below it). The rest is reserved for the
	// compiler.
	SBUFPartitionBytes int64
	SBUFUsableBytes    int64
	// SBUFAlign and PSUMAlign are sbuf_min_align and psum_min_align in
	// bytes (the guide names them without numbers; one public toolchain
	// uses 1 and 4).
	SBUFAlign int64
	PSUMAlign int64

	PSUMPartitionBytes int64 // 16 KiB
	PSUMBanks          int   // 8 banks of PSUMPartitionBytes/PSUMBanks bytes
	// PSUMTileBanks is how many banks one PSUM tile may span: 1 ("a PSUM
	// tile cannot cross bank boundaries", direct allocation guide) up to
	// NeuronCore-v3; 8 on NeuronCore-v4, whose nc_matmul writes up to
	// 4096 FP32 values per partition, the size of all 8 banks (NKI ISA
	// reference, nki.isa.nc_matmul and nc_matmul_mx).
	PSUMTileBanks int

	// ClockGHz per compute engine (DMA has none).
	ClockGHz [numEngines]float64

	DMAEngines int // DMA engines (queues) per core
	// DMABytesPerNs is the bandwidth of one DMA engine. NKI's DMA
	// bandwidth guide ("Guideline to Avoid Under-Utilizing DMA
	// Bandwidth", awsdocs-neuron.readthedocs-hosted.com, nki/deep-dives/
	// nki-dma-bandwidth-guide) tabulates it per generation: 17 B/ns on
	// Trn1 (NeuronCore-v2), 23 on Trn2 (v3), 33 on Trn3 (v4), 16 engines
	// per NeuronCore.
	DMABytesPerNs float64
	// DMAFixedNs is the fixed cost of one DMA transfer from its trigger to
	// the completion semaphore: descriptor setup, synchronisation and
	// semaphore-to-start latency, "~1300 ns cross-engine" (same guide). It
	// is latency: the engines move other transfers meanwhile.
	DMAFixedNs float64
	// DMAMinChargedBytes: a contiguous run (a partition's row) shorter
	// than this costs an engine as much time as one of this size. Fitted:
	// 256 B. The conv2d captures of corpus3/ntff (final_*_smaller: 64 B
	// runs on the SBUF side) took 31.7-55.3 us of kernel time (the capture
	// less its launch, ntff.Core.KernelSpan) and sim X.neff predicts
	// 0.95-0.99 of it at 256 B (1.29-1.49 at 512 B, 0.70-0.84 at 128 B);
	// their DMA engines moved 12 such runs a packet about every 160 ns,
	// 13 ns a run. AWS's DMA bandwidth guide puts the knee there: under
	// 256 B per partition "severely overhead-bound", 256 B - 2 KiB
	// "improving".
	DMAMinChargedBytes int64
	// DMATransposeBlock is how many elements a DMA transpose writes in one
	// contiguous run of its destination: the 16 DMA engines "write into a
	// single [nl.par_dim(128), 16] SBUF tile in parallel at a time, where
	// the 16 elements along free dimension must be contiguous" (Trainium2
	// architecture guide for NKI, DMA Transpose; nki.isa.dma_transpose's
	// hwdge mode requires src.shape[0] == 16). A transpose is charged as
	// runs of this many elements, each at least DMAMinChargedBytes, in the
	// NEFF simulation (dma.ParamsFor) and nki sim alike; no public figure
	// gives the transpose's throughput beyond "up to 90%" of a copy's.
	DMATransposeBlock int64
	// LaunchNs is the fixed cost of running a kernel on a NeuronCore
	// around its own instructions: the runtime's pre- and post-amble
	// (engine barriers, semaphore resets, DMA ring setup, the trace
	// notifications) inside the time the runtime measures. Measured:
	// from the start of the profiled window to the kernel's first
	// instruction plus from its last instruction to the window's end
	// (ntff.Core.KernelSpan) is 14.96-15.19 us on the 9 shared captures
	// of runtime 2.27 and 14.58-15.74 us on the 6 of runtime 2.30 (all
	// trn2); 15.1 us is their mean. (An idle core's whole window, 7.9-14.4
	// us, used before, is not the launch of a core that runs a kernel.)
	LaunchNs float64

	// MMInitLatency is TensorE's minimum matmul initiation interval in
	// cycles (MM_INIT_LATENCY, 64 on v2).
	MMInitLatency int64
	// MMMaxMoving, MMMaxStationary: moving free size <= 512, stationary
	// free size <= 128.
	MMMaxMoving, MMMaxStationary int64
	// MinInstrCycles is the minimum cost of a VectorE/ScalarE instruction.
	MinInstrCycles int64
	// DependentOverheadCycles is the static overhead of a back-to-back
	// dependent (or tiny) VectorE instruction.
	DependentOverheadCycles int64
	// GpSimdFixedCycles is GpSimdE's fixed cost for iota-like ops.
	GpSimdFixedCycles int64
	// VectorInputsTogether: VectorE streams a two-input instruction
	// (tensor_tensor) at one element per cycle, as a one-input one, instead
	// of the "roughly 2N cycles" of the Trainium/Inferentia2 architecture
	// guide. Measured on NeuronCore-v3: TENSOR_TENSOR took 1.20-1.24 us on
	// 1,000 float32 elements per partition (stream capture, 0.96 GHz: N
	// cycles is 1.04 us, 2N 2.08 us), 597 ns on 420 (conv2d captures) and
	// 279 ns on 128 (MoE capture), each N cycles plus about 150 ns.
	VectorInputsTogether bool
	// VectorPerfMode16: VectorE's performance mode for 16-bit floats
	// (NKI Trainium2 architecture guide, "Vector Engine Performance
	// Mode", NeuronCore-v3): tensor_copy and tensor_scalar whose input
	// and output are bf16/fp16 in SBUF with contiguous innermost
	// elements stream 4x as fast as on NeuronCore-v2 (one element per
	// cycle); 2x when an innermost dimension is not contiguous or one
	// operand is in PSUM; tensor_tensor 2x when both inputs are in SBUF
	// and every operand is bf16/fp16. The hardware enables it by itself.
	VectorPerfMode16 bool
	// ScalarCopy: ScalarE runs tensor_copy (NKI API reference,
	// nki.isa.tensor_copy: "NeuronCore v2: Vector, GpSimd; NeuronCore v3+:
	// Vector, Scalar, GpSimd").
	ScalarCopy bool
	// DefaultLNC is the instances' default logical NeuronCore
	// configuration: physical cores per logical core, 2 on Trn2 and Trn3
	// ("LNC=2 (default)", Neuron guide "Logical NeuronCore
	// configuration"), 0 where there is none. A kernel launched without
	// a core count runs on one physical core even then ("If no brackets
	// are given the number of cores defaults to 1", NKI "Using Logical
	// Neuron Cores"; the shared trn2 captures, compiled for LNC=2, ran on
	// core sg00 while sg01 idled): the model prices one.
	DefaultLNC int
}

// VectorPerfDivisor is how many times faster than one element per cycle
// VectorE streams a copy-like instruction (tensor_copy, tensor_scalar;
// twoInputs: tensor_tensor) whose operands are all 16-bit floats
// (VectorPerfMode16): 4 with every operand in SBUF and contiguous, 2 when
// one is in PSUM or strided (tensor_tensor: 2 with both inputs in SBUF),
// else 1.
func (a *Arch) VectorPerfDivisor(twoInputs, all16, allSBUF, contiguous, inputsSBUF bool) int64 {
	if !a.VectorPerfMode16 || !all16 {
		return 1
	}
	if twoInputs {
		if inputsSBUF {
			return 2
		}
		return 1
	}
	switch {
	case allSBUF && contiguous:
		return 4
	case allSBUF || contiguous:
		return 2
	}
	return 1
}

// PSUMBankBytes is the size of one PSUM bank per partition (2 KiB).
func (a *Arch) PSUMBankBytes() int64 { return a.PSUMPartitionBytes / int64(a.PSUMBanks) }

// PSUMTileMaxBytes is the largest PSUM tile per partition.
func (a *Arch) PSUMTileMaxBytes() int64 { return a.PSUMBankBytes() * int64(max(a.PSUMTileBanks, 1)) }

// Capacity is the usable bytes per partition of a buffer.
func (a *Arch) Capacity(b Buffer) int64 {
	if b == PSUM {
		return a.PSUMPartitionBytes
	}
	return a.SBUFUsableBytes
}

// Align is the minimum byte_addr alignment of a buffer.
func (a *Arch) Align(b Buffer) int64 {
	if b == PSUM {
		return a.PSUMAlign
	}
	return a.SBUFAlign
}

// V2 is NeuronCore-v2 (Trainium1, Inferentia2): SBUF 128 x 192 KiB with the
// top 16 KiB of each partition reserved, PSUM 128 x 16 KiB in 8 banks,
// TensorE 2.8 GHz, VectorE 1.12 GHz, ScalarE and GpSimdE 1.4 GHz
// (architecture guide); 16 DMA engines of 17 B/ns per core, ~1300 ns per
// transfer (NKI DMA bandwidth guide; the architecture guide's older
// 27 GiB/s is the theoretical peak, not what an engine sustains).
var V2 = Arch{
	Name:                    "v2",
	Partitions:              128,
	SBUFPartitionBytes:      192 << 10,
	SBUFUsableBytes:         (192 - 16) << 10, // 180,224
	SBUFAlign:               1,
	PSUMAlign:               4,
	PSUMPartitionBytes:      16 << 10,
	PSUMBanks:               8,
	PSUMTileBanks:           1,
	ClockGHz:                [numEngines]float64{TensorE: 2.8, VectorE: 1.12, ScalarE: 1.4, GpSimdE: 1.4},
	DMAEngines:              16,
	DMABytesPerNs:           17,
	DMAFixedNs:              1300,
	DMAMinChargedBytes:      256,
	DMATransposeBlock:       16,
	LaunchNs:                15100,
	MMInitLatency:           64,
	MMMaxMoving:             512,
	MMMaxStationary:         128,
	MinInstrCycles:          64,
	DependentOverheadCycles: 100,
	GpSimdFixedCycles:       150,
}

// V3 is NeuronCore-v3 (Trainium2): as v2 but SBUF partitions of 224 KiB
// (28 MiB in all: the Trainium3 guide says v4's 32 MiB is "up from 28 MiB
// in NeuronCore-v3") of which 212,984 bytes are usable (one public
// toolchain's figure); PSUM as v2; 16 DMA engines per core of 23 B/ns
// (NKI DMA bandwidth guide).
// Engine clocks: TensorE 2.4 GHz, VectorE 0.96 GHz, ScalarE and GpSimdE
// 1.2 GHz (NKI Trainium2 architecture guide).
var V3 = func() Arch {
	a := V2
	a.Name = "v3"
	a.Assumed = "instruction costs other than VectorE's 16-bit performance mode (Trainium2 guide)"
	a.DMABytesPerNs = 23
	a.SBUFPartitionBytes = 224 << 10
	a.SBUFUsableBytes = 212984
	a.ClockGHz = [numEngines]float64{TensorE: 2.4, VectorE: 0.96, ScalarE: 1.2, GpSimdE: 1.2}
	a.VectorInputsTogether = true
	a.VectorPerfMode16 = true
	a.ScalarCopy = true
	a.DefaultLNC = 2
	return a
}()

// V4 is NeuronCore-v4 (Trainium3): SBUF 32 MiB, i.e. 128 partitions of
// 256 KiB, of which 245,752 bytes are usable (one public toolchain's
// figure); PSUM the same as v3 (Trainium3 guide for NKI); 16 DMA engines of
// 33 B/ns (NKI DMA bandwidth guide). Engine clocks: TensorE 2.4 GHz, VectorE,
// ScalarE and GpSimdE 1.2 GHz (NKI Trainium3 architecture guide). A PSUM
// tile may span all 8 banks (PSUMTileBanks).
var V4 = func() Arch {
	a := V2
	a.Name = "v4"
	a.Assumed = "instruction costs"
	a.ClockGHz = [numEngines]float64{TensorE: 2.4, VectorE: 1.2, ScalarE: 1.2, GpSimdE: 1.2}
	a.SBUFPartitionBytes = 256 << 10
	a.SBUFUsableBytes = 245752
	a.PSUMTileBanks = 8
	a.DMABytesPerNs = 33
	a.ScalarCopy = true
	a.DefaultLNC = 2
	return a
}()

// V1 is NeuronCore-v1 (Inferentia, inf1). NKI does not target it and its
// on-chip geometry is not published; only the DMA model of a NEFF
// simulation uses it, with v2's figures.
var V1 = func() Arch {
	a := V2
	a.Name = "v1"
	a.Assumed = "all on-chip figures (none are published for NeuronCore-v1)"
	return a
}()

// ArchByName returns the architecture an NKI kernel can target: "v2",
// "v3" or "v4" (also accepted: "neuroncore-v2", "trn1", "inf2", "trn2",
// "trn3", and the same with "gen" numbering as nki.isa.get_nc_version
// names them).
func ArchByName(name string) (*Arch, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "v2", "neuroncore-v2", "trn1", "inf2", "gen2":
		a := V2
		return &a, nil
	case "v3", "neuroncore-v3", "trn2", "gen3":
		a := V3
		return &a, nil
	case "v4", "neuroncore-v4", "trn3", "gen4":
		a := V4
		return &a, nil
	}
	return nil, fmt.Errorf("unknown NeuronCore architecture %q (want v2, v3 or v4)", name)
}

// MatmulCycles is TensorE's initiation interval of one matmul
// (MultiplyMoving) with moving free size n: max(n, MM_INIT_LATENCY) cycles
// for bf16/fp16/tf32/fp8 inputs and four times that for fp32.
func (a *Arch) MatmulCycles(t dtype.T, n int64) int64 {
	c := max(n, a.MMInitLatency)
	if t == dtype.Float32 || t == dtype.Int32 || t == dtype.Int64 {
		c *= 4
	}
	return c
}

// TransposeCycles is the cost of a transpose on the PE array of a tile with
// p partitions and f free elements: max(p, min(64, f)).
func (a *Arch) TransposeCycles(p, f int64) int64 { return max(p, min(a.MMInitLatency, f)) }

// VectorCycles is VectorE's cost for an instruction streaming n elements
// per partition from inputs input tiles: inputs*n (n when the engine reads
// its inputs together, VectorInputsTogether), at least MinInstrCycles;
// dependent adds the static overhead of a back-to-back dependent
// instruction.
func (a *Arch) VectorCycles(inputs int, n int64, dependent bool) int64 {
	if a.VectorInputsTogether {
		inputs = 1
	}
	c := max(int64(max(inputs, 1))*n, a.MinInstrCycles)
	if dependent {
		c += a.DependentOverheadCycles
	}
	return c
}

// ActivationCycles is ScalarE's cost of an activation over n elements per
// partition: max(64, n); a fused scale and bias cost nothing extra.
func (a *Arch) ActivationCycles(n int64) int64 { return max(a.MinInstrCycles, n) }

// GpSimdCycles is GpSimdE's cost of an iota-like op over n elements per
// partition: fixed + n.
func (a *Arch) GpSimdCycles(n int64) int64 { return a.GpSimdFixedCycles + n }

// CyclesToPs converts cycles of engine e to picoseconds, rounding up.
func (a *Arch) CyclesToPs(e Engine, cycles int64) int64 {
	ghz := a.ClockGHz[e]
	if ghz <= 0 {
		return 0
	}
	ps := float64(cycles) * 1000 / ghz
	r := int64(ps)
	if float64(r) < ps {
		r++
	}
	return r
}

// DMATransfers is how many DMA engines one load or store over rows
// partition rows is spread across: each DMA transfer is parallelised over
// up to the 16 engines of the core, depending on its shape (NKI's DMA
// overview), one row (a partition's contiguous run) per engine at a time.
func (a *Arch) DMATransfers(rows int64) int64 {
	return max(1, min(int64(a.DMAEngines), rows))
}

// DMAChargedBytes is what rows rows of rowBytes bytes each cost the
// engines: every row at least DMAMinChargedBytes.
func (a *Arch) DMAChargedBytes(rows, rowBytes int64) int64 {
	return max(rows, 1) * max(rowBytes, a.DMAMinChargedBytes)
}

// DMAChargedRuns is what rows rows of rowBytes bytes cost the engines when
// the HBM side of each row is split into contiguous runs of run bytes (a
// strided HBM access; run 0 or at least rowBytes: one run per row, as
// DMAChargedBytes): every run at least DMAMinChargedBytes, since an engine
// moves a contiguous run per descriptor element whichever side is the more
// fragmented (the NEFF simulation charges a descriptor's more fragmented
// side the same way, dma.ChargedBytes).
func (a *Arch) DMAChargedRuns(rows, rowBytes, run int64) int64 {
	if run <= 0 || run >= rowBytes {
		return a.DMAChargedBytes(rows, rowBytes)
	}
	perRow := (rowBytes + run - 1) / run
	return max(rows, 1) * perRow * max(run, a.DMAMinChargedBytes)
}

// DMAPs is the time in picoseconds of one DMA transfer of bytes on one
// engine: the fixed cost plus bytes at the engine's bandwidth.
func (a *Arch) DMAPs(bytes int64) int64 {
	ns := a.DMAFixedNs + float64(bytes)/a.DMABytesPerNs
	return int64(ns*1000 + 0.5)
}
