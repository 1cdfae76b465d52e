package neff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/semdiff"
)

// isSpill reports whether a def.json variable is a spill slot: a virtual
// (DRAM scratch) variable the compiler named for a spill ("SpillSave",
// "SpillReload" in neuronx-cc's names).
func isSpill(name string, v *Var) bool {
	return v != nil && v.TypeName() == "virtual" && strings.Contains(name, "Spill")
}

// diffVerdict compares what inspect reports of two NEFFs: compiler,
// version and hash form, the I/O tensors by name, the device-memory
// estimate, per engine the instructions, DMA descriptors and bytes, and per
// subgraph the variables by type with the spill slots summarised.
func diffVerdict(a, b *Model) semdiff.List {
	var l semdiff.List
	sa, sb := Summarize(a), Summarize(b)
	l.Str("compiler", sa.Compiler, sb.Compiler)
	l.Str("NEFF version", sa.Header.NeffVersion, sb.Header.NeffVersion)
	l.Str("hash form", string(sa.Header.HashForm), string(sb.Header.HashForm))
	l.Int("NeuronCores (num_tpb)", semdiff.Count, int64(sa.Header.NumTPB), int64(sb.Header.NumTPB))
	l.Int("LNC size", semdiff.Count, int64(sa.Header.LNCSize), int64(sb.Header.LNCSize))
	diffIO(&l, "input", sa.Inputs, sb.Inputs)
	diffIO(&l, "output", sa.Outputs, sb.Outputs)
	ma, mb := sa.Memory, sb.Memory
	l.Int("device memory total", semdiff.Bytes, ma.Total, mb.Total)
	l.Int("device memory IO", semdiff.Bytes, ma.IO, mb.IO)
	l.Int("device memory constants", semdiff.Bytes, ma.Constants, mb.Constants)
	l.Int("device memory shared scratchpad", semdiff.Bytes, ma.SharedScratchpad, mb.SharedScratchpad)
	l.Int("device memory private scratchpad", semdiff.Bytes, ma.PrivateScratchpad, mb.PrivateScratchpad)
	l.Int("device memory DMA rings", semdiff.Bytes, ma.DMARings, mb.DMARings)
	multi := len(sa.Subgraphs) > 1 || len(sb.Subgraphs) > 1
	engines := func(s *Summary) map[string]EngineSummary {
		m := map[string]EngineSummary{}
		for _, sg := range s.Subgraphs {
			for _, e := range sg.Engines {
				k := neuroncore.NEFFEngineLabel(e.Key)
				if multi {
					k = sg.Name + " " + k
				}
				m[k] = e
			}
		}
		return m
	}
	ea, eb := engines(sa), engines(sb)
	for _, k := range unionKeys(ea, eb) {
		x, okA := ea[k]
		y, okB := eb[k]
		if !okA || !okB {
			e := x
			if !okA {
				e = y
			}
			l.Presence("engine "+k, humanize.Plural(int(e.Instructions), "instruction")+", "+humanize.Plural(int(e.Descriptors), "DMA descriptor"), okA)
			continue
		}
		l.Int(k+" instructions", semdiff.Count, x.Instructions, y.Instructions)
		l.Int(k+" DMA descriptors", semdiff.Count, int64(x.Descriptors), int64(y.Descriptors))
		l.Int(k+" DMA bytes", semdiff.Bytes, x.DMABytes, y.DMABytes)
	}
	va, vb := varsByType(a, multi), varsByType(b, multi)
	for _, k := range unionKeys(va, vb) {
		l.Int(k+" variables", semdiff.Count, va[k].n, vb[k].n)
		l.Int(k+" variable bytes", semdiff.Bytes, va[k].bytes, vb[k].bytes)
	}
	l.Int("constants", semdiff.Count, int64(len(sa.Constants)), int64(len(sb.Constants)))
	return l
}

func diffIO(l *semdiff.List, what string, a, b []TensorSummary) {
	ma, mb := map[string]TensorSummary{}, map[string]TensorSummary{}
	for _, t := range a {
		ma[t.Name] = t
	}
	for _, t := range b {
		mb[t.Name] = t
	}
	desc := func(t TensorSummary) string { return fmt.Sprintf("%s %v", t.DType, t.Shape) }
	for _, k := range unionKeys(ma, mb) {
		x, okA := ma[k]
		y, okB := mb[k]
		if !okA || !okB {
			t := x
			if !okA {
				t = y
			}
			l.Presence(what+" "+k, desc(t), okA)
			continue
		}
		l.Str(what+" "+k, desc(x), desc(y))
	}
}

type varCount struct{ n, bytes int64 }

// varsByType counts def.json variables by type ("virtual (spill)" for
// spill slots), prefixed by the subgraph when there are several.
func varsByType(m *Model, multi bool) map[string]varCount {
	out := map[string]varCount{}
	for _, sg := range m.Subgraphs {
		if sg.Def == nil {
			continue
		}
		for name, v := range sg.Def.Var {
			k := v.TypeName()
			if isSpill(name, v) {
				k = "spill (virtual)"
			}
			if multi {
				k = sg.Name + " " + k
			}
			c := out[k]
			c.n++
			c.bytes += v.SizeBytes()
			out[k] = c
		}
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	ks := make([]string, 0, len(seen))
	for k := range seen {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
