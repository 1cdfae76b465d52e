package timing

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/gemini"
)

// FuzzSimulate: whatever schedule the reader accepts simulates or fails
// with an error, never a panic, and the per-core breakdown adds up.
func FuzzSimulate(f *testing.F) {
	for _, cfg := range []gemini.SynthConfig{
		{Cores: 1, Workloads: 3},
		{Cores: 4, Workloads: 3, XLen: 2, DRAMEvery: 2, Seed: 7},
	} {
		var b bytes.Buffer
		if err := gemini.SynthWrite(&b, cfg); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := gemini.ReadBytes(data)
		if err != nil {
			return
		}
		n := 0
		for _, c := range s.Cores {
			n += len(c.Workloads)
		}
		if n > 2000 {
			return
		}
		for _, pf := range []Prefetch{PrefetchSnapshot, PrefetchHazard} {
			p := Default()
			p.Prefetch = pf
			res, err := Simulate(s, p)
			if err != nil {
				continue
			}
			for _, c := range res.Cores {
				if sum := c.Busy + c.WaitDRAM + c.WaitCores + c.Overhead + c.Idle; sum != res.TotalCycles {
					t.Fatalf("core %d: breakdown %d != total %d", c.Core, sum, res.TotalCycles)
				}
			}
		}
	})
}
