package nki

import (
	"errors"
	"fmt"
	"strings"

	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/nki/python"
)

// Loop blocks: the current API's multi-buffering written by place.
//
// In the current API a tensor declared inside a loop body is a new
// allocation per iteration; with address= (nki.language.ndarray: "optional
// memory address (partition_offset, free_offset)", Neuron 2.33 API docs)
// every iteration's tensor is at the address the expression gives in that
// iteration, and loops are
// unrolled while tracing, so the expression may use the loop variables:
// nki-library's attention_cte declares PSUM tiles with
// address=(0, (k_tile_idx % 4) * PSUM_BANK_SIZE) to rotate over four
// banks. Kernels that keep such tensors alive across iterations (in a
// Python list, as the matrix multiplication tutorials do) need one
// location per tensor alive at once.
//
// For placement, such a declaration is lowered as a tensor with one block
// dimension per enclosing loop of its own function (trip counts as sizes,
// the iteration numbers as the block index of each declaration), so that
// package neuroncore's mod_alloc ladder chooses how many locations it
// needs; place writes the ladder back as an address= expression in those
// loop variables.

// loopBlock is one declaration's enclosing loops.
type loopBlock struct {
	vars  []string // the loop variables as written
	rec   []*LoopRec
	first [][2]int64        // per loop: the first (iteration number, variable) seen
	step  []int64           // per loop: variable step per iteration (0: not seen yet)
	dims  []int64           // trip counts (the largest seen)
	idx   map[int64][]int64 // declaration instance -> iteration numbers
	// renames: comprehension targets place renames (place_comp.go)
	renames []compRename
}

// add checks that loops are the declaration's loops and that each loop's
// variable is start + iteration*step, one start and step per loop.
func (lb *loopBlock) add(loops []*PLoop) bool {
	if len(loops) != len(lb.vars) {
		return false
	}
	for d, l := range loops {
		if l.Rec != lb.rec[d] || l.Var != lb.vars[d] {
			return false
		}
		a0, v0 := lb.first[d][0], lb.first[d][1]
		if l.Value == a0 {
			if l.Item != v0 {
				return false
			}
			continue
		}
		dv, da := l.Item-v0, l.Value-a0
		if dv%da != 0 || dv == 0 {
			return false
		}
		if lb.step[d] == 0 {
			lb.step[d] = dv / da
		} else if lb.step[d] != dv/da {
			return false
		}
	}
	return true
}

// index renders the iteration number of loop d from its variable.
func (lb *loopBlock) index(d int) string {
	step := lb.step[d]
	if step == 0 {
		step = 1
	}
	start := lb.first[d][1] - lb.first[d][0]*step
	v := lb.vars[d]
	switch {
	case start == 0 && step == 1:
		return v
	case step == 1:
		return fmt.Sprintf("(%s - %d)", v, start)
	case start == 0:
		return fmt.Sprintf("(%s // %d)", v, step)
	}
	return fmt.Sprintf("((%s - %d) // %d)", v, start, step)
}

// rangeKinds are the loops whose variable is start + iteration*step.
var rangeKinds = map[string]bool{"range": true, "affine_range": true, "sequential_range": true, "static_range": true}

// loopBlocks finds the current-API automatic on-chip declarations of the
// kernel file that execute inside unrolled range loops of their own
// function, every execution inside the same loops.
func loopBlocks(res *Result) map[*TensorRec]*loopBlock {
	out := map[*TensorRec]*loopBlock{}
	bad := map[*TensorRec]bool{}
	var stack []*PLoop
	var walk func(ns []*PNode)
	walk = func(ns []*PNode) {
		for _, n := range ns {
			switch {
			case n.Loop != nil:
				stack = append(stack, n.Loop)
				walk(n.Loop.Body)
				stack = stack[:len(stack)-1]
			case n.Decl != nil:
				rec := n.Decl
				if bad[rec] || !rec.OnChip || len(rec.BlockDims) > 0 || rec.Site == nil || rec.Site.File != res.File ||
					rec.Alloc == nil || rec.Alloc.Kind != "auto" {
					continue
				}
				var loops []*PLoop
				for _, l := range stack {
					if l.Sym < 0 && l.ItemInt && l.Rec != nil && rangeKinds[l.Rec.Kind] && l.Rec.Site.File == rec.Site.File &&
						l.Rec.Site.Function == rec.Site.Function && isIdent(l.Var) {
						loops = append(loops, l)
					}
				}
				if len(loops) == 0 {
					bad[rec] = true
					continue
				}
				lb := out[rec]
				if lb == nil {
					lb = &loopBlock{idx: map[int64][]int64{}}
					for _, l := range loops {
						lb.vars = append(lb.vars, l.Var)
						lb.rec = append(lb.rec, l.Rec)
						lb.first = append(lb.first, [2]int64{l.Value, l.Item})
						lb.step = append(lb.step, 0)
						lb.dims = append(lb.dims, 1)
					}
					out[rec] = lb
				}
				if !lb.add(loops) {
					bad[rec] = true
					delete(out, rec)
					continue
				}
				idx := make([]int64, len(loops))
				for d, l := range loops {
					idx[d] = l.Value
					lb.dims[d] = max(lb.dims[d], l.Value+1)
				}
				lb.idx[n.Inst] = idx
			}
		}
	}
	walk(res.Program)
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// lin renders mod_alloc's lin(shape, idx mod shape) * unit over the loop
// variables; the terms of a sum, none when it is 0. A modulo is left out
// where the shape covers every iteration.
func (lb *loopBlock) lin(shape []int64, unit int64) []string {
	n := min(len(shape), len(lb.vars))
	var terms []string
	for d := 0; d < n; d++ {
		if shape[d] == 1 {
			continue
		}
		mult := unit
		for _, s := range shape[d+1:] {
			mult *= s
		}
		x := lb.index(d)
		if shape[d] < lb.dims[d] {
			x = fmt.Sprintf("(%s %% %d)", x, shape[d])
		}
		if mult != 1 {
			x = fmt.Sprintf("%s * %d", x, mult)
		}
		terms = append(terms, x)
	}
	return terms
}

func sumExpr(base int64, terms []string) string {
	if base != 0 || len(terms) == 0 {
		terms = append([]string{fmt.Sprint(base)}, terms...)
	}
	return strings.Join(terms, " + ")
}

// sbufLocation renders where a placed SBUF tensor's tile of each
// iteration starts: the start partition and byte address expressions in
// the loop variables.
func (lb *loopBlock) sbufLocation(t *neuroncore.Tensor, p neuroncore.PlacedTensor) (string, string, error) {
	if t.Kind == neuroncore.Table && p.Quadrants > 1 && p.QuadrantStride > 0 {
		// spread over partition quadrants: physical tile j at partition
		// p0 + (j % q) * stride, byte addr + (j // q) * tile bytes
		terms := lb.lin(p.TileCounts, 1)
		j := "0"
		switch {
		case len(terms) == 1:
			j = terms[0]
		case len(terms) > 1:
			j = "(" + strings.Join(terms, " + ") + ")"
		}
		part := sumExpr(p.StartPartition, []string{fmt.Sprintf("(%s %% %d) * %d", j, p.Quadrants, p.QuadrantStride)})
		off := sumExpr(p.Addr, []string{fmt.Sprintf("(%s // %d) * %d", j, p.Quadrants, t.TileBytes())})
		return part, off, nil
	}
	if t.Kind != neuroncore.Mod || t.Mod == nil {
		return "", "", errors.New("its locations are neither a modulo ladder nor a partition-quadrant spread over its loops; allocation expressions are written for those only")
	}
	m := t.Mod
	return sumExpr(m.BasePartition, lb.lin(m.NumParTiles, t.Partitions)), sumExpr(m.BaseAddr, lb.lin(m.NumFreeTiles, t.TileBytes())), nil
}

// address renders a placed tensor's locations as the current API's
// address=(start_partition, byte_offset) in the loop variables (PSUM: the
// byte offset counts whole banks).
func (lb *loopBlock) address(t *neuroncore.Tensor, p neuroncore.PlacedTensor, bankBytes int64) (string, error) {
	if t.Buffer == neuroncore.PSUM {
		if t.Kind != neuroncore.Mod || t.Mod == nil {
			return "", errors.New("its PSUM locations are not a modulo ladder over its loops")
		}
		m := t.Mod
		off := append(lb.lin(m.NumBankTiles, bankBytes), lb.lin(m.NumFreeTiles, t.TileBytes())...)
		part := sumExpr(m.BasePartition, lb.lin(m.NumParTiles, t.Partitions))
		return fmt.Sprintf("address=(%s, %s)", part, sumExpr(m.BaseAddr+m.BaseBank*bankBytes, off)), nil
	}
	part, off, err := lb.sbufLocation(t, p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("address=(%s, %s)", part, off), nil
}

// modAlloc renders a placed tensor's locations as a Beta-1 mod_alloc with
// expressions in the loop variables (unrolled loops: Python integers at
// trace time). A PSUM tile takes a whole bank from partition 0 (the guide:
// psum.mod_alloc's base_addr and start partition must be 0).
func (lb *loopBlock) modAlloc(ncc string, t *neuroncore.Tensor, p neuroncore.PlacedTensor) (string, error) {
	if t.Buffer == neuroncore.PSUM {
		if t.Kind != neuroncore.Mod || t.Mod == nil || t.Mod.BaseAddr != 0 || t.Mod.BasePartition != 0 ||
			len(lb.lin(t.Mod.NumParTiles, 1)) > 0 || len(lb.lin(t.Mod.NumFreeTiles, 1)) > 0 {
			return "", errors.New("its PSUM locations are not whole banks over its loops")
		}
		return fmt.Sprintf("%s.psum.mod_alloc(base_bank=%s)", ncc, sumExpr(t.Mod.BaseBank, lb.lin(t.Mod.NumBankTiles, 1))), nil
	}
	part, off, err := lb.sbufLocation(t, p)
	if err != nil {
		return "", err
	}
	if part == "0" {
		return fmt.Sprintf("%s.sbuf.mod_alloc(base_addr=%s)", ncc, off), nil
	}
	return fmt.Sprintf("%s.sbuf.mod_alloc(base_addr=%s, base_partition=%s)", ncc, off, part), nil
}

// dropReassigned removes the declarations whose loop variable the loop's
// body assigns (the address expression would then read another value).
func dropReassigned(blocks map[*TensorRec]*loopBlock, mod *python.Module) {
	fors := map[python.Pos]*python.For{}
	var walk func(body []python.Stmt)
	walk = func(body []python.Stmt) {
		for _, s := range body {
			switch x := s.(type) {
			case *python.For:
				fors[x.Pos] = x
				walk(x.Body)
				walk(x.Else)
			case *python.If:
				walk(x.Body)
				walk(x.Else)
			case *python.While:
				walk(x.Body)
				walk(x.Else)
			case *python.With:
				walk(x.Body)
			case *python.Try:
				walk(x.Body)
				for _, h := range x.Handlers {
					walk(h.Body)
				}
				walk(x.Else)
				walk(x.Finally)
			case *python.FunctionDef:
				walk(x.Body)
			case *python.ClassDef:
				walk(x.Body)
			}
		}
	}
	walk(mod.Body)
	for rec, lb := range blocks {
		for d, lr := range lb.rec {
			f := fors[lr.Site.pos()]
			if f != nil && assignsName(f.Body, lb.vars[d]) {
				delete(blocks, rec)
				break
			}
		}
	}
}

// assignsName reports whether statements bind name (assignment, loop or
// with target, def, import) outside nested function bodies.
func assignsName(body []python.Stmt, name string) bool {
	var target func(e python.Expr) bool
	target = func(e python.Expr) bool {
		switch x := e.(type) {
		case *python.Name:
			return x.ID == name
		case *python.Tuple:
			for _, v := range x.Elts {
				if target(v) {
					return true
				}
			}
		case *python.List:
			for _, v := range x.Elts {
				if target(v) {
					return true
				}
			}
		case *python.Starred:
			return target(x.Value)
		}
		return false
	}
	for _, s := range body {
		switch x := s.(type) {
		case *python.Assign:
			for _, t := range x.Targets {
				if target(t) {
					return true
				}
			}
		case *python.AugAssign:
			if target(x.Target) {
				return true
			}
		case *python.AnnAssign:
			if target(x.Target) {
				return true
			}
		case *python.For:
			if target(x.Target) || assignsName(x.Body, name) || assignsName(x.Else, name) {
				return true
			}
		case *python.If:
			if assignsName(x.Body, name) || assignsName(x.Else, name) {
				return true
			}
		case *python.While:
			if assignsName(x.Body, name) || assignsName(x.Else, name) {
				return true
			}
		case *python.With:
			for _, it := range x.Items {
				if it.Vars != nil && target(it.Vars) {
					return true
				}
			}
			if assignsName(x.Body, name) {
				return true
			}
		case *python.Try:
			if assignsName(x.Body, name) || assignsName(x.Else, name) || assignsName(x.Finally, name) {
				return true
			}
			for _, h := range x.Handlers {
				if h.Name == name || assignsName(h.Body, name) {
					return true
				}
			}
		case *python.FunctionDef:
			if x.Name == name {
				return true
			}
		case *python.ClassDef:
			if x.Name == name {
				return true
			}
		case *python.Import:
			for _, a := range x.Names {
				if a.AsName == name || a.AsName == "" && a.Name == name {
					return true
				}
			}
		case *python.ImportFrom:
			for _, a := range x.Names {
				if a.AsName == name || a.AsName == "" && a.Name == name {
					return true
				}
			}
		}
	}
	return false
}
