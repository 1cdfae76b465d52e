package neff

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/internal/termsafe"
	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neuroncore"
)

// Summary is what `npukit inspect` shows of a NEFF: header, framing,
// subgraphs with their queues, engines and tables, the I/O tensors,
// constants, compiler information and a device-memory estimate. It renders
// as text (WriteText) and marshals to JSON with the same content.
type Summary struct {
	Header    HeaderSummary     `json:"header"`
	Payload   Payload           `json:"payload"`
	Tar       TarInfo           `json:"tar"`
	Members   int               `json:"members"`
	Targets   []TargetSummary   `json:"targets"`
	Hardware  Hardware          `json:"hardware"`
	Compiler  string            `json:"compiler,omitempty"`
	Metrics   []Metric          `json:"metrics,omitempty"`
	Inputs    []TensorSummary   `json:"inputs"`
	Outputs   []TensorSummary   `json:"outputs"`
	Subgraphs []SubgraphSummary `json:"subgraphs"`
	Constants []ConstantSummary `json:"constants"`
	Memory    MemoryEstimate    `json:"memory"`
	Problems  int               `json:"decode_problems,omitempty"`
}

// HeaderSummary is the header as a user reads it.
type HeaderSummary struct {
	PkgVersion   uint64   `json:"pkg_version"`
	NeffVersion  string   `json:"neff_version"`
	BuildVersion string   `json:"build_version,omitempty"`
	FeatureBits  string   `json:"feature_bits"`
	NumTPB       uint32   `json:"num_tpb"`
	LNCSize      uint32   `json:"lnc_size"`
	UUID         string   `json:"uuid"`
	Name         string   `json:"name"`
	HashForm     HashForm `json:"hash_form"`
	HashOK       bool     `json:"hash_ok"`
	// Hashed is false when there was nothing to hash (an unpacked
	// directory); HashOK then says nothing.
	Hashed   bool   `json:"hashed"`
	DataSize uint64 `json:"data_size"`
}

// TargetSummary is one kelf and its architecture.
type TargetSummary struct {
	Kelf   string `json:"kelf"`
	Target string `json:"target"`
	Arch   Arch   `json:"arch"`
	Graphs int    `json:"graphs"`
}

// TensorSummary is one input or output: from a neff.json signature, or
// (when no signature names it) from a def.json input/output variable with
// dtype and shape from tensor_map.json.
type TensorSummary struct {
	Source    string  `json:"source"` // "neff.json" or the def.json member
	Signature string  `json:"signature,omitempty"`
	Name      string  `json:"name"`
	ID        int64   `json:"id"`
	DType     string  `json:"dtype"`
	Shape     []int64 `json:"shape"`
	// Bytes is elements x element size (-1 when the dtype is unknown or
	// the shape overflows).
	Bytes int64 `json:"bytes"`
}

// SubgraphSummary is one subgraph.
type SubgraphSummary struct {
	Name           string          `json:"name"`
	Kelf           string          `json:"kelf"`
	Def            string          `json:"def"`
	Variables      int             `json:"variables"`
	Queues         []QueueSummary  `json:"queue_sets"`
	Engines        []EngineSummary `json:"engines"`
	ActivationSets []string        `json:"activation_sets,omitempty"`
	// Features are def.json's "neff_features": the names of the header
	// feature bits this subgraph needs, as the compiler writes them.
	Features  []string   `json:"neff_features,omitempty"`
	DVETables []DVETable `json:"dve_tables,omitempty"`
	// DGETables are the dge-table variables (hardware descriptor
	// generation: the DMA descriptors are generated at run time).
	DGETables []DGETable `json:"dge_tables,omitempty"`
}

// QueueSummary is one dma_queue entry.
type QueueSummary struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Queues int64  `json:"num_queues"`
	Owner  string `json:"owner,omitempty"`
}

// EngineSummary counts an engine's instructions and DMA work.
type EngineSummary struct {
	Key          string `json:"key"`
	Member       string `json:"member"`
	Instructions int64  `json:"instructions"` // -1: binary absent
	DMAEntries   int    `json:"dma_entries"`
	Descriptors  int    `json:"descriptors"`
	// DMABytes is the bytes the descriptors write (the to side): the
	// figure `npukit sim` and the DMA checks count as moved. The from side
	// can be larger (from_arr sums several sources into one destination).
	DMABytes int64 `json:"dma_bytes"`
	// DGETransfers and DGEBytes are the DMAs the instructions describe
	// (hardware descriptor generation, Model.DGETransfers): not in the
	// descriptors above, generated at run time.
	DGETransfers int   `json:"dge_transfers"`
	DGEBytes     int64 `json:"dge_bytes"`
}

// ConstantSummary is one file variable.
type ConstantSummary struct {
	Subgraph string `json:"subgraph"`
	Name     string `json:"name"`
	File     string `json:"file"`
	Size     int64  `json:"size"`
	Format   string `json:"format"` // "npy <descr> (shape)" or "raw"
}

// MemoryEstimate is the device memory a NEFF needs, by the rules of the
// public Python NEFF memory estimator (notes/neff.md): IO and constants
// are their var sizes, each input or output variable counted once for the
// NEFF (every subgraph of an LNC=2 trn2 NEFF declares the same input and
// output variables, one tensor the two physical cores share; counting
// them per subgraph doubled IO); the shared scratchpad is the high-water mark of the
// virtual vars rounded up to 64 MiB; the private scratchpad is the sum of
// tmp-buf vars; DMA rings take 16 bytes per descriptor, with
// prod(sizes[1:]) descriptors per side of every DMA descriptor plus 16
// semaphore descriptors per side of every queue set used.
type MemoryEstimate struct {
	IO                int64 `json:"io_bytes"`
	Constants         int64 `json:"constants_bytes"`
	SharedScratchpad  int64 `json:"shared_scratchpad_bytes"`
	PrivateScratchpad int64 `json:"private_scratchpad_bytes"`
	DMARings          int64 `json:"dma_rings_bytes"`
	Total             int64 `json:"total_bytes"`
}

// MemoryEstimateCounts says what a MemoryEstimate counts and leaves out,
// for the outputs that print one: a capture of a run of the same NEFF
// shows what the runtime allocated, which is more (audit r3 #33: 64 MiB
// of shared scratchpad estimated, 512 MiB in the capture).
const MemoryEstimateCounts = "what the NEFF's own variables and descriptors need, by the public estimator's rules; " +
	"not what the runtime allocates besides (microcode, instruction and profiler buffers, its own DMA rings), " +
	"nor a shared scratchpad it reserves beyond the virtual variables' high-water mark: " +
	"a capture of a run (npukit inspect X.ntff, its Memory line) shows what the runtime allocated"

// Memory-estimate constants (notes/neff.md).
const (
	ringDescBytes      = 16
	ringSemaphoreDescs = 16
	scratchpadQuantum  = 64 << 20
)

// Summarize builds the inspection summary. It never fails: what the model
// could not decode is simply absent (Problems counts the decode findings).
func Summarize(m *Model) *Summary {
	f := m.File
	h := f.Header
	s := &Summary{
		Header: HeaderSummary{
			PkgVersion: h.PkgVersion, NeffVersion: fmt.Sprintf("%d.%d", h.NeffVersionMajor, h.NeffVersionMinor),
			BuildVersion: h.BuildVersion, FeatureBits: fmt.Sprintf("%#x", h.FeatureBits), NumTPB: h.NumTPB,
			LNCSize: h.LNCSize, UUID: h.UUID.String(), Name: h.Name, HashForm: f.Hash.Form, HashOK: f.Hash.OK, Hashed: !f.Hash.Unchecked,
			DataSize: h.DataSize,
		},
		Payload:   f.Payload,
		Tar:       f.Tar,
		Members:   len(f.Members),
		Targets:   []TargetSummary{},
		Inputs:    []TensorSummary{},
		Outputs:   []TensorSummary{},
		Subgraphs: []SubgraphSummary{},
		Constants: []ConstantSummary{},
		Metrics:   m.Metrics,
		Problems:  m.decodeProblems(),
	}
	if m.Info != nil {
		s.Compiler = m.Info.ToolVersion
	}
	s.Hardware = HardwareOf(m)
	for _, k := range m.Kelfs {
		t := deref(k.Kelf.Target)
		s.Targets = append(s.Targets, TargetSummary{Kelf: k.Member, Target: t, Arch: TargetArch(t), Graphs: len(k.Kelf.Graphs)})
	}
	if sigs := m.Signatures(); sigs != nil {
		for _, sn := range sortedKeys(sigs) {
			sig := sigs[sn]
			s.Inputs = append(s.Inputs, tensors(sn, sig.Inputs)...)
			s.Outputs = append(s.Outputs, tensors(sn, sig.Outputs)...)
		}
	}
	s.Inputs, s.Outputs = ioVars(m, s.Inputs, "input"), ioVars(m, s.Outputs, "output")
	for _, sg := range m.Subgraphs {
		s.Subgraphs = append(s.Subgraphs, m.summarizeSubgraph(sg))
		s.Constants = append(s.Constants, m.constants(sg)...)
	}
	s.Memory = EstimateMemory(m)
	return s
}

// decodeProblems counts the decode findings check reports as errors or
// warnings (not the informational members' unmodelled values).
func (m *Model) decodeProblems() int {
	n := 0
	for _, p := range m.Problems {
		if p.Rule != RuleJSONSyntax || !m.informational(p.Location) {
			n++
		}
	}
	return n
}

func tensors(sig string, ts map[string]SigTensor) []TensorSummary {
	out := []TensorSummary{}
	for _, n := range sortedKeys(ts) {
		t := ts[n]
		bytes := int64(-1) // shape unknown
		if t.Shape != nil {
			bytes = tensorBytes(t.DType, t.Shape)
		}
		out = append(out, TensorSummary{Source: "neff.json", Signature: sig, Name: n, ID: t.ID, DType: t.DType, Shape: t.Shape, Bytes: bytes})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ioVars adds the def.json variables of type typ that no signature names.
func ioVars(m *Model, ts []TensorSummary, typ string) []TensorSummary {
	seen := map[string]bool{}
	for _, t := range ts {
		seen[t.Name] = true
	}
	for _, sg := range m.Subgraphs {
		if sg.Def == nil {
			continue
		}
		for _, vn := range sg.Def.VarNames() {
			v := sg.Def.Var[vn]
			if v == nil || v.TypeName() != typ || seen[vn] {
				continue
			}
			seen[vn] = true
			t := TensorSummary{Source: sg.DefMember, Name: vn, ID: deref(v.VarID), Bytes: v.SizeBytes()}
			if tm := sg.TensorMap[vn]; tm != nil {
				t.DType, t.Shape = tm.DType, tm.TFShape
				if t.Shape == nil {
					t.Shape = tm.SimShape
				}
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// tensorBytes multiplies the shape by the element size with overflow
// checks; -1 when unknown.
func tensorBytes(dt string, shape []int64) int64 {
	n := int64(0)
	if t, err := dtype.Parse(dt); err == nil {
		n = int64(t.Size())
	} else if n = frameworkDTypeSize(dt); n == 0 {
		return -1
	}
	for _, d := range shape {
		if d < 0 || (d > 0 && n > (1<<62)/d) {
			return -1
		}
		n *= d
	}
	return n
}

// frameworkDTypeSize sizes the framework dtypes a neff.json signature may
// name that NEFF descriptors have no spelling for (the signature describes
// the framework's tensors); 0 when unknown.
func frameworkDTypeSize(dt string) int64 {
	switch strings.ToLower(dt) {
	case "bool", "uint1":
		return 1
	case "float64", "double", "complex64":
		return 8
	case "complex128":
		return 16
	}
	if strings.HasPrefix(strings.ToLower(dt), "float8") {
		return 1
	}
	return 0
}

func (m *Model) summarizeSubgraph(sg *Subgraph) SubgraphSummary {
	ss := SubgraphSummary{Name: sg.Name, Kelf: sg.Kelf, Def: sg.DefMember, Queues: []QueueSummary{}, Engines: []EngineSummary{}}
	if sg.Def == nil {
		return ss
	}
	ss.Variables = len(sg.Def.Var)
	ss.DGETables = sg.DGETables()
	json.Unmarshal(sg.Def.Extra["neff_features"], &ss.Features) // absent or not strings: none
	for _, qn := range sg.Def.QueueNames() {
		q := sg.Def.DMAQueue[qn]
		if q == nil {
			continue
		}
		ss.Queues = append(ss.Queues, QueueSummary{Name: qn, Type: deref(q.Type), Queues: q.Queues(), Owner: deref(q.Owner)})
	}
	for _, e := range sg.Engines {
		es := EngineSummary{Key: e.Key, Member: e.Member, Instructions: m.Instructions(e)}
		es.DGETransfers, es.DGEBytes = m.DGETransfers(e)
		if e.JSON != nil {
			es.DMAEntries = len(e.JSON.DMA)
			for _, ent := range e.JSON.DMA {
				if ent == nil {
					continue
				}
				for _, d := range ent.Desc {
					if d == nil {
						continue
					}
					es.Descriptors++
					if b := pattern(d.ToOff, d.ToSizes, d.ToSteps).Bytes(); b > 0 {
						es.DMABytes = satAdd(es.DMABytes, b)
					}
				}
			}
			ss.ActivationSets = append(ss.ActivationSets, e.JSON.ActivationFunctionSets...)
			ss.DVETables = append(ss.DVETables, e.JSON.DVETables...)
		}
		ss.Engines = append(ss.Engines, es)
	}
	return ss
}

func pattern(off *int64, sizes, steps []int64) accesspattern.Pattern {
	return accesspattern.Pattern{Offset: deref(off), Sizes: sizes, Steps: steps}
}

func satAdd(a, b int64) int64 {
	if a > (1<<63-1)-b {
		return 1<<63 - 1
	}
	return a + b
}

func (m *Model) constants(sg *Subgraph) []ConstantSummary {
	var out []ConstantSummary
	if sg.Def == nil {
		return out
	}
	for _, vn := range sg.Def.VarNames() {
		v := sg.Def.Var[vn]
		if v == nil || v.TypeName() != "file" {
			continue
		}
		c := ConstantSummary{Subgraph: sg.Name, Name: vn, File: deref(v.FileName), Size: v.SizeBytes(), Format: "raw"}
		if c.File == "" {
			// A public analysis of neuronx-cc 2.24's def.json writer names
			// the constant's file under "file".
			json.Unmarshal(v.Extra["file"], &c.File)
		}
		if c.File == "" {
			c.Format = "no file"
		} else if mem, ok := m.File.Member(sg.Ref(c.File)); !ok {
			c.Format = "missing"
		} else if strings.HasSuffix(c.File, ".npy") {
			if npy, err := NpyInfo(mem.Data); err == nil {
				c.Format = fmt.Sprintf("npy %s %v", npy.Descr, npy.Shape)
			} else {
				c.Format = "npy (unreadable)"
			}
		}
		out = append(out, c)
	}
	return out
}

// EstimateMemory applies the estimator's rules (see MemoryEstimate) to
// every subgraph.
func EstimateMemory(m *Model) MemoryEstimate {
	var e MemoryEstimate
	var virtualHWM int64
	io := map[string]int64{} // "input NAME" -> its largest declared size
	for _, sg := range m.Subgraphs {
		if sg.Def == nil {
			continue
		}
		for name, v := range sg.Def.Var {
			if v == nil {
				continue
			}
			size := max(v.SizeBytes(), 0)
			switch v.TypeName() {
			case "input", "output":
				io[v.TypeName()+" "+name] = max(io[v.TypeName()+" "+name], size)
			case "file":
				e.Constants = satAdd(e.Constants, size)
			case "tmp-buf":
				e.PrivateScratchpad = satAdd(e.PrivateScratchpad, size)
			case "virtual":
				virtualHWM = max(virtualHWM, satAdd(max(deref(v.BackingVariableOff), 0), size))
			}
		}
		used := map[string]bool{}
		var descs int64
		for _, eng := range sg.Engines {
			if eng.JSON == nil {
				continue
			}
			for _, ent := range eng.JSON.DMA {
				if ent == nil {
					continue
				}
				if q := ent.QueueName(); q != "" {
					used[q] = true
				}
				for _, d := range ent.Desc {
					if d == nil {
						continue
					}
					for _, src := range d.Sources() {
						if src != nil {
							descs = satAdd(descs, outerCount(src.FromSizes))
						}
					}
					descs = satAdd(descs, outerCount(d.ToSizes))
				}
			}
		}
		descs = satAdd(descs, int64(len(used))*2*ringSemaphoreDescs)
		e.DMARings = satAdd(e.DMARings, satMul(descs, ringDescBytes))
	}
	for _, size := range io {
		e.IO = satAdd(e.IO, size)
	}
	if virtualHWM > 0 {
		e.SharedScratchpad = satMul((virtualHWM+scratchpadQuantum-1)/scratchpadQuantum, scratchpadQuantum)
	}
	e.Total = satAdd(satAdd(satAdd(e.IO, e.Constants), satAdd(e.SharedScratchpad, e.PrivateScratchpad)), e.DMARings)
	return e
}

// outerCount is prod(sizes[1:]): the descriptors one side of a DMA
// descriptor expands to (0 for a malformed or empty pattern).
func outerCount(sizes []int64) int64 {
	if len(sizes) == 0 {
		return 0
	}
	n := int64(1)
	for _, s := range sizes[1:] {
		if s < 0 {
			return 0
		}
		n = satMul(n, s)
	}
	return n
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (1<<63-1)/b {
		return 1<<63 - 1
	}
	return a * b
}

// WriteText renders the summary as aligned tables.
func (s *Summary) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	h := s.Header
	hash := "ok"
	if !h.HashOK {
		hash = "MISMATCH"
	}
	if !h.Hashed {
		hash = "not checked: an unpacked directory has no payload to hash (neff pack computes one)"
	}
	if s.Payload.Stored == 0 && s.Payload.Uncompressed == 0 {
		// An unpacked directory: no payload; the header (when any) is
		// header.json's.
		ew.Printf("NEFF %s (pkg_version %d), unpacked directory, no payload\n", h.NeffVersion, h.PkgVersion)
	} else {
		ew.Printf("NEFF %s (pkg_version %d), %s payload, %s\n", h.NeffVersion, h.PkgVersion, compressedWord(s.Payload.Compressed), humanize.Bytes(int64(h.DataSize)))
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	kv := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	kv("name", h.Name)
	if h.BuildVersion != "" {
		kv("build version", h.BuildVersion)
	}
	kv("uuid", h.UUID)
	kv("feature bits", h.FeatureBits)
	kv("num_tpb / lnc", fmt.Sprintf("%d / %d", h.NumTPB, h.LNCSize))
	if h.Hashed {
		hash = fmt.Sprintf("%s (%s form)", hash, h.HashForm)
	}
	kv("hash", hash)
	if s.Payload.Stored == 0 && len(s.Tar.Formats) == 0 {
		// An unpacked directory: members as files, no payload or tar.
		kv("payload", fmt.Sprintf("none (members are files), %s", humanize.Plural(s.Members, "member")))
	} else {
		kv("payload", fmt.Sprintf("%s stored, %s content, %s padding, %s tar (%s), %s",
			humanize.Bytes(s.Payload.Stored), humanize.Bytes(s.Payload.Content), humanize.Bytes(s.Payload.Padding),
			humanize.Bytes(s.Payload.Uncompressed), strings.Join(s.Tar.Formats, "+"), humanize.Plural(s.Members, "member")))
	}
	for _, t := range s.Targets {
		kv("target", fmt.Sprintf("%s: %q -> %s, %s", t.Kelf, t.Target, t.Arch, humanize.Plural(t.Graphs, "graph")))
	}
	hw := s.Hardware
	cores := fmt.Sprintf("%s x LNC %d = %s", humanize.Plural(hw.LogicalCores, "logical core"), hw.LNC, humanize.Plural(hw.PhysicalCores, "physical NeuronCore"))
	if hw.NeuronCore != "" {
		kv("runs on", fmt.Sprintf("%s: %s; %s", hw.NeuronCore, strings.Join(hw.Families, ", "), cores))
	} else {
		kv("runs on", cores)
	}
	kv("runtime", hw.Runtime)
	if s.Compiler != "" {
		kv("compiler", s.Compiler)
	}
	if s.Problems > 0 {
		kv("decode problems", fmt.Sprintf("%s (run npukit check)", humanize.Count(int64(s.Problems))))
	}
	tw.Flush()

	for _, side := range []struct {
		title string
		ts    []TensorSummary
	}{{"Inputs", s.Inputs}, {"Outputs", s.Outputs}} {
		ew.Printf("\n%s (%s)\n", side.title, humanize.Count(int64(len(side.ts))))
		if len(side.ts) == 0 {
			continue
		}
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tNAME\tDTYPE\tSHAPE\tBYTES\tFROM")
		for _, t := range side.ts {
			from := t.Source
			if t.Signature != "" {
				from = "signature " + t.Signature
			} else {
				from += " var_id"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%v\t%s\t%s\n", t.ID, termsafe.Name(t.Name), orDash(t.DType), shapeText(t.Shape), bytesOrUnknown(t.Bytes), from)
		}
		tw.Flush()
	}

	for _, sg := range s.Subgraphs {
		ew.Printf("\nSubgraph %s (%s, %s)\n", termsafe.Name(sg.Name), termsafe.Name(sg.Def), humanize.Plural(sg.Variables, "variable"))
		if len(sg.Queues) > 0 {
			tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  QUEUE SET\tTYPE\tQUEUES\tOWNER")
			for _, q := range sg.Queues {
				fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", termsafe.Name(q.Name), termsafe.Name(q.Type), q.Queues, q.Owner)
			}
			tw.Flush()
		}
		if len(sg.Engines) > 0 {
			dge := false
			for _, e := range sg.Engines {
				dge = dge || e.DGETransfers > 0
			}
			tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
			head := "  ENGINE\tMEMBER\tINSTRUCTIONS\tDMA ENTRIES\tDESCRIPTORS\tDMA BYTES"
			if dge {
				head += "\tDGE TRANSFERS\tDGE BYTES"
			}
			fmt.Fprintln(tw, head)
			for _, e := range sg.Engines {
				instr := humanize.Count(e.Instructions)
				if e.Instructions < 0 {
					instr = "absent"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s", termsafe.Name(neuroncore.NEFFEngineLabel(e.Key)), termsafe.Name(path.Base(e.Member)), instr, humanize.Count(int64(e.DMAEntries)), humanize.Count(int64(e.Descriptors)), humanize.Bytes(e.DMABytes))
				if dge {
					fmt.Fprintf(tw, "\t%s\t%s", humanize.Count(int64(e.DGETransfers)), humanize.Bytes(e.DGEBytes))
				}
				fmt.Fprintln(tw)
			}
			tw.Flush()
			if dge {
				ew.Printf("  (%s)\n", DGEBytesNote)
			}
		}
		if len(sg.Features) > 0 {
			ew.Printf("  neff features: %s\n", strings.Join(sg.Features, ", "))
		}
		if len(sg.ActivationSets) > 0 {
			ew.Printf("  activation function sets: %s\n", strings.Join(sg.ActivationSets, ", "))
		}
		for _, t := range sg.DVETables {
			ew.Printf("  DVE table: %s\n", t.Describe())
		}
		for _, t := range sg.DGETables {
			ew.Printf("  DGE table %s\n", t.Describe(termsafe.Name))
		}
	}

	ew.Printf("\nConstants (%s)\n", humanize.Count(int64(len(s.Constants))))
	if len(s.Constants) > 0 {
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  SUBGRAPH\tNAME\tFILE\tSIZE\tFORMAT")
		for _, c := range s.Constants {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", termsafe.Name(c.Subgraph), termsafe.Name(c.Name), termsafe.Name(c.File), humanize.Bytes(c.Size), c.Format)
		}
		tw.Flush()
	}

	if len(s.Metrics) > 0 {
		ew.Printf("\nCompiler metrics\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, mt := range s.Metrics {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", mt.MetricName, mt.Value, mt.Unit)
		}
		tw.Flush()
	}

	mem := s.Memory
	ew.Printf("\nDevice memory estimate\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, r := range []struct {
		k string
		v int64
	}{{"IO (each input and output once)", mem.IO}, {"constants", mem.Constants}, {"shared scratchpad (virtual, 64 MiB units)", mem.SharedScratchpad},
		{"private scratchpad (tmp-buf)", mem.PrivateScratchpad}, {"DMA rings", mem.DMARings}, {"total", mem.Total}} {
		fmt.Fprintf(tw, "  %s\t%s\n", r.k, humanize.Bytes(r.v))
	}
	tw.Flush()
	ew.Printf("  The estimate counts %s.\n", MemoryEstimateCounts)
	return ew.Err()
}

func compressedWord(c bool) string {
	if c {
		return "gzip tar"
	}
	return "plain tar"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shapeText prints a shape, "?" when unknown (nil; [] is a scalar).
func shapeText(s []int64) string {
	if s == nil {
		return "?"
	}
	return fmt.Sprint(s)
}

func bytesOrUnknown(n int64) string {
	if n < 0 {
		return "?"
	}
	return humanize.Bytes(n)
}
