package nki

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// Comprehension blocks: tensors declared as the element of (nested) list
// comprehensions over range(N), as nki-autotune's kernels build their tile
// buffers:
//
//	sbuf = [[nl.ndarray((128, 128), dtype=..., buffer=nl.sbuf) for _ in range(16)] for _ in range(16)]
//
// Every element is a tensor of its own and a list keeps them alive
// together, so one location per line cannot hold them. As for declarations
// in range loops (loopblock.go), such a declaration is lowered with one
// block dimension per generator (the trip counts as sizes, the element's
// position as its block index) and place writes the ladder as an address
// expression in the generators' variables. Generators whose target is _
// (or a name another generator of the chain repeats) get a fresh name, so
// that the expression can tell them apart.

// compRename is a generator target place renames.
type compRename struct {
	at       int // byte offset of the target name
	from, to string
}

// compBlocks adds a loop block for every automatic declaration of the
// kernel file that is the element of a chain of comprehensions over
// range(N), N an integer literal, without conditions, executed a whole
// number of times (each execution of the comprehension declares its
// elements in row-major order). Declarations already in blocks are left
// alone.
func compBlocks(res *Result, ix *stmtIndex, blocks map[*TensorRec]*loopBlock) map[*TensorRec]*loopBlock {
	src := ix.src
	insts := map[*TensorRec][]int64{}
	eachNode(res.Program, func(n *PNode) {
		if n.Decl != nil {
			insts[n.Decl] = append(insts[n.Decl], n.Inst)
		}
	})
	taken := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bnpukit_c\d+\b`).FindAllString(src, -1) {
		taken[m] = true
	}
	next := 0
	fresh := func() string {
		for {
			n := fmt.Sprintf("npukit_c%d", next)
			next++
			if !taken[n] {
				return n
			}
		}
	}
	for _, rec := range res.Tensors {
		if blocks[rec] != nil || !rec.OnChip || len(rec.BlockDims) > 0 || rec.Site == nil || rec.Site.File != res.File ||
			rec.Alloc == nil || rec.Alloc.Kind != "auto" || len(insts[rec]) == 0 {
			continue
		}
		gens := compChain(ix, rec.Site.pos())
		if len(gens) == 0 {
			continue
		}
		lb := &loopBlock{idx: map[int64][]int64{}}
		ok := true
		seen := map[string]int{}
		for _, g := range gens {
			name, isName := g.Target.(*python.Name)
			n, isRange := rangeLiteral(g.Iter)
			if len(g.Ifs) > 0 || !isName || !isRange || n < 1 {
				ok = false
				break
			}
			seen[name.ID]++
			lb.vars = append(lb.vars, name.ID)
			lb.rec = append(lb.rec, nil)
			lb.first = append(lb.first, [2]int64{0, 0})
			lb.step = append(lb.step, 1)
			lb.dims = append(lb.dims, n)
		}
		if !ok {
			continue
		}
		// the comprehension's text must not use a renamed target other
		// than as a target (its element or inner iterables reading _)
		start := ix.off(gens[0].Pos)
		for d, g := range gens {
			name := g.Target.(*python.Name)
			if name.ID != "_" && seen[name.ID] == 1 {
				continue
			}
			if seen[name.ID] > 0 && usesName(ix, rec.Site.pos(), gens, name.ID) {
				ok = false
				break
			}
			to := fresh()
			lb.renames = append(lb.renames, compRename{at: ix.off(name.Pos), from: name.ID, to: to})
			lb.vars[d] = to
		}
		if !ok || start < 0 {
			continue
		}
		total := int64(1)
		for _, n := range lb.dims {
			total *= n
		}
		ids := insts[rec]
		if int64(len(ids))%total != 0 {
			continue
		}
		for k, inst := range ids {
			r := int64(k) % total
			idx := make([]int64, len(lb.dims))
			for d := len(lb.dims) - 1; d >= 0; d-- {
				idx[d] = r % lb.dims[d]
				r /= lb.dims[d]
			}
			lb.idx[inst] = idx
		}
		if blocks == nil {
			blocks = map[*TensorRec]*loopBlock{}
		}
		blocks[rec] = lb
	}
	return blocks
}

// compChain returns the generators, outermost first, of the chain of
// comprehensions whose innermost element is the call at pos: the call is
// the element of a comprehension, which may be the element of another.
func compChain(ix *stmtIndex, pos python.Pos) []python.Comprehension {
	var call *exprAt
	for i, x := range ix.at[pos] {
		if _, ok := x.e.(*python.Call); ok {
			call = &ix.at[pos][i]
			break
		}
	}
	if call == nil || call.parent == nil {
		return nil
	}
	var chain [][]python.Comprehension
	child, parent := call.e, call.parent
	for {
		c, ok := parent.(*python.Comp)
		if !ok || c.Kind != "list" || c.Elt != child {
			break
		}
		chain = append(chain, c.Gens)
		up := parentOf(ix, c)
		if up == nil {
			break
		}
		child, parent = c, up
	}
	var out []python.Comprehension
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, chain[i]...)
	}
	return out
}

func parentOf(ix *stmtIndex, e python.Expr) python.Expr {
	for _, x := range ix.at[e.At()] {
		if x.e == e {
			return x.parent
		}
	}
	return nil
}

// rangeLiteral returns N of range(N) with an integer literal N (generated
// kernels write their buffer grids so): the generator's variable is then
// the element's position and N its trip count in every execution.
func rangeLiteral(e python.Expr) (int64, bool) {
	c, ok := e.(*python.Call)
	if !ok || len(c.Args) != 1 || len(c.Keywords) > 0 {
		return 0, false
	}
	if f, ok := c.Func.(*python.Name); !ok || f.ID != "range" {
		return 0, false
	}
	n, ok := c.Args[0].(*python.Num)
	if !ok || !n.IsInt || n.Big {
		return 0, false
	}
	return n.Int, true
}

// usesName reports whether the comprehension chain reads name anywhere but
// its targets: in the element call or in an iterable.
func usesName(ix *stmtIndex, call python.Pos, gens []python.Comprehension, name string) bool {
	re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `($|\W)`)
	for _, x := range ix.at[call] {
		if _, ok := x.e.(*python.Call); ok {
			if s, e := ix.off(x.e.At()), ix.end(x.e); s >= 0 && e > s && re.MatchString(ix.src[s:e]) {
				return true
			}
			break
		}
	}
	for _, g := range gens {
		if s, e := ix.off(g.Iter.At()), ix.end(g.Iter); s < 0 || e <= s || re.MatchString(ix.src[s:e]) {
			return true
		}
	}
	return false
}

// renameTargets writes a loop block's generator renames (each once).
func (e *editor) renameTargets(lb *loopBlock) error {
	if e.renamed == nil {
		e.renamed = map[int]bool{}
	}
	for _, r := range lb.renames {
		if e.renamed[r.at] {
			continue
		}
		if r.at < 0 || !strings.HasPrefix(e.src[r.at:], r.from) {
			return &PlaceError{Site: siteAt(e.file, e.src, max(r.at, 0)), Msg: "cannot find the comprehension's target " + r.from}
		}
		e.renamed[r.at] = true
		e.edits = append(e.edits, edit{r.at, len(r.from), r.to})
	}
	return nil
}
