package link

import (
	"math/rand"
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
