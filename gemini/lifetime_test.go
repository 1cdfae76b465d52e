package gemini

import "testing"

func TestLifetimes(t *testing.T) {
	s := synthOK(t, SynthConfig{Cores: 2, Workloads: 10, Buffer: 512 << 10})
	ls := s.Lifetimes(s.Cores[0])
	long, wraps := 0, 0
	for _, l := range ls {
		if l.Last < l.First || l.Size <= 0 || len(l.Spans) == 0 {
			t.Errorf("bad lifetime %+v", l)
		}
		if l.Last > l.First {
			long++
			// A kept tensor is an ofmap passed to the next workload.
			if l.Last != l.First+1 || l.FromDRAM {
				t.Errorf("unexpected long lifetime %+v", l)
			}
		}
		if len(l.Spans) == 2 {
			wraps++
		}
	}
	// Layers 0-2, 4-6 and 8 pass their ofmap to the next workload on the core.
	if long != 7 || wraps == 0 {
		t.Errorf("%d kept tensors (want 7), %d wrapping", long, wraps)
	}
	// A moved tensor starts a new lifetime.
	s.Cores[0].Workloads[2].Buffer[1].Address += 8
	if n := len(s.Lifetimes(s.Cores[0])); n != len(ls)+1 {
		t.Errorf("moved tensor: %d lifetimes, want %d", n, len(ls)+1)
	}
}
