package nki

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/npukit/npukit/neuroncore"
)

// Lowered is a traced kernel as a neuroncore plan, with the map back to
// the kernel's source.
type Lowered struct {
	Plan *neuroncore.Plan
	// Recs is, per plan tensor, the traced declaration it comes from.
	Recs []*TensorRec
	// Steps is, per plan step, the traced instruction it comes from.
	Steps map[*neuroncore.Step]*PStep
	// Loops is, per plan loop, the traced loop it comes from.
	Loops map[*neuroncore.Loop]*LoopRec
}

// MaxLoweredRefs bounds the tile references one instruction expands to
// (a slice over block dimensions touches every tile along them).
const MaxLoweredRefs = neuroncore.MaxStepOperands

// Lower turns a trace into the plan model of `npukit sbuf`: on-chip tensors
// (block dims, partitions, free dims, allocation), the HBM tensors the
// kernel declares, and the body as loops of engine steps reading and
// writing logical tiles.
//
// Beta-1 symbolic loops stay loops when every block index inside them is
// affine in the loop variables; a loop whose variable appears in a
// non-affine index or a symbolic `if` is unrolled (one one-trip loop per
// iteration, so that its tensors still get a fresh instance per
// iteration). Every unrolled iteration of the trace is a one-trip loop too.
// Tensor and step paths are "file.py:line", loops carry the kernel's loop
// variable names, so findings name the source line, the tensor and the
// iteration.
func Lower(res *Result, arch *neuroncore.Arch) (*Lowered, error) {
	return lower(res, arch, nil, nil)
}

func lower(res *Result, arch *neuroncore.Arch, blocks map[*TensorRec]*loopBlock, canon map[*TensorRec]*TensorRec) (*Lowered, error) {
	unroll := map[int]bool{}
	for range 64 {
		lw := &lowering{res: res, unroll: unroll, blocks: blocks, canon: canon, tensorOf: map[tensorKey]int{}, cur: map[*TensorRec]int{},
			depth: map[int]int{}, env: map[int]int64{}, names: map[string]bool{}, nextDup: map[string]int{}, paths: map[fileLine]string{}, escaped: map[int]bool{}}
		api := ""
		if res.API != "beta1" {
			api = "current"
		}
		lw.out = &Lowered{Plan: &neuroncore.Plan{Name: res.Function, Arch: arch, API: api, SerialTiles: res.hasDecorator("skip_middle_end_transformations"), Grid: res.Grid, ProgramID: res.ProgramID}, Steps: map[*neuroncore.Step]*PStep{}, Loops: map[*neuroncore.Loop]*LoopRec{}}
		lw.hbm()
		body, err := lw.nodes(res.Program)
		var more *needUnroll
		if errors.As(err, &more) {
			n := len(unroll)
			for _, v := range more.vars {
				unroll[v] = true
			}
			if len(unroll) == n {
				return nil, fmt.Errorf("%s: cannot lower %s", more.site, more.what)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		lw.out.Plan.Body = body
		for ti := range lw.escaped {
			lw.out.Plan.Tensors[ti].Scope = ""
		}
		return lw.out, nil
	}
	return nil, errors.New("lowering did not converge")
}

type needUnroll struct {
	vars []int
	site Site
	what string
}

func (e *needUnroll) Error() string { return e.what }

type tensorKey struct {
	rec   *TensorRec
	scope string
}

type lowering struct {
	res      *Result
	out      *Lowered
	unroll   map[int]bool
	tensorOf map[tensorKey]int
	cur      map[*TensorRec]int // the plan tensor a record's latest declaration made
	// loop nest while lowering
	vars     []string // plan loop variable per depth
	ids      []int    // plan loop id per depth
	symbolic []bool   // per depth: the loop is a symbolic loop or one of its unrolled iterations
	nextID   int
	depth    map[int]int     // symbolic variable -> depth of its plan loop
	env      map[int]int64   // unrolled symbolic variables' values
	names    map[string]bool // tensor and HBM names taken
	// nextDup: per name_L<line> prefix, the next suffix to try (a
	// declaration in an unrolled loop takes the same name many times)
	nextDup map[string]int
	paths   map[fileLine]string // stepPath
	steps   int
	// escaped marks tensors used outside the loop that declares them
	// (their scope is dropped: instances then come from Ref.Decl only)
	escaped map[int]bool
	// per loop record: its site text and identifier (a loop unrolled by
	// the trace is a PLoop per iteration, all of one record)
	loopText map[*LoopRec][2]string
	// blocks gives declarations a block dimension per enclosing loop
	// (loopblock.go; place only)
	blocks map[*TensorRec]*loopBlock
	// canon lowers several records of one declaration site as the plan
	// tensor of one of them (siteMerge; place only)
	canon map[*TensorRec]*TensorRec
}

func (lw *lowering) uniqueName(base string, line int) string {
	base = ident(base)
	if !lw.names[base] {
		lw.names[base] = true
		return base
	}
	prefix := base + "_L" + strconv.Itoa(line)
	for k := lw.nextDup[prefix]; ; k++ {
		n := prefix
		if k > 0 {
			n += "_" + strconv.Itoa(k)
		}
		if !lw.names[n] {
			lw.names[n] = true
			lw.nextDup[prefix] = k + 1
			return n
		}
	}
}

// ident makes an identifier of a Python target or record name.
func ident(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if out == "" {
		return "t"
	}
	return out
}

func sitePath(s *Site) string {
	if s == nil {
		return "kernel"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
}

// hbm lists the device tensors the kernel declares (not its arguments, not
// compiler constants).
// declaredHBM is the HBM tensors the kernel itself declares: not its
// arguments, not the constants the compiler materialises.
func declaredHBM(res *Result) []*TensorRec {
	var out []*TensorRec
	for _, r := range res.Tensors {
		if r.OnChip || strings.HasPrefix(r.ID, "arg:") {
			continue
		}
		switch r.API {
		case "nl.shared_constant", "nl.shared_identity_matrix":
			continue
		}
		out = append(out, r)
	}
	return out
}

// recName is a record's tensor name, or its id for an unnamed one.
func recName(r *TensorRec) string {
	if r.Name == "" {
		return r.ID
	}
	return r.Name
}

func (lw *lowering) hbm() {
	for _, r := range declaredHBM(lw.res) {
		name := recName(r)
		lw.out.Plan.HBM = append(lw.out.Plan.HBM, neuroncore.HBMTensor{Name: lw.uniqueName(name, siteLine(r.Site)), Kind: r.Buffer, Output: r.Returned})
	}
}

func siteLine(s *Site) int {
	if s == nil {
		return 0
	}
	return s.Line
}

// tensor returns the plan tensor of a record declared in the current scope.
func (lw *lowering) declare(rec *TensorRec) (int, error) {
	// Only a symbolic loop (traced once) needs a scope: the iterations of
	// an unrolled loop declare distinct tensor objects (Ref.Decl).
	scope := ""
	for d := len(lw.vars) - 1; d >= 0; d-- {
		if lw.symbolic[d] {
			scope = lw.vars[d]
			break
		}
	}
	src := rec
	if c := lw.canon[rec]; c != nil {
		src = c
	}
	k := tensorKey{src, scope}
	if i, ok := lw.tensorOf[k]; ok {
		lw.cur[rec] = i
		return i, nil
	}
	t, err := planTensor(src)
	if err != nil {
		return 0, err
	}
	name := src.Name
	if name == "" {
		name = "tile_" + strings.ReplaceAll(src.API, "result of ", "")
	}
	t.Name = lw.uniqueName(name, siteLine(src.Site))
	t.Scope = scope
	if lb := lw.blocks[rec]; lb != nil {
		t.Block = append([]int64(nil), lb.dims...)
	}
	t.Path = sitePath(src.Site)
	p := lw.out.Plan
	if len(p.Tensors) >= neuroncore.MaxTensors {
		return 0, fmt.Errorf("%s: more than %d on-chip tensor declarations to check", t.Path, neuroncore.MaxTensors)
	}
	p.Tensors = append(p.Tensors, t)
	lw.out.Recs = append(lw.out.Recs, src)
	i := len(p.Tensors) - 1
	lw.tensorOf[k] = i
	lw.cur[rec] = i
	return i, nil
}

// inScope reports whether a symbolic loop of that variable encloses the
// current point.
func (lw *lowering) inScope(v string) bool {
	for d, name := range lw.vars {
		if name == v && lw.symbolic[d] {
			return true
		}
	}
	return false
}

func planTensor(rec *TensorRec) (*neuroncore.Tensor, error) {
	dt, err := neuroncore.ParseDType(rec.DType.storage())
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %s: %v", sitePath(rec.Site), rec.ID, err)
	}
	t := &neuroncore.Tensor{Block: rec.BlockDims, Partitions: rec.Partition, Free: rec.FreeDims, DType: dt}
	if rec.Buffer == "psum" {
		t.Buffer = neuroncore.PSUM
	}
	if t.Partitions <= 0 {
		t.Partitions = 1
	}
	if len(t.Free) == 0 {
		t.Free = []int64{1} // (P,): one element per partition
	}
	a := rec.Alloc
	if a == nil {
		return t, nil
	}
	switch {
	case a.Kind == "address":
		t.Kind = neuroncore.Table
		loc := neuroncore.Location{Partition: *a.Partition, Addr: *a.Offset}
		if t.Buffer == neuroncore.PSUM {
			// a PSUM byte offset within the partition's banks
			bank := neuroncore.V2.PSUMBankBytes()
			loc.Bank, loc.Addr = loc.Addr/bank, loc.Addr%bank
		}
		n := t.Tiles()
		if n > 1 {
			return nil, fmt.Errorf("%s: address= tensor with block dimensions", sitePath(rec.Site))
		}
		t.Table = []neuroncore.TableEntry{{Loc: loc}}
	case len(a.Tiles) > 0:
		t.Kind = neuroncore.Table
		nb := len(rec.BlockDims)
		t.Table = make([]neuroncore.TableEntry, 0, len(a.Tiles))
		index := make([]int64, 0, nb*len(a.Tiles)) // every entry's Index, one array
		for _, row := range a.Tiles {
			index = append(index, row[:nb]...)
			e := neuroncore.TableEntry{Index: index[len(index)-nb : len(index) : len(index)]}
			loc := row[nb:]
			if t.Buffer == neuroncore.PSUM && len(loc) == 3 {
				e.Loc = neuroncore.Location{Bank: loc[0], Partition: loc[1], Addr: loc[2]}
			} else if len(loc) == 2 {
				e.Loc = neuroncore.Location{Partition: loc[0], Addr: loc[1]}
			} else {
				return nil, fmt.Errorf("%s: allocation row %v", sitePath(rec.Site), row)
			}
			t.Table = append(t.Table, e)
		}
	}
	return t, nil
}

func (lw *lowering) nodes(ns []*PNode) ([]neuroncore.Node, error) {
	var out []neuroncore.Node
	for _, n := range ns {
		switch {
		case n.Decl != nil:
			// an implicit tile is declared by the step producing it (it
			// is recorded where it is first used, maybe in another loop)
			if n.Decl.OnChip && !strings.HasPrefix(n.Decl.API, "result of ") {
				if _, err := lw.declare(n.Decl); err != nil {
					return nil, err
				}
			}
		case n.Step != nil:
			s, err := lw.step(n.Step)
			if err != nil {
				return nil, err
			}
			if s != nil {
				out = append(out, neuroncore.Node{Step: s})
			}
		case n.Loop != nil:
			ls, err := lw.loop(n.Loop)
			if err != nil {
				return nil, err
			}
			out = append(out, ls...)
		}
	}
	return out, nil
}

// loopNames is a loop's identifier and site text, computed once per record.
func (lw *lowering) loopNames(l *PLoop) (string, string) {
	if lw.loopText == nil {
		lw.loopText = map[*LoopRec][2]string{}
	}
	t, ok := lw.loopText[l.Rec]
	if !ok {
		t = [2]string{ident(l.Var), l.Rec.Site.String()}
		lw.loopText[l.Rec] = t
	}
	return t[0], t[1]
}

func (lw *lowering) loopVar(l *PLoop) string {
	base, _ := lw.loopNames(l)
	name := base
	for k := 2; ; k++ {
		taken := false
		for _, v := range lw.vars {
			if v == name {
				taken = true
			}
		}
		if !taken {
			return name
		}
		name = fmt.Sprintf("%s%d", base, k)
	}
}

func (lw *lowering) loop(l *PLoop) ([]neuroncore.Node, error) {
	if len(lw.vars) >= neuroncore.MaxLoopDepth {
		return nil, fmt.Errorf("%s: loops nested more than %d deep", l.Rec.Site, neuroncore.MaxLoopDepth)
	}
	name := lw.loopVar(l)
	_, path := lw.loopNames(l)
	body := func(start, stop, step int64) (neuroncore.Node, error) {
		lw.nextID++
		lw.vars = append(lw.vars, name)
		lw.ids = append(lw.ids, lw.nextID)
		lw.symbolic = append(lw.symbolic, l.Sym >= 0)
		defer func() {
			lw.vars = lw.vars[:len(lw.vars)-1]
			lw.ids = lw.ids[:len(lw.ids)-1]
			lw.symbolic = lw.symbolic[:len(lw.symbolic)-1]
		}()
		b, err := lw.nodes(l.Body)
		if err != nil {
			return neuroncore.Node{}, err
		}
		pl := &neuroncore.Loop{Var: name, Start: start, Stop: stop, Step: step, Body: b, Path: path}
		lw.out.Loops[pl] = l.Rec
		return neuroncore.Node{Loop: pl}, nil
	}
	if l.Sym < 0 {
		n, err := body(l.Start, l.Stop, 1)
		if err != nil || len(n.Loop.Body) == 0 {
			return nil, err
		}
		return []neuroncore.Node{n}, nil
	}
	if !lw.unroll[l.Sym] && l.Step > 0 {
		lw.depth[l.Sym] = len(lw.vars)
		defer delete(lw.depth, l.Sym)
		n, err := body(l.Start, l.Stop, l.Step)
		if err != nil || len(n.Loop.Body) == 0 {
			return nil, err
		}
		n.Loop.Vectorize = lw.vectorizable(l)
		return []neuroncore.Node{n}, nil
	}
	var out []neuroncore.Node
	r := &RangeVal{Start: l.Start, Stop: l.Stop, Step: l.Step}
	for k := int64(0); k < r.Len(); k++ {
		v := l.Start + k*l.Step
		lw.env[l.Sym] = v
		n, err := body(v, v+1, 1)
		if err != nil {
			delete(lw.env, l.Sym)
			return nil, err
		}
		if len(n.Loop.Body) > 0 {
			out = append(out, n)
		}
	}
	delete(lw.env, l.Sym)
	return out, nil
}

// vectorizable reports whether the compiler may merge the iterations of a
// kept symbolic loop into wider instructions (neuroncore.Loop.Vectorize):
// a Beta-1 nl.affine_range loop ("affine_range also allows Neuron compiler
// to perform additional loop-level optimizations, such as loop
// vectorization", NKI API reference, nki.language.affine_range), not
// sequential_range ("much more conservative loop-level optimizations"),
// not a hand-pipelined precise_schedule=True loop, in a kernel without
// nki.compiler.skip_middle_end_transformations ("Skip all middle end
// transformations on the kernel").
func (lw *lowering) vectorizable(l *PLoop) bool {
	return lw.res.API == "beta1" && l.Rec != nil && l.Rec.Kind == "affine_range" && !l.Rec.Precise &&
		!lw.res.hasDecorator("skip_middle_end_transformations")
}

// affine evaluates a symbolic index over the current loop nest.
func (lw *lowering) affine(s *Sym) (neuroncore.Affine, []int, bool) {
	switch s.Op {
	case "const":
		return neuroncore.Affine{Const: s.C}, nil, true
	case "var":
		if v, ok := lw.env[s.Var]; ok {
			return neuroncore.Affine{Const: v}, nil, true
		}
		if d, ok := lw.depth[s.Var]; ok {
			return neuroncore.Affine{Terms: []neuroncore.Term{{Depth: d, Coef: 1}}}, nil, true
		}
		return neuroncore.Affine{}, []int{s.Var}, false
	case "+", "-", "*":
		a, va, oka := lw.affine(s.A)
		b, vb, okb := lw.affine(s.B)
		if !oka || !okb {
			return neuroncore.Affine{}, append(va, vb...), false
		}
		switch s.Op {
		case "+":
			return addAffine(a, b, 1), nil, true
		case "-":
			return addAffine(a, b, -1), nil, true
		}
		if len(a.Terms) == 0 {
			return scaleAffine(b, a.Const), nil, true
		}
		if len(b.Terms) == 0 {
			return scaleAffine(a, b.Const), nil, true
		}
	}
	// anything else is evaluated when every variable it uses is known
	var unknown []int
	env := make([]int64, len(lw.res.symLoops))
	for _, v := range s.vars {
		x, ok := lw.env[v]
		if !ok {
			unknown = append(unknown, v)
		}
		if v < len(env) {
			env[v] = x
		}
	}
	if len(unknown) > 0 {
		return neuroncore.Affine{}, unknown, false
	}
	return neuroncore.Affine{Const: s.Eval(env)}, nil, true
}

func addAffine(a, b neuroncore.Affine, sign int64) neuroncore.Affine {
	out := neuroncore.Affine{Const: a.Const + sign*b.Const, Terms: append([]neuroncore.Term{}, a.Terms...)}
	for _, t := range b.Terms {
		merged := false
		for i := range out.Terms {
			if out.Terms[i].Depth == t.Depth {
				out.Terms[i].Coef += sign * t.Coef
				merged = true
			}
		}
		if !merged {
			out.Terms = append(out.Terms, neuroncore.Term{Depth: t.Depth, Coef: sign * t.Coef})
		}
	}
	return out
}

func scaleAffine(a neuroncore.Affine, k int64) neuroncore.Affine {
	out := neuroncore.Affine{Const: a.Const * k}
	for _, t := range a.Terms {
		out.Terms = append(out.Terms, neuroncore.Term{Depth: t.Depth, Coef: t.Coef * k})
	}
	return out
}

// guardsHold evaluates the step's symbolic `if` guards; their variables
// must be unrolled.
func (lw *lowering) guardsHold(s *PStep) (bool, error) {
	if len(s.Guards) == 0 {
		return true, nil
	}
	env := make([]int64, len(lw.res.symLoops))
	var unknown []int
	for _, g := range s.Guards {
		for _, v := range g.vars {
			x, ok := lw.env[v]
			if !ok {
				unknown = append(unknown, v)
			}
			if v < len(env) {
				env[v] = x
			}
		}
	}
	if len(unknown) > 0 {
		return false, &needUnroll{vars: unknown, site: s.Site, what: "a symbolic if"}
	}
	for _, g := range s.Guards {
		if g.Eval(env) == 0 {
			return false, nil
		}
	}
	return true, nil
}

func (lw *lowering) refs(s *PStep, acc []Access) ([]neuroncore.Ref, []string, error) {
	var refs []neuroncore.Ref
	var hbm []string
	for _, a := range acc {
		if !a.Rec.OnChip {
			name := a.Rec.Name
			if name == "" {
				name = strings.TrimPrefix(a.Rec.ID, "arg:")
			}
			hbm = append(hbm, name)
			continue
		}
		ti, ok := lw.cur[a.Rec]
		if !ok {
			var err error
			if ti, err = lw.declare(a.Rec); err != nil {
				return nil, nil, err
			}
		}
		t := lw.out.Plan.Tensors[ti]
		// one set of choices per block dimension
		choices := make([][]neuroncore.Affine, len(t.Block))
		total := 1
		lb := lw.blocks[a.Rec]
		for d := range t.Block {
			if lb != nil {
				idx, ok := lb.idx[a.Inst]
				if !ok {
					return nil, nil, fmt.Errorf("%s: %s uses a declaration of %s the program does not hold", s.Site, s.Fn, t.Name)
				}
				choices[d] = []neuroncore.Affine{{Const: idx[d]}}
				continue
			}
			var v Value
			if d < len(a.Block) {
				v = a.Block[d]
			}
			switch x := v.(type) {
			case int64:
				if x < 0 {
					x += t.Block[d]
				}
				choices[d] = []neuroncore.Affine{{Const: x}}
			case *Sym:
				af, unknown, ok := lw.affine(x)
				if !ok {
					return nil, nil, &needUnroll{vars: unknown, site: s.Site, what: "block index " + x.String()}
				}
				choices[d] = []neuroncore.Affine{af}
			default:
				for k := int64(0); k < t.Block[d]; k++ {
					choices[d] = append(choices[d], neuroncore.Affine{Const: k})
				}
			}
			total *= len(choices[d])
			if total > MaxLoweredRefs {
				return nil, nil, fmt.Errorf("%s: %s touches more than %d tiles of %s", s.Site, s.Fn, MaxLoweredRefs, t.Name)
			}
		}
		idx := make([]neuroncore.Affine, len(t.Block))
		var rec func(d int)
		var decl int64
		if a.Rec.Declared > 1 {
			decl = a.Inst
		}
		if t.Scope != "" && !lw.inScope(t.Scope) {
			lw.escaped[ti] = true
		}
		rec = func(d int) {
			if d == len(t.Block) {
				refs = append(refs, neuroncore.Ref{Tensor: ti, Index: append([]neuroncore.Affine{}, idx...), Text: refText(t, decl, idx, lw.vars), Decl: decl, Whole: a.Whole && !s.Masked, Part: a.Part, Free: a.Free})
				return
			}
			for _, c := range choices[d] {
				idx[d] = c
				rec(d + 1)
			}
		}
		rec(0)
	}
	return refs, hbm, nil
}

// stepPath is a step's location, file:line (one string per line of
// source, however many steps unrolling makes of it).
func (lw *lowering) stepPath(s Site) string {
	k := fileLine{s.File, s.Line}
	p, ok := lw.paths[k]
	if !ok {
		p = filepath.Base(s.File) + ":" + strconv.Itoa(s.Line)
		lw.paths[k] = p
	}
	return p
}

type fileLine struct {
	file string
	line int
}

// refText renders a reference as the plan format writes it: t[2*i+1, j].
func refText(t *neuroncore.Tensor, decl int64, idx []neuroncore.Affine, vars []string) string {
	if decl == 0 && len(idx) == 0 {
		return t.Name
	}
	b := make([]byte, 0, 64)
	b = append(b, t.Name...)
	if decl != 0 {
		b = append(b, '#')
		b = strconv.AppendInt(b, decl, 10)
	}
	if len(idx) == 0 {
		return string(b)
	}
	b = append(b, '[')
	for i, a := range idx {
		if i > 0 {
			b = append(b, ", "...)
		}
		start := len(b)
		for _, term := range a.Terms {
			if term.Coef == 0 {
				continue
			}
			switch {
			case term.Coef < 0:
				b = append(b, '-')
			case len(b) > start:
				b = append(b, '+')
			}
			if c := term.Coef; c != 1 && c != -1 {
				b = strconv.AppendInt(b, max(c, -c), 10)
				b = append(b, '*')
			}
			b = append(b, vars[term.Depth]...)
		}
		if a.Const != 0 || len(b) == start {
			if len(b) > start && a.Const > 0 {
				b = append(b, '+')
			}
			b = strconv.AppendInt(b, a.Const, 10)
		}
	}
	return string(append(b, ']'))
}

func (lw *lowering) step(s *PStep) (*neuroncore.Step, error) {
	ok, err := lw.guardsHold(s)
	if err != nil || !ok {
		return nil, err
	}
	reads, hbmR, err := lw.refs(s, s.Reads)
	if err != nil {
		return nil, err
	}
	writes, hbmW, err := lw.refs(s, s.Writes)
	if err != nil {
		return nil, err
	}
	if len(reads) == 0 && len(writes) == 0 {
		if st := hbmCopy(s, hbmR, hbmW); st != nil {
			lw.steps++
			st.Path = lw.stepPath(s.Site)
			lw.out.Steps[st] = s
			return st, nil
		}
		return nil, nil // compiler intermediates only
	}
	lw.steps++
	if lw.steps > neuroncore.MaxSteps {
		return nil, fmt.Errorf("%s: more than %d instructions after unrolling to check", s.Site, neuroncore.MaxSteps)
	}
	st := &neuroncore.Step{Name: s.Fn, Reads: reads, Writes: writes, Path: lw.stepPath(s.Site)}
	st.Op, st.Engine = lowerOp(s, lw.out.Plan, reads, writes)
	// operands that are compiler intermediates are not tiles of the plan:
	// keep the op within the plan format's operand counts
	switch {
	case st.Engine == neuroncore.DMA || st.Op == neuroncore.OpMatmul || st.Op == neuroncore.OpIota || st.Op == neuroncore.OpMemset:
	case len(reads) == 0:
		st.Op = neuroncore.OpMemset
	case len(reads) == 1 && st.Op == neuroncore.OpTensorTensor:
		st.Op = neuroncore.OpTensorScalar
	}
	st.Accumulate = s.Accumulate && st.Op == neuroncore.OpMatmul
	st.EngineByShape = st.Op == neuroncore.OpTranspose && st.Engine == neuroncore.TensorE && s.Engine == ""
	st.EngineByLoad = st.Op == neuroncore.OpTensorCopy && s.Engine == "" && lw.out.Plan.Arch.ScalarCopy
	switch {
	case st.Op == neuroncore.OpLoad && len(hbmR) > 0:
		st.HBM = hbmR[0]
		st.HBMRun = hbmRun(s.Reads)
		if short := s.Fn[strings.LastIndexByte(s.Fn, '.')+1:]; short == "dma_transpose" && len(writes) > 0 {
			// a DMA transpose writes its destination in runs of
			// DMATransposeBlock elements (the NEFF simulation's charge)
			run := lw.out.Plan.Arch.DMATransposeBlock * int64(lw.out.Plan.Tensors[writes[0].Tensor].DType.Size())
			if run > 0 && (st.HBMRun == 0 || run < st.HBMRun) {
				st.HBMRun = run
			}
		}
	case st.Op == neuroncore.OpStore && len(hbmW) > 0:
		st.HBM = hbmW[0]
		st.HBMRun = hbmRun(s.Writes)
	}
	if st.Op == neuroncore.OpStore && len(st.Writes) > 0 {
		st.Writes = nil
	}
	lw.out.Steps[st] = s
	return st, nil
}

// VectorTransposeMax is the largest tile VectorE transposes: "Tensor
// Engine nc_transpose can handle an input tile of shape (128, 128) or
// smaller, while Vector Engine can handle shape (32, 32) or smaller ...
// If no engine is specified, Neuron Compiler will automatically select an
// engine based on the input shape" (NKI API reference,
// nki.isa.nc_transpose, Neuron 2.26).
const VectorTransposeMax = 32

// transposeNeedsTensorE reports whether an nc_transpose that names no
// engine reads a tile only TensorE can transpose (more than 32 partitions
// or free elements): the compiler runs it there, as the NEFFs compiled
// from the corpus3 attention kernels show (their [128,128] transposes are
// TensorE matmuls, no VectorE instruction transposes).
func transposeNeedsTensorE(p *neuroncore.Plan, r neuroncore.Ref) bool {
	t := p.Tensors[r.Tensor]
	part, free := t.Partitions, t.FreeElems()
	if r.Free > 0 {
		part, free = r.Part, r.Free
	}
	return part > VectorTransposeMax || free > VectorTransposeMax
}

// lowerOp maps an NKI call to the plan's operation and engine.
func lowerOp(s *PStep, p *neuroncore.Plan, reads, writes []neuroncore.Ref) (neuroncore.Op, neuroncore.Engine) {
	short := s.Fn[strings.LastIndexByte(s.Fn, '.')+1:]
	engine := func(def neuroncore.Engine) neuroncore.Engine {
		switch s.Engine {
		case "engine:vector":
			return neuroncore.VectorE
		case "engine:scalar":
			return neuroncore.ScalarE
		case "engine:gpsimd":
			return neuroncore.GpSimdE
		case "engine:tensor":
			return neuroncore.TensorE
		}
		return def
	}
	psumOut := len(writes) == 1 && p.Tensors[writes[0].Tensor].Buffer == neuroncore.PSUM
	switch {
	case isDMA(short):
		switch {
		case len(writes) > 0 && len(reads) == 0:
			return neuroncore.OpLoad, neuroncore.DMA
		case len(reads) > 0 && len(writes) == 0:
			return neuroncore.OpStore, neuroncore.DMA
		}
		return neuroncore.OpLoad, neuroncore.DMA // on-chip to on-chip
	case short == "nc_matmul" || short == "matmul":
		if len(reads) == 2 && psumOut {
			return neuroncore.OpMatmul, neuroncore.TensorE
		}
		return neuroncore.OpTensorTensor, neuroncore.TensorE
	case short == "nc_transpose":
		// implicit identity only on TensorE (direct allocation guide)
		switch {
		case s.Engine == "engine:tensor":
			return neuroncore.OpTranspose, neuroncore.TensorE
		case s.Engine == "" && len(reads) > 0 && transposeNeedsTensorE(p, reads[0]):
			return neuroncore.OpTranspose, neuroncore.TensorE
		}
		return neuroncore.OpTranspose, neuroncore.VectorE
	case short == "softmax" && strings.HasPrefix(s.Fn, "nl."):
		return neuroncore.OpSoftmax, neuroncore.VectorE
	case short == "iota":
		return neuroncore.OpIota, neuroncore.GpSimdE
	case short == "memset" || short == "zeros" || short == "ones" || short == "full" || short == "rand" || s.Fn == "assign(scalar)":
		return neuroncore.OpMemset, engine(neuroncore.VectorE)
	case strings.HasPrefix(short, "activation") || isActivation(short):
		return neuroncore.OpActivation, engine(neuroncore.ScalarE)
	case strings.Contains(short, "reduce") || short == "sum" || short == "max" || short == "min" || short == "mean" || short == "prod":
		return neuroncore.OpTensorReduce, engine(neuroncore.VectorE)
	case short == "copy" || short == "tensor_copy" || s.Fn == "assign(copy)":
		return neuroncore.OpTensorCopy, engine(neuroncore.VectorE)
	case s.Fn == "nisa.tensor_scalar" && len(writes) == 1:
		// one streamed input; operand0/operand1 are scalars or one
		// element per partition
		return neuroncore.OpTensorScalar, engine(neuroncore.VectorE)
	}
	switch {
	case len(reads) >= 2:
		return neuroncore.OpTensorTensor, engine(neuroncore.VectorE)
	case len(reads) == 1:
		return neuroncore.OpTensorScalar, engine(neuroncore.VectorE)
	}
	return neuroncore.OpMemset, engine(neuroncore.VectorE)
}

func isDMA(short string) bool {
	switch short {
	case "load", "store", "dma_copy", "dma_transpose", "load_transpose2d", "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst":
		return true
	}
	return false
}

func isActivation(short string) bool {
	switch short {
	case "exp", "log", "tanh", "sigmoid", "relu", "gelu", "gelu_apprx_tanh", "silu", "softplus", "sqrt", "rsqrt", "erf", "sin", "cos", "reciprocal", "mish", "square", "exponential":
		return true
	}
	return false
}

// hbmRun is the bytes of one contiguous run of the first HBM access (0
// when not known): the HBM side of a load or store.
func hbmRun(acc []Access) int64 {
	for _, a := range acc {
		if !a.Rec.OnChip {
			return a.Run * int64(a.Rec.DType.Size())
		}
	}
	return 0
}

// hbmCopy is the copy-hbm step of a DMA from HBM to HBM (a weight slice
// copied into an HBM scratch tensor): it occupies the DMA engines for its
// runs (the more fragmented side's) though it moves no on-chip tile. nil
// for anything else.
func hbmCopy(s *PStep, hbmR, hbmW []string) *neuroncore.Step {
	if len(hbmR) == 0 || len(hbmW) == 0 || !isDMA(s.Fn[strings.LastIndexByte(s.Fn, '.')+1:]) {
		return nil
	}
	var bytes, run int64
	for _, acc := range [][]Access{s.Reads, s.Writes} {
		for _, a := range acc {
			if a.Rec.OnChip {
				continue
			}
			es := int64(a.Rec.DType.Size())
			bytes = max(bytes, a.Elems*es)
			if r := a.Run * es; r > 0 && (run == 0 || r < run) {
				run = r
			}
			break
		}
	}
	if bytes <= 0 {
		return nil
	}
	return &neuroncore.Step{Name: s.Fn, Op: neuroncore.OpCopyHBM, Engine: neuroncore.DMA, HBM: hbmR[0], HBMRun: run, CopyBytes: bytes}
}
