package npukit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/internal/npyarray"
	"github.com/npukit/npukit/neff"
	"github.com/npukit/npukit/neff/dma"
	"github.com/npukit/npukit/neff/dmaprog"
)

// neffDMAShown is how many findings the text form of a DMA listing shows
// (ShowAll: every one).
const neffDMAShown = 20

// NeffDMA lists the DMA program of every subgraph of a NEFF (what `npukit
// neff dma` prints): per engine and queue the descriptors, bytes, runs by
// size and partitions touched, and the efficiency findings one by one.
// Execute on the result runs the programs.
func (a *Artifact) NeffDMA(o *Options) (*NeffDMAListing, error) {
	if a.Kind != detect.NEFF && a.Kind != detect.NEFFDir {
		return nil, &UnsupportedError{Name: a.Name, Kind: a.Describe(), Op: "the NEFF DMA listing"}
	}
	m, progs, err := neffPrograms(a, o)
	if err != nil {
		return nil, err
	}
	l := &NeffDMAListing{File: a.Name, model: m, progs: progs}
	params := dmaprog.SetupFor(m).Params
	for _, p := range progs {
		sg := NeffDMASubgraph{Subgraph: p.Subgraph, Queues: p.Queues, Vars: p.Vars,
			Analysis: dma.Analyze(p.Descriptors, p.Layout), Findings: dma.Findings(p.Descriptors, p.Layout, params), Skipped: p.Problems}
		sg.Findings.Sort()
		sg.DGENote = neffDGENote(m, p.Subgraph, len(p.Descriptors))
		sg.DGETransfers, sg.DGEBytes = m.SubgraphDGETransfers(p.Subgraph)
		l.Subgraphs = append(l.Subgraphs, sg)
	}
	return l, nil
}

// neffDGENote is the subgraph's note on hardware descriptor generation
// (neff.Subgraph.DGENote), "" when it has no dge-table.
func neffDGENote(m *neff.Model, subgraph string, descriptors int) string {
	for _, sg := range m.Subgraphs {
		if sg.Name == subgraph {
			return sg.DGENote(descriptors)
		}
	}
	return ""
}

// NeffDMAListing is the DMA program of a NEFF, and after Execute what it
// wrote.
type NeffDMAListing struct {
	File      string            `json:"file"`
	Subgraphs []NeffDMASubgraph `json:"subgraphs"`
	// ShowAll makes the text list every finding and written file (else
	// the findings as check prints them, one line per rule, and the first
	// 20 files written).
	ShowAll bool `json:"-"`
	model   *neff.Model
	progs   []*dmaprog.Program
}

// NeffDMASubgraph is one subgraph's DMA program.
type NeffDMASubgraph struct {
	Subgraph string         `json:"subgraph"`
	Queues   []dma.QueueSet `json:"queue_sets"`
	Vars     []dmaprog.Var  `json:"vars"`
	Analysis *dma.Analysis  `json:"analysis"`
	// Findings are Analysis's diagnostics as check prints them: one line
	// per rule (dma.Findings), with how many descriptors show it.
	Findings diag.Report       `json:"findings"`
	Skipped  []dmaprog.Problem `json:"skipped,omitempty"`
	// DGENote says what the figures leave out when the subgraph uses
	// hardware descriptor generation (a dge-table variable).
	DGENote string `json:"dge_note,omitempty"`
	// DGETransfers and DGEBytes are the DMAs the instructions describe
	// and the hardware generates at run time (neff.Model.DGETransfers),
	// which Analysis, of the descriptors written, leaves out.
	DGETransfers int               `json:"dge_transfers"`
	DGEBytes     int64             `json:"dge_bytes"`
	Executed     *dmaprog.Executed `json:"executed,omitempty"`
	Written      []NeffNpyFile     `json:"written,omitempty"`
}

// NeffNpyFile is a variable Execute wrote as .npy.
type NeffNpyFile struct {
	Var   string  `json:"var"`
	Path  string  `json:"path"`
	DType string  `json:"dtype"` // as written in the .npy
	Shape []int64 `json:"shape"`
	// VarDType is the variable's own type when .npy cannot hold it
	// (bfloat16, float8, float32r: written as float32, exactly).
	VarDType string `json:"var_dtype,omitempty"`
}

// WriteText prints the listing as `npukit neff dma` does.
func (l *NeffDMAListing) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "NEFF DMA program: %s\n", l.File)
	for _, sg := range l.Subgraphs {
		a := sg.Analysis
		fmt.Fprintf(w, "\nSubgraph %s: %s descriptors moving %s over %s\n", sg.Subgraph, humanize.Count(int64(a.Descriptors)), humanize.Bytes(a.Bytes), humanize.Plural(len(sg.Queues), "queue set"))
		if sg.DGETransfers > 0 {
			fmt.Fprintf(w, "DGE: %s moving %s, described by DMA_DIRECT2D instructions and generated at run time (sizes decoded from the instructions, as npukit sim prices them); the descriptor figures count only those written in the NEFF\n",
				humanize.Plural(sg.DGETransfers, "transfer"), humanize.Bytes(sg.DGEBytes))
		}
		if a.Descriptors > 0 {
			writeDMATable(w, a)
		}
		if len(a.Ops) > 1 || len(a.Ops) == 1 && a.Ops[0].Op != dma.OpCopy {
			parts := make([]string, len(a.Ops))
			for i, o := range a.Ops {
				parts[i] = fmt.Sprintf("%s %s (%s)", o.Op, humanize.Count(int64(o.Descriptors)), humanize.Bytes(o.Bytes))
			}
			fmt.Fprintf(w, "By operation: %s\n", strings.Join(parts, ", "))
		}
		if sg.DGENote != "" {
			fmt.Fprintf(w, "Note: %s\n", sg.DGENote)
		}
		if len(sg.Skipped) > 0 {
			fmt.Fprintf(w, "%s left out (they do not resolve; see npukit check):\n", humanize.Plural(len(sg.Skipped), "descriptor"))
			for _, p := range sg.Skipped {
				fmt.Fprintf(w, "  %s: %s\n", p.Location, p.Message)
			}
		}
		writeDMADiagnostics(w, a.Diagnostics, sg.Findings, l.ShowAll)
		if sg.Executed != nil {
			fmt.Fprintf(w, "Executed %s (%s written); engine instructions were not executed.\n", humanize.Plural(sg.Executed.Descriptors, "descriptor"), humanize.Bytes(sg.Executed.Bytes))
			for i, f := range sg.Written {
				if i == neffDMAShown && !l.ShowAll {
					fmt.Fprintf(w, "  ... %s more (--all lists them)\n", humanize.Plural(len(sg.Written)-i, "file"))
					break
				}
				held := f.DType
				if f.VarDType != "" {
					held = fmt.Sprintf("%s (held as %s: .npy has no %s)", f.VarDType, f.DType, f.VarDType)
				}
				fmt.Fprintf(w, "  %-20s %s %v -> %s\n", f.Var, held, f.Shape, f.Path)
			}
		}
	}
	return nil
}

// writeDMATable prints the descriptors per engine and queue, with their
// runs by size.
func writeDMATable(w io.Writer, a *dma.Analysis) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ENGINE\tQUEUE\tDESCRIPTORS\tBYTES\tRUNS\t<64B\t<512B\t<2KiB\t<4KiB\t<64KiB\t>=64KiB\tPARTITIONS\t")
	for _, q := range a.Queues {
		h := q.Histogram
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", q.Engine, q.Queue, cnt(q.Descriptors), humanize.Bytes(q.Bytes), cnt(q.Runs),
			cnt(h.Under64), cnt(h.Under512), cnt(h.Under2K), cnt(h.Under4K), cnt(h.Under64K), cnt(h.From64KUp), cnt(q.Partitions))
	}
	h := a.Histogram
	fmt.Fprintf(tw, "total\t\t%s\t%s\t\t%s\t%s\t%s\t%s\t%s\t%s\t\t\n", cnt(a.Descriptors), humanize.Bytes(a.Bytes), cnt(h.Under64), cnt(h.Under512), cnt(h.Under2K), cnt(h.Under4K), cnt(h.Under64K), cnt(h.From64KUp))
	tw.Flush()
	fmt.Fprintf(w, "RUNS and the size columns count the runs of %s.\n", dma.RunsSide)
}

// writeDMADiagnostics prints counts per rule and the findings: as check
// prints them (folded, one line per rule: grouped), or every one (all).
func writeDMADiagnostics(w io.Writer, rep, grouped diag.Report, all bool) {
	if len(rep) == 0 {
		fmt.Fprintln(w, "Efficiency: no findings.")
		return
	}
	byRule := map[string]int{}
	for _, d := range rep {
		byRule[d.Rule]++
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	fmt.Fprintln(w, "Efficiency findings:")
	for _, r := range rules {
		desc := ""
		if rule, ok := diag.Lookup(r); ok {
			desc = rule.Description
		}
		fmt.Fprintf(w, "  %-34s %6s  %s\n", r, humanize.Count(int64(byRule[r])), desc)
	}
	if all {
		rep.WriteText(w)
		return
	}
	grouped.WriteText(w)
	if grouped.Findings() > len(grouped) {
		fmt.Fprintln(w, "(--all lists every finding, --json gives them all)")
	}
}

// NeffInput is the initial content of a variable for Execute: a C-order,
// little-endian .npy file.
type NeffInput struct {
	Var, Path string
}

// ErrDMAExecute marks a DMA program that failed while running (as
// opposed to a problem with its inputs or options).
var ErrDMAExecute = errors.New("the DMA program failed")

// Execute runs each subgraph's DMA program functionally (engine
// instructions are not executed) over variable memories of at most budget
// bytes per subgraph (0: dmaprog.DefaultBudget), with the given inputs and
// every file variable loaded from its constant, and writes every device
// variable the program touched to outDir/NAME.npy (outDir/SUBGRAPH/NAME.npy
// for several subgraphs), in the variable's own dtype where .npy has it.
// outDir is replaced only if it is empty or force is set.
func (l *NeffDMAListing) Execute(inputs []NeffInput, outDir string, force bool, budget int64) error {
	if budget <= 0 {
		budget = dmaprog.DefaultBudget()
	}
	progs, subs := l.progs, l.Subgraphs
	mems := make([]*dmaprog.Memory, len(progs))
	for i, p := range progs {
		mems[i] = p.NewMemory(budget)
	}
	for _, in := range inputs {
		name, file := in.Var, in.Path
		data, err := readNpyBytes(file)
		if err != nil {
			return fmt.Errorf("input %s: %w", name, err)
		}
		found := false
		for i, p := range progs {
			v, ok := p.Var(name)
			if !ok {
				continue
			}
			found = true
			if int64(len(data)) != v.Size {
				return fmt.Errorf("input %s: %s holds %d data bytes; variable %q of %s holds %d", name, file, len(data), name, p.Subgraph, v.Size)
			}
			if err := mems[i].SetInput(name, data); err != nil {
				return fmt.Errorf("input %s: %w", name, err)
			}
		}
		if !found {
			return fmt.Errorf("input %s: no subgraph declares a variable %q", name, name)
		}
	}
	m := l.model
	return atomicfile.Dir(outDir, force, func(tmp string) error {
		for i, p := range progs {
			ex, err := p.Execute(mems[i])
			var be *dmaprog.BudgetError
			if errors.As(err, &be) {
				return fmt.Errorf("execute %s: %w", p.Subgraph, be)
			}
			if err != nil {
				return fmt.Errorf("%w: %w", ErrDMAExecute, err)
			}
			subs[i].Executed = &ex
			dir, rel := tmp, ""
			if len(progs) > 1 {
				rel = p.Subgraph
				d, err := atomicfile.Join(tmp, p.Subgraph)
				if err != nil {
					return err
				}
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
				dir = d
			}
			used := map[string]bool{}
			for _, name := range mems[i].Allocated() {
				v, _ := p.Var(name)
				if v.Type == "state-buffer" {
					continue
				}
				b, _ := mems[i].Bytes(name)
				t, shape := neffVarType(m, p, v)
				file := npyFileName(name, v.ID, used)
				path, err := atomicfile.Join(dir, file)
				if err != nil {
					return err
				}
				wt, err := writeVarNpy(path, t, shape, b)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				wr := NeffNpyFile{Var: name, Path: filepath.Join(outDir, rel, file), DType: wt.String(), Shape: shape}
				if wt != t {
					wr.VarDType = t.String()
				}
				subs[i].Written = append(subs[i].Written, wr)
			}
		}
		return nil
	})
}

// npyFileName makes a variable name a safe, unique file name: characters
// other than letters, digits, '.', '_' and '-' become '_', and a clash
// (or an empty or dot name) gets the var_id appended.
func npyFileName(name string, id int64, used map[string]bool) string {
	safe := []byte(name)
	for i, c := range safe {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			safe[i] = '_'
		}
	}
	base := string(safe)
	if strings.Trim(base, ".") == "" {
		base = ""
	}
	if base == "" || used[base] || len(base) > 200 {
		base = fmt.Sprintf("%.200s_var%d", base, id)
	}
	used[base] = true
	return base + ".npy"
}

// neffVarType finds a variable's element type and shape: the neff.json
// signature, then tensor_map.json, then the dtype descriptors use for it;
// a flat byte array when nothing fits the variable's size.
func neffVarType(m *neff.Model, p *dmaprog.Program, v dmaprog.Var) (dtype.T, []int64) {
	fits := func(name string, shape []int64) (dtype.T, []int64, bool) {
		t, err := dtype.Parse(name)
		if err != nil || t.Size() == 0 {
			return 0, nil, false
		}
		n := int64(t.Size())
		for _, d := range shape {
			if d < 0 || d > v.Size {
				return 0, nil, false
			}
			n *= d
		}
		if n != v.Size {
			return 0, nil, false
		}
		return t, shape, true
	}
	if all := m.Signatures(); all != nil {
		sigs := make([]string, 0, len(all))
		for k := range all {
			sigs = append(sigs, k)
		}
		sort.Strings(sigs)
		for _, k := range sigs {
			s := all[k]
			for _, set := range []map[string]neff.SigTensor{s.Inputs, s.Outputs} {
				if st, ok := set[v.Name]; ok {
					if t, sh, ok := fits(st.DType, st.Shape); ok {
						return t, sh
					}
				}
			}
		}
	}
	if v.Type == "file" && strings.HasSuffix(v.File, ".npy") && m.File != nil {
		if mem, ok := m.File.Member(v.File); ok {
			if info, err := neff.NpyInfo(mem.Data); err == nil && !info.Fortran {
				shape := make([]int64, len(info.Shape))
				for i, d := range info.Shape {
					shape[i] = int64(d)
				}
				if t, sh, ok := fits(info.DType(), shape); ok {
					return t, sh
				}
			}
		}
	}
	for _, sg := range m.Subgraphs {
		if sg.Name != p.Subgraph {
			continue
		}
		if e := sg.TensorMap[v.Name]; e != nil {
			for _, sh := range [][]int64{e.TFShape, e.SimShape} {
				if t, s, ok := fits(e.DType, sh); ok {
					return t, s
				}
			}
		}
	}
	for _, d := range p.Descriptors {
		sides := append([]dma.Side{d.Transfer.To}, d.Transfer.From...)
		for _, s := range sides {
			if s.Var == v.Name && s.DType != dtype.Uint8 && s.DType.Size() > 0 && v.Size%int64(s.DType.Size()) == 0 {
				return s.DType, []int64{v.Size / int64(s.DType.Size())}
			}
		}
	}
	return dtype.Uint8, []int64{v.Size}
}

// readNpyBytes returns the raw little-endian data of a C-order .npy file.
func readNpyBytes(path string) ([]byte, error) {
	b, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	info, err := neff.NpyInfo(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if info.Fortran {
		return nil, fmt.Errorf("%s: Fortran-order arrays are not supported", path)
	}
	if info.ItemSize > 1 && !strings.HasPrefix(info.Descr, "<") {
		return nil, fmt.Errorf("%s: descr %q is not little-endian", path, info.Descr)
	}
	data := b[int64(len(b))-info.DataBytes:]
	if info.ArrayBytes >= 0 {
		data = data[:info.ArrayBytes] // bytes a writer left after the array
	}
	return data, nil
}

// writeVarNpy writes b (elements of t) as .npy, keeping t where .npy can
// hold it (float16 included); bfloat16, float8 and float32r are written as
// float32, which is exact. The returned type is the one written.
func writeVarNpy(path string, t dtype.T, shape []int64, b []byte) (dtype.T, error) {
	wt := t
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		var err error
		wt, err = npyarray.Write(w, t, shape, b)
		return err
	})
	return wt, err
}

// cnt is a count in a table, with thousands separators like every count
// npukit prints.
func cnt[T int | int64](n T) string { return humanize.Count(int64(n)) }
