// Package isa decodes the engine instruction streams of a NEFF: the
// <Engine>.bin members def.json names (pe_instr, act_instr, dve_instr,
// pool_instr, sp_instr), sequences of 64-byte instructions.
//
// No public document describes the encoding. What this package reads was
// found by lining the words of the shared NEFFs up with what the hardware
// profiler printed for the same instructions (neuron-profile's JSON of the
// captures in corpus3/ntff prints each executed instruction with its
// opcode name and operands; the kernel's own words sit at a fixed offset
// in the profiled stream, after the runtime's preamble), and with the NKI
// source of the kernels (the asst4 stream kernel's only compute call,
// nisa.tensor_tensor, is its only DVE instruction). Understood:
//
//   - byte 0 is the opcode; byte 1 is 0x10 (16 words) on every
//     instruction seen but one Pool opcode (0xDA, 0x00);
//   - bytes 4-5 and 8-11: a semaphore wait, byte 4 the condition (5 =
//     "greater or equal", the only one seen), byte 5 the semaphore, bytes
//     8-11 the value (u32); bytes 6-7: the semaphore the instruction
//     increments when it completes (byte 6 = 0x13, the only kind seen);
//   - operands as (address u32, steps, counts u16) access patterns: three
//     dimensions with the address at 16, counts at 26 and the output's
//     counts at 58 (MATMUL, LDWEIGHTS, ACTIVATE, TENSOR_SCALAR,
//     TENSOR_TENSOR), four with the address at 12 and counts at 24
//     (COPY, TENSOR_REDUCE, RECIPROCAL and opcodes 0x47, 0x49); the
//     partition count of a Vector/Scalar instruction at byte 34 (15 for
//     TENSOR_TENSOR); byte 32 the input dtype (0x0A float32); on TensorE
//     byte 33 the float32 pass (LOW, HIGH, LOW_HIGH);
//   - 0xC1 triggers DMA entry N (u32 at 48) of the static queue named at
//     12 (ASCII, NUL-terminated), the dma list of the engine JSON;
//   - 0xD4 (DMA_DIRECT2D) is a DMA whose descriptor the engine generates
//     (DGE): element bytes u16 at 36, counts u16 at 32 and 34, completion
//     semaphore byte 13, increment byte 14.
//
// Not understood: the operands of 0xA8, 0xCE and 0xDA (GpSimd), the
// activation function and ALU op fields, the dtype codes other than
// float32, addresses' memory-type bits. Opcodes with no known name are
// reported by number.
package isa

import (
	"encoding/binary"
	"fmt"
)

// Size is the size of one instruction.
const Size = 64

// Class is what an instruction does, as far as timing goes.
type Class int

const (
	Unknown     Class = iota // opcode not understood
	Control                  // waits, drains, barriers, NOPs: no data
	Matmul                   // TensorE MATMUL (moving data)
	LoadWeights              // TensorE LDWEIGHTS (stationary data, background)
	Vector1                  // one-input streaming op (copy, reduce, tensor_scalar, ...)
	Vector2                  // two-input streaming op (tensor_tensor)
	Activation               // ScalarE activation
	TableLoad                // ScalarE ACT_TABLE_LOAD
	DMATrigger               // start a static DMA entry of a queue
	DMADirect                // DMA_DIRECT2D: a DMA the engine describes (DGE)
	GpSimd                   // GpSimd compute whose operands are not understood
)

// Op describes an opcode npukit knows.
type Op struct {
	Name  string
	Class Class
	Dims  int // 3 or 4: operand layout (0: none)
}

// Ops lists the opcodes understood, with the evidence in the package
// comment.
var Ops = map[byte]Op{
	0x01: {"LDWEIGHTS", LoadWeights, 3},
	0x02: {"MATMUL", Matmul, 3},
	0x21: {"ACTIVATE", Activation, 3},
	0x23: {"ACT_TABLE_LOAD", TableLoad, 0},
	0x41: {"TENSOR_TENSOR", Vector2, 3},
	0x42: {"TENSOR_REDUCE", Vector1, 4},
	0x43: {"TENSOR_SCALAR", Vector1, 3},
	0x46: {"COPY", Vector1, 4},
	0x47: {"OP_0x47", Vector1, 4}, // 4-D operands like COPY; name not seen
	0x48: {"RECIPROCAL", Vector1, 4},
	0x49: {"OP_0x49", Vector1, 4}, // 4-D operands like COPY; name not seen
	0xA0: {"EVENT_SEMAPHORE", Control, 0},
	0xA4: {"NOP", Control, 0},
	0xA8: {"OP_0xA8", GpSimd, 0},
	0xB1: {"DRAIN", Control, 0},
	0xC1: {"DMA_TRIGGER", DMATrigger, 0},
	0xCC: {"SET_ORDERING_MODE", Control, 0},
	0xCE: {"OP_0xCE", GpSimd, 0},
	0xD4: {"DMA_DIRECT2D", DMADirect, 0},
	0xDA: {"OP_0xDA", Control, 0},
}

// DTypeFloat16 and DTypeBFloat16 are the dtype codes of 16-bit floats:
// 0x07 in the float16 builds of the conv2d captures of the asst4 course
// (their COPYs and LDWEIGHTS read 0x07 where the float32 builds of the
// same kernels read 0x0A), 0x06 in the bfloat16 builds of the
// trainium-kernel-fusion attention (their casts convert 0x0A to 0x06 and
// back; the float32 builds have none).
const (
	DTypeFloat16  = 0x07
	DTypeBFloat16 = 0x06
)

// Is16BitFloat reports whether a dtype code is one of the 16-bit floats.
func Is16BitFloat(code byte) bool { return code == DTypeFloat16 || code == DTypeBFloat16 }

// InSBUF reports whether a four-dimensional operand address is in SBUF
// (no memory-type bits above the low 24).
func InSBUF(addr uint32) bool { return addr>>24 == 0 }

// WaitGE is the only wait condition seen: semaphore >= value.
const WaitGE = 5

// UpdateInc is the only update seen: semaphore += 1 on completion.
const UpdateInc = 0x13

// Instr is one decoded instruction.
type Instr struct {
	Opcode byte
	Op     Op // zero Op (Class Unknown) when the opcode is not known

	// Wait: when WaitCond is not 0, the instruction starts once semaphore
	// WaitSem satisfies the condition against WaitValue.
	WaitCond  byte
	WaitSem   int
	WaitValue int64
	// Update: when UpdKind is not 0, semaphore UpdSem is incremented when
	// the instruction completes.
	UpdKind byte
	UpdSem  int

	// Elems is the free elements per partition the instruction streams
	// (its first operand's counts multiplied), Partitions the partitions
	// (0 when not known), Float32 whether the input is float32.
	Elems      int64
	Partitions int
	Float32    bool
	// Four-dimensional operands (COPY and the other VectorE/ScalarE
	// opcodes with that layout): the input and output dtype codes (bytes
	// 32 and 33: 0x0A float32, 0x07 the 16-bit float of the float16
	// kernels' tensors), addresses (u32 at 12 and 44) and innermost steps
	// in elements (u16 at 16 and 48). An address with bits above the low
	// 24 set is not in SBUF: the PSUM evictions of the attention captures
	// read 0x0200xxxx, their SBUF operands are below 0x38000 (224 KiB, a
	// NeuronCore-v3 partition).
	DType, OutDType byte
	InAddr, OutAddr uint32
	InStep, OutStep int64
	// FP32Pass: a TensorE instruction that is one of the passes a float32
	// matmul is split into (byte 33: 1 and 2 on LDWEIGHTS, LOW and HIGH;
	// 3 on MATMUL, LOW_HIGH; the compiler emits two MATMULs per float32
	// product).
	FP32Pass bool

	// DMATrigger: the queue and its entry.
	Queue string
	Entry int
	// DMADirect: bytes moved, rows (contiguous elements), and the
	// semaphore incremented by Inc on completion.
	DMABytes int64
	DMARows  int64
	DMASem   int
	DMAInc   int64
}

// Name is the opcode's name, or its number.
func (in *Instr) Name() string {
	if in.Op.Name != "" {
		return in.Op.Name
	}
	return fmt.Sprintf("OP_0x%02X", in.Opcode)
}

// Decode decodes every whole 64-byte instruction of b (a trailing partial
// word is ignored). It never fails: fields it cannot read stay zero.
func Decode(b []byte) []Instr {
	out := make([]Instr, 0, len(b)/Size)
	for i := 0; i+Size <= len(b); i += Size {
		out = append(out, decode(b[i:i+Size]))
	}
	return out
}

func allZero(w []byte) bool {
	for _, b := range w {
		if b != 0 {
			return false
		}
	}
	return true
}

func u16(w []byte, o int) int64 { return int64(binary.LittleEndian.Uint16(w[o:])) }
func u32(w []byte, o int) int64 { return int64(binary.LittleEndian.Uint32(w[o:])) }

func counts(w []byte, o, n int) int64 {
	p := int64(1)
	for k := 0; k < n; k++ {
		p *= max(u16(w, o+2*k), 1)
	}
	return p
}

func decode(w []byte) Instr {
	in := Instr{Opcode: w[0], Op: Ops[w[0]]}
	if allZero(w) {
		in.Op = Op{Name: "EMPTY", Class: Control} // an unused slot
		return in
	}
	if w[4] != 0 {
		in.WaitCond, in.WaitSem, in.WaitValue = w[4], int(w[5]), u32(w, 8)
	}
	if w[6] != 0 {
		in.UpdKind, in.UpdSem = w[6], int(w[7])
	}
	switch in.Op.Class {
	case DMATrigger:
		name := w[12:48]
		n := 0
		for n < len(name) && name[n] != 0 {
			n++
		}
		in.Queue, in.Entry = string(name[:n]), int(u32(w, 48))
		return in
	case DMADirect:
		elem := u16(w, 36)
		rows := max(u16(w, 32), 1) * max(u16(w, 34), 1)
		in.DMABytes, in.DMARows = elem*rows, rows
		in.DMASem, in.DMAInc = int(w[13]), int64(w[14])
		return in
	}
	switch in.Op.Dims {
	case 3:
		in.Elems = counts(w, 26, 3)
		in.Float32 = w[32] == 0x0A
		in.Partitions = int(w[34])
		if in.Op.Class == Vector2 {
			in.Partitions = int(w[15])
		}
	case 4:
		in.Elems = counts(w, 24, 4)
		in.Float32 = w[32] == 0x0A
		in.Partitions = int(u16(w, 34))
		in.DType, in.OutDType = w[32], w[33]
		in.InAddr, in.OutAddr = uint32(u32(w, 12)), uint32(u32(w, 44))
		in.InStep, in.OutStep = u16(w, 16), u16(w, 48)
	}
	if in.Op.Class == Matmul || in.Op.Class == LoadWeights {
		in.Partitions = 128
		in.FP32Pass = in.Float32 && w[33] != 0
	}
	return in
}
