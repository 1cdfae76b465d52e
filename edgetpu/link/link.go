// Package link patches buffer addresses into Edge TPU instruction
// bitstreams the way the driver does before every request
// (../shared/notes/edgetpu.md, "Linking"): each relocation names a 32-bit
// field at a bit offset inside its own chunk, written LSB first; LOWER
// fields get addr & 0xffffffff and UPPER fields addr >> 32. Input and
// output relocations name a layer and a batch element; the parameter
// buffer is linked only when the executable has parameters, the scratch
// buffer only when it needs scratch. Link works on copies: the
// executable's own chunks are never modified.
package link

import (
	"fmt"
	"sort"

	"github.com/npukit/npukit/internal/bitfield"
)

// Kind is what a relocation points at (the schema's Description enum).
type Kind int

// Relocation kinds, numbered as in the schema.
const (
	OutputActivation Kind = 0
	InputActivation  Kind = 1
	Parameter        Kind = 2
	Scratch          Kind = 3
)

func (k Kind) String() string {
	switch k {
	case OutputActivation:
		return "OUTPUT"
	case InputActivation:
		return "INPUT"
	case Parameter:
		return "PARAMETER"
	case Scratch:
		return "SCRATCH"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Position selects half of a 64-bit address.
type Position int

// Positions, numbered as in the schema.
const (
	Lower32 Position = 0
	Upper32 Position = 1
)

// Relocation is one FieldOffset of a chunk.
type Relocation struct {
	Chunk     int
	OffsetBit int64
	Kind      Kind
	Position  Position
	Name      string // layer name for INPUT/OUTPUT
	Batch     int
}

// Executable is what linking needs of an executable.
type Executable struct {
	Chunks       [][]byte
	Relocations  []Relocation
	BatchSize    int
	HasParams    bool // parameters non-empty
	ScratchBytes int64
	Inputs       []string // input layer names
	Outputs      []string // output layer names
}

// Addresses are the device addresses to link. Inputs and Outputs map a
// layer name to one address per batch element.
type Addresses struct {
	Inputs     map[string][]uint64
	Outputs    map[string][]uint64
	Parameters *uint64
	Scratch    *uint64
}

// Patch is one value written.
type Patch struct {
	Relocation
	Value uint32
}

// Link returns patched copies of the chunks and the patches written.
//
// A chunk no relocation patches is returned as it is (the input's bytes:
// do not modify it). Chunks that are one slice of the input (a package
// may refer to one bitstream many times) and receive the same patches
// share one copy, so memory stays in proportion to the distinct bytes
// (30,000 references to one bitstream were 30,000 copies); Same reports
// which output chunks share storage.
func Link(e Executable, a Addresses) ([][]byte, []Patch, error) {
	if err := checkAddresses(e, a); err != nil {
		return nil, nil, err
	}
	out := make([][]byte, len(e.Chunks))
	copy(out, e.Chunks)
	var patches []Patch
	for i, r := range e.Relocations {
		addr, skip, err := resolve(e, a, r)
		if err != nil {
			return nil, nil, fmt.Errorf("relocation %d (%s %q batch %d, chunk %d bit %d): %w", i, r.Kind, r.Name, r.Batch, r.Chunk, r.OffsetBit, err)
		}
		if skip {
			continue
		}
		v := uint32(addr)
		if r.Position == Upper32 {
			v = uint32(addr >> 32)
		}
		if r.Chunk < 0 || r.Chunk >= len(out) {
			return nil, nil, fmt.Errorf("relocation %d: chunk %d out of range (%d chunks)", i, r.Chunk, len(out))
		}
		if r.OffsetBit < 0 || r.OffsetBit+32 > 8*int64(len(out[r.Chunk])) {
			return nil, nil, fmt.Errorf("relocation %d in chunk %d: bits %d..%d outside the %d-byte chunk", i, r.Chunk, r.OffsetBit, r.OffsetBit+31, len(out[r.Chunk]))
		}
		patches = append(patches, Patch{r, v})
	}
	if err := checkOverlap(patches); err != nil {
		return nil, nil, err
	}
	// The patches of each chunk, as a key: chunks that are the same input
	// bytes with the same patches share one patched copy.
	sig := make([][]byte, len(out))
	for _, p := range patches {
		sig[p.Chunk] = fmt.Appendf(sig[p.Chunk], "%d=%d,", p.OffsetBit, p.Value)
	}
	type shared struct {
		id  identity
		sig string
	}
	copies := map[shared][]byte{}
	for i, c := range e.Chunks {
		if sig[i] == nil {
			continue
		}
		k := shared{identityOf(c), string(sig[i])}
		if cp, ok := copies[k]; ok {
			out[i] = cp
			continue
		}
		out[i] = append([]byte(nil), c...)
		copies[k] = out[i]
	}
	for i, p := range patches {
		if p.Chunk >= 0 && copies[shared{identityOf(e.Chunks[p.Chunk]), string(sig[p.Chunk])}] != nil {
			if err := bitfield.Write(out[p.Chunk], p.OffsetBit, 32, uint64(p.Value)); err != nil {
				return nil, nil, fmt.Errorf("patch %d in chunk %d: %w", i, p.Chunk, err)
			}
		}
	}
	return out, patches, nil
}

// checkOverlap refuses two relocations whose 32-bit fields in one chunk
// overlap with different values: whichever is written last would corrupt
// the other (the same field written twice with one value is harmless).
func checkOverlap(patches []Patch) error {
	idx := make([]int, len(patches))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		pa, pb := patches[idx[a]], patches[idx[b]]
		if pa.Chunk != pb.Chunk {
			return pa.Chunk < pb.Chunk
		}
		return pa.OffsetBit < pb.OffsetBit
	})
	for k := 1; k < len(idx); k++ {
		a, b := patches[idx[k-1]], patches[idx[k]]
		if a.Chunk != b.Chunk || b.OffsetBit >= a.OffsetBit+32 {
			continue
		}
		if a.OffsetBit == b.OffsetBit && a.Value == b.Value {
			continue
		}
		return fmt.Errorf("relocations overlap in chunk %d: bits %d and %d (%s %q, %s %q)", a.Chunk, a.OffsetBit, b.OffsetBit, a.Kind, a.Name, b.Kind, b.Name)
	}
	return nil
}

// identity is a slice's storage: two chunks with one identity are the same
// bytes.
type identity struct {
	p *byte
	n int
}

func identityOf(b []byte) identity {
	if len(b) == 0 {
		return identity{}
	}
	return identity{&b[0], len(b)}
}

// Same returns, for each chunk, the index of the first chunk that shares
// its storage (itself when none does): a writer writes each storage once.
func Same(chunks [][]byte) []int {
	first := map[identity]int{}
	same := make([]int, len(chunks))
	for i, c := range chunks {
		id := identityOf(c)
		if j, ok := first[id]; ok && id.p != nil {
			same[i] = j
			continue
		}
		first[id] = i
		same[i] = i
	}
	return same
}

func checkAddresses(e Executable, a Addresses) error {
	known := map[Kind]map[string]bool{InputActivation: {}, OutputActivation: {}}
	for _, n := range e.Inputs {
		known[InputActivation][n] = true
	}
	for _, n := range e.Outputs {
		known[OutputActivation][n] = true
	}
	for kind, m := range map[Kind]map[string][]uint64{InputActivation: a.Inputs, OutputActivation: a.Outputs} {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !known[kind][n] {
				return fmt.Errorf("unknown %s layer %q (layers: %v)", kind, n, layerNames(e, kind))
			}
			if len(m[n]) > max(e.BatchSize, 1) {
				return fmt.Errorf("%s %q: %d batch addresses but batch_size is %d", kind, n, len(m[n]), e.BatchSize)
			}
		}
	}
	return nil
}

func layerNames(e Executable, k Kind) []string {
	if k == InputActivation {
		return e.Inputs
	}
	return e.Outputs
}

// resolve finds the address of a relocation; skip is true for parameter
// and scratch relocations the driver does not link.
func resolve(e Executable, a Addresses, r Relocation) (addr uint64, skip bool, err error) {
	switch r.Kind {
	case Parameter:
		if !e.HasParams {
			return 0, true, nil
		}
		if a.Parameters == nil {
			return 0, false, fmt.Errorf("no parameter address given (--parameters)")
		}
		return *a.Parameters, false, nil
	case Scratch:
		if e.ScratchBytes <= 0 {
			return 0, true, nil
		}
		if r.Batch != 0 {
			return 0, false, fmt.Errorf("scratch relocation with batch %d (must be 0)", r.Batch)
		}
		if a.Scratch == nil {
			return 0, false, fmt.Errorf("no scratch address given (--scratch)")
		}
		return *a.Scratch, false, nil
	case InputActivation, OutputActivation:
		m := a.Inputs
		if r.Kind == OutputActivation {
			m = a.Outputs
		}
		if r.Batch < 0 || r.Batch >= max(e.BatchSize, 1) {
			return 0, false, fmt.Errorf("batch %d out of range (batch_size %d)", r.Batch, e.BatchSize)
		}
		addrs, ok := m[r.Name]
		if !ok || r.Batch >= len(addrs) {
			return 0, false, fmt.Errorf("no address given for %s %q batch %d", r.Kind, r.Name, r.Batch)
		}
		return addrs[r.Batch], false, nil
	}
	return 0, false, fmt.Errorf("unknown relocation kind %d", int(r.Kind))
}

// Verify proves a link: every patched field holds its value, and every
// other bit of every chunk equals the original.
func Verify(orig, linked [][]byte, patches []Patch) error {
	if len(orig) != len(linked) {
		return fmt.Errorf("%d chunks linked, %d original", len(linked), len(orig))
	}
	// Mask of patched bits per chunk; chunks that are the same original
	// and linked storage (see Same) share one mask and are compared once.
	masks := make([][]byte, len(orig))
	type pair struct{ o, l identity }
	seen := map[pair]int{}
	rep := make([]int, len(orig))
	for i := range orig {
		if len(orig[i]) != len(linked[i]) {
			return fmt.Errorf("chunk %d: %d bytes linked, %d original", i, len(linked[i]), len(orig[i]))
		}
		k := pair{identityOf(orig[i]), identityOf(linked[i])}
		if j, ok := seen[k]; ok && k.o.p != nil {
			masks[i], rep[i] = masks[j], j
			continue
		}
		seen[k], rep[i] = i, i
		masks[i] = make([]byte, len(orig[i]))
	}
	for _, p := range patches {
		got, err := bitfield.Read(linked[p.Chunk], p.OffsetBit, 32)
		if err != nil {
			return err
		}
		if uint32(got) != p.Value {
			return fmt.Errorf("chunk %d bit %d holds %#x, want %#x", p.Chunk, p.OffsetBit, got, p.Value)
		}
		if err := bitfield.Write(masks[p.Chunk], p.OffsetBit, 32, 0xffffffff); err != nil {
			return err
		}
	}
	for i := range orig {
		if rep[i] != i {
			continue
		}
		for j := range orig[i] {
			if (orig[i][j]^linked[i][j])&^masks[i][j] != 0 {
				return fmt.Errorf("chunk %d byte %d changed outside any relocation (%#02x -> %#02x)", i, j, orig[i][j], linked[i][j])
			}
		}
	}
	return nil
}
