// Package dmaprog turns a decoded NEFF (package neff) into the DMA program
// of package dma: resolved descriptors with their origin, the queue sets of
// def.json, the state-buffer layout, and variable memories laid out as
// def.json declares them. It is the one bridge between the NEFF model and
// the executor, the traffic analysis and the timed simulation.
//
// Variable layout (per subgraph):
//   - the state buffer (type state-buffer) is on-chip: 128 partitions
//     addressed with a 262144-byte partition stride (neff.SBPartitionStride,
//     also on NeuronCore-v2; notes/neff.md), so its memory is 128 x 262144
//     bytes and it has no device address;
//   - every other variable gets a device address in var_id order, aligned
//     to its declared alignment (1 when none), and `size` bytes;
//   - file variables are loaded from their constant member (the data after
//     the header for .npy, raw bytes otherwise), zero-padded to size;
//   - inputs are loaded from what the caller supplies; everything else
//     starts zeroed.
//
// Memories are allocated lazily (only variables a descriptor touches) and
// within a byte budget checked before allocating, since declared sizes come
// from the file.
package dmaprog

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neff/dma"
)

// Bounds against malformed files: a pattern may legitimately re-read the
// same bytes (step 0), so its byte count is not bounded by its variable;
// these limits keep the analysis and the executor finite. Real NEFFs stay
// far below them (hundreds of KiB and a few hundred runs per descriptor).
const (
	MaxSideBytes   = 1 << 30 // bytes one side of a descriptor moves
	MaxSideRuns    = 1 << 22 // contiguous runs of one side (before merging)
	MaxProgramRuns = 1 << 28 // runs of all sides of a program
)

// Var is a variable of a subgraph as laid out for execution.
type Var struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	ID        int64  `json:"var_id"`
	Size      int64  `json:"size"`
	Alignment int64  `json:"alignment"`
	// Address is the device address in the subgraph's layout; -1 for the
	// state buffer (on-chip, partitioned).
	Address int64  `json:"address"`
	File    string `json:"file,omitempty"` // constant member, for file variables
}

// Problem is a descriptor that could not be resolved (neff.Check reports
// the cause as well); it is left out of the program.
type Problem struct {
	Location string `json:"location"`
	Message  string `json:"message"`
}

// Program is the DMA program of one subgraph.
type Program struct {
	Subgraph    string           `json:"subgraph"`
	DefMember   string           `json:"def"`
	Vars        []Var            `json:"vars"`
	Queues      []dma.QueueSet   `json:"queues"`
	Descriptors []dma.Descriptor `json:"-"`
	Layout      dma.Layout       `json:"-"`
	Problems    []Problem        `json:"problems,omitempty"`
	vars        map[string]int   // name -> index in Vars
	sg          *neff.Subgraph   // for constants
	file        *neff.File       // for constants
}

// FromModel returns the DMA program of every subgraph, in model order.
func FromModel(m *neff.Model) []*Program {
	ps := make([]*Program, 0, len(m.Subgraphs))
	for _, sg := range m.Subgraphs {
		ps = append(ps, FromSubgraph(m, sg))
	}
	return ps
}

// FromSubgraph builds the DMA program of one subgraph. It never fails:
// descriptors it cannot resolve become Problems.
func FromSubgraph(m *neff.Model, sg *neff.Subgraph) *Program {
	p := &Program{Subgraph: sg.Name, DefMember: sg.DefMember, vars: map[string]int{}, sg: sg, file: m.File,
		Layout: dma.Layout{StateBuffers: map[string]bool{}, PartitionStride: neff.SBPartitionStride, Partitions: neff.SBPartitions}}
	if sg.Def == nil {
		return p
	}
	p.layoutVars(sg.Def)
	for _, qn := range sg.Def.QueueNames() {
		n := 1
		if q := sg.Def.DMAQueue[qn]; q != nil {
			n = int(min(max(q.Queues(), 1), 16))
		}
		p.Queues = append(p.Queues, dma.QueueSet{Name: qn, NumQueues: n})
	}
	var runs int64
	for _, e := range sg.Engines {
		if e.JSON == nil {
			continue
		}
		for i, ent := range e.JSON.DMA {
			if ent == nil {
				continue
			}
			for j, ds := range ent.Desc {
				d := dma.Descriptor{Engine: e.Member, Queue: ent.QueueName(), Index: i, Desc: j, Comment: ent.Comment}
				t, err := p.transfer(ds)
				if err == nil {
					n := runBound(t.To.Pattern)
					for _, f := range t.From {
						n += runBound(f.Pattern)
					}
					if runs += n; runs > MaxProgramRuns {
						err = fmt.Errorf("the program exceeds %d contiguous runs in all (npukit's limit)", MaxProgramRuns)
					}
				}
				if err != nil {
					p.Problems = append(p.Problems, Problem{Location: d.Location(), Message: err.Error()})
					continue
				}
				d.Transfer = t
				p.Descriptors = append(p.Descriptors, d)
			}
		}
	}
	return p
}

func (p *Program) layoutVars(def *neff.Def) {
	var addr int64
	for _, name := range def.VarNames() {
		v := def.Var[name]
		if v == nil {
			continue
		}
		pv := Var{Name: name, Type: v.TypeName(), Size: max(v.SizeBytes(), 0), Alignment: 1, Address: -1}
		if v.VarID != nil {
			pv.ID = *v.VarID
		}
		if v.Alignment != nil && *v.Alignment > 1 && *v.Alignment <= 1<<40 {
			pv.Alignment = *v.Alignment
		}
		if v.FileName != nil {
			pv.File = p.sg.Ref(*v.FileName)
		}
		if pv.Type == "state-buffer" {
			pv.Size = int64(neff.SBPartitions) * neff.SBPartitionStride
			p.Layout.StateBuffers[name] = true
		} else {
			a := pv.Alignment
			if addr > math.MaxInt64-a-pv.Size {
				addr = math.MaxInt64 - a - pv.Size // saturate: sizes this large never allocate
			}
			addr = (addr + a - 1) / a * a
			pv.Address = addr
			addr += pv.Size
		}
		p.vars[name] = len(p.Vars)
		p.Vars = append(p.Vars, pv)
	}
}

// Var returns a variable by name.
func (p *Program) Var(name string) (Var, bool) {
	i, ok := p.vars[name]
	if !ok {
		return Var{}, false
	}
	return p.Vars[i], true
}

func (p *Program) side(name *string, off *int64, sizes, steps []int64, dt *string) (dma.Side, error) {
	if name == nil || off == nil || sizes == nil || steps == nil {
		return dma.Side{}, fmt.Errorf("incomplete access pattern (variable, offset, sizes and steps are required)")
	}
	if _, ok := p.vars[*name]; !ok {
		return dma.Side{}, fmt.Errorf("variable %q is not declared", *name)
	}
	pat := accesspattern.Pattern{Offset: *off, Sizes: sizes, Steps: steps}
	if err := pat.Validate(); err != nil {
		return dma.Side{}, fmt.Errorf("%s: %w", *name, err)
	}
	if n := pat.Bytes(); n > MaxSideBytes {
		return dma.Side{}, fmt.Errorf("%s: the pattern moves %d bytes, over npukit's limit of %d per descriptor side", *name, n, MaxSideBytes)
	}
	if n := runBound(pat); n > MaxSideRuns {
		return dma.Side{}, fmt.Errorf("%s: the pattern has up to %d contiguous runs, over npukit's limit of %d per descriptor side", *name, n, MaxSideRuns)
	}
	s := dma.Side{Var: *name, Pattern: pat, DType: dtype.Uint8}
	if dt != nil {
		t, err := dtype.Parse(*dt)
		if err != nil {
			return dma.Side{}, err
		}
		s.DType = t
	}
	return s, nil
}

// runBound is an upper bound of a valid pattern's contiguous runs, computed
// without expanding it: prod(sizes[1:]) when the innermost dimension is
// contiguous, else one run per byte.
func runBound(p accesspattern.Pattern) int64 {
	n := p.Bytes()
	if n == 0 {
		return 0
	}
	if p.Steps[0] == 1 || p.Sizes[0] == 1 {
		return n / p.Sizes[0]
	}
	return n
}

func (p *Program) transfer(ds *neff.Desc) (dma.Transfer, error) {
	if ds == nil {
		return dma.Transfer{}, fmt.Errorf("descriptor is null")
	}
	op, perm := ds.Operation()
	t := dma.Transfer{Op: dma.Op(op), Scale: 1, TransposePerm: perm}
	for i, s := range ds.Sources() {
		if s == nil {
			return t, fmt.Errorf("from_arr[%d] is null", i)
		}
		side, err := p.side(s.From, s.FromOff, s.FromSizes, s.FromSteps, s.FromDType)
		if err != nil {
			return t, fmt.Errorf("from: %w", err)
		}
		t.From = append(t.From, side)
	}
	if len(t.From) == 0 {
		return t, fmt.Errorf("no source")
	}
	to, err := p.side(ds.To, ds.ToOff, ds.ToSizes, ds.ToSteps, ds.ToDType)
	if err != nil {
		return t, fmt.Errorf("to: %w", err)
	}
	t.To = to
	if ds.Scale != nil {
		t.Scale = *ds.Scale
	}
	if ds.Constant != nil {
		v, err := constant(*ds.Constant, ds.ConstantDType)
		if err != nil {
			return t, err
		}
		t.Constant = &v
	}
	if ds.TransposeShape != nil {
		t.TransposeShape = ds.TransposeShape
	}
	if ds.TransposeElementSize != nil {
		if *ds.TransposeElementSize <= 0 || *ds.TransposeElementSize > 1<<20 {
			return t, fmt.Errorf("transpose_element_size %d is out of range", *ds.TransposeElementSize)
		}
		t.TransposeElemSize = int(*ds.TransposeElementSize)
	}
	return t, nil
}

// constant decodes a min/max constant as its constant_dtype says
// (float32 when absent).
func constant(n json.Number, dt *string) (dtype.Value, error) {
	typ := "float32"
	if dt != nil {
		typ = *dt
	}
	switch typ {
	case "int32":
		i, err := n.Int64()
		if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
			return dtype.Value{}, fmt.Errorf("constant %s is not an int32", n)
		}
		if i < 0 {
			return dtype.Value{I: i, Neg: true}, nil
		}
		return dtype.Value{U: uint64(i), I: i}, nil
	case "uint32":
		i, err := n.Int64()
		if err != nil || i < 0 || i > math.MaxUint32 {
			return dtype.Value{}, fmt.Errorf("constant %s is not a uint32", n)
		}
		return dtype.Value{U: uint64(i), I: i}, nil
	default:
		f, err := n.Float64()
		if err != nil {
			return dtype.Value{}, fmt.Errorf("constant %s is not a number", n)
		}
		return dtype.FloatValue(float64(float32(f))), nil
	}
}

// Order returns the execution order of the descriptors (indexes into
// Descriptors). Without executing engine instructions there is no
// synchronisation to follow, so npukit runs the program in three phases,
// each in program order (engines as def.json names them, entries and
// descriptors in file order): loads (reading an input or file variable,
// writing anything but an output), then transfers between other
// variables, then stores (writing an output variable).
func (p *Program) Order() []int {
	phase := func(d dma.Descriptor) int {
		if v, ok := p.Var(d.Transfer.To.Var); ok && v.Type == "output" {
			return 2
		}
		for _, s := range d.Transfer.From {
			if v, ok := p.Var(s.Var); ok && (v.Type == "input" || v.Type == "file") {
				return 0
			}
		}
		return 1
	}
	idx := make([]int, len(p.Descriptors))
	ph := make([]int, len(p.Descriptors))
	for i, d := range p.Descriptors {
		idx[i] = i
		ph[i] = phase(d)
	}
	sort.SliceStable(idx, func(a, b int) bool { return ph[idx[a]] < ph[idx[b]] })
	return idx
}

// Ordered returns the descriptors in execution order (see Order), the
// order the timed simulation also issues them in.
func (p *Program) Ordered() []dma.Descriptor {
	out := make([]dma.Descriptor, 0, len(p.Descriptors))
	for _, i := range p.Order() {
		out = append(out, p.Descriptors[i])
	}
	return out
}

// Executed counts what Execute did.
type Executed struct {
	Descriptors int   `json:"descriptors"`
	Bytes       int64 `json:"bytes"` // bytes written
}

// Execute runs every descriptor in Order against mem. It stops at the first
// failing descriptor and names it.
func (p *Program) Execute(mem dma.Memory) (Executed, error) {
	var ex Executed
	for _, i := range p.Order() {
		d := p.Descriptors[i]
		if err := dma.Execute(mem, d.Transfer); err != nil {
			return ex, fmt.Errorf("%s: %w", d.Location(), err)
		}
		ex.Descriptors++
		ex.Bytes += d.Transfer.To.Pattern.Bytes()
	}
	return ex, nil
}

// Touched lists the variables the descriptors name, sorted.
func (p *Program) Touched() []string {
	seen := map[string]bool{}
	for _, d := range p.Descriptors {
		for _, s := range d.Transfer.From {
			seen[s.Var] = true
		}
		seen[d.Transfer.To.Var] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// String summarises the program.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s, %s", p.Subgraph, humanize.Plural(len(p.Descriptors), "descriptor"), humanize.Plural(len(p.Queues), "queue set"), humanize.Plural(len(p.Vars), "variable"))
	return b.String()
}
