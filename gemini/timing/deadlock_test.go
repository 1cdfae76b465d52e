package timing

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/gemini"
)

// Many-core synthetic meshes simulate to completion: every core ends, the
// total is at least each core's compute, and each core's time adds up.
func TestSynthManyCores(t *testing.T) {
	for _, cfg := range []gemini.SynthConfig{
		{Cores: 1, Workloads: 10},
		{Cores: 16, XLen: 4, Workloads: 8},
		{Cores: 64, XLen: 8, Workloads: 4},
		{Cores: 6, XLen: 4, Workloads: 6}, // a mesh with empty places
	} {
		s, err := gemini.Synth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Simulate(s, Default())
		if err != nil {
			t.Fatalf("%d cores: %v", cfg.Cores, err)
		}
		if len(res.Cores) != cfg.Cores {
			t.Fatalf("%d cores: %d in the result", cfg.Cores, len(res.Cores))
		}
		for i, c := range res.Cores {
			var sum int64
			for _, w := range s.Cores[i].Workloads {
				sum += w.Time
			}
			if c.Busy < sum || c.Busy > res.TotalCycles {
				t.Errorf("%d cores: core %d busy %d, compute %d, total %d", cfg.Cores, i, c.Busy, sum, res.TotalCycles)
			}
			if got := c.Busy + c.WaitDRAM + c.WaitCores + c.Overhead + c.Idle; got != res.TotalCycles {
				t.Errorf("%d cores: core %d accounts for %d of %d cycles", cfg.Cores, i, got, res.TotalCycles)
			}
		}
	}
}

// A schedule whose data edges form a cycle across cores deadlocks: Simulate
// must fail and say so, never report a total.
func TestCrossCoreDeadlock(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 4, Workloads: 10, DRAMEvery: 100})
	if err != nil {
		t.Fatal(err)
	}
	// Core c reads its right neighbour's previous ofmap, so core 1's
	// workload 6 depends on core 0's workload 3; core 0's workload 2 now
	// also reads core 1's workload 6 ofmap.
	prod := &s.Cores[1].Workloads[6]
	id := prod.Ofmaps[0].TransferID
	prod.Ofmaps[0].Destinations = append(prod.Ofmaps[0].Destinations, gemini.Destination{Type: "core", Core: 0, CoreKey: 0, Workload: s.Cores[0].Workloads[2].ID, HasWorkload: true})
	cons := &s.Cores[0].Workloads[2]
	cons.Ifmaps[0].TransferIDs = append(cons.Ifmaps[0].TransferIDs, id)
	rep := gemini.Check(s)
	found := false
	for _, d := range rep {
		found = found || d.Rule == gemini.RuleCycle
	}
	if !found {
		t.Fatalf("check does not report the cycle: %v", rep)
	}
	res, err := Simulate(s, Default())
	if err == nil {
		t.Fatalf("deadlocked schedule simulated: %d cycles", res.TotalCycles)
	}
	if !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("error does not say deadlock: %v", err)
	}
}

// A single core whose DRAM queue order (tensor_order) puts a store before
// a load that program order needs earlier is not a deadlock of the data:
// the transfers are served by priority and the run completes.
func TestQueueOrderContradictsProgram(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 1, Workloads: 12, DRAMEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The last store (an ofmap-typed entry) and the first load of workload
	// 1 trade places in the queue.
	var store, load *gemini.BufferEntry
	c := s.Cores[0]
	for wi := range c.Workloads {
		for ei := range c.Workloads[wi].Buffer {
			e := &c.Workloads[wi].Buffer[ei]
			if e.Type == "ofmap" && e.HasTensorOrder {
				store = e
			}
		}
	}
	for ei := range c.Workloads[1].Buffer {
		e := &c.Workloads[1].Buffer[ei]
		if e.FromDRAM() && e.NewlyAdded && load == nil {
			load = e
		}
	}
	if store == nil || load == nil {
		t.Fatal("synthetic schedule lacks a store or a load")
	}
	so, lo := store.TensorOrder, load.TensorOrder
	for wi := range c.Workloads {
		for ei := range c.Workloads[wi].Buffer {
			e := &c.Workloads[wi].Buffer[ei]
			switch {
			case e.HasTensorID && e.TensorID == store.TensorID:
				e.TensorOrder = lo
			case e.HasTensorID && e.TensorID == load.TensorID:
				e.TensorOrder = so
			}
		}
	}
	if rep := gemini.Check(s); rep.HasErrors() {
		t.Fatalf("mutated schedule no longer valid: %v", rep)
	}
	res, err := Simulate(s, Default())
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalCycles <= 0 {
		t.Errorf("total %d", res.TotalCycles)
	}
}

// A core key far outside the mesh is an error naming the key, not a route
// of millions of hops.
func TestCoreKeyOutsideMesh(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 2, Workloads: 4})
	if err != nil {
		t.Fatal(err)
	}
	s.Cores[1].Key, s.Cores[1].X, s.Cores[1].Y = 100000000, 0, 50000000
	if _, err := Simulate(s, Default()); err == nil || !strings.Contains(err.Error(), "100000000") {
		t.Fatalf("got %v", err)
	}
}
