package neff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The typed JSON members. Optional fields are pointers (or nil slices) so
// that checks can tell "absent" from "zero"; fields npukit does not model
// are kept in Extra and written back unchanged.

// Kelf is a kelf-*.json graph list.
type Kelf struct {
	Graphs []KelfGraph `json:"graphs"`
	// Version is "0.5" in real files; any JSON value is kept (a producer
	// writing it as a number must not make the graph unreadable).
	Version any     `json:"version,omitempty"`
	Target  *string `json:"target,omitempty"`
	Extra   Extra   `json:"-"`
}

// KelfGraph names one subgraph's def.json.
type KelfGraph struct {
	Definition string `json:"definition"`
	Name       string `json:"name"`
	Extra      Extra  `json:"-"`
}

// Def is a subgraph's def.json. Engine entries (act, pe, pool, dve, sp,
// their *_instr and *_dbg keys) are not fixed by the format and stay in
// Extra; Def.Engines reads them.
type Def struct {
	DMAQueue map[string]*QueueSet `json:"dma_queue,omitzero"`
	Var      map[string]*Var      `json:"var,omitzero"`
	Version  any                  `json:"version,omitempty"` // "0.6" in real files; any value kept
	Extra    Extra                `json:"-"`
}

// QueueSet is a dma_queue entry.
type QueueSet struct {
	Type           *string  `json:"type,omitempty"`
	NumQueues      *int64   `json:"num_queues,omitempty"`
	Owner          *string  `json:"owner,omitempty"`
	Pinned         *bool    `json:"pinned,omitempty"`
	QueueInstances []string `json:"queue_instances,omitempty"`
	SemaphoreSet   []int64  `json:"semaphore_set,omitempty"`
	Semaphore      *int64   `json:"semaphore,omitempty"`
	FabricPath     *string  `json:"fabric_path,omitempty"`
	Extra          Extra    `json:"-"`
}

// Queues returns num_queues with the spec's default of 1.
func (q *QueueSet) Queues() int64 {
	if q.NumQueues == nil {
		return 1
	}
	return *q.NumQueues
}

// Var is a var entry.
type Var struct {
	Type               *string `json:"type,omitempty"`
	VarID              *int64  `json:"var_id,omitempty"`
	Size               *int64  `json:"size,omitempty"`
	Alignment          *int64  `json:"alignment,omitempty"`
	FabricPath         *string `json:"fabric_path,omitempty"`
	FileName           *string `json:"file_name,omitempty"`
	BackingVariableOff *int64  `json:"backing_variable_off,omitempty"`
	ReferencedVarID    *int64  `json:"referenced_var_id,omitempty"`
	List               []int64 `json:"list,omitempty"`
	Extra              Extra   `json:"-"`
}

// TypeName returns the type or "".
func (v *Var) TypeName() string { return deref(v.Type) }

// SizeBytes returns the size or 0.
func (v *Var) SizeBytes() int64 {
	if v.Size == nil {
		return 0
	}
	return *v.Size
}

// EngineJSON is an {ENGINE}.json member.
type EngineJSON struct {
	DMA                    []*DMAEntry `json:"dma,omitzero"`
	Instr                  string      `json:"instr,omitempty"`
	Name                   string      `json:"name,omitempty"`
	ActivationFunctionSets []string    `json:"activation_function_sets,omitzero"`
	DVETables              []DVETable  `json:"dve_tables,omitzero"`
	Extra                  Extra       `json:"-"`
}

// DVETable names the three tables of a loadable DVE table set.
type DVETable struct {
	ControlTable  string `json:"control_table,omitempty"`
	DatapathTable string `json:"datapath_table,omitempty"`
	OpcodeTable   string `json:"opcode_table,omitempty"`
	Extra         Extra  `json:"-"`
}

// Describe names the three tables, "none" for one the set leaves empty
// (a trn2 NEFF's set has no control table: it printed "control , datapath").
func (t DVETable) Describe() string {
	name := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	return "control " + name(t.ControlTable) + ", datapath " + name(t.DatapathTable) + ", opcode " + name(t.OpcodeTable)
}

// DMAEntry is one element of an engine's dma list.
type DMAEntry struct {
	Comment          string  `json:"#comment,omitempty"`
	ID               *int64  `json:"id,omitempty"`
	Queue            *string `json:"queue,omitempty"`
	InstanceName     *string `json:"instance_name,omitempty"`
	FunctionStart    *string `json:"function_start,omitempty"`
	SectionStartDesc *bool   `json:"section_start_desc,omitempty"`
	Event            *int64  `json:"event,omitempty"`
	Semaphore        *int64  `json:"semaphore,omitempty"`
	RemoteSemaphores []int64 `json:"remote_semaphores,omitempty"`
	// Desc holds the descriptors. Real files write an array; the spec
	// describes one object (DescObject records that form).
	Desc       []*Desc `json:"-"`
	DescObject bool    `json:"-"`
	HasDesc    bool    `json:"-"`
	Extra      Extra   `json:"-"`
}

// QueueName is instance_name when set (it takes precedence), else queue.
func (e *DMAEntry) QueueName() string {
	if e.InstanceName != nil && *e.InstanceName != "" {
		return *e.InstanceName
	}
	return deref(e.Queue)
}

// Source is the "from" half of a descriptor (also a from_arr element).
type Source struct {
	From      *string `json:"from,omitempty"`
	FromOff   *int64  `json:"from_off,omitempty"`
	FromSteps []int64 `json:"from_steps,omitempty"`
	FromSizes []int64 `json:"from_sizes,omitempty"`
	FromDType *string `json:"from_dtype,omitempty"`
	Extra     Extra   `json:"-"`
}

// Desc is one DMA descriptor.
type Desc struct {
	Op                   *string      `json:"op,omitempty"`
	From                 *string      `json:"from,omitempty"`
	FromOff              *int64       `json:"from_off,omitempty"`
	FromSteps            []int64      `json:"from_steps,omitempty"`
	FromSizes            []int64      `json:"from_sizes,omitempty"`
	FromDType            *string      `json:"from_dtype,omitempty"`
	To                   *string      `json:"to,omitempty"`
	ToOff                *int64       `json:"to_off,omitempty"`
	ToSteps              []int64      `json:"to_steps,omitempty"`
	ToSizes              []int64      `json:"to_sizes,omitempty"`
	ToDType              *string      `json:"to_dtype,omitempty"`
	NumTilingDimensions  *int64       `json:"num_tiling_dimensions,omitempty"`
	FromArr              []*Source    `json:"from_arr,omitempty"`
	ScaleDType           *string      `json:"scale_dtype,omitempty"`
	Scale                *float64     `json:"scale,omitempty"`
	ConstantDType        *string      `json:"constant_dtype,omitempty"`
	Constant             *json.Number `json:"constant,omitempty"`
	TransposeShape       []int64      `json:"transpose_shape,omitempty"`
	TransposeElementSize *int64       `json:"transpose_element_size,omitempty"`
	// TransposeOp is how neuronx-cc 2.21 (trn2) marks a DMA transpose: no
	// op key, and the axis order of the result as letters of the source's
	// axes W, Z, Y, X (outermost first), e.g. "WZXY" swaps the two
	// innermost axes. See Permutation.
	TransposeOp *string `json:"transpose_op,omitempty"`
	Extra       Extra   `json:"-"`
}

// OpName returns the operation: op, else "transpose" when transpose_op
// marks one, else the spec's default "copy". A transpose_op beside op
// "copy" is read as the transpose it describes.
func (d *Desc) OpName() string {
	if d.TransposeOp != nil && (d.Op == nil || *d.Op == "copy") {
		return "transpose"
	}
	if d.Op == nil {
		return "copy"
	}
	return *d.Op
}

// TransposeAxes are the names transpose_op spells the four axes of a
// transpose's source with, outermost first.
const TransposeAxes = "WZYX"

// Permutation returns the transpose's axis order: result axis i is source
// axis perm[i], outermost first (the meaning nki.isa.dma_transpose gives
// its axes argument: "the i-th axis of the transposed tile will correspond
// to the axes[i] of the source"). transpose_op "WZXY" is [0 1 3 2]. Without
// transpose_op (the spec's op "transpose") every axis is reversed:
// [3 2 1 0]. An error means transpose_op is not a permutation of W, Z, Y, X.
func (d *Desc) Permutation() ([]int, error) {
	if d.TransposeOp == nil {
		return []int{3, 2, 1, 0}, nil
	}
	return ParsePermutation(*d.TransposeOp)
}

// Operation is what the descriptor does as npukit executes and prices it:
// OpName, except that a transpose whose transpose_op cannot be read is the
// plain op it stands beside (copy without op). perm is the transpose's
// axis order (see Permutation), nil for other operations.
func (d *Desc) Operation() (op string, perm []int) {
	op = d.OpName()
	if op != "transpose" {
		return op, nil
	}
	perm, err := d.Permutation()
	if err != nil {
		if d.Op == nil {
			return "copy", nil
		}
		return *d.Op, nil
	}
	return op, perm
}

// ParsePermutation reads a transpose_op string (see Desc.Permutation).
func ParsePermutation(op string) ([]int, error) {
	if len(op) != len(TransposeAxes) {
		return nil, fmt.Errorf("transpose_op %q is not %d axis letters", op, len(TransposeAxes))
	}
	perm := make([]int, len(op))
	seen := 0
	for i := 0; i < len(op); i++ {
		a := strings.IndexByte(TransposeAxes, op[i]&^0x20) // ASCII upper case
		if a < 0 || seen&(1<<a) != 0 {
			return nil, fmt.Errorf("transpose_op %q is not an order of the axes %s", op, TransposeAxes)
		}
		seen |= 1 << a
		perm[i] = a
	}
	return perm, nil
}

// Sources returns from_arr, or the descriptor's own from* fields as one
// source.
func (d *Desc) Sources() []*Source {
	if d.FromArr != nil {
		return d.FromArr
	}
	return []*Source{{From: d.From, FromOff: d.FromOff, FromSteps: d.FromSteps, FromSizes: d.FromSizes, FromDType: d.FromDType}}
}

// NeffJSON is the part of neff.json npukit models: the signatures.
type NeffJSON struct {
	Metadata struct {
		Signatures map[string]Signature `json:"signatures"`
	} `json:"metadata"`
}

// Signatures returns neff.json's metadata.signatures read leniently: the
// typed NeffJSON rejects the whole member on one value of an unexpected
// type, but neff.json is informational (the graph the runtime loads is in
// kelf and def.json) and other producers write dynamic or unknown
// dimensions as -1, null or strings, ids as strings or not at all. Here a
// dimension that is not a non-negative integer reads as -1 (unknown), a
// missing or non-integer id as -1, a non-string dtype as "". nil when
// neff.json is absent or names no signatures.
func (m *Model) Signatures() map[string]Signature {
	if m.File == nil {
		return nil
	}
	mem, ok := m.File.Member("neff.json")
	if !ok {
		return nil
	}
	var doc struct {
		Metadata struct {
			Signatures map[string]map[string]json.RawMessage `json:"signatures"`
		} `json:"metadata"`
	}
	if json.Unmarshal(mem.Data, &doc) != nil {
		// A metadata or signatures value of another shape: fall back to
		// what the typed decoder read, if anything.
		if m.Neff != nil {
			return m.Neff.Metadata.Signatures
		}
		return nil
	}
	out := map[string]Signature{}
	for name, sides := range doc.Metadata.Signatures {
		out[name] = Signature{Inputs: lenientTensors(sides["inputs"]), Outputs: lenientTensors(sides["outputs"])}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func lenientTensors(raw json.RawMessage) map[string]SigTensor {
	var ts map[string]struct {
		ID    json.RawMessage `json:"id"`
		DType json.RawMessage `json:"dtype"`
		Shape json.RawMessage `json:"shape"`
	}
	out := map[string]SigTensor{}
	if json.Unmarshal(raw, &ts) != nil {
		return out
	}
	for n, t := range ts {
		// A shape that is absent or not an array stays nil: unknown, not
		// a scalar ([]).
		st := SigTensor{ID: lenientInt(t.ID)}
		json.Unmarshal(t.DType, &st.DType)
		var dims []json.RawMessage
		if json.Unmarshal(t.Shape, &dims) == nil && dims != nil {
			st.Shape = make([]int64, 0, len(dims))
			for _, d := range dims {
				st.Shape = append(st.Shape, lenientInt(d))
			}
		}
		out[n] = st
	}
	return out
}

// lenientInt reads a non-negative integer written as a number or a
// numeric string; -1 otherwise.
func lenientInt(raw json.RawMessage) int64 {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return -1
	}
	var s string
	switch x := v.(type) {
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		s = x
	default:
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// Signature lists a signature's inputs and outputs by name.
type Signature struct {
	Inputs  map[string]SigTensor `json:"inputs"`
	Outputs map[string]SigTensor `json:"outputs"`
}

// SigTensor is one signature tensor.
type SigTensor struct {
	ID    int64   `json:"id"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// TensorMapEntry is one entry of sgNN/tensor_map.json.
type TensorMapEntry struct {
	DType    string  `json:"dtype,omitempty"`
	Kind     string  `json:"kind,omitempty"`
	IsConst  any     `json:"is_const,omitempty"` // false in real files; "0" or 0 kept as written
	SimShape []int64 `json:"sim_shape,omitempty"`
	TFShape  []int64 `json:"tf_shape,omitempty"`
	Extra    Extra   `json:"-"`
}

// Info is info.json. Only tool_version is used; the counts keep whatever
// JSON value a producer wrote (a string "1" must not hide the compiler
// version).
type Info struct {
	ToolVersion     string `json:"tool_version,omitempty"`
	Name            string `json:"name,omitempty"`
	NumTPB          any    `json:"num_tpb,omitempty"`
	NumTPBRequested any    `json:"num_tpb_requested,omitempty"`
	Extra           Extra  `json:"-"`
}

// Metric is one metrics.json entry.
type Metric struct {
	MetricName string      `json:"MetricName"`
	Value      json.Number `json:"Value"`
	Unit       string      `json:"Unit"`
	Extra      Extra       `json:"-"`
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// JSON codecs keeping unknown fields. Each uses a plain alias type so that
// the standard decoder does not recurse into the method.

func (v *Kelf) UnmarshalJSON(b []byte) (err error) {
	type plain Kelf
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Kelf) MarshalJSON() ([]byte, error) { type plain Kelf; return encodeObject(plain(v), v.Extra) }

func (v *KelfGraph) UnmarshalJSON(b []byte) (err error) {
	type plain KelfGraph
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v KelfGraph) MarshalJSON() ([]byte, error) {
	type plain KelfGraph
	return encodeObject(plain(v), v.Extra)
}

func (v *Def) UnmarshalJSON(b []byte) (err error) {
	type plain Def
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Def) MarshalJSON() ([]byte, error) { type plain Def; return encodeObject(plain(v), v.Extra) }

func (v *QueueSet) UnmarshalJSON(b []byte) (err error) {
	type plain QueueSet
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v QueueSet) MarshalJSON() ([]byte, error) {
	type plain QueueSet
	return encodeObject(plain(v), v.Extra)
}

func (v *Var) UnmarshalJSON(b []byte) (err error) {
	type plain Var
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Var) MarshalJSON() ([]byte, error) { type plain Var; return encodeObject(plain(v), v.Extra) }

func (v *EngineJSON) UnmarshalJSON(b []byte) (err error) {
	type plain EngineJSON
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v EngineJSON) MarshalJSON() ([]byte, error) {
	type plain EngineJSON
	return encodeObject(plain(v), v.Extra)
}

func (v *DVETable) UnmarshalJSON(b []byte) (err error) {
	type plain DVETable
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v DVETable) MarshalJSON() ([]byte, error) {
	type plain DVETable
	return encodeObject(plain(v), v.Extra)
}

func (v *DMAEntry) UnmarshalJSON(b []byte) error {
	type plain DMAEntry
	extra, err := decodeObject(b, (*plain)(v))
	if err != nil {
		return err
	}
	raw, ok := extra["desc"]
	delete(extra, "desc")
	if len(extra) == 0 {
		extra = nil
	}
	v.Extra = extra
	v.Desc, v.DescObject, v.HasDesc = nil, false, ok
	if !ok {
		return nil
	}
	raw = bytes.TrimLeft(raw, " \n\t\r")
	if len(raw) > 0 && raw[0] == '{' {
		var d Desc
		if err := json.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("desc: %w", err)
		}
		v.Desc, v.DescObject = []*Desc{&d}, true
		return nil
	}
	if err := json.Unmarshal(raw, &v.Desc); err != nil {
		return fmt.Errorf("desc: %w", err)
	}
	return nil
}

func (v DMAEntry) MarshalJSON() ([]byte, error) {
	type plain DMAEntry
	extra := Extra{}
	for k, r := range v.Extra {
		extra[k] = r
	}
	if v.HasDesc || v.Desc != nil {
		var d []byte
		var err error
		if v.DescObject && len(v.Desc) == 1 {
			d, err = json.Marshal(v.Desc[0])
		} else {
			if v.Desc == nil {
				v.Desc = []*Desc{}
			}
			d, err = json.Marshal(v.Desc)
		}
		if err != nil {
			return nil, err
		}
		extra["desc"] = d
	}
	return encodeObject(plain(v), extra)
}

func (v *Source) UnmarshalJSON(b []byte) (err error) {
	type plain Source
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Source) MarshalJSON() ([]byte, error) {
	type plain Source
	return encodeObject(plain(v), v.Extra)
}

func (v *Desc) UnmarshalJSON(b []byte) (err error) {
	type plain Desc
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Desc) MarshalJSON() ([]byte, error) { type plain Desc; return encodeObject(plain(v), v.Extra) }

func (v *TensorMapEntry) UnmarshalJSON(b []byte) (err error) {
	type plain TensorMapEntry
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v TensorMapEntry) MarshalJSON() ([]byte, error) {
	type plain TensorMapEntry
	return encodeObject(plain(v), v.Extra)
}

func (v *Info) UnmarshalJSON(b []byte) (err error) {
	type plain Info
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Info) MarshalJSON() ([]byte, error) { type plain Info; return encodeObject(plain(v), v.Extra) }

func (v *Metric) UnmarshalJSON(b []byte) (err error) {
	type plain Metric
	v.Extra, err = decodeObject(b, (*plain)(v))
	return err
}
func (v Metric) MarshalJSON() ([]byte, error) {
	type plain Metric
	return encodeObject(plain(v), v.Extra)
}

// Ref resolves a file name a subgraph's JSON gives (file_name, activation
// sets, DVE tables; relative to the subgraph directory) to a member name,
// cleaned as member names are ("./w.npy" names member "sg00/w.npy").
func (sg *Subgraph) Ref(name string) string {
	full := sg.Member(name)
	if c, err := CleanName(full); err == nil && c != "" {
		return c
	}
	return full
}
