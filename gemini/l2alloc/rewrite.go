package l2alloc

import (
	"fmt"

	"github.com/npukit/npukit/alloc"
	"github.com/npukit/npukit/gemini"
)

// Apply writes a solution's offsets into the core's snapshots as new
// addresses (region start + offset), in place: every entry of a tensor gets
// its tensor's one address, so tensor_id address stability holds. The
// solution must be valid for the problem at the region's capacity, so no
// tensor wraps around the region's end. Entries without an address are
// left alone.
func Apply(s *gemini.Schedule, cp *CoreProblem, sol *alloc.Solution) error {
	if cp.Core < 0 || cp.Core >= len(s.Cores) || s.Cores[cp.Core].Key != cp.Key {
		return fmt.Errorf("%s: not a core of this schedule", gemini.CoreName(cp.Core, cp.Key))
	}
	if sol == nil || len(sol.Offsets) != len(cp.Tensors) {
		return fmt.Errorf("%s: solution does not match the problem's %d buffers", gemini.CoreName(cp.Core, cp.Key), len(cp.Tensors))
	}
	if rep := alloc.Validate(&cp.Problem, sol); len(rep) > 0 {
		return fmt.Errorf("%s: solution is not valid within the region [%d, %d): %s", gemini.CoreName(cp.Core, cp.Key), cp.Region[0], cp.Region[1], rep[0].Message)
	}
	c := s.Cores[cp.Core]
	for i := range cp.Tensors {
		for _, r := range cp.Tensors[i].Refs {
			if r.Workload >= len(c.Workloads) || r.Entry >= len(c.Workloads[r.Workload].Buffer) {
				return fmt.Errorf("%s: problem does not match the schedule", gemini.CoreName(cp.Core, cp.Key))
			}
		}
	}
	for i := range cp.Tensors {
		addr := cp.Region[0] + sol.Offsets[i]
		for _, r := range cp.Tensors[i].Refs {
			e := &c.Workloads[r.Workload].Buffer[r.Entry]
			e.Address, e.HasAddress, e.Unallocated = addr, true, false
		}
	}
	return nil
}
