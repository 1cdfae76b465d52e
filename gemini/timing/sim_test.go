package timing

import (
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/conformance"
)

// TestRawMultiCore simulates the raw 2x2 file: all four cores compute and
// data crosses the mesh.
func TestRawMultiCore(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	files := conformance.Files(t, dir, "*raw*.json")
	if len(files) == 0 {
		t.Skip("no raw IR file")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := gemini.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Simulate(s, Default())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cores) != len(s.Cores) || len(s.Cores) < 2 {
				t.Fatalf("%d cores simulated of %d", len(res.Cores), len(s.Cores))
			}
			for _, c := range res.Cores {
				if c.Busy <= 0 {
					t.Errorf("core %d never computes", c.Core)
				}
				if sum := c.Busy + c.WaitDRAM + c.WaitCores + c.Overhead + c.Idle; sum != res.TotalCycles {
					t.Errorf("core %d: breakdown sums to %d, total %d", c.Core, sum, res.TotalCycles)
				}
			}
			var cross int64
			for _, c := range res.Cores {
				cross += c.WaitCores
			}
			if cross == 0 {
				t.Errorf("no core waits for another core's data")
			}
			var noc int64
			for _, l := range res.Links {
				noc += l.Bytes
			}
			if noc == 0 || len(res.Links) == 0 {
				t.Errorf("no core-to-core traffic")
			}
			if res.DRAM.ReadBytes == 0 {
				t.Errorf("no DRAM reads")
			}
			for _, c := range res.Cores {
				t.Logf("core %d: %+v", c.Core, c)
			}
			t.Logf("total %d cycles, %d links, %d NoC bytes, DRAM %d B read %d B written",
				res.TotalCycles, len(res.Links), noc, res.DRAM.ReadBytes, res.DRAM.WriteBytes)
		})
	}
}

func TestSynthMultiCore(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 4, Workloads: 20, XLen: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, pf := range []Prefetch{PrefetchSnapshot, PrefetchHazard} {
		p := Default()
		p.Prefetch = pf
		res, err := Simulate(s, p)
		if err != nil {
			t.Fatalf("%s: %v", pf, err)
		}
		var sumTime int64
		for _, w := range s.Cores[0].Workloads {
			sumTime += w.Time
		}
		if res.TotalCycles < sumTime {
			t.Errorf("%s: total %d below core 0's compute %d", pf, res.TotalCycles, sumTime)
		}
		if len(res.Links) == 0 {
			t.Errorf("%s: no links used", pf)
		}
		if res.DRAM.Stores == 0 || res.DRAM.Loads == 0 {
			t.Errorf("%s: DRAM loads %d stores %d", pf, res.DRAM.Loads, res.DRAM.Stores)
		}
	}
}

// TestBandwidthMatters: halving the DRAM bandwidth slows a DRAM-bound run,
// and lowering the link bandwidth slows the multi-core one.
func TestBandwidthMatters(t *testing.T) {
	s, err := gemini.Synth(gemini.SynthConfig{Cores: 4, Workloads: 12, XLen: 2, DRAMEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	run := func(p Params) int64 {
		r, err := Simulate(s, p)
		if err != nil {
			t.Fatal(err)
		}
		return r.TotalCycles
	}
	base := run(Default())
	p := Default()
	p.DRAMGBps = 0.5
	if slow := run(p); slow <= base {
		t.Errorf("0.5 GB/s DRAM: %d cycles, not slower than %d", slow, base)
	}
	p = Default()
	p.LinkGBps = 0.05
	if slow := run(p); slow <= base {
		t.Errorf("slow links: %d cycles, not slower than %d", slow, base)
	}
	p = Default()
	p.DRAMGBps = -1
	if _, err := Simulate(s, p); err == nil {
		t.Error("negative bandwidth accepted")
	}
}

func TestEmpty(t *testing.T) {
	res, err := Simulate(&gemini.Schedule{}, Default())
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalCycles != 0 {
		t.Errorf("empty schedule: %d cycles", res.TotalCycles)
	}
}
