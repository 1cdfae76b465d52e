package dmaplan

import (
	"math"
	"strings"
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

// The lower bounds and sim's times are worded as every text output words a
// time: scaled past 1 ms with their unit (audit r3 #17: "13392.5 us").
func TestTextScalesTimes(t *testing.T) {
	p, err := Build([]Executable{{Name: "model", Type: "STAND_ALONE", FullyDeterministic: true,
		Hints: []Hint{{Kind: Descriptor, Direction: Infeed, Target: "PARAMETER", Size: 1 << 20}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (Listing{Plans: []PackagePlan{{Plan: p}}, Effective: []EffectiveLink{{Link: "USB 2.0", GBps: 0.033, Hosts: []string{"h"}}}}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// 1 MiB over USB 2.0: 17.476 ms raw, 31.775 ms at 0.033 GB/s.
	for _, want := range []string{"(raw 0.06 GB/s): 17.476 ms", "sim: 31.775 ms at 0.033 GB/s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
