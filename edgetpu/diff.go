package edgetpu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"io"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/semdiff"
)

// Difference is one differing value of the model, by path. Arrays whose
// elements have an identity are addressed by it, not by position: I/O
// layers and tensors by name, relocations by (kind, layer, batch,
// position), DMA hints by (kind, direction, target, chunk), executables by
// type; so one inserted element is one difference, not a shift of all
// that follow. A or B is nil when absent on that side; numbers are exact.
type Difference struct {
	Path string `json:"path"`
	A    any    `json:"a"`
	B    any    `json:"b"`
}

// DiffResult is the outcome of Diff: the verdict in the user's terms
// first (parameters cached and streamed, instructions, layers), then every
// difference in detail.
type DiffResult struct {
	Statement string       `json:"statement"`
	Verdict   semdiff.List `json:"verdict"`
	// Differences are every difference but the caching tokens.
	Differences []Difference `json:"differences"`
	// TokenDifferences are the caching-token differences (producer noise:
	// every compile draws a random token), in hex as inspect prints them.
	TokenDifferences []Difference `json:"token_differences"`
}

// Identical reports whether the models differ in nothing but tokens.
func (r *DiffResult) Identical() bool { return len(r.Differences) == 0 }

// Diff compares two models: the quantities inspect reports (verdict) and
// every field of the model plus the SHA-256 of every chunk, parameter block
// and serialized model (details), so that two compiles of one model come
// out "identical except caching tokens".
func Diff(a, b *Model) (*DiffResult, error) {
	fa, ea, err := flatten(a)
	if err != nil {
		return nil, err
	}
	fb, eb, err := flatten(b)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	r := &DiffResult{Verdict: diffVerdict(a, b), Differences: []Difference{}, TokenDifferences: []Difference{}}
	if r.Verdict == nil {
		r.Verdict = semdiff.List{}
	}
	// An element (layer, relocation, hint) on one side only is one
	// difference, not one per field.
	var onlyOne []string
	for _, p := range unionKeys(ea, eb) {
		_, okA := ea[p]
		_, okB := eb[p]
		if okA != okB {
			onlyOne = append(onlyOne, p)
		}
	}
	under := func(k string) string {
		for _, p := range onlyOne {
			if strings.HasPrefix(k, p+".") {
				return p
			}
		}
		return ""
	}
	done := map[string]bool{}
	for _, k := range sorted {
		if p := under(k); p != "" {
			if !done[p] {
				done[p] = true
				d := Difference{Path: p}
				if e, ok := ea[p]; ok {
					d.A = e
				} else {
					d.B = eb[p]
				}
				r.Differences = append(r.Differences, d)
			}
			continue
		}
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka && okb && va == vb {
			continue
		}
		d := Difference{Path: k}
		if oka {
			d.A = va
		}
		if okb {
			d.B = vb
		}
		if strings.HasSuffix(k, ".parameter_caching_token") {
			r.TokenDifferences = append(r.TokenDifferences, d)
		} else {
			r.Differences = append(r.Differences, d)
		}
	}
	switch {
	case len(r.Differences) == 0 && len(r.TokenDifferences) == 0:
		r.Statement = "identical"
	case len(r.Differences) == 0:
		r.Statement = fmt.Sprintf("identical except caching tokens (%d executables): separate compiles of one model", len(r.TokenDifferences))
	default:
		r.Statement = fmt.Sprintf("differ in %s", humanize.Plural(len(r.Differences), "field"))
		if len(r.Verdict) > 0 {
			r.Statement = r.Verdict.Statement(3) + " (" + r.Statement + ")"
		}
		if len(r.TokenDifferences) > 0 {
			r.Statement += fmt.Sprintf(", plus %s", humanize.Plural(len(r.TokenDifferences), "caching-token difference"))
		}
	}
	return r, nil
}

// diffVerdict compares what inspect reports of the two models.
func diffVerdict(a, b *Model) semdiff.List {
	var l semdiff.List
	sa, sb := Summarize(a), Summarize(b)
	count := func(s *Summary, where string) int64 {
		n := int64(0)
		for _, o := range s.Operators {
			if o.RunsOn == where {
				n++
			}
		}
		return n
	}
	l.Int("Edge TPU ops", semdiff.Count, int64(len(sa.EdgeTPUOps)), int64(len(sb.EdgeTPUOps)))
	for oi := 0; oi < min(len(sa.EdgeTPUOps), len(sb.EdgeTPUOps)); oi++ {
		pa, pb := sa.EdgeTPUOps[oi].Packages, sb.EdgeTPUOps[oi].Packages
		prefix := ""
		if len(sa.EdgeTPUOps) > 1 {
			prefix = fmt.Sprintf("op %d ", oi)
		}
		l.Int(prefix+"packages", semdiff.Count, int64(len(pa)), int64(len(pb)))
		for pi := 0; pi < min(len(pa), len(pb)); pi++ {
			p := prefix
			if len(pa) > 1 {
				p += fmt.Sprintf("package %d ", pi)
			}
			diffPackage(&l, p, pa[pi], pb[pi])
			diffContent(&l, p, a.Ops[oi].Packages[pi], b.Ops[oi].Packages[pi])
		}
	}
	l.Int("operators on the Edge TPU", semdiff.Count, count(sa, "Edge TPU"), count(sb, "Edge TPU"))
	l.Int("operators on the CPU", semdiff.Count, count(sa, "CPU"), count(sb, "CPU"))
	diffTensors(&l, "model input", sa.Inputs, sb.Inputs)
	diffTensors(&l, "model output", sa.Outputs, sb.Outputs)
	// What the differences cost: the steady-state time npukit sim gives
	// each file on the default host (from the file alone: a diff reads
	// no twin), so that "+245.2 KiB streamed parameters" comes with the
	// time it adds.
	if h, ok := HostByName(DefaultHost); ok {
		la, errA := EstimateModel(a, h, LatencyOptions{})
		lb, errB := EstimateModel(b, h, LatencyOptions{})
		if errA == nil && errB == nil {
			l.Int("steady-state time per inference on "+h.Name+" (npukit sim of the file alone)", semdiff.Nanos, int64(la.SteadyStateUs*1e3+0.5), int64(lb.SteadyStateUs*1e3+0.5))
		}
	}
	return l
}

// diffContent says when an executable's instructions or parameters
// changed content at the same size (co-compiling, a retrained model).
func diffContent(l *semdiff.List, p string, a, b *Package) {
	ia, ib := executableIDs(a.Executables), executableIDs(b.Executables)
	byID := map[string]*Executable{}
	for i, e := range b.Executables {
		byID[ib[i]] = e
	}
	for i, x := range a.Executables {
		y := byID[ia[i]]
		if y == nil {
			continue
		}
		var ca, cb []byte
		for _, c := range x.Bitstreams {
			ca = append(ca, c.Data...)
		}
		for _, c := range y.Bitstreams {
			cb = append(cb, c.Data...)
		}
		if len(ca) == len(cb) && !bytes.Equal(ca, cb) {
			l.Str(p+ia[i]+" instruction content (same size)", "sha256 "+hashOf(ca)[:12], "sha256 "+hashOf(cb)[:12])
		}
		if len(x.Parameters) == len(y.Parameters) && !bytes.Equal(x.Parameters, y.Parameters) {
			l.Str(p+ia[i]+" parameter content (same size)", "sha256 "+hashOf(x.Parameters)[:12], "sha256 "+hashOf(y.Parameters)[:12])
		}
	}
}

func diffTensors(l *semdiff.List, what string, a, b []TensorSummary) {
	byName := func(ts []TensorSummary) map[string]TensorSummary {
		m := map[string]TensorSummary{}
		for _, t := range ts {
			m[t.Name] = t
		}
		return m
	}
	ma, mb := byName(a), byName(b)
	for _, t := range a {
		u, ok := mb[t.Name]
		if !ok {
			l.Presence(what+" "+t.Name, fmt.Sprintf("[%s] %s", joinInts(t.Shape, "x"), t.Type), true)
			continue
		}
		l.Str(what+" "+t.Name, fmt.Sprintf("[%s] %s", joinInts(t.Shape, "x"), t.Type), fmt.Sprintf("[%s] %s", joinInts(u.Shape, "x"), u.Type))
	}
	for _, t := range b {
		if _, ok := ma[t.Name]; !ok {
			l.Presence(what+" "+t.Name, fmt.Sprintf("[%s] %s", joinInts(t.Shape, "x"), t.Type), false)
		}
	}
}

func diffPackage(l *semdiff.List, p string, a, b PackageSummary) {
	l.Int(p+"streamed parameters", semdiff.Bytes, a.StreamedParamBytes, b.StreamedParamBytes)
	l.Int(p+"cached parameters", semdiff.Bytes, a.CachedParamBytes, b.CachedParamBytes)
	l.Str(p+"compiler version", a.CompilerVersion, b.CompilerVersion)
	l.Int(p+"minimum runtime version", semdiff.Text, int64(a.MinRuntimeVersion), int64(b.MinRuntimeVersion))
	ea, eb := executablesByType(a.Executables), executablesByType(b.Executables)
	for _, k := range unionKeys(ea, eb) {
		x, okA := ea[k]
		y, okB := eb[k]
		if !okA || !okB {
			e := x
			if !okA {
				e = y
			}
			l.Presence(p+"executable "+k, fmt.Sprintf("%s, %d B of instructions, %d B of parameters", e.Type, e.InstructionBytes, e.ParameterBytes), okA)
			continue
		}
		ep := p + k + " "
		l.Int(ep+"instructions", semdiff.Bytes, x.InstructionBytes, y.InstructionBytes)
		l.Int(ep+"scratch", semdiff.Bytes, int64(x.ScratchBytes), int64(y.ScratchBytes))
		l.Int(ep+"narrow memory per tile", semdiff.Bytes, int64(x.NarrowMemPerTile), int64(y.NarrowMemPerTile))
		l.Int(ep+"estimated cycles", semdiff.Cycles, x.EstimatedCycles, y.EstimatedCycles)
		l.Int(ep+"relocations", semdiff.Count, sumInts(x.Relocations), sumInts(y.Relocations))
		l.Int(ep+"DMA hints", semdiff.Count, int64(x.HintCount), int64(y.HintCount))
		diffLayers(l, ep+"input layer", x.Inputs, y.Inputs)
		diffLayers(l, ep+"output layer", x.Outputs, y.Outputs)
	}
}

func diffLayers(l *semdiff.List, what string, a, b []LayerSummary) {
	ma, mb := map[string]LayerSummary{}, map[string]LayerSummary{}
	for _, x := range a {
		ma[x.Name] = x
	}
	for _, x := range b {
		mb[x.Name] = x
	}
	for _, name := range unionKeys(ma, mb) {
		x, okA := ma[name]
		y, okB := mb[name]
		w := what + " `" + name + "`"
		if !okA || !okB {
			e := x
			if !okA {
				e = y
			}
			l.Presence(w, fmt.Sprintf("%dx%dx%d %s, %s B padded", e.Y, e.X, e.Z, e.DataType, humanize.Count(int64(e.SizeBytes))), okA)
			continue
		}
		l.Str(w+" shape", fmt.Sprintf("%dx%dx%d", x.Y, x.X, x.Z), fmt.Sprintf("%dx%dx%d", y.Y, y.X, y.Z))
		l.Int(w+" padded size", semdiff.Bytes, int64(x.SizeBytes), int64(y.SizeBytes))
		l.Str(w+" type", x.DataType, y.DataType)
		l.Int(w+" zero point", semdiff.Text, int64(x.ZeroPoint), int64(y.ZeroPoint))
		l.Str(w+" scale", fmt.Sprint(x.Scale), fmt.Sprint(y.Scale))
		l.Int(w+" executions", semdiff.Count, int64(x.ExecutionCount), int64(y.ExecutionCount))
		l.Str(w+" tiling", x.Tiling, y.Tiling)
	}
}

// executablesByType keys executables by type ("EXECUTION_ONLY"; a second
// of one type gets "#2").
func executablesByType(es []ExecutableSummary) map[string]ExecutableSummary {
	m := map[string]ExecutableSummary{}
	for _, e := range es {
		k := e.Type
		for n := 2; ; n++ {
			if _, dup := m[k]; !dup {
				break
			}
			k = fmt.Sprintf("%s#%d", e.Type, n)
		}
		m[k] = e
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return sortedKeys(seen)
}

func sumInts(m map[string]int) int64 {
	var n int64
	for _, v := range m {
		n += int64(v)
	}
	return n
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// flatten renders a model as path -> value (int64 for integral numbers,
// exact; strings; bools), arrays of identifiable elements keyed by their
// identity.
// The second map holds every identity-keyed element's path and compact
// JSON.
func flatten(m *Model) (map[string]any, map[string]string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, err
	}
	out := map[string]any{}
	elems := map[string]string{}
	var walk func(p, key string, v any)
	walk = func(p, key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(p+"."+k, k, c)
			}
		case []any:
			ids := identities(key, x)
			if ids == nil {
				out[p+".length"] = int64(len(x))
			}
			for i, c := range x {
				if ids != nil {
					ep := p + "[" + ids[i] + "]"
					elems[ep] = fmt.Sprint(semdiff.Value(c))
					walk(ep, "", c)
				} else {
					walk(fmt.Sprintf("%s[%d]", p, i), "", c)
				}
			}
		default:
			if key == "parameter_caching_token" {
				if n, ok := x.(json.Number); ok {
					var t uint64
					if _, err := fmt.Sscan(n.String(), &t); err == nil {
						out[p] = semdiff.Hex(t)
						return
					}
				}
			}
			out[p] = semdiff.Value(x)
		}
	}
	walk("", "", v)
	// Content that JSON leaves out.
	for oi, op := range m.Ops {
		for pi, p := range op.Packages {
			pp := fmt.Sprintf(".edgetpu_ops[%d].packages[%d]", oi, pi)
			out[pp+".signature_sha256"] = hashOf(p.Signature)
			ids := executableIDs(p.Executables)
			for ei, e := range p.Executables {
				ep := fmt.Sprintf("%s.executables[%s]", pp, ids[ei])
				out[ep+".parameters_sha256"] = hashOf(e.Parameters)
				out[ep+".serialized_model_sha256"] = hashOf(e.SerializedModel)
				for ci, c := range e.Bitstreams {
					out[fmt.Sprintf("%s.instruction_bitstreams[%d].sha256", ep, ci)] = hashOf(c.Data)
				}
			}
		}
	}
	return out, elems, nil
}

func executableIDs(es []*Executable) []string {
	ids := make([]string, len(es))
	seen := map[string]int{}
	for i, e := range es {
		k := e.Type.String()
		seen[k]++
		if seen[k] > 1 {
			k = fmt.Sprintf("%s#%d", k, seen[k])
		}
		ids[i] = k
	}
	return ids
}

// identities returns the identity of each element of the array under key
// ("" keys mean positional: nil).
func identities(key string, elems []any) []string {
	var id func(m map[string]any) string
	switch key {
	case "input_layers", "output_layers", "tensors":
		id = func(m map[string]any) string { return fmt.Sprint(m["name"]) }
	case "executables":
		id = func(m map[string]any) string { return fmt.Sprint(m["type"]) }
	case "field_offsets":
		id = func(m map[string]any) string { return metaID(m["meta"]) }
	case "hints":
		id = func(m map[string]any) string {
			s := fmt.Sprintf("%v %v %s", m["kind"], m["direction"], metaID(m["meta"]))
			if c, ok := m["instruction_chunk_index"]; ok {
				s += fmt.Sprintf(" chunk %v", c)
			}
			return s
		}
	default:
		return nil
	}
	ids := make([]string, len(elems))
	seen := map[string]int{}
	for i, e := range elems {
		m, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		k := id(m)
		seen[k]++
		if seen[k] > 1 {
			k = fmt.Sprintf("%s#%d", k, seen[k])
		}
		ids[i] = k
	}
	return ids
}

func metaID(v any) string {
	m, _ := v.(map[string]any)
	if m == nil {
		return "-"
	}
	s := fmt.Sprint(m["desc"])
	if n, ok := m["name"]; ok && n != "" {
		s += " " + fmt.Sprint(n)
	}
	return fmt.Sprintf("%s batch %v %v", s, m["batch"], m["position"])
}

// WriteText renders the verdict first, then the details.
func (r *DiffResult) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("%s\n", r.Statement)
	if len(r.Verdict) > 0 {
		ew.Printf("Changes:\n")
		for _, c := range r.Verdict {
			ew.Printf("  %s\n", c)
		}
	}
	if len(r.Differences) > 0 {
		ew.Printf("Details (%d, layers, relocations and DMA hints matched by identity):\n", len(r.Differences))
		for _, d := range r.Differences {
			ew.Printf("  %s: %s -> %s\n", d.Path, detailText(d.A), detailText(d.B))
		}
	}
	if len(r.TokenDifferences) > 0 {
		ew.Printf("Caching tokens (producer noise):\n")
		for _, d := range r.TokenDifferences {
			ew.Printf("  %s: %s -> %s\n", d.Path, detailText(d.A), detailText(d.B))
		}
	}
	return ew.Err()
}

func detailText(v any) string {
	if v == nil {
		return "(absent)"
	}
	return fmt.Sprint(v)
}
