package gemini

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

func TestReadCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, p := range conformance.Files(t, dir, "*.json") {
		s, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		raw := strings.Contains(p, "_raw_")
		if (s.Variant == Raw) != raw {
			t.Errorf("%s: variant %s", p, s.Variant)
		}
		if len(s.Cores) == 0 || len(s.DRAMReads) == 0 || len(s.DRAMWrites) == 0 {
			t.Errorf("%s: empty model: %d cores, %d reads, %d writes", p, len(s.Cores), len(s.DRAMReads), len(s.DRAMWrites))
		}
		for _, c := range s.Cores {
			if len(c.Workloads) == 0 {
				t.Errorf("%s: core %d has no workloads", p, c.Key)
			}
		}
	}
}

func TestReadRawNormalises(t *testing.T) {
	const doc = `{"-1":{"in":[{"core_id":6,"lower":[0,0,0,0],"upper":[0,1,1,1],"transfer_id":1,"workload_id":0}],
"out":[{"destination":[{"id":6,"type":"core","workload_id":0}],"lower":0,"upper":31,"size":80,"transfer_id":0,"type":"weight","related_ifmap":[]}]},
"6":[{"workload_id":0,"layer_name":"c","layer_type":"conv2d","time":5,"ifmap":{"lower":[0,0,0,0],"upper":[0,1,1,1],"transfer_id":[0],"max_workload_id":0},
"ofmap":[{"destination":[{"id":0,"type":"DRAM","layer_name":"p"}],"size":64,"transfer_id":1,"lower":[0,0,0,0],"upper":[0,1,1,1]}],"ofmap_size":64,
"weight":{"lower":0,"upper":31,"transfer_id":[0]},"buffer":[{"block":2,"layer":"c","type":"weight","lower":0,"upper":31,"transfer_id":[0],
"source":[{"id":0,"type":"DRAM","size":80,"transfer_id":0,"lower":0,"upper":31}]}],"workload":[[0,0,0,0],[0,1,1,1]],"future":{"a":[1]}}],
"top_batch_cut":1,"xlen":2,"ylen":2,"extra_top":"x"}`
	s, err := ReadBytes([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s.Variant != Raw || len(s.Cores) != 1 {
		t.Fatalf("variant %s, %d cores", s.Variant, len(s.Cores))
	}
	c := s.Cores[0]
	if c.ID != 0 || c.Key != 6 || c.X != 1 || c.Y != 1 {
		t.Errorf("core id %d key %d at (%d,%d), want 0 6 (1,1)", c.ID, c.Key, c.X, c.Y)
	}
	w := c.Workloads[0]
	if w.OfmapSize != 8 || w.Ofmaps[0].Size != 8 || s.DRAMReads[0].Size != 10 {
		t.Errorf("sizes not converted from bits: %d %d %d", w.OfmapSize, w.Ofmaps[0].Size, s.DRAMReads[0].Size)
	}
	if !w.Ofmaps[0].Destinations[0].IsDRAM() || s.DRAMReads[0].Destinations[0].Core != 0 || s.DRAMWrites[0].Core != 0 {
		t.Errorf("core keys not resolved")
	}
	if w.Buffer[0].Size != 2048 || !w.Buffer[0].FromDRAM() || w.Buffer[0].Rank != 1 {
		t.Errorf("buffer entry %+v", w.Buffer[0])
	}
	if string(w.Extra["future"]) != `{"a":[1]}` || string(s.Extra["extra_top"]) != `"x"` {
		t.Errorf("unknown keys dropped: %v %v", w.Extra, s.Extra)
	}
}

func TestReadErrors(t *testing.T) {
	for _, doc := range []string{
		``, `[]`, `{"0":[{"workload_id":"x"}]}`, `{"0":[{"workload_id":1.5}]}`,
		`{"0":[{"workload":[[0,0,0,0,0]]}]}`, `{"0":[],"0":[]}`, `{"0":[{"time":1}]} {}`,
		`{"0":[{"future":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}]}`,
		`{"0":[{"time":1}]`, `{"0":[{"time":99999999999999999999999}]}`,
	} {
		if _, err := ReadBytes([]byte(doc)); err == nil {
			t.Errorf("%q: no error", doc)
		} else if !strings.Contains(err.Error(), "offset") {
			t.Errorf("%q: error without offset: %v", doc, err)
		}
	}
}

// TestCorpusRoundTrip: writing a real schedule and reading it back keeps
// the model (unknown keys and tile_info included) and the check result.
func TestCorpusRoundTrip(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	for _, p := range conformance.Files(t, dir, "*stschedule.json") {
		s, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBytes(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: re-read: %v", p, err)
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("%s: model changed by a write/read round trip", p)
		}
	}
}
