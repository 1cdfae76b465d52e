package edgetpu

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/npukit/npukit/internal/humanize"
	"github.com/npukit/npukit/tflite"
)

// The uncompiled twin of a compiled model: edgetpu_compiler writes
// X_edgetpu.tflite from X.tflite, in the output directory (by default the
// current one), and users keep both side by side. The compiled file keeps
// no layer shapes; its twin gives the Edge TPU compute layer by layer
// (LatencyOptions.Uncompiled). FindTwin looks beside a compiled file the
// way the NTFF reader looks for the profiled NEFF beside a capture, and
// CheckTwin refuses a model that is not the one the compiler read.

// Twin is an uncompiled model found for (or given with) a compiled one.
type Twin struct {
	Path  string        `json:"path"`
	Model *tflite.Model `json:"-"`
	// How says where it came from: TwinGiven or TwinBeside.
	How string `json:"how"`
	// Also names other files beside it that passed CheckTwin and are the
	// same network (versions of one file: the same operators on tensors
	// of the same shapes and types), so the choice changes no estimate.
	Also []string `json:"also_matching,omitempty"`

	planOnce sync.Once
	plan     *Plan
}

// Plan is the predicted mapping of the twin (PlanModel with the default
// options), whose mapped layers price the Edge TPU compute: planned once
// however many estimates use the twin (a report prices every host class).
func (t *Twin) Plan() *Plan {
	t.planOnce.Do(func() {
		if t.Model != nil {
			t.plan = PlanModel(t.Model, PlanOptions{})
		}
	})
	return t.plan
}

// How a twin was found.
const (
	TwinGiven  = "given (--uncompiled)"
	TwinBeside = "found beside the compiled file"
)

// TwinCandidates lists the files in the compiled model's directory that
// may be its uncompiled twin, by the compiler's naming: the name with
// "_edgetpu" removed (X_edgetpu.tflite -> X.tflite, and a renamed copy
// X_edgetpu__v2.tflite -> X__v2.tflite), then the other .tflite files
// whose name begins with the part before "_edgetpu" (copies of X.tflite
// renamed with a suffix, e.g. X__1234.tflite), in name order. A name
// without "_edgetpu" has no candidates: the naming is all FindTwin goes
// by.
func TwinCandidates(path string) []string {
	dir, base := filepath.Split(path)
	i := strings.LastIndex(base, "_edgetpu")
	if i <= 0 || !strings.HasSuffix(base, ".tflite") {
		return nil
	}
	stem := base[:i]
	first := stem + base[i+len("_edgetpu"):]
	out := []string{filepath.Join(dir, first)}
	m, _ := filepath.Glob(filepath.Join(dir, globEscape(stem)+"*.tflite"))
	slices.Sort(m)
	for _, f := range m {
		b := filepath.Base(f)
		if b == base || b == first || strings.Contains(b, "_edgetpu") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// maxTwinCandidates is how many renamed copies FindTwin reads at most
// beside the compiler's own name for the twin.
const maxTwinCandidates = 8

// globEscape quotes the glob metacharacters of a literal name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FindTwin looks beside the compiled model m (read from path) for its
// uncompiled twin: the compiler's name for it (X.tflite) when it exists
// and passes CheckTwin; otherwise the one other candidate that passes.
// When several pass, they are used only if they are one network (the
// same operators on tensors of the same shapes and types: versions of one
// file, which price alike), the first by name; otherwise the pairing is
// ambiguous and none is used. It returns the twin (nil when none) and
// what it found when it used none (empty when there was nothing beside
// the file to consider), for the output's notes.
func FindTwin(path string, m *Model) (*Twin, string) {
	if m == nil || m.TFLite == nil || len(m.Ops) == 0 {
		return nil, ""
	}
	var found []*Twin
	var refused []string
	skipped := ""
	cands := TwinCandidates(path)
	if len(cands) > maxTwinCandidates+1 {
		// A directory of many copies: reading them all to guess is
		// not worth it; the compiler's own name is still tried.
		skipped = fmt.Sprintf("%d files beside it are named like the uncompiled model, too many to check (more than %d): give it with --uncompiled", len(cands)-1, maxTwinCandidates)
		cands = cands[:1]
	}
	for k, c := range cands {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		u, err := tflite.ReadFile(c)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s beside it cannot be read (%v)", filepath.Base(c), err))
			continue
		}
		if err := CheckTwin(m, u); err != nil {
			refused = append(refused, fmt.Sprintf("%s beside it is not the model it was compiled from (%v)", filepath.Base(c), err))
			continue
		}
		if k == 0 {
			// The compiler's own name for the input: no other
			// candidate is considered.
			return &Twin{Path: c, Model: u, How: TwinBeside}, ""
		}
		found = append(found, &Twin{Path: c, Model: u, How: TwinBeside})
	}
	switch {
	case len(found) == 1:
		return found[0], ""
	case len(found) > 1:
		same := true
		for _, f := range found[1:] {
			same = same && sameNetwork(found[0].Model, f.Model)
		}
		if same {
			for _, f := range found[1:] {
				found[0].Also = append(found[0].Also, filepath.Base(f.Path))
			}
			return found[0], ""
		}
		var names []string
		for _, f := range found {
			names = append(names, filepath.Base(f.Path))
		}
		return nil, fmt.Sprintf("%d files beside it could be the uncompiled model (%s): none is used; give one with --uncompiled", len(found), strings.Join(names, ", "))
	case len(refused) > 0 && len(refused) <= 3:
		note := strings.Join(refused, "; ")
		if skipped != "" {
			note += "; " + skipped
		}
		return nil, note
	case len(refused) > 3:
		return nil, fmt.Sprintf("%d files beside it named like the uncompiled model are not it (e.g. %s)", len(refused), refused[0])
	}
	return nil, skipped
}

// CheckTwin reports whether u can be the model m was compiled from: u has
// no Edge TPU operator, and in the first subgraph of each
//
//   - the model's inputs and outputs have the same shapes, types and
//     quantization (the compiler keeps the model's interface),
//   - the tensors each Edge TPU operator reads and writes are in u, by
//     name, with the same shape and type (the segment the compiler cut),
//   - every operator left on the CPU is in u: an operator of the same
//     type writing a tensor of the same name and shape.
//
// A model that fails is not used: a wrong twin would price the wrong
// layers silently.
func CheckTwin(m *Model, u *tflite.Model) error {
	if m == nil || m.TFLite == nil || len(m.TFLite.Subgraphs) == 0 {
		return fmt.Errorf("the compiled model has no TFLite graph")
	}
	if u == nil || len(u.Subgraphs) == 0 {
		return fmt.Errorf("no subgraph")
	}
	for _, c := range u.OperatorCodes {
		if c.Custom() && c.CustomCode == CustomCode {
			return fmt.Errorf("it is compiled too (it has an Edge TPU operator)")
		}
	}
	c, t := m.TFLite, u
	cs, us := &c.Subgraphs[0], &t.Subgraphs[0]
	if err := sameIO("input", cs, us, cs.Inputs, us.Inputs); err != nil {
		return err
	}
	if err := sameIO("output", cs, us, cs.Outputs, us.Outputs); err != nil {
		return err
	}
	byName := map[string]*tflite.Tensor{}
	for i := range us.Tensors {
		byName[us.Tensors[i].Name] = &us.Tensors[i]
	}
	// Operator types writing each tensor name in u.
	writer := map[string][]string{}
	for _, op := range us.Operators {
		if int(op.OpcodeIndex) >= len(t.OperatorCodes) {
			continue
		}
		for _, o := range op.Outputs {
			if o >= 0 && int(o) < len(us.Tensors) {
				n := us.Tensors[o].Name
				writer[n] = append(writer[n], t.OperatorCodes[op.OpcodeIndex].Label())
			}
		}
	}
	for oi, op := range cs.Operators {
		if int(op.OpcodeIndex) >= len(c.OperatorCodes) {
			return fmt.Errorf("compiled operator %d has no operator code", oi)
		}
		code := c.OperatorCodes[op.OpcodeIndex]
		if code.Custom() && code.CustomCode == CustomCode {
			for _, list := range [][]int32{op.Inputs, op.Outputs} {
				for _, ti := range list {
					if ti < 0 || int(ti) >= len(cs.Tensors) {
						continue
					}
					ct := &cs.Tensors[ti]
					ut := byName[ct.Name]
					if ut == nil {
						return fmt.Errorf("it has no tensor %q, which the Edge TPU operator %d exchanges", ct.Name, oi)
					}
					if !slices.Equal(ut.Shape, ct.Shape) || ut.Type != ct.Type {
						return fmt.Errorf("tensor %q is %s %v in it, %s %v in the compiled model", ct.Name, ut.Type, ut.Shape, ct.Type, ct.Shape)
					}
				}
			}
			continue
		}
		label := code.Label()
		for _, ti := range op.Outputs {
			if ti < 0 || int(ti) >= len(cs.Tensors) {
				continue
			}
			ct := &cs.Tensors[ti]
			ut := byName[ct.Name]
			if ut == nil || !slices.Contains(writer[ct.Name], label) || !slices.Equal(ut.Shape, ct.Shape) {
				return fmt.Errorf("it has no %s writing %q (the compiled model's CPU operator %d)", label, ct.Name, oi)
			}
		}
	}
	return nil
}

// sameIO compares the model inputs (or outputs) of two subgraphs.
func sameIO(what string, cs, us *tflite.Subgraph, a, b []int32) error {
	if len(a) != len(b) {
		return fmt.Errorf("it has %s, the compiled model %d", humanize.Plural(len(b), what), len(a))
	}
	for k := range a {
		if a[k] < 0 || b[k] < 0 || int(a[k]) >= len(cs.Tensors) || int(b[k]) >= len(us.Tensors) {
			return fmt.Errorf("%s %d: no tensor", what, k)
		}
		x, y := &cs.Tensors[a[k]], &us.Tensors[b[k]]
		if !slices.Equal(x.Shape, y.Shape) || x.Type != y.Type {
			return fmt.Errorf("%s %d is %s %v, %s %v in the compiled model", what, k, y.Type, y.Shape, x.Type, x.Shape)
		}
		if !slices.Equal(x.Scale, y.Scale) || !slices.Equal(x.ZeroPoint, y.ZeroPoint) {
			return fmt.Errorf("%s %d is quantized differently (scale %v zero point %v, %v %v in the compiled model)", what, k, y.Scale, y.ZeroPoint, x.Scale, x.ZeroPoint)
		}
	}
	return nil
}

// sameNetwork reports whether two models have the same operators on
// tensors of the same shapes and types, in the same order (first
// subgraph): what the latency estimate reads of an uncompiled model.
func sameNetwork(a, b *tflite.Model) bool {
	if len(a.Subgraphs) == 0 || len(b.Subgraphs) == 0 {
		return false
	}
	x, y := &a.Subgraphs[0], &b.Subgraphs[0]
	if len(x.Operators) != len(y.Operators) {
		return false
	}
	label := func(m *tflite.Model, op *tflite.Operator) string {
		if int(op.OpcodeIndex) >= len(m.OperatorCodes) {
			return ""
		}
		return m.OperatorCodes[op.OpcodeIndex].Label()
	}
	same := func(ta, tb []int32) bool {
		if len(ta) != len(tb) {
			return false
		}
		for k := range ta {
			if (ta[k] < 0) != (tb[k] < 0) {
				return false
			}
			if ta[k] < 0 {
				continue
			}
			if int(ta[k]) >= len(x.Tensors) || int(tb[k]) >= len(y.Tensors) {
				return false
			}
			u, v := &x.Tensors[ta[k]], &y.Tensors[tb[k]]
			if !slices.Equal(u.Shape, v.Shape) || u.Type != v.Type {
				return false
			}
		}
		return true
	}
	for i := range x.Operators {
		p, q := &x.Operators[i], &y.Operators[i]
		if label(a, p) != label(b, q) || !same(p.Inputs, q.Inputs) || !same(p.Outputs, q.Outputs) {
			return false
		}
	}
	return true
}
