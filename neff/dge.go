package neff

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/neff/isa"
)

// Descriptor-generation tables. With hardware descriptor generation
// (feature bit 0x200000 neff_feature_hardware_DGE, neuronx-cc 2.23 for
// trn2) an engine does not find its DMA descriptors written in the engine
// JSON: the DGE hardware generates them at run time from the instruction
// stream, and the queue sets are "dynamic". What it addresses is named by
// a dge-table variable, which def.json describes with a list of var_ids
// instead of a size (the spec: list, "List of var_ids to populate the
// table with", used with type dge-table); the runtime sizes and fills the
// table with those variables' device addresses. Seen in neuronx-cc 2.23:
// {"list": [1, 2, 3], "type": "dge-table", "var_id": 5}, the kernel's
// inputs and output.

// VarDGETable is the variable type of a descriptor-generation table.
const VarDGETable = "dge-table"

// DGETable is one dge-table variable of a subgraph.
type DGETable struct {
	Name  string `json:"name"`
	VarID *int64 `json:"var_id,omitempty"`
	// List is the var_ids the table holds, Vars their variables' names
	// ("" for a var_id no variable has; check reports it).
	List []int64  `json:"list"`
	Vars []string `json:"variables"`
}

// DGETables returns the subgraph's dge-table variables by name.
func (sg *Subgraph) DGETables() []DGETable {
	if sg == nil || sg.Def == nil {
		return nil
	}
	byID := map[int64]string{}
	for n, v := range sg.Def.Var {
		if v != nil && v.VarID != nil {
			byID[*v.VarID] = n
		}
	}
	var out []DGETable
	for n, v := range sg.Def.Var {
		if v == nil || v.TypeName() != VarDGETable {
			continue
		}
		t := DGETable{Name: n, VarID: v.VarID, List: append([]int64{}, v.List...), Vars: make([]string, len(v.List))}
		for i, id := range v.List {
			t.Vars[i] = byID[id]
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Describe is one line saying what the table holds; name makes each name
// fit for the output (termsafe.Name for a terminal).
func (t DGETable) Describe(name func(string) string) string {
	parts := make([]string, len(t.List))
	for i, id := range t.List {
		if t.Vars[i] != "" {
			parts[i] = fmt.Sprintf("%s (var_id %d)", name(t.Vars[i]), id)
		} else {
			parts[i] = fmt.Sprintf("var_id %d (no such variable)", id)
		}
	}
	what := "no variables"
	if len(parts) > 0 {
		what = strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s: descriptor-generation table of %s, filled by the runtime with their addresses for the DGE hardware", name(t.Name), what)
}

// DGENote says, for a subgraph with dge-table variables, what the DMA
// figures npukit derives from the engine JSONs leave out; "" when it has
// none. dma and sim print it: they do not model descriptor generation.
func (sg *Subgraph) DGENote(descriptors int) string {
	ts := sg.DGETables()
	if len(ts) == 0 {
		return ""
	}
	var names []string
	for _, t := range ts {
		vs := make([]string, 0, len(t.Vars))
		for i, v := range t.Vars {
			if v == "" {
				v = fmt.Sprintf("var_id %d", t.List[i])
			}
			vs = append(vs, termsafe.Name(v))
		}
		names = append(names, fmt.Sprintf("%s (%s)", termsafe.Name(t.Name), strings.Join(vs, ", ")))
	}
	return fmt.Sprintf("subgraph %s uses descriptor generation at run time (dge-table %s; DMA_DIRECT2D on Sync and Scalar: the DGE hardware, on GpSimd: software): the DMA generated at run time is not written in the NEFF and npukit does not model descriptor-generation tables; these figures count only the %s the engine JSONs write",
		termsafe.Name(sg.Name), strings.Join(names, "; "), humanize.Plural(descriptors, "descriptor"))
}

// DGETransfers counts the DMAs an engine's instructions describe
// (DMA_DIRECT2D, hardware descriptor generation: the descriptors are
// generated at run time, not written in the engine JSON) and the bytes
// they move, sizes decoded from the instructions as `npukit sim` prices
// them. Streams are decoded on NeuronCore-v2 and later (and unknown
// targets), as sim does; 0, 0 otherwise or without an instruction
// stream.
func (m *Model) DGETransfers(e *Engine) (n int, bytes int64) {
	if g := m.Generation(); g != nil && g.Version < 2 || e == nil || e.InstrMember == "" || m.File == nil {
		return 0, 0
	}
	mem, ok := m.File.Member(e.InstrMember)
	if !ok {
		return 0, 0
	}
	for _, in := range isa.Decode(mem.Data) {
		if in.Op.Class == isa.DMADirect {
			n++
			bytes = satAdd(bytes, in.DMABytes)
		}
	}
	return n, bytes
}

// DGEBytesNote says what the DGE columns count.
//
// Who generates the descriptors: the DGE hardware for Sync's and Scalar's
// DMA_DIRECT2D (queues qSPDynamicHW, qActDynamicHW), software on GpSimd
// (qPoolDynamic, as npukit sim prices it). The captures of the same runs
// agree within 0.05%: baseline_attention's hardware-generated 4.1 MiB
// are its Sync and Scalar DGE bytes, its software-generated 1.0 MiB its
// GpSimd ones; the MoE v6b's 24.0 MiB, all on GpSimd, are all
// software-generated.
const DGEBytesNote = "DGE: DMAs the instructions describe (DMA_DIRECT2D) and whose descriptors are generated at run time, by the DGE hardware on Sync and Scalar, by software on GpSimd; sizes decoded from the instructions as npukit sim prices them; DESCRIPTORS and DMA BYTES count the descriptors the engine JSONs write"

// SubgraphDGETransfers sums DGETransfers over the engines of the named
// subgraph.
func (m *Model) SubgraphDGETransfers(name string) (n int, bytes int64) {
	for _, sg := range m.Subgraphs {
		if sg.Name != name {
			continue
		}
		for _, e := range sg.Engines {
			k, b := m.DGETransfers(e)
			n, bytes = n+k, satAdd(bytes, b)
		}
	}
	return n, bytes
}
