package neuroncore

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/inputfile"
	"gopkg.in/yaml.v3"
)

// Plan is an SBUF/PSUM allocation plan: the tensors of an NKI kernel with
// their allocation and the kernel body as loops of engine steps. The file
// format (YAML, or JSON which is YAML) is documented in
// docs/sbuf-plan.md with examples under examples/sbuf/.
type Plan struct {
	Name string
	Arch *Arch
	// API is the NKI API generation the kernel is written against: ""
	// (Beta 1, neuronxcc.nki) or "current" (nki.*, Neuron 2.27 and later).
	// Beta 1 rejects HBM tensors other than the kernel's outputs and
	// instructions with implicit tensors (a TensorE transpose's identity)
	// in a directly allocated kernel; the current API does not (see
	// checkMixed).
	API string
	// SerialTiles: the kernel is marked
	// nki.compiler.skip_middle_end_transformations. The compiler then
	// unrolls a loop and gives each declaration of an automatic tensor its
	// own location while the loop declares it at most
	// MaxPrivateDeclarations times, and keeps one location per tile
	// beyond, so that successive iterations wait for each other
	// (Plan.SharedLocation). Otherwise each logical tile of an automatic
	// tensor gets a private location (the compiler's multi-buffering at
	// its best).
	SerialTiles bool
	// Grid is the SPMD launch grid of the kernel (empty: one instance),
	// ProgramID the instance the body is of (nl.program_id). The NKI
	// programming model runs the grid's instances serially on one
	// NeuronCore; the simulation prices the one instance (Launch).
	Grid      []int64
	ProgramID []int64
	Tensors   []*Tensor
	HBM       []HBMTensor
	Body      []Node
}

// Tensor is an on-chip NKI tensor of shape (block..., par_dim(Partitions),
// free...).
type Tensor struct {
	Name       string
	Block      []int64 // block (B) dimensions; empty: one tile
	Partitions int64   // partition (P) dimension
	Free       []int64 // free (F) dimensions, in elements
	DType      dtype.T
	Buffer     Buffer
	Kind       AllocKind
	Mod        *ModAlloc
	Table      []TableEntry // Kind == Table: one entry per logical tile, row-major
	// Scope is the loop variable whose body declares the tensor ("" =
	// kernel level): each iteration of that loop gets fresh logical tiles.
	Scope string
	// Path locates the tensor in the plan file ("tensors[3]").
	Path string
}

// TableEntry is the location of one logical tile in an alloc table.
type TableEntry struct {
	Index []int64
	Loc   Location
}

// HBMTensor is a device-memory tensor the kernel declares.
type HBMTensor struct {
	Name string
	Kind string // "shared_hbm", "hbm", "private_hbm"
	// Output marks a tensor returned by the kernel.
	Output bool
}

// Tiles is the number of logical tiles (product of the block dims).
func (t *Tensor) Tiles() int64 { return numElems(t.Block) }

// FreeElems is the number of elements per partition of one tile.
func (t *Tensor) FreeElems() int64 { return numElems(t.Free) }

// TileBytes is the number of bytes per partition of one tile (fdim_size).
func (t *Tensor) TileBytes() int64 { return t.FreeElems() * int64(t.DType.Size()) }

// Direct reports whether the tensor uses direct allocation.
func (t *Tensor) Direct() bool { return t.Kind != Auto }

// BlockIndex converts a row-major linear tile number to a block index.
func (t *Tensor) BlockIndex(lin int64) []int64 {
	idx := make([]int64, len(t.Block))
	for d := len(t.Block) - 1; d >= 0; d-- {
		idx[d] = lin % t.Block[d]
		lin /= t.Block[d]
	}
	return idx
}

// Linear converts a block index to its row-major tile number.
func (t *Tensor) Linear(idx []int64) int64 {
	var lin int64
	for d, i := range idx {
		lin = lin*t.Block[d] + i
	}
	return lin
}

// Location is the physical location of logical tile lin (row-major); ok is
// false for automatic allocation.
func (t *Tensor) Location(lin int64) (Location, bool) {
	switch t.Kind {
	case Mod:
		idx := t.BlockIndex(lin)
		if t.Buffer == PSUM {
			return t.Mod.PSUMLocation(idx, t.Partitions, t.TileBytes()), true
		}
		return t.Mod.SBUFLocation(idx, t.Partitions, t.TileBytes()), true
	case Table:
		return t.Table[lin].Loc, true
	}
	return Location{}, false
}

// TileName renders a logical tile as NKI indexing: t[1, 2] (or t).
func (t *Tensor) TileName(lin int64) string {
	if len(t.Block) == 0 {
		return t.Name
	}
	idx := t.BlockIndex(lin)
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = fmt.Sprint(x)
	}
	return t.Name + "[" + strings.Join(parts, ", ") + "]"
}

// Node is one element of a kernel body: a loop or a step.
type Node struct {
	Loop *Loop
	Step *Step
}

// Loop is nl.affine_range(Start, Stop, Step) over Var.
type Loop struct {
	Var               string
	Start, Stop, Step int64
	Body              []Node
	Path              string
	// Vectorize marks a loop whose iterations the compiler may merge into
	// wider instructions (see Vectorization): an NKI Beta-1
	// nl.affine_range loop of a kernel compiled with the middle-end
	// transformations ("affine_range also allows Neuron compiler to
	// perform additional loop-level optimizations, such as loop
	// vectorization"; static_range: "No loop-level optimizations";
	// nki.compiler.skip_middle_end_transformations skips them all).
	Vectorize bool
}

// Trips is the number of iterations.
func (l *Loop) Trips() int64 {
	if l.Stop <= l.Start {
		return 0
	}
	return (l.Stop - l.Start + l.Step - 1) / l.Step
}

// Op is an engine operation.
type Op string

// The operations of a kernel body.
const (
	OpLoad         Op = "load"          // DMA HBM -> SBUF (nl.load)
	OpStore        Op = "store"         // DMA SBUF -> HBM (nl.store)
	OpCopyHBM      Op = "copy-hbm"      // DMA HBM -> HBM (no on-chip tile)
	OpMatmul       Op = "matmul"        // TensorE nc_matmul(stationary, moving) -> PSUM
	OpTranspose    Op = "transpose"     // nc_transpose on TensorE (default) or VectorE
	OpActivation   Op = "activation"    // ScalarE activation (exp, gelu, ...)
	OpTensorTensor Op = "tensor_tensor" // VectorE, two inputs
	OpTensorScalar Op = "tensor_scalar" // VectorE, one input
	OpTensorReduce Op = "tensor_reduce" // VectorE, one input
	OpTensorCopy   Op = "tensor_copy"   // VectorE (default), ScalarE or GpSimdE
	OpIota         Op = "iota"          // GpSimdE
	OpMemset       Op = "memset"        // VectorE (default) or GpSimdE
	OpSoftmax      Op = "softmax"       // nl.softmax: lowered with implicit tensors
)

type opInfo struct {
	engine   Engine
	reads    [2]int // min, max operands read
	writes   int    // tiles written (0 or 1)
	implicit bool   // creates implicit tensors the kernel cannot allocate
}

var ops = map[Op]opInfo{
	OpLoad:         {DMA, [2]int{0, 0}, 1, false},
	OpStore:        {DMA, [2]int{1, 1}, 0, false},
	OpCopyHBM:      {DMA, [2]int{0, 0}, 0, false},
	OpMatmul:       {TensorE, [2]int{2, 2}, 1, false},
	OpTranspose:    {TensorE, [2]int{1, 1}, 1, false},
	OpActivation:   {ScalarE, [2]int{1, 2}, 1, false},
	OpTensorTensor: {VectorE, [2]int{2, 2}, 1, false},
	OpTensorScalar: {VectorE, [2]int{1, 1}, 1, false},
	OpTensorReduce: {VectorE, [2]int{1, 1}, 1, false},
	OpTensorCopy:   {VectorE, [2]int{1, 1}, 1, false},
	OpIota:         {GpSimdE, [2]int{0, 0}, 1, false},
	OpMemset:       {VectorE, [2]int{0, 0}, 1, false},
	OpSoftmax:      {VectorE, [2]int{1, 1}, 1, true},
}

// Step is one engine instruction of the kernel body.
type Step struct {
	Name   string
	Op     Op
	Engine Engine
	Func   string // activation function, for display
	Reads  []Ref
	Writes []Ref
	// Accumulate marks a matmul that adds into its PSUM output (+=),
	// continuing the accumulation group its tile holds.
	Accumulate bool
	// HBM names the device tensor a load reads or a store writes.
	HBM string
	// HBMRun is the bytes of one contiguous run on the HBM side of a load
	// or store when that side is more fragmented than the SBUF rows (a
	// slice at fixed innermost indices, W[:, :, h, w]: one element per
	// run), or, for a DMA transpose, the destination's runs of
	// Arch.DMATransposeBlock elements; 0 when the HBM side is at least as
	// contiguous as the rows. The DMA engines move one run at a time
	// (DMAChargedRuns).
	HBMRun int64
	// CopyBytes is what a copy-hbm step moves (HBM to HBM, no on-chip
	// tile: a weight copied into an HBM scratch tensor), in runs of
	// HBMRun bytes (the more fragmented side; 0: one run).
	CopyBytes int64
	Path      string
	// EngineByShape: the kernel names no engine and the step runs where
	// its shape leaves the compiler no choice (an nc_transpose of a tile
	// over 32x32 on TensorE). The timing follows the engine; the
	// implicit-tensor rule (spec 002: nc_transpose "with
	// engine=nisa.tensor_engine creates an identity matrix") keeps to
	// what the kernel wrote.
	EngineByShape bool
	// EngineByLoad: a tensor_copy that names no engine, which the
	// compiler runs on VectorE or ScalarE "based on engine workload" (NKI
	// API reference, nki.isa.tensor_copy, engine=unknown_engine, Neuron
	// 2.28): from NeuronCore-v3 on (v2's ScalarE has no tensor_copy) each
	// execution goes to whichever of the two has had less work so far in
	// program order (Execute). Engine is VectorE, the choice when the two
	// are even.
	EngineByLoad bool
	// byLoadOf is, on the ScalarE twin Execute makes of an EngineByLoad
	// step, the step it stands for (nil otherwise).
	byLoadOf *Step
}

// Implicit reports whether the step creates tensors the kernel cannot
// allocate (an identity matrix for a TensorE transpose, the intermediates
// of a high-level API).
func (s *Step) Implicit() bool {
	return ops[s.Op].implicit || (s.Op == OpTranspose && s.Engine == TensorE && !s.EngineByShape)
}

// Ref is a tile reference: a tensor and an affine index per block dim.
type Ref struct {
	Tensor int // index into Plan.Tensors
	Index  []Affine
	Text   string // as written
	// Decl, when not 0, names which execution of the tensor's declaration
	// the step uses ("t#3[i]"): plans lowered from a kernel trace, where a
	// tensor declared in an unrolled loop can outlive the iteration.
	Decl int64
	// Whole: the step touches every element of the tile (plans lowered
	// from a kernel trace; a plan file's references leave it false).
	Whole bool
	// Part and Free, when Free is not 0, are the partitions and free
	// elements per partition the step touches: a slice of the tile (plans
	// lowered from a kernel trace). The step's cost is the slice's.
	Part, Free int64
}

// Affine is Const + sum of Coef*loop variable.
type Affine struct {
	Const int64
	Terms []Term
}

// Term is Coef times the loop variable at nesting depth Depth (0 =
// outermost loop enclosing the step).
type Term struct {
	Depth int
	Coef  int64
}

// Eval evaluates the expression with the values of the enclosing loops.
func (a Affine) Eval(vars []int64) int64 {
	v := a.Const
	for _, t := range a.Terms {
		v += t.Coef * vars[t.Depth]
	}
	return v
}

// Limits bound what a plan may declare, so that a malformed or hostile file
// cannot make npukit allocate without bound.
const (
	MaxPlanBytes    = 16 << 20
	MaxTensors      = 4096
	MaxBlockDims    = 8
	MaxTilesPerTens = 1 << 20
	MaxTotalTiles   = 1 << 21 // logical tiles summed over all tensors
	MaxLoopDepth    = 16
	MaxSteps        = 1 << 16 // steps written in the body
	MaxStepOperands = 4096    // tile references of one step (a kernel's nl.zeros over block dims touches every tile)
	MaxUnrolled     = 1 << 20 // step instances after unrolling the loops (a step over more than stepRefsUnit tiles counts once per stepRefsUnit)
	// stepRefsUnit is the number of tile references one step instance may
	// touch at the cost of one step against MaxUnrolled: the unrolled work
	// stays within MaxUnrolled * stepRefsUnit references, the bound of
	// the 256-operand steps every plan had before MaxStepOperands grew
	stepRefsUnit = 256
	maxDim       = 1 << 24
)

// raw* are the YAML/JSON shapes of the file.
type rawPlan struct {
	Name string `yaml:"name"`
	Arch string `yaml:"arch"`
	API  string `yaml:"api"`
	// SkipMiddleEnd is Plan.SerialTiles (the kernel's
	// skip_middle_end_transformations decorator).
	SkipMiddleEnd bool        `yaml:"skip_middle_end_transformations"`
	Grid          []int64     `yaml:"grid"`
	ProgramID     []int64     `yaml:"program_id"`
	Tensors       []rawTensor `yaml:"tensors"`
	HBM           []rawHBM    `yaml:"hbm"`
	Body          []rawNode   `yaml:"body"`
}

type rawTensor struct {
	Name       string    `yaml:"name"`
	Block      []int64   `yaml:"block"`
	Partitions int64     `yaml:"partitions"`
	Free       []int64   `yaml:"free"`
	DType      string    `yaml:"dtype"`
	Buffer     string    `yaml:"buffer"`
	Alloc      yaml.Node `yaml:"alloc"`
	Scope      string    `yaml:"scope"`
}

type rawMod struct {
	BaseBank      int64   `yaml:"base_bank"`
	BaseAddr      int64   `yaml:"base_addr"`
	BasePartition int64   `yaml:"base_partition"`
	NumBankTiles  []int64 `yaml:"num_bank_tiles"`
	NumParTiles   []int64 `yaml:"num_par_tiles"`
	NumFreeTiles  []int64 `yaml:"num_free_tiles"`
}

type rawEntry struct {
	Index     []int64 `yaml:"index"`
	Partition int64   `yaml:"partition"`
	Bank      int64   `yaml:"bank"`
	Addr      int64   `yaml:"addr"`
}

type rawAlloc struct {
	ModAlloc *rawMod    `yaml:"mod_alloc"`
	Table    []rawEntry `yaml:"table"`
}

type rawHBM struct {
	Name   string `yaml:"name"`
	Kind   string `yaml:"kind"`
	Output bool   `yaml:"output"`
}

type rawNode struct {
	// loop
	Loop      string    `yaml:"loop"`
	Range     yaml.Node `yaml:"range"`
	Body      []rawNode `yaml:"body"`
	Vectorize bool      `yaml:"vectorize"`
	// step
	Op         string    `yaml:"op"`
	Name       string    `yaml:"name"`
	Engine     string    `yaml:"engine"`
	Func       string    `yaml:"func"`
	Read       yaml.Node `yaml:"read"`
	Write      yaml.Node `yaml:"write"`
	Accumulate bool      `yaml:"accumulate"`
	HBM        string    `yaml:"hbm"`
	HBMRun     int64     `yaml:"hbm_run"`
	CopyBytes  int64     `yaml:"bytes"`
	// EngineByShape: Step.EngineByShape
	EngineByShape bool `yaml:"engine_by_shape"`
	// EngineByLoad: Step.EngineByLoad
	EngineByLoad bool `yaml:"engine_by_load"`
}

// ReadPlanFile reads a plan from a file.
func ReadPlanFile(path string) (*Plan, error) {
	f, err := inputfile.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxPlanBytes+1))
	if err != nil {
		return nil, err
	}
	return ParsePlan(b)
}

// ParsePlan parses a YAML or JSON plan and validates its structure (names,
// dimensions, operands, loop variables, limits). Placement rules are
// checked by Check, not here.
func ParsePlan(b []byte) (*Plan, error) {
	if len(b) > MaxPlanBytes {
		return nil, fmt.Errorf("plan is larger than %d bytes", MaxPlanBytes)
	}
	// yaml.v3 truncates a float decoded into an integer (range: 1.5 runs
	// one trip): integer fields are checked on the node tree first.
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err == nil {
		if err := checkIntegerFields(&doc, ""); err != nil {
			return nil, err
		}
		// The counted limits are checked on this tree, before the second
		// parse: a 16 MB plan of 200,000 steps took 800 MB and 27 s to be
		// refused for having more than MaxSteps.
		var c planCounts
		c.count(&doc, "")
		if c.steps > MaxSteps {
			return nil, fmt.Errorf("body: %d steps written, at most %d", c.steps, MaxSteps)
		}
		if c.tensors > MaxTensors {
			return nil, fmt.Errorf("tensors: %d tensors, at most %d", c.tensors, MaxTensors)
		}
	}
	doc = yaml.Node{} // garbage before the second parse
	var raw rawPlan
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty plan")
		}
		return nil, fmt.Errorf("plan: %s", planYAMLError(err))
	}
	arch, err := ArchByName(raw.Arch)
	if err != nil {
		return nil, fmt.Errorf("arch: %w", err)
	}
	p := &Plan{Name: raw.Name, Arch: arch, SerialTiles: raw.SkipMiddleEnd}
	if p.ProgramID, err = CheckGrid(raw.Grid, raw.ProgramID); err != nil {
		return nil, err
	}
	if len(raw.Grid) > 0 {
		p.Grid = raw.Grid
	}
	switch raw.API {
	case "", "beta1":
	case "current":
		p.API = "current"
	default:
		return nil, fmt.Errorf("api: %q is not beta1 or current", raw.API)
	}
	if len(raw.Tensors) > MaxTensors {
		return nil, fmt.Errorf("tensors: %d tensors, at most %d", len(raw.Tensors), MaxTensors)
	}
	names := map[string]int{}
	var total int64
	for i := range raw.Tensors {
		t, err := parseTensor(&raw.Tensors[i], fmt.Sprintf("tensors[%d]", i))
		if err != nil {
			return nil, err
		}
		if _, dup := names[t.Name]; dup {
			return nil, fmt.Errorf("%s: tensor %q declared twice", t.Path, t.Name)
		}
		names[t.Name] = i
		p.Tensors = append(p.Tensors, t)
		if total += t.Tiles(); total > MaxTotalTiles {
			return nil, fmt.Errorf("%s: the tensors have more than %d logical tiles in all", t.Path, MaxTotalTiles)
		}
	}
	for i, h := range raw.HBM {
		path := fmt.Sprintf("hbm[%d]", i)
		if h.Name == "" {
			return nil, fmt.Errorf("%s: name missing", path)
		}
		switch h.Kind {
		case "", "shared_hbm":
			h.Kind = "shared_hbm"
		case "hbm", "private_hbm":
		default:
			return nil, fmt.Errorf("%s: kind %q (want shared_hbm, hbm or private_hbm)", path, h.Kind)
		}
		p.HBM = append(p.HBM, HBMTensor(h))
	}
	b2 := bodyParser{plan: p, names: names}
	p.Body, err = b2.nodes(raw.Body, "body", nil)
	if err != nil {
		return nil, err
	}
	// Scope loops must enclose every use; checked while parsing refs.
	return p, nil
}

// integerFields are the plan's keys whose values are integers or lists
// of integers.
var integerFields = map[string]bool{
	"block": true, "partitions": true, "free": true, "range": true,
	"base_bank": true, "base_addr": true, "base_partition": true,
	"num_bank_tiles": true, "num_par_tiles": true, "num_free_tiles": true,
	"index": true, "partition": true, "bank": true, "addr": true,
	"grid": true, "program_id": true,
}

// maxInstances bounds a plan's SPMD grid (the product of its dims).
const maxInstances = 1 << 30

// GridError is an SPMD grid, or a program instance in it, that a plan or
// a kernel cannot have.
type GridError struct {
	// ProgramID: the instance is wrong (program_id), not the grid.
	ProgramID bool
	Msg       string
}

func (e *GridError) Error() string {
	if e.ProgramID {
		return "program_id: " + e.Msg
	}
	return "grid: " + e.Msg
}

// CheckGrid checks an SPMD grid and the program instance in it whose body
// is meant (all zero when pid is empty), and returns that instance (nil
// without a grid); its errors are *GridError. Plans and `npukit nki`'s
// --grid and --program-id are checked by it.
func CheckGrid(grid, pid []int64) ([]int64, error) {
	if len(grid) == 0 {
		if len(pid) > 0 {
			return nil, &GridError{ProgramID: true, Msg: "given without a grid"}
		}
		return nil, nil
	}
	if len(grid) > MaxBlockDims {
		return nil, &GridError{Msg: fmt.Sprintf("%d dims, at most %d", len(grid), MaxBlockDims)}
	}
	n := int64(1)
	for i, d := range grid {
		if d < 1 {
			return nil, &GridError{Msg: fmt.Sprintf("dimension %d is %d, want at least 1", i, d)}
		}
		if n *= d; d > maxInstances || n > maxInstances {
			return nil, &GridError{Msg: fmt.Sprintf("more than %s instances", humanize.Count(maxInstances))}
		}
	}
	if len(pid) == 0 {
		pid = make([]int64, len(grid))
	}
	if len(pid) != len(grid) {
		return nil, &GridError{ProgramID: true, Msg: fmt.Sprintf("%d values for a %d-dimension grid %v", len(pid), len(grid), grid)}
	}
	for i, v := range pid {
		if v < 0 || v >= grid[i] {
			return nil, &GridError{ProgramID: true, Msg: fmt.Sprintf("%d is outside the grid's dimension %d (0..%d)", v, i, grid[i]-1)}
		}
	}
	return pid, nil
}

// Instances is the number of program instances of the plan's SPMD grid
// (1 without one).
func (p *Plan) Instances() int64 { return numElems(p.Grid) }

// planCounts counts what the limits bound on a plan's node tree: the
// steps of every body (loops nest bodies) and the tensors.
type planCounts struct{ steps, tensors int }

func (c *planCounts) count(n *yaml.Node, key string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, x := range n.Content {
			c.count(x, "")
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.count(n.Content[i+1], n.Content[i].Value)
		}
	case yaml.SequenceNode:
		switch key {
		case "body":
			c.steps += len(n.Content)
		case "tensors":
			c.tensors += len(n.Content)
		}
		for _, x := range n.Content {
			c.count(x, "")
		}
	}
}

// checkIntegerFields rejects a float under an integer key, naming its line.
func checkIntegerFields(n *yaml.Node, key string) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if integerFields[key] && n.Tag == "!!float" {
			// Integral floats (1e3, 512.0) decode exactly; others would
			// be truncated.
			if v, err := strconv.ParseFloat(n.Value, 64); err != nil || v != math.Trunc(v) || math.IsInf(v, 0) {
				return fmt.Errorf("line %d: %s: %s is not an integer", n.Line, key, n.Value)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkIntegerFields(n.Content[i+1], n.Content[i].Value); err != nil {
				return err
			}
		}
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			k := key
			if n.Kind == yaml.DocumentNode {
				k = ""
			}
			if err := checkIntegerFields(c, k); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseTensor(r *rawTensor, path string) (*Tensor, error) {
	t := &Tensor{Name: r.Name, Block: r.Block, Partitions: r.Partitions, Free: r.Free, Scope: r.Scope, Path: path}
	if !isIdent(r.Name) {
		return nil, fmt.Errorf("%s.name: %q is not an identifier", path, r.Name)
	}
	if len(r.Block) > MaxBlockDims {
		return nil, fmt.Errorf("%s.block: %d dims, at most %d", path, len(r.Block), MaxBlockDims)
	}
	tiles := int64(1)
	for i, d := range r.Block {
		if d < 1 || d > maxDim {
			return nil, fmt.Errorf("%s.block[%d]: %d out of range [1, %d]", path, i, d, maxDim)
		}
		tiles *= d
		if tiles > MaxTilesPerTens {
			return nil, fmt.Errorf("%s.block: more than %d logical tiles", path, MaxTilesPerTens)
		}
	}
	if r.Partitions < 1 || r.Partitions > 128 {
		return nil, fmt.Errorf("%s.partitions: %d out of range [1, 128]", path, r.Partitions)
	}
	if len(r.Free) == 0 {
		return nil, fmt.Errorf("%s.free: at least one free dimension needed", path)
	}
	if len(r.Free) > MaxBlockDims {
		return nil, fmt.Errorf("%s.free: %d dims, at most %d", path, len(r.Free), MaxBlockDims)
	}
	fe := int64(1)
	for i, d := range r.Free {
		if d < 1 || d > maxDim {
			return nil, fmt.Errorf("%s.free[%d]: %d out of range [1, %d]", path, i, d, maxDim)
		}
		fe *= d
		if fe > maxDim {
			return nil, fmt.Errorf("%s.free: more than %d elements per partition", path, maxDim)
		}
	}
	var err error
	if r.DType == "" {
		return nil, fmt.Errorf("%s.dtype: missing", path)
	}
	if t.DType, err = parseDType(r.DType); err != nil {
		return nil, fmt.Errorf("%s.dtype: %w", path, err)
	}
	switch strings.ToLower(r.Buffer) {
	case "", "sbuf":
		t.Buffer = SBUF
	case "psum":
		t.Buffer = PSUM
	default:
		return nil, fmt.Errorf("%s.buffer: %q (want sbuf or psum)", path, r.Buffer)
	}
	if r.Scope != "" && !isIdent(r.Scope) {
		return nil, fmt.Errorf("%s.scope: %q is not a loop variable name", path, r.Scope)
	}
	if err := parseAlloc(t, &r.Alloc, path+".alloc"); err != nil {
		return nil, err
	}
	return t, nil
}

// nkiDTypes are NKI/numpy spellings dtype.Parse does not know, by the
// element size that matters here (tfloat32 is stored in 4 bytes; bool_ in
// one; the *fn / *fnuz float8 variants differ in encoding, not size).
var nkiDTypes = map[string]dtype.T{
	"tfloat32": dtype.Float32R, "tf32": dtype.Float32R,
	"bool": dtype.Uint8, "bool_": dtype.Uint8,
	"float8_e4m3fn": dtype.Float8E4, "float8_e4m3fnuz": dtype.Float8E4,
	"float8_e5m2fnuz": dtype.Float8E5, "float8e4m3": dtype.Float8E4, "float8e5m2": dtype.Float8E5,
	"fp8_e4m3": dtype.Float8E4, "fp8_e5m2": dtype.Float8E5,
}

// ParseDType reads a dtype name as plans and NKI kernels write it.
func ParseDType(s string) (dtype.T, error) { return parseDType(s) }

// parseDType reads a dtype as a plan author writes it: the NEFF names and
// their aliases, NKI's and numpy's module-qualified names (nl.bfloat16,
// np.float32, nki.language.float16) and spellings of other case.
func parseDType(s string) (dtype.T, error) {
	if t, err := dtype.Parse(s); err == nil {
		return t, nil
	}
	name := strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if t, ok := nkiDTypes[name]; ok {
		return t, nil
	}
	return dtype.Parse(name)
}

func parseAlloc(t *Tensor, n *yaml.Node, path string) error {
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && (n.Value == "auto" || n.Tag == "!!null")) {
		t.Kind = Auto
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return fmt.Errorf("%s: %q (want auto, {mod_alloc: ...} or {table: [...]}) (line %d)", path, n.Value, n.Line)
	}
	var ra rawAlloc
	if err := n.Decode(&ra); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case ra.ModAlloc != nil && ra.Table != nil:
		return fmt.Errorf("%s: both mod_alloc and table given (line %d)", path, n.Line)
	case ra.ModAlloc != nil:
		m := ra.ModAlloc
		t.Kind = Mod
		t.Mod = &ModAlloc{BaseBank: m.BaseBank, BaseAddr: m.BaseAddr, BasePartition: m.BasePartition,
			NumBankTiles: m.NumBankTiles, NumParTiles: m.NumParTiles, NumFreeTiles: m.NumFreeTiles}
		if t.Buffer == SBUF && (m.BaseBank != 0 || len(m.NumBankTiles) > 0) {
			return fmt.Errorf("%s.mod_alloc: base_bank/num_bank_tiles apply to PSUM only", path)
		}
		if m.BaseAddr < 0 || m.BasePartition < 0 || m.BaseBank < 0 || m.BaseAddr > maxDim || m.BaseBank > maxDim || m.BasePartition > maxDim {
			return fmt.Errorf("%s.mod_alloc: base out of range", path)
		}
		for name, tup := range map[string][]int64{"num_bank_tiles": m.NumBankTiles, "num_par_tiles": m.NumParTiles, "num_free_tiles": m.NumFreeTiles} {
			if len(tup) > MaxBlockDims {
				return fmt.Errorf("%s.mod_alloc.%s: %d dims, at most %d", path, name, len(tup), MaxBlockDims)
			}
			prod := int64(1)
			for i, v := range tup {
				if v < 1 || v > MaxTilesPerTens {
					return fmt.Errorf("%s.mod_alloc.%s[%d]: %d out of range [1, %d]", path, name, i, v, MaxTilesPerTens)
				}
				prod *= v
				if prod > MaxTilesPerTens {
					return fmt.Errorf("%s.mod_alloc.%s: more than %d tiles", path, name, MaxTilesPerTens)
				}
			}
		}
	case ra.Table != nil:
		t.Kind = Table
		tiles := t.Tiles()
		if int64(len(ra.Table)) != tiles {
			return fmt.Errorf("%s.table: %d entries for %d logical tiles", path, len(ra.Table), tiles)
		}
		t.Table = make([]TableEntry, tiles)
		seen := make([]bool, tiles)
		for i, e := range ra.Table {
			ep := fmt.Sprintf("%s.table[%d]", path, i)
			idx := e.Index
			if idx == nil {
				idx = t.BlockIndex(int64(i))
			}
			if len(idx) != len(t.Block) {
				return fmt.Errorf("%s.index: %d indices for %d block dims", ep, len(idx), len(t.Block))
			}
			for d, x := range idx {
				if x < 0 || x >= t.Block[d] {
					return fmt.Errorf("%s.index[%d]: %d out of range [0, %d)", ep, d, x, t.Block[d])
				}
			}
			lin := t.Linear(idx)
			if seen[lin] {
				return fmt.Errorf("%s: logical tile %s listed twice", ep, t.TileName(lin))
			}
			seen[lin] = true
			if e.Partition < 0 || e.Addr < 0 || e.Bank < 0 || e.Partition > maxDim || e.Addr > maxDim || e.Bank > maxDim {
				return fmt.Errorf("%s: negative or huge location", ep)
			}
			if t.Buffer == SBUF && e.Bank != 0 {
				return fmt.Errorf("%s.bank: SBUF has no banks", ep)
			}
			t.Table[lin] = TableEntry{Index: idx, Loc: Location{Partition: e.Partition, Bank: e.Bank, Addr: e.Addr}}
		}
	default:
		return fmt.Errorf("%s: want auto, {mod_alloc: ...} or {table: [...]} (line %d)", path, n.Line)
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, c := range s {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

type bodyParser struct {
	plan     *Plan
	names    map[string]int
	steps    int
	operands int
}

func (bp *bodyParser) nodes(raw []rawNode, path string, vars []string) ([]Node, error) {
	out := make([]Node, 0, len(raw))
	for i := range raw {
		r := &raw[i]
		np := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case r.Loop != "" && r.Op != "":
			return nil, fmt.Errorf("%s: both loop and op", np)
		case r.Loop != "":
			l, err := bp.loop(r, np, vars)
			if err != nil {
				return nil, err
			}
			out = append(out, Node{Loop: l})
		case r.Op != "":
			s, err := bp.step(r, np, vars)
			if err != nil {
				return nil, err
			}
			out = append(out, Node{Step: s})
		default:
			return nil, fmt.Errorf("%s: neither loop nor op", np)
		}
	}
	return out, nil
}

func (bp *bodyParser) loop(r *rawNode, path string, vars []string) (*Loop, error) {
	if !isIdent(r.Loop) {
		return nil, fmt.Errorf("%s.loop: %q is not a variable name", path, r.Loop)
	}
	for _, v := range vars {
		if v == r.Loop {
			return nil, fmt.Errorf("%s.loop: %q shadows an enclosing loop variable", path, r.Loop)
		}
	}
	if len(vars) >= MaxLoopDepth {
		return nil, fmt.Errorf("%s: loops nested deeper than %d", path, MaxLoopDepth)
	}
	l := &Loop{Var: r.Loop, Step: 1, Path: path, Vectorize: r.Vectorize}
	var rng []int64
	switch r.Range.Kind {
	case yaml.ScalarNode:
		var n int64
		if err := r.Range.Decode(&n); err != nil {
			return nil, fmt.Errorf("%s.range: %w", path, err)
		}
		rng = []int64{n}
	case yaml.SequenceNode:
		if err := r.Range.Decode(&rng); err != nil {
			return nil, fmt.Errorf("%s.range: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("%s.range: missing (a count, [start, stop] or [start, stop, step])", path)
	}
	switch len(rng) {
	case 1:
		l.Stop = rng[0]
	case 2:
		l.Start, l.Stop = rng[0], rng[1]
	case 3:
		l.Start, l.Stop, l.Step = rng[0], rng[1], rng[2]
	default:
		return nil, fmt.Errorf("%s.range: %d values (want 1 to 3)", path, len(rng))
	}
	if l.Step < 1 || l.Start < -maxDim || l.Stop > maxDim || l.Start > maxDim || l.Stop < -maxDim {
		return nil, fmt.Errorf("%s.range: [%d, %d, %d] out of range", path, l.Start, l.Stop, l.Step)
	}
	var err error
	l.Body, err = bp.nodes(r.Body, path+".body", append(vars[:len(vars):len(vars)], r.Loop))
	return l, err
}

func (bp *bodyParser) step(r *rawNode, path string, vars []string) (*Step, error) {
	bp.steps++
	if bp.steps > MaxSteps {
		return nil, fmt.Errorf("%s: more than %d steps", path, MaxSteps)
	}
	if r.Body != nil || r.Range.Kind != 0 || r.Vectorize {
		return nil, fmt.Errorf("%s: a step has no range, body or vectorize", path)
	}
	op := Op(r.Op)
	info, ok := ops[op]
	if !ok {
		return nil, fmt.Errorf("%s.op: unknown operation %q", path, r.Op)
	}
	s := &Step{Name: r.Name, Op: op, Engine: info.engine, Func: r.Func, Accumulate: r.Accumulate, HBM: r.HBM, HBMRun: r.HBMRun, CopyBytes: r.CopyBytes, Path: path, EngineByShape: r.EngineByShape, EngineByLoad: r.EngineByLoad && op == OpTensorCopy}
	if s.HBMRun < 0 || s.CopyBytes < 0 || (op == OpCopyHBM) != (s.CopyBytes > 0) {
		return nil, fmt.Errorf("%s: hbm_run %d, bytes %d: a copy-hbm step moves bytes > 0, other steps none; runs are not negative", path, s.HBMRun, s.CopyBytes)
	}
	if r.Engine != "" {
		e, err := parseEngine(r.Engine)
		if err != nil {
			return nil, fmt.Errorf("%s.engine: %w", path, err)
		}
		if (e == DMA) != (info.engine == DMA) || (op == OpMatmul && e != TensorE) {
			return nil, fmt.Errorf("%s.engine: %s cannot run on %s", path, op, e)
		}
		s.Engine = e
	}
	if s.Accumulate && op != OpMatmul {
		return nil, fmt.Errorf("%s.accumulate: only a matmul accumulates", path)
	}
	var err error
	if s.Reads, err = bp.refs(&r.Read, path+".read", vars); err != nil {
		return nil, err
	}
	if s.Writes, err = bp.refs(&r.Write, path+".write", vars); err != nil {
		return nil, err
	}
	// A matmul and a store are exact; other steps may read more tiles and
	// write fewer or more than the table says (plans lowered from NKI
	// kernels: a value consumed without being stored, reduce_res= as a
	// second output, an operand list).
	if n := len(s.Reads); n < info.reads[0] || (op == OpMatmul || op == OpStore) && n > info.reads[1] {
		return nil, fmt.Errorf("%s.read: %s reads %d to %d tiles, got %d", path, op, info.reads[0], info.reads[1], n)
	}
	if (op == OpMatmul || op == OpStore) && len(s.Writes) != info.writes {
		return nil, fmt.Errorf("%s.write: %s writes %s, got %d", path, op, humanize.Plural(info.writes, "tile"), len(s.Writes))
	}
	if s.Engine == DMA && op != OpCopyHBM && len(s.Reads)+len(s.Writes) == 0 {
		// (a DMA's cost is its on-chip tile's; a lowered kernel drops
		// HBM-to-HBM copies before they reach a plan)
		return nil, fmt.Errorf("%s: %s moves no on-chip tile: name the tile it reads or writes", path, op)
	}
	if op == OpMatmul && bp.plan.Tensors[s.Writes[0].Tensor].Buffer != PSUM {
		return nil, fmt.Errorf("%s.write: matmul writes PSUM, %s is in SBUF", path, bp.plan.Tensors[s.Writes[0].Tensor].Name)
	}
	if s.Name == "" {
		s.Name = string(op)
		if len(s.Writes) > 0 {
			s.Name += " " + s.Writes[0].Text
		} else if len(s.Reads) > 0 {
			s.Name += " " + s.Reads[0].Text
		}
	}
	return s, nil
}

func parseEngine(s string) (Engine, error) {
	for _, e := range Engines() {
		if strings.EqualFold(s, e.String()) {
			return e, nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q (want tensor, vector, scalar, gpsimd or dma)", s)
}

func (bp *bodyParser) refs(n *yaml.Node, path string, vars []string) ([]Ref, error) {
	var texts []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		texts = []string{n.Value}
	case yaml.SequenceNode:
		if err := n.Decode(&texts); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("%s: want a tile reference or a list of them (line %d)", path, n.Line)
	}
	bp.operands += len(texts)
	if len(texts) > MaxStepOperands || bp.operands > MaxUnrolled {
		return nil, fmt.Errorf("%s: %d operands, at most %d per step and %d in all", path, len(texts), MaxStepOperands, MaxUnrolled)
	}
	out := make([]Ref, 0, len(texts))
	for i, t := range texts {
		r, err := bp.ref(t, vars)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %q: %w", path, i, t, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// ref parses NAME or NAME[expr, ...] with affine expressions over the
// enclosing loop variables: terms like 3, i, 2*i, i*2, joined by + and -.
func (bp *bodyParser) ref(text string, vars []string) (Ref, error) {
	s := strings.TrimSpace(text)
	s, part, free, err := cutSlice(s)
	if err != nil {
		return Ref{}, err
	}
	name, rest, hasIdx := strings.Cut(s, "[")
	name = strings.TrimSpace(name)
	var decl int64
	if n, d, ok := strings.Cut(name, "#"); ok {
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil || v <= 0 {
			return Ref{}, fmt.Errorf("declaration number %q is not a positive integer", d)
		}
		name, decl = strings.TrimSpace(n), v
	}
	ti, ok := bp.names[name]
	if !ok {
		return Ref{}, fmt.Errorf("unknown tensor %q", name)
	}
	t := bp.plan.Tensors[ti]
	if t.Scope != "" {
		found := false
		for _, v := range vars {
			found = found || v == t.Scope
		}
		if !found {
			return Ref{}, fmt.Errorf("tensor %s is declared in loop %s, which does not enclose this step", name, t.Scope)
		}
	}
	r := Ref{Tensor: ti, Text: s, Decl: decl}
	if free > 0 {
		if part > t.Partitions || free > t.FreeElems() {
			return Ref{}, fmt.Errorf("slice (%dx%d) is larger than a tile of %s (%dx%d)", part, free, name, t.Partitions, t.FreeElems())
		}
		r.Part, r.Free = part, free
	}
	var exprs []string
	if hasIdx {
		if !strings.HasSuffix(rest, "]") {
			return Ref{}, errors.New("missing ]")
		}
		inner := strings.TrimSuffix(rest, "]")
		if strings.ContainsAny(inner, "[]") {
			return Ref{}, errors.New("nested brackets")
		}
		exprs = strings.Split(inner, ",")
	}
	if len(exprs) != len(t.Block) {
		return Ref{}, fmt.Errorf("%d indices for %d block dims of %s", len(exprs), len(t.Block), name)
	}
	for _, e := range exprs {
		a, err := parseAffine(e, vars)
		if err != nil {
			return Ref{}, err
		}
		r.Index = append(r.Index, a)
	}
	return r, nil
}

// cutSlice splits a reference's slice suffix "(PxF)" off: the step
// touches P partitions and F free elements per partition of the tile
// (Ref.Part, Ref.Free). free is 0 when the reference has no suffix.
func cutSlice(s string) (rest string, part, free int64, err error) {
	if !strings.HasSuffix(s, ")") {
		return s, 0, 0, nil
	}
	i := strings.LastIndex(s, "(")
	if i < 0 {
		return "", 0, 0, errors.New("missing ( before the slice's )")
	}
	ps, fs, ok := strings.Cut(s[i+1:len(s)-1], "x")
	if ok {
		part, err = strconv.ParseInt(strings.TrimSpace(ps), 10, 64)
		if err == nil {
			free, err = strconv.ParseInt(strings.TrimSpace(fs), 10, 64)
		}
	}
	if !ok || err != nil || part < 0 || free < 1 {
		return "", 0, 0, fmt.Errorf("slice %q: want (PARTITIONSxFREE), e.g. (128x512)", s[i:])
	}
	return strings.TrimSpace(s[:i]), part, free, nil
}

func parseAffine(s string, vars []string) (Affine, error) {
	var a Affine
	s = strings.ReplaceAll(s, " ", "")
	if s == "" {
		return a, errors.New("empty index")
	}
	if len(s) > 256 {
		return a, errors.New("index expression too long")
	}
	// Split into signed terms.
	i := 0
	for i < len(s) {
		sign := int64(1)
		if s[i] == '+' || s[i] == '-' {
			if s[i] == '-' {
				sign = -1
			}
			i++
		} else if i > 0 {
			return a, fmt.Errorf("bad index %q", s)
		}
		j := i
		for j < len(s) && s[j] != '+' && s[j] != '-' {
			j++
		}
		term := s[i:j]
		if term == "" {
			return a, fmt.Errorf("bad index %q", s)
		}
		coef, v, err := parseTerm(term)
		if err != nil {
			return a, err
		}
		coef *= sign
		if v == "" {
			a.Const += coef
		} else {
			d := -1
			for k, name := range vars {
				if name == v {
					d = k
				}
			}
			if d < 0 {
				return a, fmt.Errorf("%q is not an enclosing loop variable", v)
			}
			a.Terms = append(a.Terms, Term{Depth: d, Coef: coef})
		}
		if a.Const > maxDim || a.Const < -maxDim {
			return a, errors.New("index constant out of range")
		}
		i = j
	}
	return a, nil
}

// parseTerm parses N, V, N*V or V*N.
func parseTerm(t string) (int64, string, error) {
	parts := strings.Split(t, "*")
	coef, v := int64(1), ""
	if len(parts) > 2 {
		return 0, "", fmt.Errorf("bad term %q", t)
	}
	for _, p := range parts {
		if p == "" {
			return 0, "", fmt.Errorf("bad term %q", t)
		}
		if p[0] >= '0' && p[0] <= '9' {
			var n int64
			for _, c := range p {
				if c < '0' || c > '9' {
					return 0, "", fmt.Errorf("bad number %q", p)
				}
				n = n*10 + int64(c-'0')
				if n > maxDim {
					return 0, "", fmt.Errorf("number %q too large", p)
				}
			}
			coef *= n
		} else {
			if v != "" || !isIdent(p) {
				return 0, "", fmt.Errorf("bad term %q", t)
			}
			v = p
		}
	}
	return coef, v, nil
}

// Unrolled counts the step instances the body executes (a step over many
// tiles weighs more: stepWeight), failing when it exceeds MaxUnrolled.
func (p *Plan) Unrolled() (int64, error) {
	return countNodes(p.Body)
}

func countNodes(ns []Node) (int64, error) {
	var n int64
	for _, nd := range ns {
		if nd.Step != nil {
			n += stepWeight(nd.Step)
		} else {
			c, err := countNodes(nd.Loop.Body)
			if err != nil {
				return 0, err
			}
			tr := nd.Loop.Trips()
			if tr > 0 && c > MaxUnrolled/tr {
				return 0, fmt.Errorf("%s: the body runs more than %d steps", nd.Loop.Path, MaxUnrolled)
			}
			n += c * tr
		}
		if n > MaxUnrolled {
			return 0, fmt.Errorf("the body runs more than %d steps", MaxUnrolled)
		}
	}
	return n, nil
}

// stepWeight is what one instance of the step counts against MaxUnrolled:
// 1, or one per stepRefsUnit tile references it touches beyond the first.
func stepWeight(s *Step) int64 {
	refs := len(s.Reads) + len(s.Writes)
	return int64(max(1, (refs+stepRefsUnit-1)/stepRefsUnit))
}

// yamlGoType matches the Go types yaml.v3 names in its messages ("field x
// not found in type neuroncore.rawTensor", "into []neuroncore.rawTensor").
var yamlGoType = regexp.MustCompile(`(in type |into )(\[\])?(\*)?neuroncore\.raw([A-Za-z]+)`)

// planYAMLError words a yaml.v3 error in the plan's terms: the decoder
// names this package's Go types, which mean nothing to a user.
func planYAMLError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	return yamlGoType.ReplaceAllStringFunc(msg, func(m string) string {
		sm := yamlGoType.FindStringSubmatch(m)
		what := "a " + strings.ToLower(sm[4])
		if sm[2] != "" {
			what = "a list of " + strings.ToLower(sm[4]) + "s"
		}
		if sm[1] == "in type " {
			return "in " + what
		}
		return "into " + what
	})
}

// MaxPrivateDeclarations is the most declarations of an automatic tensor
// that get a location each in a skip_middle_end_transformations kernel.
// Bounded by evidence on both sides: the NEFFs neuronx-cc 2.21 compiled
// from two such kernels (corpus3/ntff) give every declaration its own SBUF
// location, 2 in vector_add_stream at FREE_DIM 1000 (a and b tiles at
// four addresses) and 64 in matrix_transpose (64 load destinations), and
// the captured run of the first overlapped its two iterations (the second
// iteration's loads streamed while the first's add ran); the Trainium2
// measurements of the same kernel at 100 iterations (FREE_DIM 2, hw/neuron
// nki-25) and of vector_add_tiled at 25,600 (nki-23) cost 1.5-1.9 us per
// iteration, a dependent load, add and store each: iterations did not
// overlap. Where between 64 and 100 the compiler stops is not known.
const MaxPrivateDeclarations = 64

// Declarations is how many times the kernel declares automatic tensor t:
// the iterations of the loop that declares it (Tensor.Scope) times those
// of every loop around that loop; 1 for a tensor declared at kernel
// level.
func (p *Plan) Declarations(t *Tensor) int64 {
	if t.Scope == "" {
		return 1
	}
	var walk func(ns []Node, outer int64) int64
	walk = func(ns []Node, outer int64) int64 {
		for _, n := range ns {
			if n.Loop == nil {
				continue
			}
			k := outer * max(n.Loop.Trips(), 1)
			if n.Loop.Var == t.Scope {
				return k
			}
			if d := walk(n.Loop.Body, k); d > 0 {
				return d
			}
		}
		return 0
	}
	return max(walk(p.Body, 1), 1)
}

// SharedLocation reports whether automatic tensor t keeps one location
// per tile for all its declarations, so that each iteration that declares
// it waits for the previous one: in a skip_middle_end_transformations
// kernel (SerialTiles), when it is declared more than
// MaxPrivateDeclarations times.
func (p *Plan) SharedLocation(t *Tensor) bool {
	return p.SerialTiles && !t.Direct() && p.Declarations(t) > MaxPrivateDeclarations
}
