package link

import (
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/bitfield"
)

func exe() Executable {
	rng := rand.New(rand.NewSource(5))
	chunks := [][]byte{make([]byte, 64), make([]byte, 32)}
	for _, c := range chunks {
		rng.Read(c)
	}
	return Executable{
		Chunks: chunks, BatchSize: 2, HasParams: true, ScratchBytes: 1024,
		Inputs: []string{"in"}, Outputs: []string{"out"},
		Relocations: []Relocation{
			{Chunk: 0, OffsetBit: 70, Kind: InputActivation, Position: Lower32, Name: "in", Batch: 0},
			{Chunk: 0, OffsetBit: 198, Kind: InputActivation, Position: Upper32, Name: "in", Batch: 0},
			{Chunk: 0, OffsetBit: 326, Kind: InputActivation, Position: Lower32, Name: "in", Batch: 1},
			{Chunk: 1, OffsetBit: 6, Kind: OutputActivation, Position: Lower32, Name: "out", Batch: 0},
			{Chunk: 1, OffsetBit: 134, Kind: Parameter, Position: Lower32},
			{Chunk: 1, OffsetBit: 200, Kind: Scratch, Position: Upper32},
		},
	}
}

func u64(v uint64) *uint64 { return &v }

func addrs() Addresses {
	return Addresses{
		Inputs:     map[string][]uint64{"in": {0x1_2345_6789, 0x2000}},
		Outputs:    map[string][]uint64{"out": {0xdead_beef}},
		Parameters: u64(0x7000_0000), Scratch: u64(0xab_0000_0000),
	}
}

func TestLinkWritesValuesAndNothingElse(t *testing.T) {
	e := exe()
	orig := [][]byte{append([]byte(nil), e.Chunks[0]...), append([]byte(nil), e.Chunks[1]...)}
	linked, patches, err := Link(e, addrs())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]uint64{70: 0x2345_6789, 198: 0x1, 326: 0x2000}
	for bit, v := range want {
		got, _ := bitfield.Read(linked[0], bit, 32)
		if got != v {
			t.Errorf("chunk 0 bit %d = %#x want %#x", bit, got, v)
		}
	}
	if got, _ := bitfield.Read(linked[1], 200, 32); got != 0xab {
		t.Errorf("scratch upper = %#x", got)
	}
	if err := Verify(orig, linked, patches); err != nil {
		t.Fatal(err)
	}
	if string(e.Chunks[0]) != string(orig[0]) {
		t.Fatal("Link modified the executable's own chunk")
	}
	// Verify catches a stray change.
	linked[1][0] ^= 1
	if Verify(orig, linked, patches) == nil {
		t.Fatal("stray bit not detected")
	}
}

func TestSkipsParameterAndScratchWhenEmpty(t *testing.T) {
	e := exe()
	e.HasParams, e.ScratchBytes = false, 0
	a := addrs()
	a.Parameters, a.Scratch = nil, nil
	_, patches, err := Link(e, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(patches) != 4 {
		t.Fatalf("%d patches", len(patches))
	}
}

func TestErrors(t *testing.T) {
	cases := map[string]func(*Executable, *Addresses){
		"unknown input":   func(e *Executable, a *Addresses) { a.Inputs["nope"] = []uint64{1} },
		"missing address": func(e *Executable, a *Addresses) { delete(a.Outputs, "out") },
		"batch range":     func(e *Executable, a *Addresses) { e.BatchSize = 1 },
		"no parameters":   func(e *Executable, a *Addresses) { a.Parameters = nil },
		"no scratch":      func(e *Executable, a *Addresses) { a.Scratch = nil },
		"scratch batch":   func(e *Executable, a *Addresses) { e.Relocations[5].Batch = 1 },
		"chunk range":     func(e *Executable, a *Addresses) { e.Relocations[0].Chunk = 9 },
		"bit range":       func(e *Executable, a *Addresses) { e.Relocations[3].OffsetBit = 250 },
		"too many batch":  func(e *Executable, a *Addresses) { a.Inputs["in"] = []uint64{1, 2, 3} },
	}
	for name, mut := range cases {
		e, a := exe(), addrs()
		mut(&e, &a)
		if _, _, err := Link(e, a); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: empty message", name)
		}
	}
}

// One bitstream referenced by 30,000 chunks: Link copied it once per
// reference (30,000 x 64 KiB), and Verify built a mask per reference.
func TestLinkSharedChunkCopiedOnce(t *testing.T) {
	const refs, size = 30000, 64 << 10
	blob := make([]byte, size)
	e := Executable{HasParams: true}
	for i := range refs {
		e.Chunks = append(e.Chunks, blob)
		e.Relocations = append(e.Relocations, Relocation{Chunk: i, OffsetBit: 100, Kind: Parameter})
	}
	p := uint64(0x1234_5678_9abc)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, patches, err := Link(e, Addresses{Parameters: &p})
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(e.Chunks, out, patches); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("linking %d references to one %d-byte chunk allocated %d bytes", refs, size, got)
	}
	same := Same(out)
	for i := range same {
		if same[i] != 0 {
			t.Fatalf("chunk %d not shared with chunk 0", i)
		}
	}
	if v, _ := bitfield.Read(out[refs-1], 100, 32); uint32(v) != uint32(p) || blob[12] != 0 {
		t.Fatalf("patched %#x; input modified: %v", v, blob[12] != 0)
	}
	// Different patches on the same input bytes get separate copies.
	e.Relocations[1].OffsetBit = 200
	out, patches, err = Link(e, Addresses{Parameters: &p})
	if err != nil {
		t.Fatal(err)
	}
	if Same(out)[1] != 1 || Same(out)[2] != 0 {
		t.Errorf("sharing: %v", Same(out)[:3])
	}
	if err := Verify(e.Chunks, out, patches); err != nil {
		t.Fatal(err)
	}
}

// FuzzLink links executables whose chunks share storage (relocation
// fan-out over aliased bitstreams): Link never panics, and what it links
// always verifies.
func FuzzLink(f *testing.F) {
	f.Add([]byte{4, 16, 0b1010, 0, 8, 1, 8, 2, 100, 3, 0})
	f.Add([]byte{200, 3, 0xff, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		n, size := int(b[0]), int(b[1])
		blobs := [2][]byte{make([]byte, size), make([]byte, size/2)}
		for i := range blobs[0] {
			blobs[0][i] = byte(i * 7)
		}
		e := Executable{HasParams: true, ScratchBytes: 64}
		for i := range n {
			e.Chunks = append(e.Chunks, blobs[(int(b[2])>>(i%8))&1])
		}
		for i := 3; i+1 < len(b); i += 2 {
			kind := Parameter
			if b[i]&1 != 0 {
				kind = Scratch
			}
			e.Relocations = append(e.Relocations, Relocation{Chunk: int(b[i] >> 1), OffsetBit: int64(b[i+1]) * 3, Kind: kind, Position: Position(b[i] >> 7)})
		}
		p, s := uint64(0xdead_beef_0000), uint64(0x1_0000_cafe)
		out, patches, err := Link(e, Addresses{Parameters: &p, Scratch: &s})
		if err != nil {
			return
		}
		if err := Verify(e.Chunks, out, patches); err != nil {
			t.Fatalf("linked output does not verify: %v", err)
		}
		if size > 1 && (blobs[0][0] != 0 || blobs[0][1] != 7) {
			t.Fatal("input modified")
		}
	})
}
