// Package l2alloc re-allocates the L2 buffer of Gemini schedules with the
// exact solver of package alloc: per core it turns the buffer snapshots into
// an allocation problem, finds the smallest L2 that holds the schedule (with
// a proof when the solver gives one) and writes the schedule back with new
// addresses.
//
// The problem of a core: time is the workload index in program order (the
// snapshot of workload k is the L2 before k starts). Every tensor is one
// buffer (a tensor_id, or a set of transfers where the writer's tensor_id
// is not an identity: gemini.Tensors): it is alive over the snapshots that list it, and a tensor that
// leaves and comes back keeps one buffer with a gap in between, because a
// tensor_id must keep its address on its core (../shared/notes/gemini.md).
// Its size is the largest size any of its entries gives. Entries without a
// tensor_id are one buffer each, alive for their one snapshot. The capacity
// is the core's ring-buffer region; offsets are relative to its start.
//
// The raw IR has no addresses and no tensor identity (its snapshots list
// KiB blocks of layers, not tensors), so there is nothing to re-allocate:
// Build reports it with ErrNoAddresses and the live-bytes peak of its
// snapshots only.
package l2alloc

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/gemini"
)

// ErrNoAddresses is returned by Build for a core whose snapshots carry no
// addresses (the raw IR): there is no placement to re-allocate.
var ErrNoAddresses = errors.New("buffer snapshots have no addresses (raw IR): nothing to re-allocate")

// Ref locates one snapshot entry: Core.Workloads[Workload].Buffer[Entry].
type Ref struct{ Workload, Entry int }

// Tensor is one buffer of a core's problem and the snapshot entries it
// stands for.
type Tensor struct {
	TensorID int64 // the first entry's tensor_id; -1 when it has none
	// Key is the tensor's identity on its core (gemini.Tensors.Key): its
	// tensor_id, or its transfers when the schedule's tensor_id is not an
	// identity; -1 when the entry has neither.
	Key  int32
	Type string
	Size int64
	// Stays are the inclusive workload-index ranges the tensor is alive in.
	Stays [][2]int
	Refs  []Ref
	// Loads flags the stays that begin with a DRAM load (the entry is
	// newly added and sourced from DRAM), index-aligned with Stays.
	Loads []bool
	// FileAddress is the address the file gives its first entry.
	FileAddress int64
}

// CoreProblem is the allocation problem of one core's L2.
type CoreProblem struct {
	Core int   // compact core ID
	Key  int64 // core key in the file
	// Region is the ring-buffer region [start, end) shared by all of the
	// core's workloads; offsets are relative to its start.
	Region  [2]int64
	Problem alloc.Problem // Capacity = region size
	Tensors []Tensor      // index-aligned with Problem.Buffers
	// FileExtent is the address extent the file uses: the highest end of a
	// tensor in the region minus the region start (a tensor wrapping around
	// the region's end counts up to the end).
	FileExtent int64
	// FileSolution is the file's own placement (address - region start).
	// FileValid says whether it is a valid solution of Problem at capacity
	// FileExtent (false when tensors wrap, move or overlap in the file, or
	// when it breaks the alignment asked for).
	FileSolution alloc.Solution
	FileValid    bool
	// Unallocated says the file does not place the core's tensors (some
	// entries have a placeholder address, as third-party converters write
	// before allocation): there is no file placement to compare with, only
	// the problem to solve.
	Unallocated bool
	// FileAlign is the largest power of two (up to 1 MiB) dividing every
	// relative address of the file: the granularity its allocator used.
	FileAlign int64
}

// Options tune the problem construction.
type Options struct {
	// Align is the alignment of every offset in bytes (relative to the
	// region start); 0 or 1 means none. The notes give no address
	// alignment for the L2, so none is the default.
	Align int64
	// Prefetch says which DRAM loads get their region free during the
	// workload before them (see the Prefetch constants).
	Prefetch Prefetch
	// Tensors is the schedule's tensor identity (gemini.IdentifyTensors);
	// nil lets Build work it out. Reallocate computes it once for all
	// cores.
	Tensors *gemini.Tensors
}

// Prefetch is a policy for DRAM loads. A load whose region is free during
// the workload before it can start early; one whose region overlaps a
// tensor of the previous snapshot waits for that workload to end (an
// address write-after-read, check's gemini/address-reuse warning). A load
// kept free is modelled as alive from one workload earlier.
type Prefetch string

const (
	// PrefetchNone: no constraint; the smallest L2, loads may wait.
	PrefetchNone Prefetch = ""
	// PrefetchAll: every load's region is free one workload early: no
	// load waits, at the price of a larger L2.
	PrefetchAll Prefetch = "all"
	// PrefetchFile: every load that does not wait in the file keeps not
	// waiting. The file's own placement satisfies this, so the minimal L2
	// is at most the file's extent and the waits are a subset of the
	// file's.
	PrefetchFile Prefetch = "file"
)

// ParsePrefetch reads a policy name: none, all or file.
func ParsePrefetch(s string) (Prefetch, error) {
	switch s {
	case "", "none":
		return PrefetchNone, nil
	case "all":
		return PrefetchAll, nil
	case "file":
		return PrefetchFile, nil
	}
	return "", fmt.Errorf("prefetch policy %q: want none, all or file", s)
}

// LivePeak returns the largest number of bytes alive at once on a core:
// the largest snapshot occupancy. It needs no addresses (raw IR too).
func LivePeak(c *gemini.Core) int64 {
	var peak int64
	for wi := range c.Workloads {
		peak = max(peak, gemini.Occupancy(c.Workloads[wi].Buffer))
	}
	return peak
}

// Build constructs the allocation problem of a core's L2. It returns
// ErrNoAddresses when no entry of the core has an address or an address
// placeholder (the raw IR); entries with neither in a core that has some
// are left out (they are not placed). Entries with a placeholder are
// placed like the others, and the core is Unallocated.
func Build(s *gemini.Schedule, c *gemini.Core, opt Options) (*CoreProblem, error) {
	cp := &CoreProblem{Core: c.ID, Key: c.Key}
	region, err := coreRegion(s, c)
	if err != nil {
		return nil, err
	}
	cp.Region = region
	cp.Problem.Capacity = region[1] - region[0]
	tn := opt.Tensors
	if tn == nil {
		tn = gemini.IdentifyTensors(s)
	}
	byKey := map[int32]int{}
	any := false
	for wi := range c.Workloads {
		w := &c.Workloads[wi]
		for ei := range w.Buffer {
			e := &w.Buffer[ei]
			if !e.HasAddress && !e.Unallocated {
				continue
			}
			any = true
			cp.Unallocated = cp.Unallocated || e.Unallocated
			if e.Size < 0 {
				return nil, fmt.Errorf("%s workload %d buffer[%d]: negative size %d", c.Name(), w.ID, ei, e.Size)
			}
			ti := -1
			key := tn.Key(c.ID, wi, ei)
			if key >= 0 {
				if i, ok := byKey[key]; ok {
					ti = i
				}
			}
			if ti < 0 {
				ti = len(cp.Tensors)
				t := Tensor{TensorID: -1, Key: key, Type: e.Type, FileAddress: e.Address}
				if e.HasTensorID {
					t.TensorID = e.TensorID
				}
				if key >= 0 {
					byKey[key] = ti
				}
				cp.Tensors = append(cp.Tensors, t)
			}
			t := &cp.Tensors[ti]
			t.Size = max(t.Size, e.Size)
			t.Refs = append(t.Refs, Ref{wi, ei})
			switch n := len(t.Stays); {
			case n > 0 && t.Stays[n-1][1] >= wi: // twice in one snapshot
			case n > 0 && t.Stays[n-1][1] == wi-1:
				t.Stays[n-1][1] = wi
			default:
				t.Stays = append(t.Stays, [2]int{wi, wi})
				t.Loads = append(t.Loads, e.NewlyAdded && e.FromDRAM())
			}
			if !e.HasAddress {
				continue
			}
			if p, ok := gemini.Place([][2]int64{region}, e); ok {
				for _, sp := range p.Spans {
					cp.FileExtent = max(cp.FileExtent, sp.End-region[0])
				}
			} else {
				// Outside the shared region: the extent still counts it.
				cp.FileExtent = max(cp.FileExtent, e.Address+e.Size-region[0])
			}
		}
	}
	if !any {
		return nil, ErrNoAddresses
	}
	cp.Problem.Buffers = make([]alloc.Buffer, len(cp.Tensors))
	cp.FileSolution.Offsets = make([]int64, len(cp.Tensors))
	for i := range cp.Tensors {
		cp.FileSolution.Offsets[i] = cp.Tensors[i].FileAddress - region[0]
	}
	if cp.Unallocated {
		// No placement in the file: addresses, extent and waits of the
		// file mean nothing.
		clear(cp.FileSolution.Offsets)
		cp.FileExtent = 0
	}
	var fileWaits [][]bool
	switch {
	case opt.Prefetch == PrefetchFile && cp.Unallocated:
		// "Never a new wait compared with the file" has no file to
		// compare with: every load keeps its own workload.
		fileWaits = make([][]bool, len(cp.Tensors))
		for i := range cp.Tensors {
			fileWaits[i] = make([]bool, len(cp.Tensors[i].Stays))
			for k := range fileWaits[i] {
				fileWaits[i][k] = true
			}
		}
	case opt.Prefetch == PrefetchFile:
		fileWaits = cp.waiting(cp.FileSolution.Offsets)
	}
	var gcd int64
	for i := range cp.Tensors {
		t := &cp.Tensors[i]
		early := make([]bool, len(t.Stays))
		for k := range early {
			early[k] = t.Loads[k] && (opt.Prefetch == PrefetchAll || (opt.Prefetch == PrefetchFile && !fileWaits[i][k]))
		}
		live := t.alive(early)
		b := alloc.Buffer{ID: bufferID(t, i), Lower: int64(live[0][0]), Upper: int64(live[len(live)-1][1]) + 1,
			Size: t.Size, Alignment: opt.Align}
		for k := 1; k < len(live); k++ {
			b.Gaps = append(b.Gaps, alloc.Gap{Lower: int64(live[k-1][1]) + 1, Upper: int64(live[k][0])})
		}
		cp.Problem.Buffers[i] = b
		gcd = gcdInt(gcd, cp.FileSolution.Offsets[i])
	}
	cp.FileAlign = 1
	for cp.FileAlign < 1<<20 && (gcd == 0 || gcd%(cp.FileAlign*2) == 0) {
		cp.FileAlign *= 2
	}
	cp.FileValid = !cp.Unallocated && cp.fileValid(c)
	return cp, nil
}

// alive returns the inclusive workload ranges in which the tensor holds
// its region: its stays, those flagged early from one workload earlier.
func (t *Tensor) alive(early []bool) [][2]int {
	var out [][2]int
	for k, st := range t.Stays {
		if early[k] && st[0] > 0 {
			st[0]--
		}
		if n := len(out); n > 0 && st[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], st[1])
			continue
		}
		out = append(out, st)
	}
	return out
}

// Waits counts the DRAM loads of a placement that must wait for the
// previous workload to release their region: a stay beginning with a DRAM
// load at workload k > 0 whose bytes [offset, offset+size) overlap another
// tensor of the snapshot of k-1 (the gemini/address-reuse warning of a
// schedule without ring wrap).
func (cp *CoreProblem) Waits(offsets []int64) int {
	n := 0
	for _, ws := range cp.waiting(offsets) {
		for _, w := range ws {
			if w {
				n++
			}
		}
	}
	return n
}

// waiting flags, per tensor and stay, the DRAM loads that wait (see Waits).
func (cp *CoreProblem) waiting(offsets []int64) [][]bool {
	out := make([][]bool, len(cp.Tensors))
	if len(offsets) != len(cp.Tensors) {
		return out
	}
	// The tensors of each snapshot, from the tensors' stays.
	last := 0
	for i := range cp.Tensors {
		out[i] = make([]bool, len(cp.Tensors[i].Stays))
		for _, st := range cp.Tensors[i].Stays {
			last = max(last, st[1])
		}
	}
	snap := make([][]int, last+1)
	for i := range cp.Tensors {
		for _, st := range cp.Tensors[i].Stays {
			for wi := st[0]; wi <= st[1]; wi++ {
				snap[wi] = append(snap[wi], i)
			}
		}
	}
	for i := range cp.Tensors {
		t := &cp.Tensors[i]
		for k, st := range t.Stays {
			if !t.Loads[k] || st[0] == 0 {
				continue
			}
			for _, j := range snap[st[0]-1] {
				if j != i && offsets[i] < offsets[j]+cp.Tensors[j].Size && offsets[j] < offsets[i]+t.Size {
					out[i][k] = true
					break
				}
			}
		}
	}
	return out
}

// fileValid reports whether the file's own placement is a valid solution at
// capacity FileExtent: every entry of a tensor at its first address, no
// wrap, and alloc.Validate finds nothing.
func (cp *CoreProblem) fileValid(c *gemini.Core) bool {
	for i := range cp.Tensors {
		t := &cp.Tensors[i]
		for _, r := range t.Refs {
			e := &c.Workloads[r.Workload].Buffer[r.Entry]
			if e.Address != t.FileAddress {
				return false
			}
		}
		if t.FileAddress < cp.Region[0] || t.FileAddress+t.Size > cp.Region[1] {
			return false
		}
	}
	p := cp.Problem
	p.Capacity = cp.FileExtent
	return len(alloc.Validate(&p, &cp.FileSolution)) == 0
}

// coreRegion is the ring-buffer region all workloads of a core share: the
// intersection of their regions. A workload with several regions is not
// supported (never seen in real files).
func coreRegion(s *gemini.Schedule, c *gemini.Core) ([2]int64, error) {
	var r [2]int64
	first := true
	for wi := range c.Workloads {
		w := &c.Workloads[wi]
		rs := s.Regions(w)
		if len(rs) == 0 {
			continue
		}
		if len(rs) > 1 {
			return r, fmt.Errorf("%s workload %d: %d ring-buffer regions; re-allocation supports one region per workload", c.Name(), w.ID, len(rs))
		}
		if first {
			r, first = rs[0], false
			continue
		}
		r[0], r[1] = max(r[0], rs[0][0]), min(r[1], rs[0][1])
	}
	if first {
		// No region and no buffersize: the raw IR. Build reports
		// ErrNoAddresses when no entry has an address.
		for wi := range c.Workloads {
			for ei := range c.Workloads[wi].Buffer {
				if c.Workloads[wi].Buffer[ei].HasAddress {
					return r, fmt.Errorf("%s: snapshots have addresses but the schedule gives no buffersize or ring-buffer region", c.Name())
				}
			}
		}
		return r, ErrNoAddresses
	}
	if r[1] <= r[0] {
		return r, fmt.Errorf("%s: the workloads' ring-buffer regions have no common part", c.Name())
	}
	return r, nil
}

func bufferID(t *Tensor, i int) string {
	if t.Key >= 0 {
		return "t" + strconv.Itoa(int(t.Key))
	}
	return "e" + strconv.Itoa(i)
}

func gcdInt(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
