package neff

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Builder assembles synthetic NEFFs from the typed model: tests, the demo
// and the DMA tooling use it. The zero value is not ready; use NewBuilder.
type Builder struct {
	Header    Header
	Target    string // kelf target; "" writes "sunda"
	Subgraphs []*SubgraphBuilder
	// Signature is written to neff.json as metadata.signatures.default.
	Signature Signature
	// Files are extra members by full name; they override generated
	// ones, and a nil value removes a generated member.
	Files map[string][]byte
}

// SubgraphBuilder builds one sgNN directory.
type SubgraphBuilder struct {
	Name    string
	Def     Def
	Engines []*EngineBuilder
	// Files are extra members relative to the subgraph directory.
	Files  map[string][]byte
	nextID int64
}

// EngineBuilder is one engine: def.json key, JSON and instruction stream.
type EngineBuilder struct {
	Key   string // def.json key, e.g. "sp"
	Name  string // file stem, e.g. "SP"
	JSON  EngineJSON
	Instr []byte // a whole number of 64-byte slots
}

// NewBuilder returns a builder with a neuronx-cc-like header (pkg 2,
// NEFF 1.0, one TPB, LNC 1).
func NewBuilder(name string) *Builder {
	tpb := make([]byte, lenTPBPerNode)
	tpb[0] = 1
	return &Builder{
		Header: Header{PkgVersion: 2, HeaderSize: HeaderSize, NeffVersionMajor: 1, NumTPB: 1, RequestedTPBCount: 1,
			TPBPerNode: tpb, LNCSize: 1, Name: name, UUID: make([]byte, lenUUID)},
		Target:    "sunda",
		Signature: Signature{Inputs: map[string]SigTensor{}, Outputs: map[string]SigTensor{}},
		Files:     map[string][]byte{},
	}
}

// Subgraph adds a subgraph named like "sg00" with a state buffer (var_id 0).
func (b *Builder) Subgraph(name string) *SubgraphBuilder {
	sg := &SubgraphBuilder{Name: name, Def: Def{DMAQueue: map[string]*QueueSet{}, Var: map[string]*Var{}, Version: "0.6", Extra: Extra{}}, Files: map[string][]byte{}}
	sg.AddVar("SB", "state-buffer", -1)
	b.Subgraphs = append(b.Subgraphs, sg)
	return sg
}

func ptr[T any](v T) *T { return &v }

// AddVar declares a variable with the next var_id; size < 0 omits size.
func (sg *SubgraphBuilder) AddVar(name, typ string, size int64) *Var {
	v := &Var{Type: ptr(typ), VarID: ptr(sg.nextID)}
	if size >= 0 {
		v.Size = ptr(size)
	}
	sg.nextID++
	sg.Def.Var[name] = v
	return v
}

// AddDGETable declares a descriptor-generation table of the variables
// named, as neuronx-cc 2.23 writes it for hardware DGE: a list of their
// var_ids and no size ({"list": [1, 2, 3], "type": "dge-table", "var_id":
// 5}). A name no variable has lists var_id -1.
func (sg *SubgraphBuilder) AddDGETable(name string, vars ...string) *Var {
	v := sg.AddVar(name, VarDGETable, -1)
	v.List = []int64{}
	for _, n := range vars {
		id := int64(-1)
		if x := sg.Def.Var[n]; x != nil && x.VarID != nil {
			id = *x.VarID
		}
		v.List = append(v.List, id)
	}
	return v
}

// AddConstant declares a file variable loaded from member file (relative
// to the subgraph) holding data, 64-byte aligned.
func (sg *SubgraphBuilder) AddConstant(name, file string, size int64, data []byte) *Var {
	v := sg.AddVar(name, "file", size)
	v.FileName = ptr(file)
	v.Alignment = ptr(int64(64))
	v.FabricPath = ptr("main")
	sg.Files[file] = data
	return v
}

// AddQueue declares a queue set.
func (sg *SubgraphBuilder) AddQueue(name, typ string, numQueues int64, owner string) *QueueSet {
	q := &QueueSet{Type: ptr(typ), NumQueues: ptr(numQueues), Owner: ptr(owner), FabricPath: ptr("main")}
	sg.Def.DMAQueue[name] = q
	return q
}

// Engine returns the engine with the given def.json key, creating it
// (file stem name, one NOP-like instruction slot).
func (sg *SubgraphBuilder) Engine(key, name string) *EngineBuilder {
	for _, e := range sg.Engines {
		if e.Key == key {
			return e
		}
	}
	e := &EngineBuilder{Key: key, Name: name, JSON: EngineJSON{DMA: []*DMAEntry{}, Instr: name + ".bin", Name: name + ".json"}, Instr: make([]byte, InstrSize)}
	sg.Engines = append(sg.Engines, e)
	return e
}

// AddDMA appends a DMA entry with the next id on queue to the engine.
func (e *EngineBuilder) AddDMA(queue, comment string, descs ...*Desc) *DMAEntry {
	ent := &DMAEntry{Comment: comment, ID: ptr(int64(len(e.JSON.DMA))), Queue: ptr(queue), Desc: descs, HasDesc: true}
	e.JSON.DMA = append(e.JSON.DMA, ent)
	return ent
}

// Copy returns a copy descriptor between two access patterns.
func Copy(from string, fromOff int64, fromSizes, fromSteps []int64, to string, toOff int64, toSizes, toSteps []int64) *Desc {
	return &Desc{Op: ptr("copy"), From: ptr(from), FromOff: ptr(fromOff), FromSizes: fromSizes, FromSteps: fromSteps,
		To: ptr(to), ToOff: ptr(toOff), ToSizes: toSizes, ToSteps: toSteps, NumTilingDimensions: ptr(int64(1))}
}

// Members renders every member (JSON indented with 4 spaces, sorted keys).
func (b *Builder) Members() ([]Member, error) {
	files := map[string][]byte{}
	put := func(name string, v any) error {
		j, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files[name] = indentJSON(j)
		return nil
	}
	kelf := Kelf{Version: "0.5", Target: ptr(b.Target)}
	for _, sg := range b.Subgraphs {
		kelf.Graphs = append(kelf.Graphs, KelfGraph{Definition: sg.Name + "/def.json", Name: sg.Name})
		def := sg.Def
		def.Extra = Extra{}
		for k, v := range sg.Def.Extra {
			def.Extra[k] = v
		}
		for _, e := range sg.Engines {
			def.Extra[e.Key] = jsonString(e.JSON.Name)
			def.Extra[e.Key+"_instr"] = jsonString(e.JSON.Instr)
			if err := put(sg.Name+"/"+e.JSON.Name, e.JSON); err != nil {
				return nil, err
			}
			files[sg.Name+"/"+e.JSON.Instr] = e.Instr
		}
		if err := put(sg.Name+"/def.json", def); err != nil {
			return nil, err
		}
		for n, d := range sg.Files {
			files[sg.Name+"/"+n] = d
		}
	}
	if err := put("kelf-0.json", kelf); err != nil {
		return nil, err
	}
	neffJSON := map[string]any{"metadata": map[string]any{"signatures": map[string]Signature{"default": b.Signature}}}
	if err := put("neff.json", neffJSON); err != nil {
		return nil, err
	}
	if err := put("info.json", map[string]any{"tool_version": "npukit", "name": b.Header.Name, "num_tpb": b.Header.NumTPB}); err != nil {
		return nil, err
	}
	for n, d := range b.Files {
		if d == nil {
			delete(files, n)
		} else {
			files[n] = d
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	ms := make([]Member, 0, len(names))
	for _, n := range names {
		ms = append(ms, Member{Name: n, Data: files[n], Mode: 0o664, Uid: 1000, Gid: 1000, Uname: "nobody", Gname: "nobody"})
	}
	return ms, nil
}

// Bytes packs the NEFF.
func (b *Builder) Bytes(opt PackOptions) ([]byte, error) {
	ms, err := b.Members()
	if err != nil {
		return nil, err
	}
	return Pack(b.Header, ms, opt)
}

func jsonString(s string) json.RawMessage {
	j, _ := json.Marshal(s)
	return j
}
