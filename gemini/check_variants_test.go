package gemini

import (
	"bytes"
	"slices"
	"sort"
	"testing"

	"github.com/npukit/npukit/diag"
)

func synthFor(t *testing.T, cfg SynthConfig) *Schedule {
	t.Helper()
	s, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func requireNoErrors(t *testing.T, s *Schedule) {
	t.Helper()
	if errs := errorsOf(Check(s)); len(errs) > 0 {
		t.Fatalf("%d errors, e.g. %s", len(errs), errs[0])
	}
}

// A multi-core compiler IR may number its DRAM queue per core: each core's
// tensor_order then runs 0..k-1 on its own. Nothing public says it does
// not, so Check must accept it.
func TestCheckPerCoreTensorOrder(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 4, XLen: 2, Workloads: 12})
	for _, c := range s.Cores {
		var orders []int64
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for _, es := range [][]BufferEntry{w.Buffer, w.WeightBuffer} {
				for i := range es {
					if es[i].HasTensorOrder {
						orders = append(orders, es[i].TensorOrder)
					}
				}
			}
		}
		slices.Sort(orders)
		orders = slices.Compact(orders)
		for wi := range c.Workloads {
			w := &c.Workloads[wi]
			for _, es := range [][]BufferEntry{w.Buffer, w.WeightBuffer} {
				for i := range es {
					if es[i].HasTensorOrder {
						es[i].TensorOrder = int64(sort.Search(len(orders), func(k int) bool { return orders[k] >= es[i].TensorOrder }))
					}
				}
			}
		}
	}
	requireNoErrors(t, s)
	// Two transfers of one core sharing a place is still an error.
	w := &s.Cores[1].Workloads[3]
	w.Buffer[0].TensorOrder = s.Cores[1].Workloads[2].Buffer[0].TensorOrder
	if !hasRule(Check(s), RuleTensorOrder) {
		t.Errorf("a repeated tensor_order on one core is not reported")
	}
}

func hasRule(rep diag.Report, rule string) bool {
	for _, d := range rep {
		if d.Rule == rule {
			return true
		}
	}
	return false
}

// ring_buffer_info written as [start, size] (second number not above the
// first) is read as [start, start+size).
func TestCheckRingRegionAsSize(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 1, Workloads: 8})
	for wi := range s.Cores[0].Workloads {
		w := &s.Cores[0].Workloads[wi]
		w.RingRegions = [][2]int64{{0, s.BufferSize}}
	}
	requireNoErrors(t, s)
	// A region [half, half] is [half, 2*half) = the upper half.
	half := s.BufferSize / 2
	for wi := range s.Cores[0].Workloads {
		w := &s.Cores[0].Workloads[wi]
		w.RingRegions = [][2]int64{{half, half}}
	}
	got := s.Regions(&s.Cores[0].Workloads[0])
	if len(got) != 1 || got[0] != [2]int64{half, 2 * half} {
		t.Errorf("regions %v", got)
	}
}

// Without buffersize and ring_buffer_info, addresses have no bound to be
// checked against: no address-range errors, overlaps still found.
func TestCheckNoBufferBound(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 2, Workloads: 8, Buffer: 64 << 20})
	s.BufferSize = 0
	for _, c := range s.Cores {
		for wi := range c.Workloads {
			c.Workloads[wi].RingRegions, c.Workloads[wi].HasRingRegions = nil, false
		}
	}
	requireNoErrors(t, s)
	w := &s.Cores[0].Workloads[3]
	w.Buffer[len(w.Buffer)-1].Address = w.Buffer[0].Address
	if !hasRule(Check(s), RuleBufferOverlap) {
		t.Errorf("overlap without a buffer bound not reported")
	}
}

// Workloads listed out of program order are read in ascending workload_id
// (the spec's program order).
func TestReadWorkloadsOutOfOrder(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 2, Workloads: 6})
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	n := parseNode(t, b.Bytes())
	for i, k := range n.keys {
		if k == "0" || k == "1" {
			slices.Reverse(n.vals[i].vals)
		}
	}
	var out bytes.Buffer
	n.encode(&out)
	r, err := ReadBytes(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	requireNoErrors(t, r)
	if fingerprint(t, r) != fingerprint(t, s) {
		t.Errorf("summary differs after reordering workloads")
	}
}

// A DRAM fmap kept in L2 and re-used by a later workload of the same core
// that its destination does not list follows the re-used weight
// convention: a warning, not an error.
func TestCheckReusedFmapFirstConsumerOnly(t *testing.T) {
	s := synthFor(t, SynthConfig{Cores: 1, Workloads: 8})
	// Workload 0 reads its ifmap from DRAM; workload 1 re-uses it from L2.
	w0, w1 := &s.Cores[0].Workloads[0], &s.Cores[0].Workloads[1]
	id := w0.Ifmaps[0].TransferIDs[0]
	var kept BufferEntry
	for _, e := range w0.Buffer {
		if slices.Contains(e.TransferIDs, id) {
			kept = e
		}
	}
	kept.NewlyAdded = false
	kept.Sources = slices.Clone(kept.Sources)
	w1.Ifmaps = append(w1.Ifmaps, Ifmap{TransferIDs: []int64{id}, MaxWorkloadID: -1})
	w1.Buffer = append(w1.Buffer, kept)
	rep := Check(s)
	if !hasRule(rep, RuleWeightFirstOnly) || hasRule(rep, RuleConsumerNotListed) {
		t.Errorf("re-used fmap: %v", rep)
	}
}

// Core keys: each variant's layout first, the other when the keys fit only
// that one (a multi-core compiler IR numbered on the mesh like the raw IR).
func TestReadCoreKeyLayouts(t *testing.T) {
	doc := func(keys []string, buffersize bool) string {
		var b bytes.Buffer
		b.WriteString(`{"-1":{"in":[],"out":[]},`)
		for _, k := range keys {
			b.WriteString(`"` + k + `":[],`)
		}
		if buffersize {
			b.WriteString(`"buffersize":1024,`)
		}
		b.WriteString(`"xlen":2,"ylen":2}`)
		return b.String()
	}
	for _, c := range []struct {
		keys     []string
		compiler bool
		want     [][2]int64
	}{
		{[]string{"0", "1", "2", "3"}, true, [][2]int64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}},
		{[]string{"1", "2", "5", "6"}, true, [][2]int64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}},
		{[]string{"1", "2", "5", "6"}, false, [][2]int64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}},
		{[]string{"0", "1", "2", "3"}, false, [][2]int64{{0, 0}, {1, 0}, {0, 1}, {1, 1}}},
	} {
		s, err := ReadBytes([]byte(doc(c.keys, c.compiler)))
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]int64
		for _, core := range s.Cores {
			got = append(got, [2]int64{core.X, core.Y})
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("keys %v (compiler %v): positions %v, want %v", c.keys, c.compiler, got, c.want)
		}
	}
}

// Several ofmap entries (pieces, possibly overlapping) are not held to
// ofmap_size; one entry is.
func TestCheckOfmapPieces(t *testing.T) {
	w := Workload{ID: 0, OfmapSize: 100, Ofmaps: []Ofmap{{Size: 60, TransferID: 0}, {Size: 60, TransferID: 1}}}
	s := &Schedule{Variant: Compiler, Cores: []*Core{{Workloads: []Workload{w}}}}
	var rep diag.Report
	checkSizes(s, NewIndex(s), &rep)
	if hasRule(rep, RuleOfmapSize) {
		t.Errorf("two pieces: %v", rep)
	}
	s.Cores[0].Workloads[0].Ofmaps = s.Cores[0].Workloads[0].Ofmaps[:1]
	checkSizes(s, NewIndex(s), &rep)
	if !hasRule(rep, RuleOfmapSize) {
		t.Errorf("one entry of 60 for ofmap_size 100 not reported")
	}
}

// The raw IR's shape on other meshes (1, 2x2, 4x4, 8x8 cores): no
// buffersize, no addresses, tensor IDs or orders, mesh core keys. The
// synthetic schedules stripped to it check clean.
func TestCheckRawShapedMeshes(t *testing.T) {
	for _, cfg := range []SynthConfig{{Cores: 1, Workloads: 6}, {Cores: 4, XLen: 2, Workloads: 6}, {Cores: 16, XLen: 4, Workloads: 4}, {Cores: 64, XLen: 8, Workloads: 3}} {
		s := synthFor(t, cfg)
		s.Variant, s.BufferSize = Raw, 0
		for _, c := range s.Cores {
			c.Key = c.Y*(s.XLen+2) + c.X + 1
			for wi := range c.Workloads {
				w := &c.Workloads[wi]
				w.RingRegions, w.HasRingRegions, w.WeightBuffer, w.WeightBufferKey = nil, false, nil, ""
				for ei := range w.Buffer {
					e := &w.Buffer[ei]
					e.HasAddress, e.HasTensorID, e.HasTensorOrder, e.HasNewlyAdded = false, false, false, false
				}
			}
		}
		if errs := errorsOf(Check(s)); len(errs) > 0 {
			t.Errorf("%d cores: %d errors, e.g. %s", cfg.Cores, len(errs), errs[0])
		}
	}
}
