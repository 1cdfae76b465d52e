package neuroncore

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// TileKey names one logical tile instance: a tensor, the instance of its
// declaration (for a tensor declared inside a loop, each iteration of that
// loop declares a fresh one; 0 at kernel level) and the row-major tile
// number.
type TileKey struct {
	Tensor   int
	Instance int64
	Tile     int64
	Decl     int64 // Ref.Decl
}

// Event is one executed step: a step of the body with the values of its
// enclosing loop variables.
type Event struct {
	Step   *Step
	Vars   []int64
	Reads  []TileKey
	Writes []TileKey
	// Lives is the index into Execution.Lifetimes of each key of Reads,
	// then of Writes.
	Lives []int32
}

// Where renders the event for messages: "step 'load t[i]' (body[0].body[0], i=3)".
func (e *Event) Where(vars []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %q (%s", e.Step.Name, e.Step.Path)
	for i, v := range e.Vars {
		if i < len(vars) {
			fmt.Fprintf(&b, ", %s=%d", vars[i], v)
		}
	}
	b.WriteString(")")
	return b.String()
}

// IndexError is a tile reference that evaluates outside its tensor's block.
type IndexError struct {
	Event int
	Ref   Ref
	Dim   int
	Value int64
}

// Execution is a plan's body unrolled in program order, with the lifetime
// of every logical tile instance.
type Execution struct {
	Plan      *Plan
	Events    []Event
	VarNames  [][]string // per event: the names of its loop variables
	Lifetimes []Lifetime
	ByKey     map[TileKey]int // index into Lifetimes
	IndexErrs []IndexError
}

// Lifetime is when a logical tile instance holds data, in event indices:
// it is alive over [Start, End). A write at event e makes End at least
// e+1, a read at least e; so a step may read one tile and write another at
// the same place (in place) without the two being alive together.
type Lifetime struct {
	Key             TileKey
	Start, End      int
	FirstWrite      int // event of the first write, -1 if never written
	LastRead        int // event of the last read, -1 if never read
	ReadBeforeWrite bool
}

// Execute unrolls the body. It fails when the body runs more than
// MaxUnrolled steps.
func (p *Plan) Execute() (*Execution, error) {
	n, err := p.Unrolled()
	if err != nil {
		return nil, err
	}
	x := &Execution{Plan: p, Events: make([]Event, 0, n), VarNames: make([][]string, 0, n), ByKey: map[TileKey]int{}}
	u := unroller{x: x}
	u.nodes(p.Body)
	x.finishLifetimes()
	return x, nil
}

type unroller struct {
	x      *Execution
	vars   []int64
	names  []string
	serial []int64 // per depth: unique number of the current iteration
	next   int64
	// Events share their variables, names and tile keys: names is one
	// copy per loop entry (the same for all its events), the others are
	// cut from chunks, so a step costs no allocation of its own.
	shared []string
	ints   []int64
	keys   []TileKey
	lives  []int32
	// load is the work given VectorE and ScalarE so far (ps), for the
	// steps whose engine the compiler picks by workload (EngineByLoad);
	// onScalar holds such a step's ScalarE twin.
	load     [numEngines]int64
	onScalar map[*Step]*Step
	// loops and entry are, per depth, the enclosing loop and a number
	// unique to its entry; picked holds the engine chosen for a by-load
	// step whose iterations merge (mergeableIn), per loop entry, so all its
	// iterations stay on one engine and still merge: the compiler picks the
	// engine of the merged instruction, not one per iteration.
	loops   []*Loop
	entry   []int64
	entries int64
	picked  map[pickKey]*Step
}

type pickKey struct {
	s     *Step
	entry int64
}

func (u *unroller) nodes(ns []Node) {
	for _, nd := range ns {
		if nd.Step != nil {
			u.step(nd.Step)
			continue
		}
		l := nd.Loop
		outer := u.shared
		u.names = append(u.names, l.Var)
		u.shared = append([]string(nil), u.names...)
		u.entries++
		u.loops = append(u.loops, l)
		u.entry = append(u.entry, u.entries)
		for v := l.Start; v < l.Stop; v += l.Step {
			u.next++
			u.vars = append(u.vars, v)
			u.serial = append(u.serial, u.next)
			u.nodes(l.Body)
			u.vars = u.vars[:len(u.vars)-1]
			u.serial = u.serial[:len(u.serial)-1]
		}
		u.loops = u.loops[:len(u.loops)-1]
		u.entry = u.entry[:len(u.entry)-1]
		u.names = u.names[:len(u.names)-1]
		u.shared = outer
	}
}

// chunk is the size of the blocks events' variables and keys are cut from.
const chunk = 4096

func (u *unroller) cutInts(v []int64) []int64 {
	if len(v) == 0 {
		return nil
	}
	if cap(u.ints)-len(u.ints) < len(v) {
		u.ints = make([]int64, 0, max(chunk, len(v)))
	}
	n := len(u.ints)
	u.ints = append(u.ints, v...)
	return u.ints[n:len(u.ints):len(u.ints)]
}

// cutKeys returns an empty slice with room for n keys.
func (u *unroller) cutKeys(n int) []TileKey {
	if n == 0 {
		return nil
	}
	if cap(u.keys)-len(u.keys) < n {
		u.keys = make([]TileKey, 0, max(chunk, n))
	}
	k := u.keys[len(u.keys) : len(u.keys) : len(u.keys)+n]
	u.keys = u.keys[:len(u.keys)+n]
	return k
}

func (u *unroller) key(r Ref, ev int) (TileKey, bool) {
	t := u.x.Plan.Tensors[r.Tensor]
	k := TileKey{Tensor: r.Tensor, Decl: r.Decl}
	if t.Scope != "" {
		for d := len(u.names) - 1; d >= 0; d-- {
			if u.names[d] == t.Scope {
				k.Instance = u.serial[d]
				break
			}
		}
	}
	var lin int64
	for d, a := range r.Index {
		v := a.Eval(u.vars)
		if v < 0 || v >= t.Block[d] {
			u.x.IndexErrs = append(u.x.IndexErrs, IndexError{Event: ev, Ref: r, Dim: d, Value: v})
			return k, false
		}
		lin = lin*t.Block[d] + v
	}
	k.Tile = lin
	return k, true
}

// byLoad returns the step an execution of s runs as: s itself, or, for a
// tensor_copy whose engine the compiler picks by workload
// (Step.EngineByLoad), its ScalarE twin when ScalarE has had less work so
// far than VectorE. It adds the execution's time to its engine's load.
func (u *unroller) byLoad(s *Step) *Step {
	if s.EngineByLoad {
		s = u.pick(s)
	}
	if p := u.x.Plan; s.Engine == VectorE || s.Engine == ScalarE {
		u.load[s.Engine] += p.Arch.CyclesToPs(s.Engine, StepCycles(p, s))
	}
	return s
}

// pick is the engine an execution of by-load step s runs on: in a loop
// whose iterations merge, the one its first iteration of this loop entry
// got; otherwise the less loaded (balance).
func (u *unroller) pick(s *Step) *Step {
	d := len(u.loops) - 1
	if d < 0 || !u.loops[d].Vectorize || !mergeableIn(u.x.Plan, s, u.loops[d]) {
		return u.balance(s)
	}
	key := pickKey{s, u.entry[d]}
	if t, ok := u.picked[key]; ok {
		return t
	}
	t := u.balance(s)
	if u.picked == nil {
		u.picked = map[pickKey]*Step{}
	}
	u.picked[key] = t
	return t
}

// balance is s, or its ScalarE twin when ScalarE has had less work so far
// than VectorE.
func (u *unroller) balance(s *Step) *Step {
	if s.Engine != VectorE || u.load[ScalarE] >= u.load[VectorE] {
		return s
	}
	t, ok := u.onScalar[s]
	if !ok {
		c := *s
		c.Engine = ScalarE
		c.byLoadOf = s
		t = &c
		if u.onScalar == nil {
			u.onScalar = map[*Step]*Step{}
		}
		u.onScalar[s] = t
	}
	return t
}

func (u *unroller) step(s *Step) {
	s = u.byLoad(s)
	ev := len(u.x.Events)
	e := Event{Step: s, Vars: u.cutInts(u.vars)}
	n := len(s.Reads) + len(s.Writes)
	if cap(u.lives)-len(u.lives) < n {
		u.lives = make([]int32, 0, max(chunk, n))
	}
	start := len(u.lives)
	e.Reads = u.cutKeys(len(s.Reads))
	for _, r := range s.Reads {
		if k, ok := u.key(r, ev); ok {
			e.Reads = append(e.Reads, k)
			u.lives = append(u.lives, int32(u.x.touch(k, ev, false)))
		}
	}
	e.Writes = u.cutKeys(len(s.Writes))
	for _, r := range s.Writes {
		if k, ok := u.key(r, ev); ok {
			e.Writes = append(e.Writes, k)
			u.lives = append(u.lives, int32(u.x.touch(k, ev, true)))
		}
	}
	e.Lives = u.lives[start:len(u.lives):len(u.lives)]
	u.x.Events = append(u.x.Events, e)
	u.x.VarNames = append(u.x.VarNames, u.shared)
}

func (x *Execution) touch(k TileKey, ev int, write bool) int {
	i, ok := x.ByKey[k]
	if !ok {
		i = len(x.Lifetimes)
		x.ByKey[k] = i
		if i == cap(x.Lifetimes) {
			// double: append grows a long slice by a quarter, which
			// for tens of thousands of tiles copies it many times
			x.Lifetimes = slices.Grow(x.Lifetimes, max(i, 64))
		}
		x.Lifetimes = append(x.Lifetimes, Lifetime{Key: k, Start: ev, End: ev, FirstWrite: -1, LastRead: -1})
	}
	l := &x.Lifetimes[i]
	if write {
		if l.FirstWrite < 0 {
			l.FirstWrite = ev
		}
		l.End = max(l.End, ev+1)
	} else {
		if l.FirstWrite < 0 && !l.ReadBeforeWrite {
			l.ReadBeforeWrite = true
		}
		l.LastRead = ev
		l.End = max(l.End, ev)
	}
	return i
}

// finishLifetimes makes tiles read before any write alive from the start
// of the kernel (their data must be there before) and gives every lifetime
// a non-empty range.
func (x *Execution) finishLifetimes() {
	for i := range x.Lifetimes {
		l := &x.Lifetimes[i]
		if l.ReadBeforeWrite && x.Plan.Tensors[l.Key.Tensor].Scope == "" {
			l.Start = 0
		}
		if l.End <= l.Start {
			l.End = l.Start + 1
		}
	}
}

// TileName renders a tile instance for messages.
func (x *Execution) TileName(k TileKey) string {
	return x.Plan.Tensors[k.Tensor].TileName(k.Tile)
}

// EventName renders event ev for messages.
func (x *Execution) EventName(ev int) string {
	if ev < 0 || ev >= len(x.Events) {
		return "kernel start"
	}
	return x.Events[ev].Where(x.VarNames[ev])
}

// MaxAlive returns, per tensor, the largest number of its logical tiles
// alive at once and the first event at which that many are alive.
func (x *Execution) MaxAlive() (count []int, at []int) {
	nt := len(x.Plan.Tensors)
	type edge struct {
		t, d int
	}
	// two edges per lifetime, grouped by tensor in one array
	n := make([]int, nt)
	for _, l := range x.Lifetimes {
		n[l.Key.Tensor] += 2
	}
	all := make([]edge, 0, 2*len(x.Lifetimes))
	per := make([][]edge, nt)
	for ti := range per {
		per[ti] = all[len(all) : len(all) : len(all)+n[ti]]
		all = all[:len(all)+n[ti]]
	}
	for _, l := range x.Lifetimes {
		per[l.Key.Tensor] = append(per[l.Key.Tensor], edge{l.Start, +1}, edge{l.End, -1})
	}
	count = make([]int, nt)
	at = make([]int, nt)
	for ti, es := range per {
		// Ends before starts at the same instant: [Start, End) ranges.
		sort.Slice(es, func(i, j int) bool {
			if es[i].t != es[j].t {
				return es[i].t < es[j].t
			}
			return es[i].d < es[j].d
		})
		cur := 0
		for _, e := range es {
			cur += e.d
			if cur > count[ti] {
				count[ti], at[ti] = cur, e.t
			}
		}
	}
	return count, at
}
