package neff

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/inputfile"
)

// Model is a NEFF with its members decoded.
type Model struct {
	File      *File
	Kelfs     []*KelfFile
	Subgraphs []*Subgraph
	Neff      *NeffJSON // nil when neff.json is absent or unreadable
	Info      *Info
	Metrics   []Metric
	// Problems are findings made while decoding (JSON that does not
	// parse, members that are named but absent); Check includes them.
	Problems diag.Report
}

// KelfFile is one kelf-*.json member.
type KelfFile struct {
	Member string
	Kelf   *Kelf
}

// Subgraph is one graph of a kelf with its def.json and engines.
type Subgraph struct {
	Name      string
	Kelf      string // kelf member that declares it
	Target    string // kelf target ("" = sunda)
	DefMember string
	Dir       string // directory of def.json (member prefix, may be "")
	Def       *Def
	Engines   []*Engine // sorted by key
	TensorMap map[string]*TensorMapEntry
}

// Engine is one engine of a subgraph as def.json names it.
type Engine struct {
	Key         string // def.json key, e.g. "pool"
	Member      string // engine JSON member, e.g. "sg00/Pool.json"
	InstrMember string // instruction file member ("" when not named)
	JSON        *EngineJSON
}

// Instructions counts the 64-byte instruction slots of the engine binary
// (-1 when the binary is absent).
func (m *Model) Instructions(e *Engine) int64 {
	if e.InstrMember == "" {
		return -1
	}
	mem, ok := m.File.Member(e.InstrMember)
	if !ok {
		return -1
	}
	return int64(len(mem.Data)) / InstrSize
}

// InstrSize is the size of one engine instruction slot.
const InstrSize = 64

// Member resolves a name relative to the subgraph directory.
func (sg *Subgraph) Member(name string) string {
	if sg.Dir == "" {
		return name
	}
	return sg.Dir + "/" + name
}

// Open reads a NEFF file and decodes its model.
func Open(name string) (*Model, error) {
	b, err := inputfile.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return OpenBytes(b, DefaultLimits())
}

// OpenBytes decodes a NEFF held in memory.
func OpenBytes(b []byte, lim Limits) (*Model, error) {
	f, err := read(b, lim, true)
	if err != nil {
		return nil, err
	}
	return Decode(f), nil
}

// Decode builds the model from a container. It never fails: what cannot be
// decoded becomes a Problem.
func Decode(f *File) *Model {
	m := &Model{File: f}
	var kelfNames []string
	for _, mem := range f.Members {
		if isKelf(mem.Name) {
			kelfNames = append(kelfNames, mem.Name)
		}
	}
	sort.Strings(kelfNames)
	for _, kn := range kelfNames {
		mem, _ := f.Member(kn)
		var k Kelf
		if !m.decodeJSON(mem, &k) {
			continue
		}
		m.Kelfs = append(m.Kelfs, &KelfFile{Member: kn, Kelf: &k})
		for gi, g := range k.Graphs {
			sg := &Subgraph{Name: g.Name, Kelf: kn, Target: deref(k.Target), DefMember: g.Definition}
			if sg.Name == "" {
				sg.Name = fmt.Sprintf("graph%d", gi)
			}
			m.decodeSubgraph(sg)
			m.Subgraphs = append(m.Subgraphs, sg)
		}
	}
	if mem, ok := f.Member("neff.json"); ok {
		var n NeffJSON
		if m.decodeJSON(mem, &n) {
			m.Neff = &n
		}
	}
	if mem, ok := f.Member("info.json"); ok {
		var in Info
		if m.decodeJSON(mem, &in) {
			m.Info = &in
		}
	}
	if mem, ok := f.Member("metrics.json"); ok {
		m.decodeJSON(mem, &m.Metrics)
	}
	f.trees = nil // used once: free them
	return m
}

// termsafeKey shortens a key for a message.
func termsafeKey(k string) string {
	if len(k) > 64 {
		return k[:64] + "..."
	}
	return k
}

func isKelf(name string) bool {
	return !strings.Contains(name, "/") && strings.HasPrefix(name, "kelf-") && strings.HasSuffix(name, ".json")
}

// decodeJSON decodes a member, recording a problem when it fails.
func (m *Model) decodeJSON(mem *Member, v any) bool {
	var err error
	var dups []DuplicateKey
	var tooMany *treeLimitError
	if r, ok := m.File.jsonTree(mem); ok && r.err == nil {
		err, dups = fromTree(r.tree, reflect.ValueOf(v).Elem(), ""), r.dups
	} else if ok && errors.As(r.err, &tooMany) {
		err = r.err // parsing it again would fail the same way
	} else {
		var maxValues int64
		if m.File != nil {
			maxValues = m.File.jsonValues
		}
		if maxValues <= 0 {
			maxValues = DefaultLimits().JSONValues()
		}
		dups, err = decodeTreeDups(mem.Data, v, maxValues)
	}
	for _, d := range dups {
		m.Problems.Add(RuleJSONDuplicateKey, fmt.Sprintf("%s: byte %d", mem.Name, d.Offset), "key %q appears more than once in one object; JSON parsers disagree on which value counts (npukit reads the last)", termsafeKey(d.Key))
	}
	if errors.As(err, &tooMany) {
		m.Problems.Add(RuleTooLarge, mem.Name, "%v", err)
		return false
	}
	if p := TreePath(err); p != "" {
		m.Problems.Add(RuleJSONSyntax, mem.Name+": "+p, "%v", errors.Unwrap(err))
		return false
	}
	if err != nil {
		// Not parsed: encoding/json, the reference, words the error.
		err = json.Unmarshal(mem.Data, v)
	}
	if err != nil {
		loc := mem.Name
		if se, ok := err.(*json.SyntaxError); ok {
			loc = fmt.Sprintf("%s: byte %d", mem.Name, se.Offset)
		} else if te, ok := err.(*json.UnmarshalTypeError); ok {
			loc = fmt.Sprintf("%s: byte %d", mem.Name, te.Offset)
		}
		m.Problems.Add(RuleJSONSyntax, loc, "%v", err)
		return false
	}
	return true
}

func (m *Model) missing(loc, member, what string) {
	m.Problems.Add(RuleMissingMember, loc, "%s %q is not in the archive", what, member)
}

func (m *Model) decodeSubgraph(sg *Subgraph) {
	clean, err := CleanName(sg.DefMember)
	if err != nil || clean == "" {
		m.Problems.Add(RuleMissingMember, sg.Kelf, "graph %q: definition %q is not a valid member name", sg.Name, sg.DefMember)
		return
	}
	sg.DefMember = clean
	sg.Dir = path.Dir(clean)
	if sg.Dir == "." {
		sg.Dir = ""
	}
	mem, ok := m.File.Member(clean)
	if !ok {
		m.missing(sg.Kelf, clean, "graph "+sg.Name+" definition")
		return
	}
	var def Def
	if !m.decodeJSON(mem, &def) {
		return
	}
	sg.Def = &def
	for _, key := range def.EngineKeys() {
		e := &Engine{Key: key}
		var name string
		json.Unmarshal(def.Extra[key], &name)
		e.Member = sg.Ref(name)
		var instr string
		if raw, ok := def.Extra[key+"_instr"]; ok && json.Unmarshal(raw, &instr) == nil && instr != "" {
			e.InstrMember = sg.Ref(instr)
			if _, ok := m.File.Member(e.InstrMember); !ok {
				m.missing(clean+": "+key+"_instr", e.InstrMember, "engine instruction file")
			}
		}
		sg.Engines = append(sg.Engines, e)
		em, ok := m.File.Member(e.Member)
		if !ok {
			m.missing(clean+": "+key, e.Member, "engine JSON")
			continue
		}
		var ej EngineJSON
		if m.decodeJSON(em, &ej) {
			e.JSON = &ej
			if e.InstrMember == "" && ej.Instr != "" {
				e.InstrMember = sg.Ref(ej.Instr)
			}
		}
	}
	if tm, ok := m.File.Member(sg.Member("tensor_map.json")); ok {
		m.decodeJSON(tm, &sg.TensorMap)
	}
}

// EngineKeys lists def.json keys naming an engine JSON: a string value
// ending in ".json" (act, pe, pool, dve, sp in real files; the names are
// not fixed), sorted.
func (d *Def) EngineKeys() []string {
	var keys []string
	for k, raw := range d.Extra {
		if strings.HasSuffix(k, "_instr") || strings.HasSuffix(k, "_dbg") || k == "name" {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.HasSuffix(s, ".json") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// VarNames returns the variable names sorted by var_id, then name.
func (d *Def) VarNames() []string {
	names := make([]string, 0, len(d.Var))
	for n := range d.Var {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := d.Var[names[i]], d.Var[names[j]]
		ia, ib := int64(-1), int64(-1)
		if a != nil && a.VarID != nil {
			ia = *a.VarID
		}
		if b != nil && b.VarID != nil {
			ib = *b.VarID
		}
		if ia != ib {
			return ia < ib
		}
		return names[i] < names[j]
	})
	return names
}

// QueueNames returns the queue set names sorted.
func (d *Def) QueueNames() []string {
	names := make([]string, 0, len(d.DMAQueue))
	for n := range d.DMAQueue {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return diag.NaturalLess(names[i], names[j]) })
	return names
}

// Arch classifies a kelf target.
type Arch string

// Architectures by kelf target (notes/neff.md).
const (
	ArchInf1    Arch = "inf1"
	ArchTrn1    Arch = "trn1/inf2" // sunda, v2, "" (default)
	ArchTrn2    Arch = "trn2"      // cayman, v3
	ArchTrn3    Arch = "trn3"      // mariana, v4
	ArchAny     Arch = "any"       // "*"
	ArchUnknown Arch = "unknown"
)

// TargetArch maps a kelf target to an architecture.
func TargetArch(target string) Arch {
	switch strings.ToLower(target) {
	case "", "sunda", "v2", "trn1", "inf2":
		return ArchTrn1
	case "cayman", "v3", "trn2":
		return ArchTrn2
	case "mariana", "v4", "trn3":
		return ArchTrn3
	case "inf1", "v1", "tonga", "inferentia":
		// tonga: Inferentia's codename in neuron-cc targets.
		return ArchInf1
	case "*":
		return ArchAny
	}
	return ArchUnknown
}
