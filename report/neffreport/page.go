// Package neffreport builds the report page of AWS Neuron NEFF files.
package neffreport

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neuroncore"
	"github.com/npukit/npukit/report"
)

// File is one NEFF of a report: its file name, its decoded model (nil
// when the payload could not be read) and its check findings.
type File struct {
	Name        string
	Model       *neff.Model
	Diagnostics diag.Report
	// Predicted is `npukit sim`'s predicted kernel time with what it
	// includes ("" when the NEFF could not be simulated), so that the
	// report and sim give one answer.
	Predicted string
}

// Page renders one or more NEFFs: per NEFF its container, graph and
// engines, and the DMA traffic and simulated DMA timeline, with the
// findings linked to those sections.
func Page(files []File) (*report.Page, error) {
	return PageFunc(len(files), func(i int) (File, error) { return files[i], nil })
}

// PageFunc is Page of n NEFFs that file reads one at a time: on a page of
// several NEFFs each one's sections are rendered before the next is read,
// so that only one model (and one DMA simulation) is held at once (a
// 30-NEFF report held every model and every timeline's spans). An error
// of file stops the page.
func PageFunc(n int, file func(i int) (File, error)) (*report.Page, error) {
	if n == 0 {
		return nil, errors.New("no NEFF")
	}
	page := &report.Page{Title: "NEFF", Diagnostics: diag.Report{}}
	if n > 1 {
		page.Title = fmt.Sprintf("%d NEFFs", n)
	}
	var names []string
	var partFor []struct {
		file string
		of   func(diag.Diagnostic) string
	}
	for i := range n {
		f, err := file(i)
		if err != nil {
			return nil, err
		}
		first := len(page.Sections)
		name := filepath.Base(f.Name)
		names = append(names, name)
		rep, m := f.Diagnostics, f.Model
		page.Diagnostics = append(page.Diagnostics, rep.WithFile(name)...)
		if m == nil {
			page.Sections = append(page.Sections, report.Section{ID: fmt.Sprintf("neff-%d-header", i), Title: name + ": unreadable",
				Intro: "The payload could not be read; the diagnostics say why."})
			continue
		}
		s := neff.Summarize(m)
		if n == 1 {
			page.Summary = neffSummaryKVs(s, rep)
			if f.Predicted != "" {
				page.Summary = append(page.Summary, report.KV{Key: "Predicted time (npukit sim)", Value: f.Predicted})
			}
		} else {
			// One line per file (issue 32: the summary covered the first
			// file only, "0 errors" above another file's warning).
			// The predicted time too, as the one-file summary gives it
			// (audit item 23).
			predicted := ""
			if f.Predicted != "" {
				predicted = "; predicted time (npukit sim) " + f.Predicted
			}
			page.Summary = append(page.Summary, report.KV{Key: name, Value: fmt.Sprintf("%s, compiler %s, %s device memory; check: %s%s",
				neffTargets(s), s.Compiler, humanize.Bytes(s.Memory.Total), rep.Summary(), predicted)})
		}
		page.Sections = append(page.Sections, neffSections(i, name, m, s)...)
		page.Sections = append(page.Sections, graphSections(i, name, m)...)
		// The DMA traffic and timeline; section IDs unique per file.
		secs := neffDMASections(m)
		prefix := fmt.Sprintf("neff-%d-", i)
		for j := range secs {
			secs[j].ID = prefix + secs[j].ID
			if n > 1 {
				secs[j].Title = name + ": " + secs[j].Title
			}
		}
		// Each file's timelines draw its share of one page-wide budget
		// (a 30-NEFF page was 45 MB, mostly DMA timelines).
		report.BoundCharts(secs, report.FileMarks(n))
		page.Sections = append(page.Sections, secs...)
		if n > 1 {
			if err := report.Prerender(page.Sections[first:]); err != nil {
				return nil, err
			}
		}
		// The findings' links need the subgraphs' names and directories
		// only, not the model.
		mm := &neff.Model{}
		for _, sg := range m.Subgraphs {
			mm.Subgraphs = append(mm.Subgraphs, &neff.Subgraph{Name: sg.Name, Dir: sg.Dir})
		}
		partFor = append(partFor, struct {
			file string
			of   func(diag.Diagnostic) string
		}{name, func(d diag.Diagnostic) string {
			if id := neffDMASectionFor(mm, d); id != "" {
				return prefix + id
			}
			return ""
		}})
	}
	page.Subtitle = names[0]
	if len(names) > 1 {
		page.Subtitle += fmt.Sprintf(" and %d more", len(names)-1)
		page.Summary = append(page.Summary, report.KV{Key: "Check, all files", Value: page.Diagnostics.Summary()})
	}
	page.SectionFor = func(d diag.Diagnostic) string {
		for _, p := range partFor {
			if p.file == d.File {
				if id := p.of(d); id != "" {
					return id
				}
			}
		}
		for i, n := range names {
			if d.File != n {
				continue
			}
			switch {
			case strings.HasPrefix(d.Location, "offset"), strings.HasPrefix(d.Location, "header"):
				return fmt.Sprintf("neff-%d-header", i)
			case strings.Contains(d.Location, "/"):
				return fmt.Sprintf("neff-%d-engines", i)
			}
			return fmt.Sprintf("neff-%d-structure", i)
		}
		return ""
	}
	return page, nil
}

// neffTargets names the NEFF's targets: "sunda (trn1/inf2)".
func neffTargets(s *neff.Summary) string {
	var targets []string
	for _, t := range s.Targets {
		targets = append(targets, fmt.Sprintf("%s (%s)", t.Target, t.Arch))
	}
	return strings.Join(targets, ", ")
}

func neffSummaryKVs(s *neff.Summary, rep diag.Report) []report.KV {
	hash := "ok, " + string(s.Header.HashForm) + " form"
	if !s.Header.HashOK {
		hash = "MISMATCH"
	}
	if !s.Header.Hashed {
		hash = "not checked (unpacked directory: no payload)"
	}
	return []report.KV{
		{Key: "NEFF version", Value: fmt.Sprintf("%s (pkg_version %d, feature bits %s)", s.Header.NeffVersion, s.Header.PkgVersion, s.Header.FeatureBits)},
		{Key: "Target", Value: neffTargets(s)},
		{Key: "Compiler", Value: s.Compiler},
		{Key: "Hash", Value: hash},
		{Key: "Inputs / outputs", Value: fmt.Sprintf("%d / %d", len(s.Inputs), len(s.Outputs))},
		{Key: "Device memory estimate", Value: humanize.Bytes(s.Memory.Total)},
		{Key: "Check", Value: rep.Summary()},
	}
}

func neffSections(i int, name string, m *neff.Model, s *neff.Summary) []report.Section {
	id := func(what string) string { return fmt.Sprintf("neff-%d-%s", i, what) }
	h := s.Header
	header := &report.KeyValues{Caption: "Header", Items: []report.KV{
		{Key: "name", Value: h.Name}, {Key: "NEFF version", Value: h.NeffVersion}, {Key: "pkg_version", Value: strconv.FormatUint(h.PkgVersion, 10)},
		{Key: "build version", Value: h.BuildVersion}, {Key: "feature bits", Value: h.FeatureBits},
		{Key: "num_tpb / lnc", Value: fmt.Sprintf("%d / %d", h.NumTPB, h.LNCSize)}, {Key: "uuid", Value: h.UUID},
		{Key: "hash", Value: fmt.Sprintf("%s form, ok=%v", h.HashForm, h.HashOK)},
		{Key: "payload", Value: fmt.Sprintf("%s stored (%s padding), %s tar, %s", humanize.Bytes(s.Payload.Stored), humanize.Bytes(s.Payload.Padding), humanize.Bytes(s.Payload.Uncompressed), humanize.Plural(s.Members, "member"))},
	}}
	secs := []report.Section{{ID: id("header"), Title: name + ": header", Intro: "The fixed 1024-byte header the runtime gates on, and the payload framing.", Blocks: []report.Block{header}}}

	secs = append(secs, report.Section{ID: id("structure"), Title: name + ": structure",
		Intro:  "The tar members by directory, and each kelf's subgraphs with their engines, queue sets and variables.",
		Blocks: []report.Block{neffMemberTree(m), neffGraphTree(m)}})

	io := &report.Table{Caption: "Inputs and outputs", Header: []string{"dir", "id", "name", "dtype", "shape", "bytes", "from"}, Numeric: []int{1, 5}}
	for _, side := range []struct {
		dir string
		ts  []neff.TensorSummary
	}{{"in", s.Inputs}, {"out", s.Outputs}} {
		for _, t := range side.ts {
			from := t.Source
			if t.Signature != "" {
				from = "signature " + t.Signature
			}
			b := "?"
			if t.Bytes >= 0 {
				b = humanize.Bytes(t.Bytes)
			}
			io.Rows = append(io.Rows, []string{side.dir, strconv.FormatInt(t.ID, 10), t.Name, t.DType, fmt.Sprint(t.Shape), b, from})
		}
	}
	secs = append(secs, report.Section{ID: id("io"), Title: name + ": inputs and outputs", Intro: "The tensors neff.json's signatures declare, and def.json input/output variables no signature names.", Blocks: []report.Block{io}})

	eng := &report.Table{Caption: "Engines", Header: []string{"subgraph", "engine", "member", "instructions", "DMA entries", "descriptors", "DMA bytes"}, Numeric: []int{3, 4, 5, 6}}
	qs := &report.Table{Caption: "DMA queue sets", Header: []string{"subgraph", "queue set", "type", "queues", "owner"}, Numeric: []int{3}}
	var tables []string
	for _, sg := range s.Subgraphs {
		for _, e := range sg.Engines {
			instr := humanize.Count(e.Instructions)
			if e.Instructions < 0 {
				instr = "absent"
			}
			eng.Rows = append(eng.Rows, []string{sg.Name, neuroncore.NEFFEngineLabel(e.Key), e.Member, instr, humanize.Count(int64(e.DMAEntries)), humanize.Count(int64(e.Descriptors)), humanize.Bytes(e.DMABytes)})
		}
		for _, q := range sg.Queues {
			qs.Rows = append(qs.Rows, []string{sg.Name, q.Name, q.Type, strconv.FormatInt(q.Queues, 10), q.Owner})
		}
		for _, a := range sg.ActivationSets {
			tables = append(tables, sg.Name+": activation function set "+a)
		}
		for _, t := range sg.DVETables {
			tables = append(tables, sg.Name+": DVE tables "+t.Describe())
		}
	}
	blocks := []report.Block{eng, qs}
	if len(tables) > 0 {
		blocks = append(blocks, &report.Text{Text: strings.Join(tables, "; ")})
	}
	secs = append(secs, report.Section{ID: id("engines"), Title: name + ": engines and queues", Intro: "Per engine: 64-byte instruction slots, DMA entries and descriptors, and the bytes the descriptors read.", Blocks: blocks})

	mem := s.Memory
	chart := &report.BarChart{Caption: "Device memory estimate", Unit: report.Bytes, XLabel: "device memory",
		Series: []report.Series{{Name: "IO"}, {Name: "constants"}, {Name: "shared scratchpad"}, {Name: "private scratchpad"}, {Name: "DMA rings"}},
		Bars: []report.HBar{{Label: name, Segments: []report.Segment{
			{Series: 0, Value: float64(mem.IO), Tip: humanize.Bytes(mem.IO)},
			{Series: 1, Value: float64(mem.Constants), Tip: humanize.Bytes(mem.Constants)},
			{Series: 2, Value: float64(mem.SharedScratchpad), Tip: humanize.Bytes(mem.SharedScratchpad)},
			{Series: 3, Value: float64(mem.PrivateScratchpad), Tip: humanize.Bytes(mem.PrivateScratchpad)},
			{Series: 4, Value: float64(mem.DMARings), Tip: humanize.Bytes(mem.DMARings)},
		}}}}
	memBlocks := []report.Block{chart, &report.KeyValues{Caption: "Estimate", Items: []report.KV{
		{Key: "IO (each input and output once)", Value: humanize.Bytes(mem.IO)}, {Key: "constants", Value: humanize.Bytes(mem.Constants)},
		{Key: "shared scratchpad (virtual vars, 64 MiB units)", Value: humanize.Bytes(mem.SharedScratchpad)},
		{Key: "private scratchpad (tmp-buf vars)", Value: humanize.Bytes(mem.PrivateScratchpad)},
		{Key: "DMA rings (16 B per descriptor)", Value: humanize.Bytes(mem.DMARings)}, {Key: "total", Value: humanize.Bytes(mem.Total)},
	}}}
	if len(s.Constants) > 0 {
		ct := &report.Table{Caption: "Constants", Header: []string{"subgraph", "name", "file", "size", "format"}, Numeric: []int{3}}
		for _, c := range s.Constants {
			ct.Rows = append(ct.Rows, []string{c.Subgraph, c.Name, c.File, humanize.Bytes(c.Size), c.Format})
		}
		memBlocks = append(memBlocks, ct)
	}
	secs = append(secs, report.Section{ID: id("memory"), Title: name + ": device memory", Intro: "What the NEFF takes in device memory: " + neff.MemoryEstimateCounts + ".", Blocks: memBlocks})
	return secs
}

// neffMemberTree groups the members by directory with their sizes.
func neffMemberTree(m *neff.Model) *report.Tree {
	type dir struct {
		files []report.TreeNode
		bytes int64
	}
	dirs := map[string]*dir{}
	for _, mem := range m.File.Members {
		d := path.Dir(mem.Name)
		if dirs[d] == nil {
			dirs[d] = &dir{}
		}
		dirs[d].files = append(dirs[d].files, report.TreeNode{Label: path.Base(mem.Name), Detail: humanize.Bytes(int64(len(mem.Data)))})
		dirs[d].bytes += int64(len(mem.Data))
	}
	keys := make([]string, 0, len(dirs))
	for k := range dirs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t := &report.Tree{Caption: "Members"}
	for _, k := range keys {
		if k == "." {
			t.Root = append(t.Root, dirs[k].files...)
			continue
		}
		t.Root = append(t.Root, report.TreeNode{Label: k + "/", Detail: fmt.Sprintf("%s, %s", humanize.Plural(len(dirs[k].files), "file"), humanize.Bytes(dirs[k].bytes)), Children: dirs[k].files})
	}
	return t
}

// neffGraphTree shows kelf -> subgraph -> engines, queue sets, variables.
func neffGraphTree(m *neff.Model) *report.Tree {
	t := &report.Tree{Caption: "Graphs"}
	for _, k := range m.Kelfs {
		kn := report.TreeNode{Label: k.Member, Detail: "target " + strconv.Quote(derefStr(k.Kelf.Target))}
		for _, sg := range m.Subgraphs {
			if sg.Kelf != k.Member {
				continue
			}
			sn := report.TreeNode{Label: sg.Name, Detail: sg.DefMember}
			if sg.Def != nil {
				var engs, qs, vars []report.TreeNode
				for _, e := range sg.Engines {
					detail := e.Member
					if e.JSON != nil {
						detail += ", " + humanize.Plural(len(e.JSON.DMA), "DMA entry")
					}
					engs = append(engs, report.TreeNode{Label: neuroncore.NEFFEngineLabel(e.Key), Detail: detail})
				}
				for _, qn := range sg.Def.QueueNames() {
					q := sg.Def.DMAQueue[qn]
					if q != nil {
						qs = append(qs, report.TreeNode{Label: qn, Detail: fmt.Sprintf("%s, %d queues", derefStr(q.Type), q.Queues())})
					}
				}
				for _, vn := range sg.Def.VarNames() {
					v := sg.Def.Var[vn]
					if v != nil {
						vars = append(vars, report.TreeNode{Label: vn, Detail: fmt.Sprintf("%s, %s", v.TypeName(), humanize.Bytes(v.SizeBytes()))})
					}
				}
				sn.Children = []report.TreeNode{
					{Label: "engines", Detail: strconv.Itoa(len(engs)), Children: engs},
					{Label: "queue sets", Detail: strconv.Itoa(len(qs)), Children: qs},
					{Label: "variables", Detail: strconv.Itoa(len(vars)), Children: vars},
				}
			}
			kn.Children = append(kn.Children, sn)
		}
		t.Root = append(t.Root, kn)
	}
	return t
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
