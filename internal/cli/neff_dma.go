package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/npukit/npukit"
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

func init() { registerNeffCommand(newNeffDMACmd) }

// neffDMAShown is how many diagnostics the text form lists (--all: every one).
const neffDMAShown = 20

// openNeffPrograms reads a NEFF and builds the DMA program of each subgraph.
func openNeffPrograms(path string) (*neff.Model, []*dmaprog.Program, error) {
	a, err := openArg(path)
	if err != nil {
		return nil, nil, err
	}
	if a.Kind != detect.NEFF && a.Kind != detect.NEFFDir {
		return nil, nil, wrongKind(path, a, "NEFF")
	}
	o, err := libOptions()
	if err != nil {
		return nil, nil, err
	}
	m, progs, err := npukit.NeffPrograms(a, o)
	if err != nil {
		return nil, nil, libErr(path, err)
	}
	return m, progs, nil
}

type neffDMASubgraph struct {
	Subgraph string             `json:"subgraph"`
	Queues   []dma.QueueSet     `json:"queue_sets"`
	Vars     []dmaprog.Var      `json:"vars"`
	Analysis *dma.Analysis      `json:"analysis"`
	Skipped  []dmaprog.Problem  `json:"skipped,omitempty"`
	Executed *dmaprog.Executed  `json:"executed,omitempty"`
	Written  []neffDMAWrittenNp `json:"written,omitempty"`
}

type neffDMAWrittenNp struct {
	Var   string  `json:"var"`
	Path  string  `json:"path"`
	DType string  `json:"dtype"` // as written in the .npy
	Shape []int64 `json:"shape"`
	// VarDType is the variable's own type when .npy cannot hold it
	// (bfloat16, float8, float32r: written as float32, exactly).
	VarDType string `json:"var_dtype,omitempty"`
}

type neffDMAOutput struct {
	File      string            `json:"file"`
	Subgraphs []neffDMASubgraph `json:"subgraphs"`
	all       bool
}

func (o neffDMAOutput) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "NEFF DMA program: %s\n", o.File)
	for _, sg := range o.Subgraphs {
		a := sg.Analysis
		fmt.Fprintf(w, "\nSubgraph %s: %s descriptors moving %s over %d queue sets\n", sg.Subgraph, humanize.Count(int64(a.Descriptors)), humanize.Bytes(a.Bytes), len(sg.Queues))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ENGINE\tQUEUE\tDESCRIPTORS\tBYTES\tRUNS\t<64B\t<512B\t<2KiB\t<4KiB\t<64KiB\t>=64KiB\tPARTITIONS\t")
		for _, q := range a.Queues {
			h := q.Histogram
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", q.Engine, q.Queue, q.Descriptors, humanize.Bytes(q.Bytes), q.Runs,
				h.Under64, h.Under512, h.Under2K, h.Under4K, h.Under64K, h.From64KUp, q.Partitions)
		}
		h := a.Histogram
		fmt.Fprintf(tw, "total\t\t%d\t%s\t\t%d\t%d\t%d\t%d\t%d\t%d\t\t\n", a.Descriptors, humanize.Bytes(a.Bytes), h.Under64, h.Under512, h.Under2K, h.Under4K, h.Under64K, h.From64KUp)
		tw.Flush()
		if len(a.Ops) > 1 || len(a.Ops) == 1 && a.Ops[0].Op != dma.OpCopy {
			parts := make([]string, len(a.Ops))
			for i, o := range a.Ops {
				parts[i] = fmt.Sprintf("%s %s (%s)", o.Op, humanize.Count(int64(o.Descriptors)), humanize.Bytes(o.Bytes))
			}
			fmt.Fprintf(w, "By operation: %s\n", strings.Join(parts, ", "))
		}
		if len(sg.Skipped) > 0 {
			fmt.Fprintf(w, "%d descriptors left out (they do not resolve; see npukit check):\n", len(sg.Skipped))
			for _, p := range sg.Skipped {
				fmt.Fprintf(w, "  %s: %s\n", p.Location, p.Message)
			}
		}
		writeDMADiagnostics(w, a.Diagnostics, o.all)
		if sg.Executed != nil {
			fmt.Fprintf(w, "Executed %d descriptors (%s written); engine instructions were not executed.\n", sg.Executed.Descriptors, humanize.Bytes(sg.Executed.Bytes))
			for i, f := range sg.Written {
				if i == neffDMAShown && !o.all {
					fmt.Fprintf(w, "  ... %d more files (--all lists them)\n", len(sg.Written)-i)
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

// writeDMADiagnostics prints counts per rule and the first diagnostics.
func writeDMADiagnostics(w io.Writer, rep diag.Report, all bool) {
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
		fmt.Fprintf(w, "  %-34s %6d  %s\n", r, byRule[r], desc)
	}
	shown := rep
	if !all && len(shown) > neffDMAShown {
		shown = shown[:neffDMAShown]
	}
	shown.WriteText(w)
	if len(shown) < len(rep) {
		fmt.Fprintf(w, "... %d more (--all lists every finding, --json gives them all)\n", len(rep)-len(shown))
	}
}

func newNeffDMACmd(env *Env) *cobra.Command {
	var execute, all, force bool
	var maxMemory string
	var inputs []string
	var outDir string
	cmd := &cobra.Command{
		Use:   "dma FILE.neff [--execute --input NAME=x.npy ... -o DIR]",
		Short: "DMA traffic per engine and queue with efficiency findings; --execute runs the DMA program",
		Long: `dma lists the DMA program of every subgraph: per engine JSON and queue the
descriptors, bytes, contiguous runs by size class and the state-buffer partitions
touched, then efficiency findings (rule IDs neff/dma-*) located at the descriptor
(engine JSON member, dma[i].desc[j], #comment).

--execute runs the DMA program functionally over variable memories laid out as
def.json declares (state buffer of 128 partitions with a 262144-byte stride, file
variables loaded from their constants, inputs from --input NAME=x.npy, all else
zero) and writes every device variable the program touched to DIR/NAME.npy
(DIR/SUBGRAPH/NAME.npy for several subgraphs); an existing non-empty DIR is
replaced only with --force. Engine instructions are NOT
executed: only the data movement (copy, cast, add, fma, min, max, transpose) is.
Loads run first, then other transfers, then stores to outputs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !execute && (len(inputs) > 0 || outDir != "") {
				return usageErr("--input and -o need --execute")
			}
			if execute && outDir == "" {
				return usageErr("--execute needs -o DIR")
			}
			m, progs, err := openNeffPrograms(args[0])
			if err != nil {
				return err
			}
			out := neffDMAOutput{File: args[0], all: all}
			for _, p := range progs {
				out.Subgraphs = append(out.Subgraphs, neffDMASubgraph{Subgraph: p.Subgraph, Queues: p.Queues, Vars: p.Vars,
					Analysis: dma.Analyze(p.Descriptors, p.Layout), Skipped: p.Problems})
			}
			if execute {
				fmt.Fprintln(env.Stderr, "note: executing the DMA program only; engine instructions are not executed")
				budget := dmaprog.DefaultBudget()
				if maxMemory != "" {
					v, ok := inputfile.ParseSize(maxMemory)
					if !ok || v <= 0 {
						return usageErr("--max-memory %q: want a positive number of bytes, e.g. 8G", maxMemory)
					}
					budget = v
				}
				if err := neffExecute(m, progs, inputs, outDir, force, budget, out.Subgraphs); err != nil {
					return err
				}
			}
			if env.JSON {
				return writeJSON(env.Stdout, out)
			}
			return out.WriteText(env.Stdout)
		},
	}
	cmd.Flags().BoolVar(&execute, "execute", false, "run the DMA program and write the variables as .npy (engine instructions are not executed)")
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "NAME=x.npy: initial contents of variable NAME (repeatable; with --execute)")
	cmd.Flags().StringVarP(&outDir, "output", "o", "", "directory for the variables' .npy files (with --execute)")
	cmd.Flags().BoolVar(&all, "all", false, "list every efficiency finding (default: the first 20 and counts per rule)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty DIR (with --execute)")
	cmd.Flags().StringVar(&maxMemory, "max-memory", "", "bytes the variables of one subgraph may use with --execute (K, M, G suffixes; default an eighth of memory, at most 4G)")
	return cmd
}

// neffExecute runs each program and writes its touched device variables.
func neffExecute(m *neff.Model, progs []*dmaprog.Program, inputs []string, outDir string, force bool, budget int64, subs []neffDMASubgraph) error {
	mems := make([]*dmaprog.Memory, len(progs))
	for i, p := range progs {
		mems[i] = p.NewMemory(budget)
	}
	for _, spec := range inputs {
		name, file, ok := strings.Cut(spec, "=")
		if !ok || name == "" || file == "" {
			return usageErr("--input %q: want NAME=x.npy", spec)
		}
		data, err := readNpyBytes(file)
		if err != nil {
			return usageErr("--input %s: %v", name, err)
		}
		found := false
		for i, p := range progs {
			v, ok := p.Var(name)
			if !ok {
				continue
			}
			found = true
			if int64(len(data)) != v.Size {
				return usageErr("--input %s: %s holds %d data bytes; variable %q of %s holds %d", name, file, len(data), name, p.Subgraph, v.Size)
			}
			if err := mems[i].SetInput(name, data); err != nil {
				return usageErr("--input %s: %v", name, err)
			}
		}
		if !found {
			return usageErr("--input %s: no subgraph declares a variable %q", name, name)
		}
	}
	return atomicfile.Dir(outDir, force, func(tmp string) error {
		for i, p := range progs {
			ex, err := p.Execute(mems[i])
			var be *dmaprog.BudgetError
			if errors.As(err, &be) {
				return usageErr("execute %s: %v (--max-memory BYTES raises the budget)", p.Subgraph, be)
			}
			if err != nil {
				return &ExitError{Code: 1, Err: fmt.Errorf("execute: %w", err)}
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
				wr := neffDMAWrittenNp{Var: name, Path: filepath.Join(outDir, rel, file), DType: wt.String(), Shape: shape}
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
