package neuroncore

import (
	"fmt"
	"strings"
)

// Buffer is an on-chip memory: SBUF or PSUM.
type Buffer int

const (
	SBUF Buffer = iota
	PSUM
)

// String returns "sbuf" or "psum".
func (b Buffer) String() string {
	if b == PSUM {
		return "psum"
	}
	return "sbuf"
}

// AllocKind is how a tensor's tiles are placed.
type AllocKind int

const (
	// Auto leaves placement to the compiler (buffer=nl.sbuf / nl.psum);
	// `npukit sbuf place` fills it in.
	Auto AllocKind = iota
	// Table is ncc.sbuf.alloc / ncc.psum.alloc with an explicit function,
	// written in a plan as a table: one location per logical tile.
	Table
	// Mod is ncc.sbuf.mod_alloc / ncc.psum.mod_alloc.
	Mod
)

// String returns "auto", "alloc" or "mod_alloc".
func (k AllocKind) String() string {
	switch k {
	case Table:
		return "alloc"
	case Mod:
		return "mod_alloc"
	}
	return "auto"
}

// ModAlloc holds the arguments of mod_alloc. For SBUF the bank fields are
// unused. Empty tuples mean all ones (one physical tile along that axis).
type ModAlloc struct {
	BaseBank      int64
	BaseAddr      int64
	BasePartition int64
	NumBankTiles  []int64 // PSUM only
	NumParTiles   []int64
	NumFreeTiles  []int64
}

// Location is where a physical tile starts: a partition and a byte address
// within each partition. For PSUM, Bank is the bank and Addr is relative to
// the bank's start; for SBUF Bank is 0.
type Location struct {
	Partition int64
	Bank      int64
	Addr      int64
}

// Offset is the byte offset of the location within a partition (for PSUM,
// bank*bankBytes + Addr).
func (l Location) Offset(bankBytes int64) int64 { return l.Bank*bankBytes + l.Addr }

// numElems is the product of shape (1 for an empty shape).
func numElems(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}

// modLinear is the NKI modulo allocation index: with shape defaulting to
// all ones when empty, it pairs idx with shape dimension by dimension (as
// Python's zip does: the shorter one decides how many), takes idx mod shape
// elementwise and linearises row-major over shape:
//
//	sum over d of (idx[d] mod shape[d]) * prod(shape[d+1:])
//
// (formula of nki.compiler.sbuf.mod_alloc in the NKI API reference).
// Shape entries must be positive.
func modLinear(shape, idx []int64) int64 {
	if len(shape) == 0 {
		return 0
	}
	n := min(len(shape), len(idx))
	var lin int64
	for d := 0; d < n; d++ {
		lin += (idx[d] % shape[d]) * numElems(shape[d+1:])
	}
	return lin
}

// SBUFLocation is ncc.sbuf.mod_alloc's placement of the logical tile idx of
// a tensor whose tiles span pdim partitions and fdim bytes per partition:
//
//	start_partition = base_partition + lin(num_par_tiles, idx) * pdim
//	byte_addr       = base_addr + lin(num_free_tiles, idx) * fdim
func (m *ModAlloc) SBUFLocation(idx []int64, pdim, fdim int64) Location {
	return Location{
		Partition: m.BasePartition + modLinear(m.NumParTiles, idx)*pdim,
		Addr:      m.BaseAddr + modLinear(m.NumFreeTiles, idx)*fdim,
	}
}

// PSUMLocation is ncc.psum.mod_alloc's placement: as SBUFLocation plus
// bank = base_bank + lin(num_bank_tiles, idx).
func (m *ModAlloc) PSUMLocation(idx []int64, pdim, fdim int64) Location {
	l := m.SBUFLocation(idx, pdim, fdim)
	l.Bank = m.BaseBank + modLinear(m.NumBankTiles, idx)
	return l
}

// PhysicalTiles is the number of distinct physical tiles mod_alloc can
// produce: the product of the tile-count tuples.
func (m *ModAlloc) PhysicalTiles() int64 {
	return numElems(m.NumBankTiles) * numElems(m.NumParTiles) * numElems(m.NumFreeTiles)
}

// StartPartitionAllowed reports whether a tile of p partitions may start at
// partition start (ISA rule): 64 < p <= 128 -> 0; 32 < p <= 64 -> 0 or 64;
// 0 < p <= 32 -> 0, 32, 64 or 96.
func StartPartitionAllowed(p, start int64) bool {
	switch {
	case p > 64 && p <= 128:
		return start == 0
	case p > 32 && p <= 64:
		return start == 0 || start == 64
	case p > 0 && p <= 32:
		return start == 0 || start == 32 || start == 64 || start == 96
	}
	return false
}

// AllowedStartPartitions lists the start partitions a tile of p partitions
// may use (nil when p is out of range).
func AllowedStartPartitions(p int64) []int64 {
	switch {
	case p > 64 && p <= 128:
		return []int64{0}
	case p > 32 && p <= 64:
		return []int64{0, 64}
	case p > 0 && p <= 32:
		return []int64{0, 32, 64, 96}
	}
	return nil
}

// Code renders the NKI allocation expression of mod_alloc for a buffer,
// e.g. "ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,))". Arguments at
// their defaults are left out (base_addr is always written for SBUF, where
// it has no default; base_bank for PSUM).
func (m *ModAlloc) Code(b Buffer) string {
	var args []string
	if b == PSUM {
		args = append(args, fmt.Sprintf("base_bank=%d", m.BaseBank))
		if m.BaseAddr != 0 {
			args = append(args, fmt.Sprintf("base_addr=%d", m.BaseAddr))
		}
	} else {
		args = append(args, fmt.Sprintf("base_addr=%d", m.BaseAddr))
	}
	if m.BasePartition != 0 {
		args = append(args, fmt.Sprintf("base_partition=%d", m.BasePartition))
	}
	if b == PSUM && len(m.NumBankTiles) > 0 {
		args = append(args, "num_bank_tiles="+pyTuple(m.NumBankTiles))
	}
	if len(m.NumParTiles) > 0 {
		args = append(args, "num_par_tiles="+pyTuple(m.NumParTiles))
	}
	if len(m.NumFreeTiles) > 0 {
		args = append(args, "num_free_tiles="+pyTuple(m.NumFreeTiles))
	}
	return fmt.Sprintf("ncc.%s.mod_alloc(%s)", b, strings.Join(args, ", "))
}

// pyTuple renders a Python tuple: (2,) or (2, 3).
func pyTuple(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
