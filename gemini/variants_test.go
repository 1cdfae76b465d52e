package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/conformance"
)

// node is a JSON value that keeps object member order, so that the tests
// can rewrite a schedule the way other writers would (key order, scalar
// types, nulls) and compare what the reader makes of it.
type node struct {
	kind  byte // '{', '[', or 0 for a scalar
	keys  []string
	vals  []*node
	token any // scalar: json.Number, string, bool or nil
}

func parseNode(t *testing.T, b []byte) *node {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := decodeNode(d)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func decodeNode(d *json.Decoder) (*node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &node{kind: '{'}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeNode(d)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k.(string))
			n.vals = append(n.vals, v)
		}
		_, err := d.Token()
		return n, err
	case json.Delim('['):
		n := &node{kind: '['}
		for d.More() {
			v, err := decodeNode(d)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		_, err := d.Token()
		return n, err
	}
	return &node{token: tok}, nil
}

func (n *node) encode(w io.Writer) {
	switch n.kind {
	case '{':
		io.WriteString(w, "{")
		for i, k := range n.keys {
			if i > 0 {
				io.WriteString(w, ",")
			}
			kb, _ := json.Marshal(k)
			w.Write(kb)
			io.WriteString(w, ":")
			n.vals[i].encode(w)
		}
		io.WriteString(w, "}")
	case '[':
		io.WriteString(w, "[")
		for i, v := range n.vals {
			if i > 0 {
				io.WriteString(w, ",")
			}
			v.encode(w)
		}
		io.WriteString(w, "]")
	default:
		b, _ := json.Marshal(n.token)
		w.Write(b)
	}
}

// walk calls fn on every object (after its children).
func (n *node) walk(fn func(*node)) {
	for _, v := range n.vals {
		v.walk(fn)
	}
	if n.kind == '{' {
		fn(n)
	}
}

func (n *node) get(k string) *node {
	if i := slices.Index(n.keys, k); i >= 0 {
		return n.vals[i]
	}
	return nil
}

func (n *node) del(k string) {
	if i := slices.Index(n.keys, k); i >= 0 {
		n.keys = slices.Delete(n.keys, i, i+1)
		n.vals = slices.Delete(n.vals, i, i+1)
	}
}

func (n *node) rename(from, to string) {
	if i := slices.Index(n.keys, from); i >= 0 {
		n.keys[i] = to
	}
}

// variants are rewrites a valid schedule may undergo in other writers
// without changing its meaning.
var variants = []struct {
	name string
	fn   func(*node)
}{
	{"keys-reversed", func(o *node) {
		slices.Reverse(o.keys)
		slices.Reverse(o.vals)
	}},
	{"numbers-as-strings", func(o *node) {
		for _, v := range o.vals {
			if _, ok := v.token.(json.Number); ok {
				v.token = string(v.token.(json.Number))
			}
			if v.kind == '[' {
				for _, e := range v.vals {
					if num, ok := e.token.(json.Number); ok {
						e.token = string(num)
					}
				}
			}
		}
	}},
	{"integral-floats", func(o *node) {
		for _, k := range []string{"time", "size", "ofmap_size", "address"} {
			if v := o.get(k); v != nil {
				if num, ok := v.token.(json.Number); ok {
					v.token = json.Number(string(num) + ".0")
				}
			}
		}
	}},
	{"unicode-names", func(o *node) {
		for _, k := range []string{"layer_name", "layer"} {
			if v := o.get(k); v != nil {
				if s, ok := v.token.(string); ok {
					v.token = "層_ñ_\u00e9_😀/" + s
				}
			}
		}
	}},
	{"optional-null", func(o *node) {
		for _, k := range []string{"layer_name", "related_ifmap", "related_ofmap", "tile_info", "tile_padding_tblr"} {
			if v := o.get(k); v != nil {
				*v = node{}
			}
		}
		if t := o.get("type"); t != nil && t.token == "DRAM" && o.get("workload_id") == nil && o.get("transfer_id") == nil {
			o.keys = append(o.keys, "workload_id")
			o.vals = append(o.vals, &node{})
		}
	}},
	{"optional-absent", func(o *node) {
		for _, k := range []string{"layer_name", "tile_info", "tile_padding_tblr", "cur_wl_ifmap", "top_batch_cut", "align", "bitwidth"} {
			o.del(k)
		}
		for _, k := range []string{"related_ifmap", "related_ofmap"} {
			if v := o.get(k); v != nil && len(v.vals) == 0 {
				o.del(k)
			}
		}
	}},
	{"wl1-buffer", func(o *node) { o.rename("wl0_buffer", "wl1_buffer") }},
	{"bool-as-int", func(o *node) {
		for _, k := range []string{"newly_added", "cur_wl_ifmap", "start_send"} {
			if v := o.get(k); v != nil {
				if b, ok := v.token.(bool); ok {
					v.token = json.Number(map[bool]string{false: "0", true: "1"}[b])
				}
			}
		}
	}},
	{"dram-lowercase", func(o *node) {
		if t := o.get("type"); t != nil && t.token == "DRAM" {
			t.token = "dram"
		}
		if t := o.get("source"); t != nil && t.token == "DDR" {
			t.token = "ddr"
		}
	}},
}

// fingerprint is what must not change under a meaning-preserving rewrite.
func fingerprint(t *testing.T, s *Schedule) string {
	t.Helper()
	sum := Summarize(s, true)
	for i := range sum.Cores {
		sum.Cores[i].WLKey = "" // names the member; wl1-buffer renames it
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func errorsOf(rep diag.Report) []string {
	var out []string
	for _, d := range rep {
		if d.Severity == diag.Error {
			out = append(out, d.Rule+" "+d.Location+": "+d.Message)
		}
	}
	return out
}

func checkVariants(t *testing.T, name string, doc []byte) {
	base, err := ReadBytes(doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := fingerprint(t, base)
	baseErrs := len(errorsOf(Check(base)))
	for _, v := range variants {
		t.Run(name+"/"+v.name, func(t *testing.T) {
			n := parseNode(t, doc)
			n.walk(v.fn)
			var b bytes.Buffer
			n.encode(&b)
			s, err := ReadBytes(b.Bytes())
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if s.Variant != base.Variant {
				t.Errorf("variant %s, want %s", s.Variant, base.Variant)
			}
			if errs := errorsOf(Check(s)); len(errs) > baseErrs {
				t.Errorf("%d errors (original: %d), e.g. %s", len(errs), baseErrs, errs[0])
			}
			got := fingerprint(t, s)
			if v.name == "unicode-names" || v.name == "optional-null" || v.name == "optional-absent" {
				return // layer names (and so per-layer rows) change or vanish
			}
			if got != want {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				i = max(0, i-150)
				t.Errorf("summary changed:\n got ...%.300s\nwant ...%.300s", got[i:], want[i:])
			}
		})
	}
}

func TestReadVariantsSynth(t *testing.T) {
	for _, cfg := range []SynthConfig{
		{Cores: 1, Workloads: 6},
		{Cores: 4, XLen: 2, Workloads: 6},
	} {
		var b bytes.Buffer
		if err := SynthWrite(&b, cfg); err != nil {
			t.Fatal(err)
		}
		checkVariants(t, fmt.Sprintf("synth-%dc", cfg.Cores), b.Bytes())
	}
}

func TestReadVariantsCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, p := range conformance.Files(t, dir, "*.json") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		checkVariants(t, name, b)
	}
}

// Values a writer may emit in other forms must read as the same model.
func TestReadLenientScalars(t *testing.T) {
	const doc = `{"-1":{"in":[],"out":[{"destination":[{"core_id":"0","type":"core","workload_id":"0"}],"size":"64","transfer_id":"0","type":"fmap","related_ifmap":null,"layer_name":null}]},
"0":[{"workload_id":0,"layer_name":null,"layer_type":"pe","time":12.6,"ifmap":[{"size":64,"transfer_id":"0","lower":["0","0","0","0"],"upper":[0,1,1,1]}],
"ofmap":[{"destination":[{"core_id":-1,"type":"DRAM","workload_id":null}],"size":64,"transfer_id":1,"lower":[0,0,0,0],"upper":[0,1,1,1]}],"ofmap_size":64,
"buffer":[{"address":"0","size":64,"type":"ifmap","tensor_id":0,"tensor_order":0,"newly_added":1,"cur_wl_ifmap":"true","transfer_id":[0],"source":[{"core_id":-1,"type":"DRAM","size":64,"transfer_id":0}]}],
"wl0_buffer":[{"address":0,"size":8,"source":"ddr","tensor_order":null,"transfer_id":[]}],"workload":[[0,0,0,0],[0,1,1,1]]}],
"buffersize":"1024","xlen":1,"ylen":1}`
	s, err := ReadBytes([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	w := &s.Cores[0].Workloads[0]
	e := &w.Buffer[0]
	d := w.Ofmaps[0].Destinations[0]
	got := []any{s.Variant, s.BufferSize, w.Time, w.LayerName, e.Address, e.NewlyAdded, e.CurWLIfmap, d.IsDRAM(), d.HasWorkload,
		w.WeightBuffer[0].SourceKind, s.DRAMReads[0].Size, s.DRAMReads[0].Destinations[0].Workload, w.Ifmaps[0].Box.Rank}
	want := []any{Compiler, int64(1024), int64(13), "", int64(0), true, true, true, false, "DRAM", int64(64), int64(0), uint8(4)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	for _, bad := range []string{`"12x"`, `"1.5"`, `true`} {
		if _, err := ReadBytes([]byte(strings.Replace(doc, `"size":"64"`, `"size":`+bad, 1))); err == nil {
			t.Errorf("size %s read without error", bad)
		}
	}
	// A numbered layer reads as its number's text.
	s, err = ReadBytes([]byte(strings.Replace(doc, `"layer_name":null,"layer_type"`, `"layer_name":12,"layer_type"`, 1)))
	if err != nil || s.Cores[0].Workloads[0].LayerName != "12" {
		t.Errorf("numeric layer name: %v", err)
	}
	// Without buffersize, the compiler's snapshot members still say bytes.
	s, err = ReadBytes([]byte(strings.Replace(doc, `"buffersize":"1024",`, ``, 1)))
	if err != nil || s.Variant != Compiler || s.DRAMReads[0].Size != 64 {
		t.Errorf("no buffersize: %v %+v", err, s)
	}
}
