package edgetpu

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/npukit/npukit/internal/stickywriter"
)

// Difference is one semantic difference between two models.
type Difference struct {
	Path string `json:"path"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// DiffResult is the outcome of Diff.
type DiffResult struct {
	Differences []Difference `json:"differences"`
	// TokenDifferences are the caching-token differences (producer noise:
	// every compile draws a random token).
	TokenDifferences []Difference `json:"token_differences"`
	Statement        string       `json:"statement"`
}

// Identical reports whether the models differ in nothing but tokens.
func (r *DiffResult) Identical() bool { return len(r.Differences) == 0 }

// Diff compares two models field by field (through the model's JSON form
// plus the SHA-256 of every chunk, parameter block and serialized model), so
// that two compiles of one model come out "identical except caching tokens".
func Diff(a, b *Model) (*DiffResult, error) {
	fa, err := flatten(a)
	if err != nil {
		return nil, err
	}
	fb, err := flatten(b)
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
	r := &DiffResult{Differences: []Difference{}, TokenDifferences: []Difference{}}
	for _, k := range sorted {
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka && okb && va == vb {
			continue
		}
		if !oka {
			va = "(absent)"
		}
		if !okb {
			vb = "(absent)"
		}
		d := Difference{Path: k, A: va, B: vb}
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
		r.Statement = fmt.Sprintf("%d differences (plus %d caching-token differences)", len(r.Differences), len(r.TokenDifferences))
	}
	return r, nil
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// flatten renders a model as path -> value.
func flatten(m *Model) (map[string]string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(p+"."+k, c)
			}
		case []any:
			out[p+".length"] = fmt.Sprint(len(x))
			for i, c := range x {
				walk(fmt.Sprintf("%s[%d]", p, i), c)
			}
		default:
			out[p] = fmt.Sprint(x)
		}
	}
	walk("", v)
	// Content that JSON leaves out.
	for oi, op := range m.Ops {
		for pi, p := range op.Packages {
			pp := fmt.Sprintf(".edgetpu_ops[%d].packages[%d]", oi, pi)
			out[pp+".signature_sha256"] = hashOf(p.Signature)
			for ei, e := range p.Executables {
				ep := fmt.Sprintf("%s.executables[%d]", pp, ei)
				out[ep+".parameters_sha256"] = hashOf(e.Parameters)
				out[ep+".serialized_model_sha256"] = hashOf(e.SerializedModel)
				for ci, c := range e.Bitstreams {
					out[fmt.Sprintf("%s.instruction_bitstreams[%d].sha256", ep, ci)] = hashOf(c.Data)
				}
			}
		}
	}
	return out, nil
}

// WriteText renders the differences.
func (r *DiffResult) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("%s\n", r.Statement)
	for _, d := range r.Differences {
		ew.Printf("  %s: %s -> %s\n", d.Path, d.A, d.B)
	}
	for _, d := range r.TokenDifferences {
		ew.Printf("  (token) %s: %s -> %s\n", d.Path, d.A, d.B)
	}
	return ew.Err()
}
