package neuroncore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// EncodePlan writes a plan in the YAML format ParsePlan reads
// (docs/sbuf-plan.md): the interchange form of a plan built in memory,
// e.g. one lowered from an NKI kernel. Loop ranges, references and
// allocation tables are written out in full.
func EncodePlan(p *Plan) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "name: %s\narch: %s\n", quote(p.Name), p.Arch.Name)
	if p.API != "" {
		fmt.Fprintf(&b, "api: %s\n", p.API)
	}
	if p.SerialTiles {
		b.WriteString("skip_middle_end_transformations: true\n")
	}
	if len(p.Grid) > 0 {
		fmt.Fprintf(&b, "grid: %s\n", intList(p.Grid))
		if len(p.ProgramID) == len(p.Grid) {
			fmt.Fprintf(&b, "program_id: %s\n", intList(p.ProgramID))
		}
	}
	if len(p.HBM) > 0 {
		b.WriteString("hbm:\n")
		for _, h := range p.HBM {
			fmt.Fprintf(&b, "  - {name: %s, kind: %s, output: %t}\n", quote(h.Name), h.Kind, h.Output)
		}
	}
	b.WriteString("tensors:\n")
	for _, t := range p.Tensors {
		fmt.Fprintf(&b, "  - name: %s\n", t.Name)
		if len(t.Block) > 0 {
			fmt.Fprintf(&b, "    block: %s\n", intList(t.Block))
		}
		fmt.Fprintf(&b, "    partitions: %d\n    free: %s\n    dtype: %s\n    buffer: %s\n", t.Partitions, intList(t.Free), t.DType, t.Buffer)
		switch t.Kind {
		case Mod:
			m := t.Mod
			fmt.Fprintf(&b, "    alloc: {mod_alloc: {base_bank: %d, base_addr: %d, base_partition: %d, num_bank_tiles: %s, num_par_tiles: %s, num_free_tiles: %s}}\n",
				m.BaseBank, m.BaseAddr, m.BasePartition, intList(m.NumBankTiles), intList(m.NumParTiles), intList(m.NumFreeTiles))
		case Table:
			b.WriteString("    alloc:\n      table:\n")
			for _, e := range t.Table {
				fmt.Fprintf(&b, "        - {index: %s, partition: %d, bank: %d, addr: %d}\n", intList(e.Index), e.Loc.Partition, e.Loc.Bank, e.Loc.Addr)
			}
		default:
			b.WriteString("    alloc: auto\n")
		}
		if t.Scope != "" {
			fmt.Fprintf(&b, "    scope: %s\n", t.Scope)
		}
		if strings.HasPrefix(t.Path, "tensors[") {
			continue
		}
		fmt.Fprintf(&b, "    # %s\n", t.Path)
	}
	b.WriteString("body:\n")
	encodeNodes(&b, p, p.Body, "  ")
	return b.Bytes()
}

func encodeNodes(b *bytes.Buffer, p *Plan, ns []Node, ind string) {
	if len(ns) == 0 {
		b.WriteString(ind + "[]\n")
		return
	}
	for _, n := range ns {
		if n.Loop != nil {
			l := n.Loop
			fmt.Fprintf(b, "%s- loop: %s\n%s  range: [%d, %d, %d]\n", ind, l.Var, ind, l.Start, l.Stop, l.Step)
			if l.Vectorize {
				fmt.Fprintf(b, "%s  vectorize: true\n", ind)
			}
			fmt.Fprintf(b, "%s  body:\n", ind)
			encodeNodes(b, p, l.Body, ind+"    ")
			continue
		}
		s := n.Step
		fmt.Fprintf(b, "%s- {op: %s, name: %s, engine: %s", ind, s.Op, quote(s.Name+" @ "+s.Path), s.Engine)
		if s.Func != "" {
			fmt.Fprintf(b, ", func: %s", quote(s.Func))
		}
		if len(s.Reads) > 0 {
			fmt.Fprintf(b, ", read: %s", refList(p, s.Reads))
		}
		if len(s.Writes) > 0 {
			fmt.Fprintf(b, ", write: %s", refList(p, s.Writes))
		}
		if s.Accumulate {
			b.WriteString(", accumulate: true")
		}
		if s.EngineByShape {
			b.WriteString(", engine_by_shape: true")
		}
		if s.EngineByLoad {
			b.WriteString(", engine_by_load: true")
		}
		if s.HBM != "" {
			fmt.Fprintf(b, ", hbm: %s", quote(s.HBM))
		}
		if s.HBMRun > 0 {
			fmt.Fprintf(b, ", hbm_run: %d", s.HBMRun)
		}
		if s.CopyBytes > 0 {
			fmt.Fprintf(b, ", bytes: %d", s.CopyBytes)
		}
		b.WriteString("}\n")
	}
}

func quote(s string) string {
	q, _ := json.Marshal(s) // a JSON string is a YAML double-quoted scalar
	return string(q)
}

func intList(v []int64) string {
	return "[" + intsJoined(v, ", ") + "]"
}

// refList writes references with their slice, "(PxF)", when a step
// touches part of a tile: the simulation charges the slice.
func refList(p *Plan, rs []Ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		text := r.Text
		if t := p.Tensors[r.Tensor]; r.Free > 0 && r.Part <= t.Partitions && r.Free <= t.FreeElems() && (r.Part != t.Partitions || r.Free != t.FreeElems()) {
			text += fmt.Sprintf("(%dx%d)", r.Part, r.Free)
		}
		parts[i] = quote(text)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
