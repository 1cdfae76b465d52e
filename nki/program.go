package nki

import "github.com/npukit/npukit/nki/python"

// The program is the kernel's body as the device runs it, recorded in
// program order while tracing: declarations, engine steps with the tiles
// they read and write, and loops. Beta-1 symbolic loops appear once with
// their induction variable; every iteration of an unrolled loop is a
// one-trip loop of its own (so that a tensor declared in its body is a new
// allocation per iteration, as the current API's docs state for tensors
// declared inside a loop). Lowering (lower.go) turns it into a
// neuroncore.Plan.

// PNode is one element of a program body.
type PNode struct {
	Loop *PLoop
	Step *PStep
	Decl *TensorRec // a declaration executes here
	Inst int64      // the declaration's execution (Access.Inst)
}

// eachNode calls f on every node of a program, loops before their bodies.
func eachNode(ns []*PNode, f func(*PNode)) {
	for _, n := range ns {
		f(n)
		if n.Loop != nil {
			eachNode(n.Loop.Body, f)
		}
	}
}

// PLoop is a symbolic loop (Sym >= 0, the body traced once) or one
// iteration of an unrolled loop (Sym < 0, Value the iteration's index).
type PLoop struct {
	Rec   *LoopRec
	Var   string // the loop target as written
	Sym   int
	Start int64
	Stop  int64
	Step  int64
	Value int64 // unrolled: the iteration number (0-based)
	// Item is an unrolled iteration's loop variable when it is an integer
	// (ItemInt).
	Item    int64
	ItemInt bool
	Body    []*PNode
}

// Access is a tensor an instruction reads or writes: an on-chip tensor's
// logical tile (Block: one int64 or *Sym per block dimension; nil or a nil
// element: every tile along that dimension) or an HBM tensor.
type Access struct {
	Rec   *TensorRec
	Block []Value
	// Inst identifies the declaration's execution (the NKI tensor object):
	// a tensor declared in an unrolled loop is a new one per iteration,
	// even when a list carries it out of the loop.
	Inst int64
	// Whole: the access covers every element of its tile (a whole tensor,
	// an instruction result, or a view selecting all of one tile).
	Whole bool
	// Part and Free, when not Whole and the view stays within one logical
	// tile, are the view's partitions and free elements per partition: an
	// instruction on a slice of a wider tile streams only the slice.
	Part, Free int64
	// Run is the elements of one contiguous run of an HBM view (View.Run);
	// Elems the elements an HBM access moves (0 for on-chip ones).
	Run, Elems int64
}

// PStep is one executed instruction.
type PStep struct {
	Fn         string
	Engine     string // engine= argument, if any
	Site       Site
	Reads      []Access
	Writes     []Access
	Accumulate bool
	Guards     []*Sym // symbolic `if` predicates that must hold
	Masked     bool   // a mask= predicate limits the elements it touches
}

// progEnter opens a loop body; progExit closes it.
func (t *tracer) progEnter(l *PLoop) {
	if t.progOff > 0 {
		return
	}
	n := t.spareNode
	if n != nil {
		t.spareNode = nil
	} else {
		n = &PNode{}
	}
	n.Loop = l
	t.progAppend(n)
	t.progStack = append(t.progStack, l)
}

// newIteration is an unrolled iteration's loop node: the one the last
// empty iteration left (progExit) or a new one.
func (t *tracer) newIteration() *PLoop {
	if l := t.spareLoop; l != nil {
		t.spareLoop = nil
		return l
	}
	return &PLoop{}
}

func (t *tracer) progExit() {
	if t.progOff > 0 {
		return
	}
	l := t.progStack[len(t.progStack)-1]
	t.progStack = t.progStack[:len(t.progStack)-1]
	if len(l.Body) > 0 {
		return
	}
	// An iteration that recorded nothing (Python bookkeeping, such as a
	// loop over a kernel's configuration) leaves no node: it is the last
	// node of its parent, since everything since went into its body.
	// Lowering would drop it anyway; kernels run such loops by the
	// thousand.
	body := &t.Program
	if n := len(t.progStack); n > 0 {
		body = &t.progStack[n-1].Body
	}
	if k := len(*body) - 1; k >= 0 && (*body)[k].Loop == l {
		n := (*body)[k]
		(*body)[k] = nil
		*body = (*body)[:k]
		// nothing else refers to them: the next iteration reuses both
		*n = PNode{}
		*l = PLoop{}
		t.spareNode, t.spareLoop = n, l
	}
}

func (t *tracer) progAppend(n *PNode) {
	if len(t.progStack) == 0 {
		t.Program = append(t.Program, n)
		return
	}
	l := t.progStack[len(t.progStack)-1]
	l.Body = append(l.Body, n)
}

// progStep records an instruction in program order.
func (t *tracer) progStep(in *interp, pos python.Pos, fn string, reads, writes []Value, accumulate bool) *PStep {
	if t.progOff > 0 || in.inCallback > 0 {
		return nil
	}
	s := &PStep{Fn: fn, Site: in.site(pos), Accumulate: accumulate, Guards: append([]*Sym(nil), t.guards...), Masked: t.masked}
	if len(reads) > 0 {
		s.Reads = make([]Access, 0, len(reads))
	}
	if len(writes) > 0 {
		s.Writes = make([]Access, 0, len(writes))
	}
	for _, v := range reads {
		s.Reads = appendAccess(s.Reads, v)
	}
	for _, v := range writes {
		s.Writes = appendAccess(s.Writes, v)
	}
	t.progAppend(&PNode{Step: s})
	return s
}

func (t *tracer) progDecl(in *interp, rec *TensorRec, inst int64) {
	if t.progOff > 0 || in.inCallback > 0 {
		return
	}
	t.progAppend(&PNode{Decl: rec, Inst: inst})
}

func appendAccess(out []Access, v Value) []Access {
	switch x := v.(type) {
	case *Tensor:
		if x.Rec != nil {
			a := Access{Rec: x.Rec, Inst: x.inst, Whole: true}
			if !x.Rec.OnChip {
				a.Elems = prod(x.Rec.Shape)
				a.Run = a.Elems
			}
			return append(out, a)
		}
	case *View:
		if x.T.Rec != nil {
			a := Access{Rec: x.T.Rec, Block: x.Block, Inst: x.T.inst, Whole: x.Whole, Run: x.Run}
			if !x.T.Rec.OnChip {
				a.Elems = prod(x.Shape)
			}
			if !x.Whole {
				a.Part, a.Free = sliceSize(x)
			}
			return append(out, a)
		}
	case *Tile:
		if x.Rec != nil {
			inst := int64(0)
			if x.T != nil {
				inst = x.T.inst
			}
			return append(out, Access{Rec: x.Rec, Inst: inst, Whole: true})
		}
	}
	return out
}

// sliceSize is a view's partitions and free elements per partition when it
// selects part of one logical tile (every block dimension indexed by one
// value); 0, 0 otherwise.
func sliceSize(x *View) (part, free int64) {
	if len(x.Block) != x.T.BlockDims || len(x.Shape) == 0 {
		return 0, 0
	}
	for _, b := range x.Block {
		if b == nil {
			return 0, 0
		}
	}
	free = 1
	for _, d := range x.Shape[1:] {
		free *= max(d, 0)
	}
	return max(x.Shape[0], 0), free
}

// wholeTile reports whether an index of base with block part block and
// result shape s selects every element of one logical tile: every block
// dimension indexed by one value and as many elements as a tile holds.
func wholeTile(base *Tensor, block []Value, s []int64) bool {
	if len(block) != base.BlockDims {
		return false
	}
	for _, b := range block {
		if b == nil {
			return false
		}
	}
	return prod(s) == prod(base.Shape[base.BlockDims:])
}

// blockIndex is the block part of an index of a tensor with block
// dimensions: one value per block dimension (int64, *Sym, or nil for a
// slice or an ellipsis covering it).
func blockIndex(t *Tensor, idx Value) []Value {
	if t.BlockDims == 0 {
		return nil
	}
	var items []Value
	if tu, ok := idx.(Tuple); ok {
		items = tu
	} else {
		items = []Value{idx}
	}
	out := make([]Value, t.BlockDims)
	for d := 0; d < t.BlockDims && d < len(items); d++ {
		switch x := items[d].(type) {
		case int64, *Sym:
			out[d] = x
		case ellipsisT:
			return out
		default:
			// a slice, a grid or a tensor index: every tile along it
		}
	}
	return out
}
