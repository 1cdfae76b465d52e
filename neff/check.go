package neff

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/dtype"
	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/neff/accesspattern"
	"github.com/npukit/npukit/neuroncore"
)

// Runtime describes what a Neuron runtime accepts, for the header gates.
type Runtime struct {
	Name string
	// MaxMajor is the highest neff_version_major it loads.
	MaxMajor uint64
	// Features is the feature-bit mask it supports (major 2 only).
	Features uint64
	// Assumed marks a runtime the user did not name (DefaultRuntime):
	// feature bits beyond its mask are then a warning, since newer
	// runtimes support more bits than the one error message the mask
	// comes from, and a valid NEFF of a newer compiler sets them (a public
	// analysis of neuronx-cc 2.24's NEFF writer lists bits up to
	// 0x2000000, e.g. 0x200 for 3-/4-D DMA descriptors and 0x800 for the
	// DVE performance mode on newer architectures; see featureNames).
	// The Neuron runtime's own message is in notes/neff.md.
	Assumed bool
}

// FeaturesFlagHelp is the help of check's --neff-runtime-features, which
// has no default: without it, feature bits past DefaultRuntime's mask are
// an info or a warning; naming a mask, even that one, makes them errors.
var FeaturesFlagHelp = fmt.Sprintf("NEFF: feature-bit mask the target runtime supports (its \"Currently supporting: 0x...\" message); "+
	"naming one makes feature bits past it errors (default: none named; bits past %s's %#x are an info naming the runtime that loads them, a warning when the file does not name its compiler)",
	DefaultRuntime.Name, DefaultRuntime.Features)

// DefaultRuntime is the public Neuron runtime 2.x as its own error message
// describes it ("Currently supporting: 0x80000000000000ff", notes/neff.md).
var DefaultRuntime = Runtime{Name: "Neuron runtime 2.x", MaxMajor: 2, Features: 0x80000000000000ff, Assumed: true}

// State-buffer geometry used by the bounds check (notes/neuroncore.md):
// NEFFs address the state buffer with a 262144-byte partition stride; a
// partition holds 192 KiB on NeuronCore-v2 and 224 KiB on v3.
const (
	SBPartitionStride = 262144
	SBPartitions      = 128
)

// SBPartitionBytes returns the bytes of one state-buffer partition for an
// architecture (the stride when unknown).
func SBPartitionBytes(a Arch) int64 {
	switch a {
	case ArchTrn1:
		return 196608
	case ArchTrn2:
		return 229376
	}
	return SBPartitionStride
}

// CheckBytes reads and checks a NEFF. Framing problems that stop reading
// become diagnostics too, so the report is the only result.
func CheckBytes(b []byte, lim Limits, rt Runtime) (diag.Report, *Model) {
	f, err := read(b, lim, true)
	if err != nil {
		var rep diag.Report
		var fe *FormatError
		if errors.As(err, &fe) {
			loc := "header"
			switch {
			case fe.Member != "":
				loc = "tar member " + fe.Member
			case fe.Offset >= 0:
				loc = fmt.Sprintf("offset %d", fe.Offset)
			}
			rep.Add(fe.Rule, loc, "%s", fe.Msg)
		} else {
			rep.Add(RuleTarFraming, "payload", "%v", err)
		}
		// The header gates still say something useful, and so does the
		// hash, computed over the stored bytes whatever their framing:
		// a match means the file is as its writer produced it, a
		// mismatch that it was damaged after.
		if h, herr := ParseHeader(b); herr == nil {
			checkHeader(&rep, h, rt, nil)
			if h.HeaderSize == HeaderSize && h.DataSize <= uint64(len(b))-HeaderSize && (h.PkgVersion == 1 || h.PkgVersion == 2) {
				hc := VerifyHash(h, b[HeaderSize:HeaderSize+h.DataSize])
				if hc.OK {
					rep[0].Message += fmt.Sprintf(" (the stored hash matches the payload in the %s form: the file is as its writer produced it)", hc.Form)
				} else {
					rep.Add(RuleHashMismatch, fmt.Sprintf("offset %d", offHash), "stored hash %s does not match the payload (expected %s in the %s form): the file was changed or damaged after it was written", hc.Stored, hc.Expected, hc.Form)
				}
			}
		}
		rep.Sort()
		return rep, nil
	}
	m := Decode(f)
	return Check(m, rt), m
}

// checkSubgraphNames reports graph names that name two graphs, or that
// are not usable as one path component (empty, ".", "..", a slash): tools
// that write a directory per subgraph (npukit neff dma --execute) would
// refuse them or merge two graphs' outputs.
func checkSubgraphNames(rep *diag.Report, m *Model) {
	seen := map[string]string{}
	for _, sg := range m.Subgraphs {
		loc := sg.Kelf + ": graph " + fmt.Sprintf("%q", termsafeKey(sg.Name))
		if prev, dup := seen[sg.Name]; dup {
			rep.Add(RuleSubgraphName, loc, "graph name %q is also used by a graph of %s", termsafeKey(sg.Name), prev)
			continue
		}
		seen[sg.Name] = sg.Kelf
		if sg.Name == "." || sg.Name == ".." || strings.ContainsAny(sg.Name, "/\\\x00") {
			rep.Add(RuleSubgraphName, loc, "graph name %q is not a plain name (a path component of it would leave or merge directories)", termsafeKey(sg.Name))
		}
	}
}

// Check verifies a decoded NEFF against the runtime's gates, the spec's
// restrictions and the cross references between members.
func Check(m *Model, rt Runtime) diag.Report {
	var rep diag.Report
	f := m.File
	checkHeader(&rep, f.Header, rt, CompilerOf(m))
	if !f.Hash.OK {
		rep.Add(RuleHashMismatch, fmt.Sprintf("offset %d", offHash), "stored hash %s does not match the payload (expected %s in the %s form)", f.Hash.Stored, f.Hash.Expected, f.Hash.Form)
	}
	if f.Payload.PaddingNonZero {
		rep.Add(RulePaddingNonZero, fmt.Sprintf("offset %d", HeaderSize+f.Payload.Content), "%d bytes of padding after the gzip member are not all zero", f.Payload.Padding)
	}
	if f.Payload.Trailing > 0 {
		rep.Add(RuleTrailingBytes, fmt.Sprintf("offset %d", HeaderSize+f.Payload.Stored), "%d bytes after header + data_size", f.Payload.Trailing)
	}
	for _, p := range m.Problems {
		if p.Rule == RuleJSONSyntax && m.informational(p.Location) {
			p.Rule, p.Severity = RuleMetadataJSON, diag.Info
		}
		rep = append(rep, p)
	}
	if len(m.Kelfs) == 0 {
		rep.Add(RuleNoKelf, "archive", "no kelf-*.json member: the runtime has no graph to load")
	}
	for _, k := range m.Kelfs {
		if k.Kelf.Target != nil && TargetArch(*k.Kelf.Target) == ArchUnknown {
			rep.Add(RuleUnknownTarget, k.Member+": target", "unknown target %q", *k.Kelf.Target)
		}
	}
	checkSubgraphNames(&rep, m)
	vars := map[string]bool{}
	outputs, defs := 0, 0
	for _, sg := range m.Subgraphs {
		if sg.Def == nil {
			continue
		}
		c := &checker{m: m, sg: sg, rep: &rep, arch: TargetArch(sg.Target)}
		c.run()
		for n := range sg.Def.Var {
			vars[n] = true
		}
		outputs += c.outputs
		defs++
	}
	// The runtime needs an output to return (notes/neff.md). It is asked
	// of the NEFF, not of each subgraph: with several subgraphs (INF1
	// serial TPB, logical cores) one may hand its results to another.
	if defs > 0 && outputs == 0 {
		loc := "archive"
		for _, sg := range m.Subgraphs {
			if sg.Def != nil {
				loc = sg.DefMember + ": var"
				break
			}
		}
		rep.Add(RuleNoOutput, loc, "no variable of type output in any subgraph: the runtime refuses a NEFF without outputs")
	}
	if sigs := m.Signatures(); sigs != nil && len(m.Subgraphs) > 0 {
		for _, sn := range sortedKeys(sigs) {
			s := sigs[sn]
			for _, side := range []struct {
				what string
				ts   map[string]SigTensor
			}{{"inputs", s.Inputs}, {"outputs", s.Outputs}} {
				for _, n := range sortedKeys(side.ts) {
					if !vars[n] {
						rep.Add(RuleSignatureMissing, fmt.Sprintf("neff.json: metadata.signatures.%s.%s.%s", sn, side.what, n), "no subgraph declares a variable %q", n)
					}
				}
			}
		}
	}
	rep.Sort()
	return rep
}

// featureNames are the header feature bits as neuronx-cc 2.24 names them
// (the "neff_features" strings it also writes into def.json), from a
// public analysis of its NEFF writer; used only to word messages.
var featureNames = map[uint64]string{
	0x2: "collective_has_offset", 0x4: "neff_feature_custom_ops", 0x8: "neff_coalesced_ccops",
	0x10: "neff_queue_set_instances", 0x20: "neff_has_functions", 0x40: "neff_feature_dynamic_pwp",
	0x80: "neff_feature_indirect_memcpy_32b_sem_wait", 0x100: "neff_feature_indirect_memcpy_bound_check",
	0x200: "neff_feature_DMA_desc_higher_dim", 0x400: "neff_feature_vnc", 0x800: "DVE performance mode",
	0x1000: "neff_feature_DGE", 0x2000: "neff_feature_POOL_RSQRT", 0x4000: "neff_feature_remote_sem",
	0x8000: "neff_feature_DGE_cast", 0x10000: "neff_feature_vector_DGE", 0x20000: "neff_feature_embedding_stride32",
	0x100000: "neff_feature_SQI_no_rearm", 0x200000: "neff_feature_hardware_DGE", 0x400000: "neff_feature_partial_sb2sb_ccop",
	0x1000000: "newer-architecture bit", 0x2000000: "neff_feature_large_tensor_support",
}

// DescribeFeatures words a feature-bit mask: "0x300 (0x100
// neff_feature_indirect_memcpy_bound_check, 0x200 ...)".
func DescribeFeatures(bits uint64) string {
	var parts []string
	for b := uint64(1); b != 0 && b <= bits; b <<= 1 {
		if bits&b == 0 {
			continue
		}
		if n, ok := featureNames[b]; ok {
			parts = append(parts, fmt.Sprintf("%#x %s", b, n))
		} else {
			parts = append(parts, fmt.Sprintf("%#x", b))
		}
	}
	return fmt.Sprintf("%#x (%s)", bits, strings.Join(parts, ", "))
}

// informational reports whether a problem location names a member the
// runtime does not need to load the graph (notes/neff.md: neff.json holds
// the framework graph and signatures, info.json and metrics.json compiler
// facts, tensor_map.json per-tensor shapes); a value npukit cannot read
// there is no reason to call the NEFF invalid.
//
// neff.json is the exception when it does not parse at all: newer
// compilers write it as the manifest of the per-core graphs, which the
// runtime may walk; only a value npukit models with another type (its
// signatures) is informational there. Newer compilers also write
// tensor_map.json in another schema (inputs, alias_map, must_alias),
// which npukit does not model. (Both from a public analysis of
// neuronx-cc 2.24's NEFF writer.)
func (m *Model) informational(loc string) bool {
	member, _, _ := strings.Cut(loc, ": ")
	switch path.Base(member) {
	case "neff.json":
		mem, ok := m.File.Member(member)
		return member == "neff.json" && ok && json.Valid(mem.Data)
	case "info.json", "metrics.json":
		return !strings.Contains(member, "/")
	case "tensor_map.json":
		return true
	}
	return false
}

// checkHeader applies the runtime's header gates. c is the compiler that
// wrote the NEFF when the file names it: feature bits beyond the oldest
// described runtime are then an info naming the runtime of the compiler's
// own SDK release (which loads what its compiler writes), not a warning;
// against a runtime the user named they are an error.
func checkHeader(rep *diag.Report, h Header, rt Runtime, c *Compiler) {
	if h.NeffVersionMajor > rt.MaxMajor {
		rep.Add(RuleVersionTooNew, fmt.Sprintf("offset %d", offMajor), "NEFF version %d.%d: %s loads major versions up to %d (NRT_UNSUPPORTED_NEFF_VERSION)", h.NeffVersionMajor, h.NeffVersionMinor, rt.Name, rt.MaxMajor)
	}
	if h.NeffVersionMajor != 2 {
		return
	}
	extra := h.FeatureBits &^ rt.Features
	switch {
	case extra == 0:
	case !rt.Assumed:
		rep.Add(RuleFeatureBits, fmt.Sprintf("offset %d", offFeatureBits), "NEFF version 2.%d uses feature bits %#x that %s does not support (it supports %#x; unsupported: %s): the load fails with NRT_UNSUPPORTED_NEFF_VERSION", h.NeffVersionMinor, h.FeatureBits, rt.Name, rt.Features, DescribeFeatures(extra))
	case c != nil:
		r := ReleaseOf(c)
		rep.Add(RuleFeaturesRuntime, fmt.Sprintf("offset %d", offFeatureBits), "NEFF version 2.%d uses feature bits %s: the runtime of %s and later runtimes load it; a runtime whose mask is %#x refuses it (NRT_UNSUPPORTED_NEFF_VERSION; name yours with --neff-runtime-features to check)", h.NeffVersionMinor, DescribeFeatures(extra), r.Text, rt.Features)
	default:
		rep.Add(RuleNewerFeatures, fmt.Sprintf("offset %d", offFeatureBits), "NEFF version 2.%d uses feature bits %#x; %s as its error message describes it supports %#x, so a runtime of that age refuses bits %s (NRT_UNSUPPORTED_NEFF_VERSION); the file does not name its compiler, so which runtime loads it is unknown (check against yours with --neff-runtime-features)", h.NeffVersionMinor, h.FeatureBits, rt.Name, rt.Features, DescribeFeatures(extra))
	}
}

type checker struct {
	m       *Model
	sg      *Subgraph
	rep     *diag.Report
	arch    Arch
	outputs int // output variables of the subgraph
}

// deviceMemory is the device memory of the target's NeuronCore generation
// (the largest of any generation when the target is unknown), in bytes.
func (c *checker) deviceMemory() (int64, string) {
	if g := c.arch.Generation(); g != nil {
		return int64(g.DeviceMemoryGiB) << 30, g.Name
	}
	var most *neuroncore.Generation
	for v := 1; neuroncore.GenerationOf(v) != nil; v++ {
		if g := neuroncore.GenerationOf(v); most == nil || g.DeviceMemoryGiB > most.DeviceMemoryGiB {
			most = g
		}
	}
	if most == nil {
		return math.MaxInt64, "any device"
	}
	return int64(most.DeviceMemoryGiB) << 30, "any NeuronCore generation"
}

func (c *checker) add(rule, loc, format string, args ...any) {
	c.rep.Add(rule, loc, format, args...)
}

var (
	// The spec's valid values, plus those a public analysis of neuronx-cc
	// 2.24's def.json writer lists beyond them: queue type act_load, var
	// types local, shared and remote.
	queueTypes    = set("in", "out", "data", "embedding_update", "dynamic", "act_load")
	varTypes      = set("state-buffer", "input", "output", "file", "tmp-buf", "virtual", "pointer", "dge-table", "local", "shared", "remote")
	newerVarTypes = set("local", "shared", "remote")
	fabric        = set("main", "alt")
	ops           = set("fma", "cast", "add", "min", "max", "transpose", "copy")
	constTypes    = set("float32", "int32", "uint32")
)

func set(s ...string) map[string]bool {
	m := map[string]bool{}
	for _, v := range s {
		m[v] = true
	}
	return m
}

// ValidDType reports whether name is one of the spec's dtype spellings.
func ValidDType(name string) bool {
	t, err := dtype.Parse(name)
	return err == nil && t.String() == name
}

func (c *checker) run() {
	d := c.sg.Def
	def := c.sg.DefMember
	inf1 := c.arch == ArchInf1
	// Queue sets.
	for _, qn := range d.QueueNames() {
		q := d.DMAQueue[qn]
		loc := def + ": dma_queue." + qn
		if q == nil {
			c.add(RuleQueueType, loc, "queue set is null")
			continue
		}
		if q.Type == nil {
			c.add(RuleQueueType, loc, "type is required")
		} else if !queueTypes[*q.Type] {
			c.add(RuleQueueType, loc+".type", "type %q is not one of in, out, data, embedding_update, dynamic", *q.Type)
		}
		n := q.Queues()
		if inf1 && n != 1 {
			c.add(RuleNumQueues, loc+".num_queues", "num_queues %d: INF1 allows only 1", n)
		} else if n < 1 || n > 16 {
			c.add(RuleNumQueues, loc+".num_queues", "num_queues %d is outside 1..16", n)
		}
		if q.FabricPath != nil && !fabric[*q.FabricPath] {
			c.add(RuleFabricPath, loc+".fabric_path", "fabric_path %q is not main or alt", *q.FabricPath)
		}
		// Architecture gates fire on a value that asks for the feature,
		// not on a field holding its default (the spec gives pinned the
		// default false, function_start "", section_start_desc false, op
		// "copy", dtypes "uint8"): a producer writing defaults everywhere
		// makes a valid NEFF.
		// pinned is documented for INF1 only, but is not flagged on other
		// targets: neuronx-cc 2.24 still has pinned weight queues (its
		// assertion "Pinned weights queue should have no semaphore id",
		// per a public analysis of its def.json writer), and a runtime
		// that does not pin simply loads the queue.
		if len(q.QueueInstances) > 0 && inf1 {
			c.add(RuleArchField, loc+".queue_instances", "queue_instances is not supported on INF1")
		}
	}
	// Variables.
	ids := map[int64]string{}
	var maxID int64 = -1
	for _, vn := range d.VarNames() {
		v := d.Var[vn]
		loc := def + ": var." + vn
		if v == nil {
			c.add(RuleVarRequired, loc, "variable is null")
			continue
		}
		t := v.TypeName()
		var missing []string
		if v.Type == nil {
			missing = append(missing, "type")
		}
		if v.VarID == nil {
			missing = append(missing, "var_id")
		}
		// Real files omit the size of the state buffer (its size is the
		// hardware's); every other variable needs one.
		// local, shared and remote (neuronx-cc 2.24, not in the spec) have
		// no documented fields, so nothing is required of them.
		// A dge-table is described by its list of var_ids (neuronx-cc
		// 2.23 writes no size: the runtime sizes the table from the list).
		switch {
		case t == VarDGETable:
			if v.Size == nil && v.List == nil {
				missing = append(missing, "list")
			}
		case v.Size == nil && t != "state-buffer" && !newerVarTypes[t]:
			missing = append(missing, "size")
		}
		if len(missing) > 0 {
			c.add(RuleVarRequired, loc, "missing %s", strings.Join(missing, ", "))
		}
		if v.Type != nil && !varTypes[t] {
			c.add(RuleVarType, loc+".type", "type %q is not one of state-buffer, input, output, file, tmp-buf, virtual, pointer, dge-table", t)
		}
		if t == "output" {
			c.outputs++
		}
		if v.VarID != nil {
			id := *v.VarID
			if prev, dup := ids[id]; dup {
				c.add(RuleVarIDDuplicate, loc+".var_id", "var_id %d is also used by %q", id, prev)
			} else {
				ids[id] = vn
			}
			maxID = max(maxID, id)
		}
		if v.Size != nil && *v.Size < 0 {
			c.add(RuleVarRequired, loc+".size", "size %d is negative", *v.Size)
		}
		if v.Size != nil && t != "state-buffer" && t != "virtual" && t != "pointer" {
			if mem, gen := c.deviceMemory(); *v.Size > mem {
				c.add(RuleVarSize, loc+".size", "size %d bytes exceeds the %d GiB of device memory of %s: no runtime can allocate it", *v.Size, mem>>30, gen)
			}
		}
		if v.Alignment != nil && *v.Alignment != 0 && (*v.Alignment < 0 || bits.OnesCount64(uint64(*v.Alignment)) != 1) {
			c.add(RuleAlignment, loc+".alignment", "alignment %d is not a power of two", *v.Alignment)
		}
		// A variable's fabric_path has no valid-value list in the spec
		// (only queue sets' has: main, alt), and neuronx-cc 2.24 names
		// other areas for virtual variables (backing_buf "sharded", per a
		// public analysis), so it is not checked.
		only := func(present bool, field, typ string) {
			// The types only neuronx-cc 2.24 writes have no documented
			// fields; a shared variable may well have an offset.
			if present && t != typ && !newerVarTypes[t] {
				c.add(RuleVarField, loc+"."+field, "%s is only valid with type %s, not %q", field, typ, t)
			}
		}
		// Empty values (file_name "", list []) carry nothing to misuse.
		only(deref(v.FileName) != "", "file_name", "file")
		only(v.BackingVariableOff != nil, "backing_variable_off", "virtual")
		only(v.ReferencedVarID != nil, "referenced_var_id", "pointer")
		only(len(v.List) > 0, "list", "dge-table")
		if v.FileName != nil && t == "file" {
			c.checkConstant(loc, v)
		}
	}
	for vn, v := range d.Var {
		if v == nil {
			continue
		}
		loc := def + ": var." + vn
		if v.ReferencedVarID != nil {
			if _, ok := ids[*v.ReferencedVarID]; !ok {
				c.add(RuleVarRef, loc+".referenced_var_id", "no variable has var_id %d", *v.ReferencedVarID)
			}
		}
		for i, id := range v.List {
			if _, ok := ids[id]; !ok {
				c.add(RuleVarRef, fmt.Sprintf("%s.list[%d]", loc, i), "no variable has var_id %d", id)
			}
		}
	}
	var gaps []string
	for id := int64(0); id <= maxID && len(gaps) < 8; id++ {
		if _, ok := ids[id]; !ok {
			gaps = append(gaps, fmt.Sprint(id))
		}
	}
	negative := false
	for id := range ids {
		negative = negative || id < 0
	}
	if len(gaps) > 0 || negative {
		c.add(RuleVarIDDense, def+": var", "var_ids must be dense 0..%d; missing %s", len(ids)-1, strings.Join(gaps, ", "))
	}
	// Engines.
	for _, e := range c.sg.Engines {
		c.checkEngine(e)
	}
}

func (c *checker) checkConstant(loc string, v *Var) {
	name := c.sg.Ref(*v.FileName)
	mem, ok := c.m.File.Member(name)
	if !ok {
		c.add(RuleMissingMember, loc+".file_name", "constant file %q is not in the archive", name)
		return
	}
	n := int64(len(mem.Data))
	if strings.HasSuffix(name, ".npy") {
		info, err := NpyInfo(mem.Data)
		if err != nil {
			c.add(RuleConstantSize, name, "not a readable .npy: %v", err)
			return
		}
		// The runtime writes the array's data (spec, "Constants"): bytes
		// a writer leaves after it are not loaded.
		n = info.DataBytes
		if info.ArrayBytes >= 0 {
			n = info.ArrayBytes
		}
	}
	if v.Size != nil && n > *v.Size {
		c.add(RuleConstantSize, loc+".size", "constant %q holds %s data bytes, more than the variable's %s", name, humanize.Count(n), humanize.Count(*v.Size))
	}
}

func (c *checker) checkEngine(e *Engine) {
	// 64-byte slots are measured on trn1 NEFFs (notes/neff.md); INF1's
	// instruction encoding is not documented, so its binaries are not
	// held to it.
	if e.InstrMember != "" && c.arch != ArchInf1 {
		if mem, ok := c.m.File.Member(e.InstrMember); ok && len(mem.Data)%InstrSize != 0 {
			c.add(RuleBinSize, e.InstrMember, "%s bytes is not a whole number of %d-byte instructions", humanize.Count(int64(len(mem.Data))), InstrSize)
		}
	}
	j := e.JSON
	if j == nil {
		return
	}
	for _, set := range j.ActivationFunctionSets {
		name := c.sg.Ref(set + ".json")
		if _, ok := c.m.File.Member(name); !ok {
			c.add(RuleMissingMember, e.Member+": activation_function_sets", "activation table %q is not in the archive", name)
		}
	}
	for i, t := range j.DVETables {
		for _, f := range []string{t.ControlTable, t.DatapathTable, t.OpcodeTable} {
			if f == "" {
				continue
			}
			if _, ok := c.m.File.Member(c.sg.Ref(f)); !ok {
				c.add(RuleMissingMember, fmt.Sprintf("%s: dve_tables[%d]", e.Member, i), "DVE table %q is not in the archive", c.sg.Ref(f))
			}
		}
	}
	for i, ent := range j.DMA {
		c.checkEntry(e, i, ent)
	}
}

func entryLoc(member string, i int, comment string) string {
	loc := fmt.Sprintf("%s: dma[%d]", member, i)
	if comment != "" {
		loc += " (" + comment + ")"
	}
	return loc
}

func (c *checker) checkEntry(e *Engine, i int, ent *DMAEntry) {
	if ent == nil {
		c.add(RuleDescRequired, entryLoc(e.Member, i, ""), "DMA entry is null")
		return
	}
	loc := entryLoc(e.Member, i, ent.Comment)
	d := c.sg.Def
	inf1 := c.arch == ArchInf1
	var missing []string
	if ent.ID == nil {
		missing = append(missing, "id")
	}
	if ent.QueueName() == "" {
		missing = append(missing, "queue or instance_name")
	}
	if !ent.HasDesc {
		missing = append(missing, "desc")
	}
	if len(missing) > 0 {
		c.add(RuleDescRequired, loc, "missing %s", strings.Join(missing, ", "))
	}
	if ent.InstanceName != nil && *ent.InstanceName != "" {
		found := false
		for _, q := range d.DMAQueue {
			if q != nil && slices.Contains(q.QueueInstances, *ent.InstanceName) {
				found = true
			}
		}
		if !found {
			c.add(RuleDescQueue, loc+".instance_name", "no queue set declares instance %q", *ent.InstanceName)
		}
	} else if ent.Queue != nil && *ent.Queue != "" {
		if _, ok := d.DMAQueue[*ent.Queue]; !ok {
			c.add(RuleDescQueue, loc+".queue", "queue set %q is not declared in %s", *ent.Queue, c.sg.DefMember)
		}
	}
	if inf1 {
		for _, f := range []struct {
			set  bool
			name string
		}{{deref(ent.InstanceName) != "", "instance_name"}, {deref(ent.FunctionStart) != "", "function_start"}, {deref(ent.SectionStartDesc), "section_start_desc"}} {
			if f.set {
				c.add(RuleArchField, loc+"."+f.name, "%s is not supported on INF1", f.name)
			}
		}
	}
	if len(ent.RemoteSemaphores) > 0 && (c.arch == ArchTrn1 || inf1) {
		c.add(RuleArchField, loc+".remote_semaphores", "remote_semaphores needs Trn2 or later (target %s)", c.arch)
	}
	for k, ds := range ent.Desc {
		c.checkDesc(fmt.Sprintf("%s.desc[%d]", loc, k), ds)
	}
}

func (c *checker) checkDesc(loc string, ds *Desc) {
	if ds == nil {
		c.add(RuleDescRequired, loc, "descriptor is null")
		return
	}
	inf1 := c.arch == ArchInf1
	op := ds.OpName()
	if !ops[op] {
		c.add(RuleOp, loc+".op", "op %q is not one of fma, cast, add, min, max, transpose, copy", op)
	}
	var missing []string
	if ds.To == nil {
		missing = append(missing, "to")
	}
	if ds.ToOff == nil {
		missing = append(missing, "to_off")
	}
	if ds.ToSteps == nil {
		missing = append(missing, "to_steps")
	}
	if ds.ToSizes == nil {
		missing = append(missing, "to_sizes")
	}
	if ds.FromArr == nil {
		if ds.From == nil {
			missing = append(missing, "from (or from_arr)")
		} else {
			if ds.FromOff == nil {
				missing = append(missing, "from_off")
			}
			if ds.FromSteps == nil {
				missing = append(missing, "from_steps")
			}
			if ds.FromSizes == nil {
				missing = append(missing, "from_sizes")
			}
		}
	} else {
		for i, s := range ds.FromArr {
			if s == nil || s.From == nil || s.FromOff == nil || s.FromSteps == nil || s.FromSizes == nil {
				missing = append(missing, fmt.Sprintf("from_arr[%d] from/from_off/from_steps/from_sizes", i))
			}
		}
	}
	if len(missing) > 0 {
		c.add(RuleDescRequired, loc, "missing %s", strings.Join(missing, ", "))
	}
	if len(ds.FromArr) > 16 {
		c.add(RuleFromArr, loc+".from_arr", "%d sources; at most 16 are allowed", len(ds.FromArr))
	}
	if inf1 {
		for _, f := range []struct {
			set  bool
			name string
		}{{op != "copy", "op"}, {deref(ds.FromDType) != "" && *ds.FromDType != "uint8", "from_dtype"}, {deref(ds.ToDType) != "" && *ds.ToDType != "uint8", "to_dtype"}, {len(ds.FromArr) > 0, "from_arr"},
			{ds.Scale != nil && *ds.Scale != 1, "scale"}, {ds.Constant != nil && ds.ConstantDType != nil, "constant"}, {ds.TransposeShape != nil, "transpose_shape"}, {ds.TransposeElementSize != nil, "transpose_element_size"}} {
			if f.set {
				c.add(RuleArchField, loc+"."+f.name, "%s is not supported on INF1", f.name)
			}
		}
	}
	// Op-specific fields.
	opOnly := func(present bool, field string, valid ...string) {
		if present && !slices.Contains(valid, op) {
			c.add(RuleOpField, loc+"."+field, "%s is only valid with op %s, not %q", field, strings.Join(valid, "/"), op)
		}
	}
	// Only values that change the transfer are flagged on another op: the
	// spec defaults scale to 1.0 and scale_dtype to float32 (a producer
	// may write them on every descriptor) and ignores constant without
	// constant_dtype.
	opOnly(ds.Scale != nil && *ds.Scale != 1, "scale", "fma")
	opOnly(ds.Constant != nil && ds.ConstantDType != nil, "constant", "min", "max")
	// transpose_op marks a transpose whatever op says; beside another op
	// (a transposing cast, perhaps, in a compiler not seen yet) it is
	// a warning below, and its transpose fields are not an error.
	opOnly(ds.TransposeShape != nil && ds.TransposeOp == nil, "transpose_shape", "transpose")
	opOnly(ds.TransposeElementSize != nil && ds.TransposeOp == nil, "transpose_element_size", "transpose")
	if ds.TransposeOp != nil {
		if _, err := ds.Permutation(); err != nil {
			plain, _ := ds.Operation()
			c.add(RuleTransposeOp, loc+".transpose_op", "%v; npukit executes and prices this descriptor as a plain %s", err, plain)
		} else if op != "transpose" {
			c.add(RuleTransposeOp, loc+".transpose_op", "transpose_op %q beside op %q: npukit models the %s only", *ds.TransposeOp, op, op)
		}
	}
	if ds.ScaleDType != nil && *ds.ScaleDType != "float32" && op == "fma" {
		c.add(RuleOpField, loc+".scale_dtype", "scale_dtype %q: only float32 is valid", *ds.ScaleDType)
	}
	if ds.ConstantDType != nil && !constTypes[*ds.ConstantDType] {
		c.add(RuleOpField, loc+".constant_dtype", "constant_dtype %q is not float32, int32 or uint32", *ds.ConstantDType)
	}
	if ds.ConstantDType != nil && ds.Constant == nil {
		if *ds.ConstantDType == "float32" {
			// nlohmann::json, which neuronx-cc writes with, serialises
			// non-finite floats as null: a max-pool's -inf initialiser
			// arrives as "constant": null, which reads as absent.
			c.add(RuleConstantNull, loc+".constant", "constant is null or absent with constant_dtype float32 (a non-finite value written as null?)")
		} else {
			c.add(RuleOpField, loc+".constant", "constant is required when constant_dtype is set")
		}
	}
	if ds.TransposeShape != nil && len(ds.TransposeShape) != 4 {
		c.add(RuleOpField, loc+".transpose_shape", "transpose_shape has %d elements; it must have 4", len(ds.TransposeShape))
	}
	if ds.TransposeElementSize != nil && *ds.TransposeElementSize <= 0 {
		c.add(RuleOpField, loc+".transpose_element_size", "transpose_element_size %d must be positive", *ds.TransposeElementSize)
	}
	// Sides.
	for i, s := range ds.Sources() {
		if s == nil {
			continue
		}
		sl := loc
		if ds.FromArr != nil {
			sl = fmt.Sprintf("%s.from_arr[%d]", loc, i)
		}
		c.checkSide(sl, "from", s.From, s.FromOff, s.FromSteps, s.FromSizes, s.FromDType)
	}
	c.checkSide(loc, "to", ds.To, ds.ToOff, ds.ToSteps, ds.ToSizes, ds.ToDType)
}

func (c *checker) checkSide(loc, side string, name *string, off *int64, steps, sizes []int64, dt *string) {
	if dt != nil && !ValidDType(*dt) {
		c.add(RuleDType, loc+"."+side+"_dtype", "dtype %q is not one of the spec's values", *dt)
	}
	if steps != nil && sizes != nil {
		if len(steps) != len(sizes) || len(sizes) == 0 || len(sizes) > accesspattern.MaxDims {
			c.add(RulePatternShape, loc+"."+side+"_sizes", "%s_steps has %d elements and %s_sizes %d: both need 1..4 and equal lengths", side, len(steps), side, len(sizes))
			return
		}
	}
	if name == nil {
		return
	}
	v, ok := c.sg.Def.Var[*name]
	if !ok || v == nil {
		c.add(RuleDescVar, loc+"."+side, "variable %q is not declared in %s", *name, c.sg.DefMember)
		return
	}
	if off == nil || steps == nil || sizes == nil {
		return
	}
	p := accesspattern.Pattern{Offset: *off, Sizes: sizes, Steps: steps}
	if err := p.Validate(); err != nil {
		c.add(RulePatternShape, loc+"."+side+"_sizes", "%v", err)
		return
	}
	if p.Bytes() == 0 {
		return
	}
	if v.TypeName() == "state-buffer" {
		// The 262144-byte partition stride is measured on trn1 NEFFs
		// (notes/neff.md); INF1's state-buffer addressing is not
		// documented, so its patterns are not bounded here.
		if c.arch != ArchInf1 {
			c.checkSBBounds(loc, side, *name, p)
		}
		return
	}
	lo, hi := p.Bounds()
	if v.Size != nil && (lo < 0 || hi > *v.Size) {
		c.add(RulePatternBounds, loc+"."+side, "pattern touches bytes [%d, %d) of %q, which has %d", lo, hi, *name, *v.Size)
	}
}

// checkSBBounds verifies that every run stays inside one partition.
func (c *checker) checkSBBounds(loc, side, name string, p accesspattern.Pattern) {
	part := SBPartitionBytes(c.arch)
	lo, hi := p.Bounds()
	if lo < 0 || hi > SBPartitionStride*SBPartitions {
		c.add(RulePatternBounds, loc+"."+side, "pattern touches state-buffer bytes [%d, %d), outside %d partitions of stride %d", lo, hi, SBPartitions, SBPartitionStride)
		return
	}
	// Most patterns prove in-bounds arithmetically: dimensions whose step
	// is a whole number of partitions move between partitions; the rest
	// add to the offset inside one. Only when that bound reaches past the
	// partition are the runs walked, and only when there are few enough to
	// walk in bounded time (a crafted pattern can declare 2^60 runs);
	// beyond that nothing is claimed.
	if within, ok := sbWithinBound(p); ok && within < part {
		return
	}
	if sbRunBound(p) > maxCheckedRuns {
		return
	}
	cur := p.Cursor()
	for {
		r, ok := cur.Next()
		if !ok {
			return
		}
		// A merged run may legitimately span partitions only if each
		// partition is full; split it per partition.
		for off, end := r.Off, r.End(); off < end; {
			pstart := off - off%SBPartitionStride
			stop := min(end, pstart+SBPartitionStride)
			if stop-pstart > part {
				c.add(RulePatternBounds, loc+"."+side, "state-buffer access reaches byte %d of partition %d, which holds %d bytes (%q, stride %d)", stop-pstart, pstart/SBPartitionStride, part, name, SBPartitionStride)
				return
			}
			off = stop
		}
	}
}

// maxCheckedRuns bounds the runs the state-buffer check walks.
const maxCheckedRuns = 1 << 22

// sbWithinBound is an upper bound of (byte address mod stride) over a
// pattern with non-negative offset and steps (ok false otherwise).
func sbWithinBound(p accesspattern.Pattern) (int64, bool) {
	if p.Offset < 0 {
		return 0, false
	}
	within := p.Offset % SBPartitionStride
	for i, size := range p.Sizes {
		step := p.Steps[i]
		if step < 0 {
			return 0, false
		}
		if i > 0 && step%SBPartitionStride == 0 {
			continue
		}
		if size-1 >= SBPartitionStride {
			return SBPartitionStride, true
		}
		if size > 1 {
			within += (size - 1) * min(step, SBPartitionStride)
		}
		if within >= SBPartitionStride {
			return within, true
		}
	}
	return within, true
}

// sbRunBound is an upper bound of a valid pattern's contiguous runs.
func sbRunBound(p accesspattern.Pattern) int64 {
	n := p.Bytes()
	if n > 0 && (p.Steps[0] == 1 || p.Sizes[0] == 1) {
		return n / p.Sizes[0]
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
