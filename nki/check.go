package nki

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

// Rules of `npukit nki check` beyond the plan rules of `npukit sbuf check`.
const (
	RuleAutoOverCapacity   = "nki/auto-live-over-capacity"
	RuleMatmulAccumulateSB = "nki/matmul-accumulate-outside-psum"
	RuleVectorAccumulate   = "nki/accumulate-on-vector-engine"
	RuleInstructionCount   = "nki/instruction-count"
	RuleUnusedAllocation   = "nki/allocated-unused"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleAutoOverCapacity, Severity: diag.Warning, Description: "the automatically allocated tiles alive at one time need more bytes per partition than the buffer holds: the compiler must spill or serialise them (slower code)"},
		diag.Rule{ID: RuleMatmulAccumulateSB, Severity: diag.Error, Description: "a matmul result is accumulated (+=) into a tensor outside PSUM; TensorE accumulates only into PSUM"},
		diag.Rule{ID: RuleVectorAccumulate, Severity: diag.Info, Description: "`+=` of a non-matmul value is a read-modify-write instruction of its own, not free PSUM accumulation"},
		diag.Rule{ID: RuleUnusedAllocation, Severity: diag.Info, Description: "a directly allocated tensor no instruction reads or writes in the traced configuration (library kernels allocate buffers for every configuration)"},
		diag.Rule{ID: RuleInstructionCount, Severity: diag.Info, Description: "estimate of the instructions per engine after unrolling every loop (authors hit the compiler's instruction limits)"},
	)
}

// Checked is a kernel checked on its lowered plan.
type Checked struct {
	*Lowered
	Exec   *neuroncore.Execution
	Report diag.Report
	// Instructions is the number of instructions per engine once every
	// loop is unrolled (the lowered plan's executed steps).
	Instructions map[string]int64 `json:"instructions"`
	// Trace is the traced kernel the check lowered.
	Trace *Result `json:"-"`
}

// notForKernels are plan rules that do not apply to a lowered kernel:
//   - sbuf/matmul-shape compares whole tensors, while a kernel's matmul
//     operands are views (t[:, nl.ds(k*128, 128)]) whose shapes the NKI
//     frontend itself checks;
//   - sbuf/accumulate-without-start: in NKI the first `+=` of a matmul into
//     a PSUM tile starts its accumulation group (the tutorials' pattern).
//
// sbuf/unused-tensor becomes the info nki/allocated-unused: nki-library's
// allocators declare a buffer per block index for every configuration, and
// one traced configuration uses some of them.
//
// sbuf/live-over-capacity becomes nki/auto-live-over-capacity, a warning:
// a plan's automatic tensors are placed without spilling, while the NKI
// compiler spills automatically allocated tensors (a published tutorial,
// attention_fwd_performance v3, keeps 256 PSUM tiles of 2 KiB alive).
var notForKernels = []string{neuroncore.RuleMatmulShape, neuroncore.RuleAccumulateNoGroup}

// hasDecorator reports whether the kernel carries a decorator whose dotted
// name ends in name.
func (r *Result) hasDecorator(name string) bool {
	for _, d := range r.Decorators {
		if d == name || strings.HasSuffix(d, "."+name) {
			return true
		}
	}
	return false
}

// CheckKernel lowers a trace and runs the plan checks of `npukit sbuf
// check` on it, then the kernel-author checks; locations are the kernel's
// file:line.
//
// Decorators (nki.compiler docs): force_auto_alloc ignores every direct
// allocation, so the kernel is checked as automatically allocated;
// enable_stack_allocator allocates the kernel's automatic tensors with the
// stack allocator, so mixing them with directly allocated ones is allowed.
func CheckKernel(res *Result, arch *neuroncore.Arch) (*Checked, error) {
	lw, err := Lower(res, arch)
	if err != nil {
		return nil, err
	}
	if res.hasDecorator("force_auto_alloc") {
		for _, t := range lw.Plan.Tensors {
			t.Kind, t.Mod, t.Table = neuroncore.Auto, nil, nil
		}
	}
	rep, x, err := neuroncore.CheckWithout(lw.Plan, notForKernels...)
	if err != nil {
		return nil, err
	}
	stack := res.hasDecorator("enable_stack_allocator")
	var out diag.Report
	for _, d := range rep {
		switch {
		case d.Rule == neuroncore.RuleMixedAllocation && stack:
		case d.Rule == neuroncore.RuleUnusedPhysical:
			out.Add(RuleUnusedAllocation, d.Location, "%s in the traced configuration", d.Message)
		case d.Rule == neuroncore.RuleLiveOverCapacity:
			out.Add(RuleAutoOverCapacity, d.Location, "%s; the compiler must spill or serialise these automatic tensors", d.Message)
		default:
			out = append(out, d)
		}
	}
	ck := &Checked{Lowered: lw, Exec: x, Instructions: map[string]int64{}, Trace: res}
	ck.accumulations(&out)
	ck.carriedDependencies(res, &out)
	for _, e := range x.Events {
		ck.Instructions[e.Step.Engine.String()]++
	}
	var parts []string
	var total int64
	for _, e := range neuroncore.Engines() {
		if n := ck.Instructions[e.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", e, humanize.Count(n)))
			total += n
		}
	}
	if total > 0 {
		out.Add(RuleInstructionCount, "kernel", "%s instructions once every loop is unrolled: %s", humanize.Count(total), strings.Join(parts, ", "))
	}
	out.Sort()
	ck.Report = out
	return ck, nil
}

// accumulations checks `+=`: a matmul accumulates only into PSUM; any
// other `+=` is an instruction of its own (reported once per site).
func (ck *Checked) accumulations(rep *diag.Report) {
	seen := map[string]bool{}
	p := ck.Plan
	for st, ps := range ck.Steps {
		if !ps.Accumulate && !strings.HasPrefix(ps.Fn, "operator.i") {
			continue
		}
		site := ps.Site.String()
		if seen[site] {
			continue
		}
		seen[site] = true
		if st.Op == neuroncore.OpMatmul || strings.HasSuffix(ps.Fn, "matmul") {
			for _, w := range st.Writes {
				if t := p.Tensors[w.Tensor]; t.Buffer != neuroncore.PSUM {
					rep.Add(RuleMatmulAccumulateSB, st.Path, "%s accumulates a matmul into %s in %s; TensorE accumulates only into PSUM", site, t.Name, t.Buffer)
				}
			}
			continue
		}
		what := "tensor"
		if len(st.Writes) > 0 {
			t := p.Tensors[st.Writes[0].Tensor]
			what = fmt.Sprintf("%s (%s)", t.Name, t.Buffer)
		}
		rep.Add(RuleVectorAccumulate, st.Path, "%s: `+=` into %s is a separate %s instruction (read, add, write), not PSUM accumulation", site, what, st.Engine)
	}
}
