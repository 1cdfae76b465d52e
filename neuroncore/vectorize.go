package neuroncore

import "github.com/npukit/npukit/sim"

// Vectorization: the compiler merges the iterations of a loop marked
// Vectorize (an NKI Beta-1 nl.affine_range loop, middle-end
// transformations on) into one instruction whose access pattern has one
// more free dimension, the iteration. npukit models what the NEFFs
// neuronx-cc compiled from kernels at hand show, and nothing more:
//
//   - Only VectorE and ScalarE instructions merge (TensorE matmuls and
//     transposes, DMAs and GpSimdE instructions stay one per iteration).
//     In the four trn2 NEFFs of allenkchau/trainium-kernel-fusion's
//     baseline attention (corpus3/ntff, seqlen 512 and 1024, float32 and
//     bfloat16), a tensor_reduce over one or two elements per iteration of
//     an affine_range loop of 4 or 8 iterations is one TENSOR_REDUCE whose
//     access pattern counts the iterations (4 x 1 or 8 x 2 elements), the
//     reciprocal of 4 or 8 iterations one RECIPROCAL of 4 or 8 elements,
//     and the tensor_copy of a [128,128] transpose in a 4-iteration loop
//     one COPY of 512 elements.
//   - A loop merges only when all its iterations fit one instruction of at
//     most VectorizeMaxFree elements per partition (the iterations' free
//     elements of the instruction's largest operand, summed). Fitted on
//     the same NEFFs: every merged instruction holds at most 512 (4 x 128
//     copies, 8 x 2 reductions), and none of the instructions over 512
//     elements per iteration merged (the 16 tensor_reduce, 16 activation,
//     16 tensor_scalar and 16 tensor_copy over [128,512] of the
//     seqlen-1024 kernels stay one per iteration). 512 is also
//     nl.tile_size.psum_fmax and gemm_moving_fmax. Not modelled: the
//     seqlen-1024 NEFFs split an 8-iteration loop of [128,128] copies out
//     of PSUM into two merged copies of 512.
//   - Only iterations that are independent and ready at once merge: an
//     instruction that reads and writes one tile (an accumulation) stays
//     one per iteration, and an iteration merges only when everything it
//     waits for was issued before the merged instruction (no loop fission:
//     the NEFFs also merge the 4 or 8 iterations of a reduction whose
//     inputs the same iterations compute, by splitting the loop; npukit
//     keeps those one per iteration).
//
// The merged instruction costs the engine's cycle formula on the summed
// free size: one fixed overhead (the 64-cycle floor) for the loop instead
// of one per iteration.

// VectorizeMaxFree bounds the free elements per partition of one merged
// instruction (see Vectorization).
const VectorizeMaxFree = 512

// VectorizeSeenTrips is the most iterations the compiled NEFFs show merged
// into one instruction (8; see Vectorization). The rule bounds elements,
// not iterations: a merge of more is an extrapolation, and the notes say
// so.
const VectorizeSeenTrips = 8

// vecLoop is the innermost loop enclosing a step, when it vectorises.
type vecLoop struct {
	loop  *Loop
	depth int // index into Event.Vars of its variable
}

// vecGroup is the merged instruction of a step's iterations so far.
type vecGroup struct {
	task    sim.TaskID
	first   int // event of the first iteration
	vars    []int64
	members int64
}

// vectorizer decides, event by event, which events join a merged
// instruction.
type vectorizer struct {
	p      *Plan
	loopOf map[*Step]vecLoop
	open   map[*Step]*vecGroup
	// Merged counts the events that joined an earlier event's
	// instruction; widest is the most iterations one instruction holds.
	merged int
	widest int64
}

func newVectorizer(p *Plan) *vectorizer {
	v := &vectorizer{p: p, loopOf: map[*Step]vecLoop{}, open: map[*Step]*vecGroup{}}
	var walk func(ns []Node, l *Loop, depth int)
	walk = func(ns []Node, l *Loop, depth int) {
		for _, n := range ns {
			if n.Loop != nil {
				walk(n.Loop.Body, n.Loop, depth+1)
				continue
			}
			if l != nil && l.Vectorize && mergeableIn(p, n.Step, l) {
				v.loopOf[n.Step] = vecLoop{loop: l, depth: depth - 1}
			}
		}
	}
	walk(p.Body, nil, 0)
	return v
}

// mergeableIn reports whether every iteration of loop l of step s fits one
// instruction.
func mergeableIn(p *Plan, s *Step, l *Loop) bool {
	if s.Engine != VectorE && s.Engine != ScalarE || s.Accumulate || s.Op == OpSoftmax || s.Op == OpTranspose || l.Trips() < 2 {
		return false
	}
	var widest int64
	for _, r := range s.Reads {
		widest = max(widest, refFree(p, r))
	}
	for _, r := range s.Writes {
		widest = max(widest, refFree(p, r))
	}
	return widest > 0 && widest*l.Trips() <= VectorizeMaxFree
}

// group returns the merged instruction event e may join given the tasks
// it waits for, or nil. An event joins when it is the next iteration of
// the open group's loop (every outer variable equal), reads and writes no
// common tile, and waits only for tasks issued before the group's: a read
// of what the group's own task wrote (iteration j+1 reading iteration j's
// result, a loop-carried chain through different tiles) stops the merge.
func (v *vectorizer) group(e *Event, deps []depEdge) *vecGroup {
	vl, ok := v.loopFor(e.Step)
	if !ok {
		return nil
	}
	g := v.open[e.Step]
	if g == nil || len(g.vars) != len(e.Vars) {
		return nil
	}
	for i, x := range e.Vars {
		want := g.vars[i]
		if i == vl.depth {
			want += vl.loop.Step
		}
		if x != want {
			return nil
		}
	}
	for _, w := range e.Writes {
		for _, r := range e.Reads {
			if w == r {
				return nil
			}
		}
	}
	for _, d := range deps {
		if d.from != g.task && d.from > g.task || d.from == g.task && d.flow {
			return nil
		}
	}
	return g
}

// loopFor is the merging loop of step s, if any; the ScalarE twin of a
// by-load copy (Step.EngineByLoad) merges in its step's loop.
func (v *vectorizer) loopFor(s *Step) (vecLoop, bool) {
	if s.byLoadOf != nil {
		s = s.byLoadOf
	}
	vl, ok := v.loopOf[s]
	return vl, ok
}

// start opens a group for event ev, the first iteration of its
// instruction.
func (v *vectorizer) start(ev int, e *Event, task sim.TaskID) {
	if _, ok := v.loopFor(e.Step); !ok {
		return
	}
	v.open[e.Step] = &vecGroup{task: task, first: ev, vars: e.Vars, members: 1}
}

// join adds event e to group g.
func (v *vectorizer) join(g *vecGroup, e *Event) {
	g.vars = e.Vars
	g.members++
	v.merged++
	v.widest = max(v.widest, g.members)
}

// psumZerosElided reports, per event, the memsets of PSUM tiles that the
// compiler emits no instruction for: every tile the memset writes is next
// touched by a matmul accumulating into it (+=). The architecture guide:
// "NeuronCompiler is able to identify the overwrite, accumulate,
// accumulate, ... pattern from an explicit empty PSUM bank declaration
// (e.g., res_psum = nl.zeros((128, 512), np.float32, buffer=nl.psum))
// and matmul output accumulations": the group's first matmul overwrites
// the bank. The NEFFs compiled from the corpus3 attention kernels, which
// declare such a PSUM tile per query tile, have no VectorE, ScalarE or
// GpSimdE instruction for it.
func psumZerosElided(x *Execution) (elided []bool, n int) {
	p := x.Plan
	elided = make([]bool, len(x.Events))
	pending := map[TileKey]int{} // tile -> memset event waiting for its next access
	left := map[int]int{}        // memset event -> tiles not yet accumulated into
	bad := map[int]bool{}
	resolve := func(k TileKey, ok bool) {
		ev, found := pending[k]
		if !found {
			return
		}
		delete(pending, k)
		if !ok {
			bad[ev] = true
		}
		if left[ev]--; left[ev] == 0 && !bad[ev] {
			elided[ev] = true
			n++
		}
	}
	for ev := range x.Events {
		e := &x.Events[ev]
		acc := e.Step.Op == OpMatmul && e.Step.Accumulate
		for _, k := range e.Reads {
			resolve(k, false)
		}
		for _, k := range e.Writes {
			resolve(k, acc)
		}
		if !zeroesOnly(p, e, PSUM) {
			continue
		}
		for _, k := range e.Writes {
			if _, dup := pending[k]; !dup {
				pending[k] = ev
				left[ev]++
			}
		}
	}
	return elided, n
}

// zeroesOnly reports whether event e is a memset that reads nothing and
// writes only tiles in buffer b: the zeros the compiler may elide.
func zeroesOnly(p *Plan, e *Event, b Buffer) bool {
	if e.Step.Op != OpMemset || len(e.Reads) > 0 || len(e.Writes) == 0 {
		return false
	}
	for _, k := range e.Writes {
		if p.Tensors[k.Tensor].Buffer != b {
			return false
		}
	}
	return true
}
