package neff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/npukit/npukit/internal/stickywriter"
	"github.com/npukit/npukit/semdiff"
)

// Difference is one differing value, by path: "header.<field>",
// "member <name>" or "<member>: <JSON path>". A and B are JSON values:
// integral numbers exact (int64), strings, or compact JSON text; "absent"
// when the path is on one side only.
type Difference struct {
	Path string `json:"path"`
	A    any    `json:"a"`
	B    any    `json:"b"`
}

// DiffOptions control Diff.
type DiffOptions struct {
	// Noise counts producer noise (uuid, timestamps, hash and data_size,
	// which follow from the payload bytes) as real differences.
	Noise bool
}

// DiffResult is the outcome of Diff: the verdict in the user's terms
// (I/O, device memory, instructions and DMA per engine, variables by type,
// compiler, hash form), then the differing fields.
type DiffResult struct {
	Statement string       `json:"statement"`
	Verdict   semdiff.List `json:"verdict"`
	// Differences are the differing fields listed (at most maxJSONDiffs
	// per JSON member).
	Differences []Difference `json:"differences"`
	// Unlisted counts the differing fields past the cap, per member.
	Unlisted map[string]int `json:"unlisted,omitempty"`
	// Renumbered counts, per engine JSON member, the DMA entries matched
	// by identity whose id differs only because entries before them were
	// inserted or removed (the id follows the position); not counted as
	// differing fields.
	Renumbered map[string]int `json:"renumbered_dma_entries,omitempty"`
	// SpillFields counts the differing def.json fields of spill variables,
	// summarised in the verdict rather than listed.
	SpillFields int `json:"spill_fields,omitempty"`
	// NoiseDifferences are differences in producer noise, listed but not
	// counted unless DiffOptions.Noise is set.
	NoiseDifferences []Difference `json:"noise_differences"`
}

// Identical reports whether nothing but producer noise differs.
func (r *DiffResult) Identical() bool {
	return len(r.Differences) == 0 && len(r.Unlisted) == 0 && r.SpillFields == 0
}

// Total is the number of differing fields: listed, unlisted and spill.
func (r *DiffResult) Total() int {
	n := len(r.Differences) + r.SpillFields
	for _, m := range r.Unlisted {
		n += m
	}
	return n
}

// timestampKey matches JSON keys holding times or dates ("timestamp",
// "build_time", "date"), not words that merely contain "time" like
// "runtime_event_count".
var timestampKey = regexp.MustCompile(`(?i)(^|_)(timestamp|time|date|datetime|mtime|ctime|created|modified)(_|$)`)

// maxJSONDiffs bounds the differences listed per JSON member.
const maxJSONDiffs = 100

// Diff compares two NEFFs: the header field by field, the member list,
// JSON members semantically (key order and formatting do not matter) and
// other members by content. uuid, timestamps and the derived hash and
// data_size are noise unless opt.Noise is set.
func Diff(a, b *Model, opt DiffOptions) *DiffResult {
	r := &DiffResult{Verdict: diffVerdict(a, b), Differences: []Difference{}, NoiseDifferences: []Difference{}}
	if r.Verdict == nil {
		r.Verdict = semdiff.List{}
	}
	spill := map[string]bool{} // "<def member>: var.<name>"
	for _, m := range []*Model{a, b} {
		for _, sg := range m.Subgraphs {
			if sg.Def == nil {
				continue
			}
			for name, v := range sg.Def.Var {
				if isSpill(name, v) {
					spill[sg.DefMember+": var."+name] = true
				}
			}
		}
	}
	add := func(noise bool, path string, x, y any) {
		d := Difference{Path: path, A: x, B: y}
		if noise && !opt.Noise {
			r.NoiseDifferences = append(r.NoiseDifferences, d)
		} else {
			r.Differences = append(r.Differences, d)
		}
	}
	ha, hb := headerFields(a.File.Header), headerFields(b.File.Header)
	for _, k := range sortedKeys(ha) {
		if ha[k] != hb[k] {
			add(k == "uuid" || k == "hash" || k == "data_size", "header."+k, headerValue(ha[k]), headerValue(hb[k]))
		}
	}
	if a.File.Hash.Form != b.File.Hash.Form {
		add(true, "hash form", string(a.File.Hash.Form), string(b.File.Hash.Form))
	}
	names := map[string]bool{}
	for _, m := range a.File.Members {
		names[m.Name] = true
	}
	for _, m := range b.File.Members {
		names[m.Name] = true
	}
	for _, n := range sortedKeys(names) {
		ma, okA := a.File.Member(n)
		mb, okB := b.File.Member(n)
		switch {
		case !okA:
			add(false, "member "+n, "absent", describeData(mb.Data))
		case !okB:
			add(false, "member "+n, describeData(ma.Data), "absent")
		case bytes.Equal(ma.Data, mb.Data):
		case strings.HasSuffix(n, ".json"):
			va, errA := decodeNumbers(ma.Data)
			vb, errB := decodeNumbers(mb.Data)
			if errA != nil || errB != nil {
				add(false, "member "+n, describeData(ma.Data), describeData(mb.Data))
				continue
			}
			// A recompiled engine JSON can differ in thousands of
			// descriptors: list the first maxJSONDiffs, count the rest.
			shown, more := 0, 0
			w := &jsonWalk{}
			w.add = func(noise bool, p string, x, y any) {
				if noise && !opt.Noise {
					add(noise, p, x, y)
					return
				}
				if rest, ok := strings.CutPrefix(p, n+": var."); ok {
					if name, _, _ := strings.Cut(rest, "."); spill[n+": var."+name] {
						r.SpillFields++
						return
					}
				}
				if shown < maxJSONDiffs {
					shown++
					add(noise, p, x, y)
					return
				}
				more++
			}
			w.diff(n+": ", va, vb, false)
			if w.renumbered > 0 {
				if r.Renumbered == nil {
					r.Renumbered = map[string]int{}
				}
				r.Renumbered[n] = w.renumbered
			}
			if more > 0 {
				if r.Unlisted == nil {
					r.Unlisted = map[string]int{}
				}
				r.Unlisted[n] = more
			}
		default:
			add(false, "member "+n, describeData(ma.Data), describeData(mb.Data))
		}
	}
	switch {
	case r.Identical() && len(r.NoiseDifferences) == 0:
		r.Statement = "identical"
	case r.Identical():
		r.Statement = fmt.Sprintf("identical except %s (uuid, timestamps, hash, data_size)", humanize.Plural(len(r.NoiseDifferences), "producer-noise field"))
	default:
		r.Statement = humanize.Plural(r.Total(), "differing field")
		if len(r.Verdict) > 0 {
			r.Statement = r.Verdict.Statement(3) + " (" + r.Statement + ")"
		}
		if len(r.NoiseDifferences) > 0 {
			r.Statement += fmt.Sprintf(", plus %s", humanize.Plural(len(r.NoiseDifferences), "producer-noise field"))
		}
	}
	return r
}

// headerValue is a header field as a Difference holds it: decimal
// numbers as numbers, everything else (hex feature bits, versions, names)
// as inspect prints it.
func headerValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

// decodeNumbers decodes JSON keeping numbers exact (json.Number).
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func headerFields(h Header) map[string]string {
	return map[string]string{
		"pkg_version":         strconv.FormatUint(h.PkgVersion, 10),
		"header_size":         strconv.FormatUint(h.HeaderSize, 10),
		"data_size":           strconv.FormatUint(h.DataSize, 10),
		"neff_version":        fmt.Sprintf("%d.%d", h.NeffVersionMajor, h.NeffVersionMinor),
		"neff_build_version":  h.BuildVersion,
		"num_tpb":             strconv.FormatUint(uint64(h.NumTPB), 10),
		"hash":                h.Hash.String(),
		"uuid":                h.UUID.String(),
		"name":                h.Name,
		"requested_tpb_count": strconv.FormatUint(uint64(h.RequestedTPBCount), 10),
		"tpb_per_node":        h.TPBPerNode.String(),
		"feature_bits":        fmt.Sprintf("%#x", h.FeatureBits),
		"lnc_size":            strconv.FormatUint(uint64(h.LNCSize), 10),
		"reserved":            h.Reserved.String(),
	}
}

func describeData(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%s bytes, sha256 %s", humanize.Count(int64(len(b))), hex.EncodeToString(s[:6]))
}

// jsonWalk compares two decoded JSON members, reporting each differing
// value to add.
type jsonWalk struct {
	add func(noise bool, path string, a, b any)
	// renumbered counts DMA entries matched by identity whose id (their
	// position in the list) differs.
	renumbered int
}

// diff walks two decoded JSON values; noise marks a subtree under a
// timestamp key. An engine's dma list is matched by identity (see
// diffDMA), every other list by position.
func (w *jsonWalk) diff(path string, a, b any, noise bool) {
	add := w.add
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		ks := sortedKeys(keys)
		for _, k := range ks {
			p := path + "." + k
			if strings.HasSuffix(path, ": ") {
				p = path + k
			}
			n := noise || timestampKey.MatchString(k)
			va, okA := x[k]
			vb, okB := y[k]
			switch {
			case !okA:
				add(n, p, "absent", short(vb))
			case !okB:
				add(n, p, short(va), "absent")
			default:
				w.diff(p, va, vb, n)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		if strings.HasSuffix(path, ": dma") {
			w.diffDMA(path, x, y, noise)
			return
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(x):
				add(noise, p, "absent", short(y[i]))
			case i >= len(y):
				add(noise, p, short(x[i]), "absent")
			default:
				w.diff(p, x[i], y[i], noise)
			}
		}
		return
	}
	sa, sb := short(a), short(b)
	if sa != sb {
		add(noise, strings.TrimSuffix(path, ": "), sa, sb)
	}
}

// short renders a JSON value as a Difference holds it: integral numbers
// exact as int64, strings as they are, anything else as compact JSON cut
// at 80 characters.
func short(v any) any { return semdiff.Value(v) }

// WriteText writes the statement and the verdict first, then the
// differing fields, counts that add up, noise last.
func (r *DiffResult) WriteText(w io.Writer) error {
	ew := stickywriter.New(w)
	ew.Printf("%s\n", r.Statement)
	if len(r.Verdict) > 0 {
		ew.Printf("Changes:\n")
		for _, c := range r.Verdict {
			ew.Printf("  %s\n", c)
		}
	}
	if n := r.Total(); n > 0 {
		ew.Printf("Fields (%s differ", humanize.Count(int64(n)))
		if n != len(r.Differences) {
			ew.Printf(": %s listed", humanize.Count(int64(len(r.Differences))))
			for _, m := range sortedKeys(r.Unlisted) {
				ew.Printf(", %s more in %s", humanize.Count(int64(r.Unlisted[m])), m)
			}
			if r.SpillFields > 0 {
				ew.Printf(", %s of spill variables summarised above", humanize.Count(int64(r.SpillFields)))
			}
		}
		ew.Printf("):\n")
	}
	for _, m := range sortedKeys(r.Renumbered) {
		ew.Printf("  %s: %s renumbered (their id follows their position)\n", m, humanize.Plural(r.Renumbered[m], "DMA entry"))
	}
	// Fields that differ the same way in many elements (every DMA
	// descriptor's from_off) are one line each, with how many (issue 32:
	// a diff of two pool NEFFs listed 238 such lines).
	shape := func(path string) string { return indexPattern.ReplaceAllString(path, "[]") }
	count := map[string]int{}
	for _, d := range r.Differences {
		count[shape(d.Path)]++
	}
	shown := map[string]bool{}
	for _, d := range r.Differences {
		k := shape(d.Path)
		if n := count[k]; n > 3 {
			if !shown[k] {
				shown[k] = true
				ew.Printf("  %s: %v -> %v (and %s more like it; --json lists each)\n", d.Path, d.A, d.B, humanize.Count(int64(n-1)))
			}
			continue
		}
		ew.Printf("  %s: %v -> %v\n", d.Path, d.A, d.B)
	}
	for _, d := range r.NoiseDifferences {
		ew.Printf("  (noise) %s: %v -> %v\n", d.Path, d.A, d.B)
	}
	return ew.Err()
}

// indexPattern matches the indices and keys of a field path
// ("dma[qPoolIO0 I-20-0-block-1].desc[0]").
var indexPattern = regexp.MustCompile(`\[[^\]]*\]`)
