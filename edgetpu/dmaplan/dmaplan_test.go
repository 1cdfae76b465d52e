package dmaplan

import (
	"math"
	"testing"
)

func TestPlanCachingThenSteady(t *testing.T) {
	exes := []Executable{
		{Name: "model", Type: "EXECUTION_ONLY", FullyDeterministic: true, ChunkSizes: []int64{1000},
			Hints: []Hint{
				{Kind: Instruction, Chunk: 0},
				{Kind: Descriptor, Direction: Infeed, Target: "INPUT", Name: "in", Size: 3000},
				{Kind: Descriptor, Direction: Infeed, Target: "PARAMETER", Offset: 0, Size: 2000},
				{Kind: Interrupt, Interrupt: 0},
				{Kind: Fence},
				{Kind: Descriptor, Direction: Outfeed, Target: "OUTPUT", Name: "out", Size: 10},
			}},
		{Name: "Unknown", Type: "PARAMETER_CACHING", FullyDeterministic: true, ChunkSizes: []int64{500},
			Hints: []Hint{{Kind: Instruction, Chunk: 0}, {Kind: Descriptor, Direction: Infeed, Target: "PARAMETER", Size: 60000}}},
	}
	p, err := Build(exes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.FirstInference) != 8 || len(p.SteadyState) != 6 || p.FirstInference[0].Executable != "Unknown" {
		t.Fatalf("%d/%d steps, first %q", len(p.FirstInference), len(p.SteadyState), p.FirstInference[0].Executable)
	}
	if p.Steady.HostToDevice != 6000 || p.Steady.DeviceToHost != 10 || p.First.HostToDevice != 66500 {
		t.Fatalf("steady %+v first %+v", p.Steady, p.First)
	}
	if p.Steady.ByTarget["PARAMETER"] != 2000 || p.Steady.ByTarget["INSTRUCTIONS"] != 1000 {
		t.Fatalf("%v", p.Steady.ByTarget)
	}
	// 6000 bytes over USB 2.0: 6000*8/480e6 s = 100 us.
	if math.Abs(p.Steady.LowerBoundUs["USB 2.0"]-100) > 1e-9 {
		t.Fatalf("%v", p.Steady.LowerBoundUs)
	}
	if len(p.USBRejects) != 0 {
		t.Fatal(p.USBRejects)
	}
}

func TestNotDeterministicIsRejectedByUSB(t *testing.T) {
	p, err := Build([]Executable{{Name: "lstm", Type: "STAND_ALONE", Hints: []Hint{{Kind: Fence}}}}, nil)
	if err != nil || len(p.USBRejects) != 1 {
		t.Fatalf("%v %v", p, err)
	}
	if _, err := Build([]Executable{{Name: "x", Hints: []Hint{{Kind: Instruction, Chunk: 3}}}}, nil); err == nil {
		t.Fatal("chunk out of range accepted")
	}
}
