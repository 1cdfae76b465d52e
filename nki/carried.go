package nki

import (
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/neuroncore"
)

// RuleAffineCarried is a tensor declared outside an nl.affine_range loop
// that one iteration writes and a later iteration reads.
//
// NKI docs, nki.language.affine_range: the default iterator "when there is
// no loop carried dependency"; associative reductions are not loop carried
// dependencies (the docs' example: matmuls accumulating into one output
// buffer defined outside the loop). nki.language.sequential_range: "should
// be used when there is a loop carried dependency"; using affine_range
// there "is considered unsafe and could lead to numerical errors". Only
// Beta-1 affine_range loops are parallel loops: in the current API
// (NKI 0.7 and later) the range iterators are deprecated aliases of Python
// range, unrolled in order.
const RuleAffineCarried = "nki/affine-range-carried-dependency"

// RuleAffineCarriedPrecise is the same dependency in an affine_range loop
// that passes precise_schedule=True: a hand-pipelined loop whose author
// asks the compiler to keep the written schedule (the contributed
// pipelined_attention sample does this; no public document describes the
// argument, so npukit reports the dependency without asking for a change).
const RuleAffineCarriedPrecise = "nki/affine-range-carried-precise-schedule"

func init() {
	diag.Register(
		diag.Rule{ID: RuleAffineCarried, Severity: diag.Warning,
			Description: "a tensor declared outside an nl.affine_range loop is written in one iteration and read in a later one (a loop-carried dependency: the NKI docs call affine_range unsafe there and ask for nl.sequential_range; associative reductions, `+=` such as matmul accumulation or t = t + v written out, are allowed)"},
		diag.Rule{ID: RuleAffineCarriedPrecise, Severity: diag.Info,
			Description: "a loop-carried dependency in an nl.affine_range loop with precise_schedule=True (a hand-pipelined loop that keeps its written schedule)"},
	)
}

// carriedWrite is the last write of a tile in one execution of an affine
// loop.
type carriedWrite struct {
	run   int   // the execution (affineRun.serial; 0: none)
	iter  int64 // the loop's iteration (its variable's value)
	ev    int   // event
	whole bool
}

// affineRun is one execution of an affine_range loop: a kept plan loop, or
// the consecutive one-trip plan loops of its unrolled iterations.
type affineRun struct {
	loop   *neuroncore.Loop
	rec    *LoopRec
	iter   int64
	serial int
}

// carriedState is, per depth of nested affine runs, the last write of
// every tile lifetime (indexed like Execution.Lifetimes) in the run open
// at that depth; a write in the current iteration has the run's iter, so
// the tile is the iteration's own.
type carriedState struct {
	last [][]carriedWrite
	seen map[[2]any]bool
}

// carriedDependencies finds reads in an iteration of a Beta-1
// affine_range loop of a tile of an outer-scope tensor that an earlier
// iteration of the same loop execution wrote, before the reading
// iteration writes it itself. A tensor declared inside the loop is a new
// tensor per iteration (its tile keys differ), so only outer-scope tensors
// can carry. The read and the write are known to share elements when
// either covers its whole tile (no slice of a part, no mask=); `+=`
// accumulation, and t = t + v written out, are associative reductions and
// neither read nor write here. One finding per loop and tensor.
func (ck *Checked) carriedDependencies(res *Result, rep *diag.Report) {
	if res.API != "beta1" {
		return
	}
	x := ck.Exec
	ev := 0
	var runs []*affineRun
	st := &carriedState{seen: map[[2]any]bool{}}
	serial := 0
	ok := true
	var walk func(ns []neuroncore.Node)
	walk = func(ns []neuroncore.Node) {
		var prev *affineRun // the run of the previous sibling loop
		for _, nd := range ns {
			if !ok {
				return
			}
			if nd.Step != nil {
				prev = nil
				if ev >= len(x.Events) || x.Events[ev].Step != nd.Step {
					ok = false // the walk and the execution disagree: say nothing
					return
				}
				ck.carriedEvent(ev, runs, st, rep)
				ev++
				continue
			}
			l := nd.Loop
			rec := ck.Loops[l]
			if rec == nil || rec.Kind != "affine_range" || !rec.Symbolic {
				prev = nil
				for v := l.Start; v < l.Stop; v += l.Step {
					walk(l.Body)
				}
				continue
			}
			run := prev
			if run == nil || run.rec != rec || run.loop.Path != l.Path {
				serial++
				run = &affineRun{loop: l, rec: rec, serial: serial}
			}
			prev = run
			runs = append(runs, run)
			if len(st.last) < len(runs) {
				st.last = append(st.last, make([]carriedWrite, len(x.Lifetimes)))
			}
			for v := l.Start; v < l.Stop; v += l.Step {
				run.iter = v
				walk(l.Body)
			}
			runs = runs[:len(runs)-1]
		}
	}
	walk(ck.Plan.Body)
}

func (ck *Checked) carriedEvent(ev int, runs []*affineRun, st *carriedState, rep *diag.Report) {
	if len(runs) == 0 {
		return
	}
	e := &ck.Exec.Events[ev]
	ps := ck.Steps[e.Step]
	if e.Step.Accumulate || (ps != nil && (ps.Accumulate || ps.Fn == "operator.iadd")) {
		return // an associative reduction (`+=`), which the docs allow
	}
	if ps != nil && reductionOps[ps.Fn] && rewritesRead(e) {
		// t[i] = t[i] + v spelled out: the same associative reduction
		// (the SDK's fused_mamba example at 2ae3525 writes it so, its
		// comment avoiding `+=`; later versions write `+=`)
		return
	}
	if len(e.Reads) == len(e.Step.Reads) {
		for i, k := range e.Reads {
			rw := e.Step.Reads[i].Whole
			li := e.Lives[i]
			for d, r := range runs {
				w := st.last[d][li]
				if w.run != r.serial || w.iter == r.iter || !(rw || w.whole) {
					continue
				}
				key := [2]any{r.loop.Path, k.Tensor}
				if st.seen[key] {
					continue
				}
				st.seen[key] = true
				t := ck.Plan.Tensors[k.Tensor]
				if r.rec.Precise {
					rep.Add(RuleAffineCarriedPrecise, e.Step.Path,
						"%s reads %s in iteration %s=%d of the nl.affine_range loop at %s (precise_schedule=True), which iteration %s=%d wrote (%s): %s carries data between iterations of the hand-pipelined loop",
						ck.Exec.EventName(ev), ck.Exec.TileName(k), r.loop.Var, r.iter, r.loop.Path, r.loop.Var, w.iter, ck.Exec.EventName(w.ev), t.Name)
					continue
				}
				rep.Add(RuleAffineCarried, e.Step.Path,
					"%s reads %s in iteration %s=%d of the nl.affine_range loop at %s, but iteration %s=%d wrote it (%s): a loop-carried dependency through %s, which is declared outside the loop; the compiler may reorder or overlap affine_range iterations, so a loop that carries data needs nl.sequential_range",
					ck.Exec.EventName(ev), ck.Exec.TileName(k), r.loop.Var, r.iter, r.loop.Path, r.loop.Var, w.iter, ck.Exec.EventName(w.ev), t.Name)
			}
		}
	}
	if len(e.Writes) == len(e.Step.Writes) {
		for i := range e.Writes {
			li := e.Lives[len(e.Reads)+i]
			for d, r := range runs {
				st.last[d][li] = carriedWrite{run: r.serial, iter: r.iter, ev: ev, whole: e.Step.Writes[i].Whole}
			}
		}
	}
}

// reductionOps are the associative, commutative element-wise operations:
// a tile updated as t = t op v in every iteration ends the same in any
// iteration order.
var reductionOps = map[string]bool{
	"operator.add": true, "operator.mul": true, "nl.add": true, "nl.multiply": true,
	"nl.maximum": true, "nl.minimum": true,
}

// rewritesRead reports whether an event writes exactly the one tile it
// reads among its operands' tiles of that tensor: t = t op v.
func rewritesRead(e *neuroncore.Event) bool {
	if len(e.Writes) != 1 {
		return false
	}
	w := e.Writes[0]
	n := 0
	for _, r := range e.Reads {
		if r.Tensor == w.Tensor {
			if r != w {
				return false
			}
			n++
		}
	}
	return n == 1
}
