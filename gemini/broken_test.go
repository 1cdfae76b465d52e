package gemini

import (
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// TestSlicedSchedules: schedules cut the way third-party converters and
// slicers do (cores, DRAM entries or workloads dropped) yield diagnostics,
// never a panic, and the analyses still run.
func TestSlicedSchedules(t *testing.T) {
	var bases []*Schedule
	bases = append(bases, synthOK(t, SynthConfig{Cores: 3, Workloads: 12, Buffer: 1 << 20}))
	if conformance.SharedDir() != "" {
		for _, p := range conformance.Files(t, conformance.Corpus(t, "gemini"), "*.json") {
			s, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			bases = append(bases, s)
		}
	}
	cuts := []struct {
		name string
		cut  func(s *Schedule)
	}{
		{"no DRAM reads", func(s *Schedule) { s.DRAMReads = nil }},
		{"no DRAM writes", func(s *Schedule) { s.DRAMWrites = nil }},
		{"first half of workloads", func(s *Schedule) {
			for _, c := range s.Cores {
				c.Workloads = c.Workloads[:len(c.Workloads)/2]
			}
		}},
		{"second half of workloads", func(s *Schedule) {
			for _, c := range s.Cores {
				c.Workloads = c.Workloads[len(c.Workloads)/2:]
			}
		}},
		{"no snapshots", func(s *Schedule) {
			for _, c := range s.Cores {
				for i := range c.Workloads {
					c.Workloads[i].Buffer = nil
				}
			}
		}},
	}
	for bi := range bases {
		for _, cut := range cuts {
			// Re-read a fresh copy: cuts modify in place.
			var s *Schedule
			if bi == 0 {
				s = synthOK(t, SynthConfig{Cores: 3, Workloads: 12, Buffer: 1 << 20})
			} else {
				s = cloneSchedule(bases[bi])
			}
			cut.cut(s)
			rep := Check(s)
			Summarize(s, true)
			for _, c := range s.Cores {
				s.Lifetimes(c)
			}
			if cut.name != "no snapshots" && !rep.HasErrors() {
				t.Errorf("base %d, %s: no error reported", bi, cut.name)
			}
			for _, d := range rep {
				if _, ok := diag.Lookup(d.Rule); !ok {
					t.Errorf("unregistered rule %s", d.Rule)
				}
			}
		}
	}
}

// cloneSchedule copies what the cuts modify (core and workload slices).
func cloneSchedule(s *Schedule) *Schedule {
	cp := *s
	cp.Cores = make([]*Core, len(s.Cores))
	for i, c := range s.Cores {
		cc := *c
		cc.Workloads = append([]Workload(nil), c.Workloads...)
		cp.Cores[i] = &cc
	}
	return &cp
}
