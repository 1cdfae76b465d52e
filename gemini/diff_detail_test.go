package gemini

import (
	"strings"
	"testing"
)

// A schedule against a copy with one workload slower and one removed:
// the details name exactly those two, on their cores, with exact numbers.
func TestDiffDetails(t *testing.T) {
	cfg := SynthConfig{Cores: 2, Workloads: 6}
	a, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synth(cfg)
	slow := &b.Cores[0].Workloads[2]
	before := slow.Time
	slow.Time += 1000
	gone := b.Cores[1].Workloads[5]
	b.Cores[1].Workloads = b.Cores[1].Workloads[:5]

	d := DiffDetails(a, b)
	if same := DiffDetails(a, a); len(same.Workloads) != 0 || len(same.Layers) != 0 || len(same.Cores[0].Changes) != 0 {
		t.Fatalf("self diff has details: %+v", same)
	}
	c0, c1 := d.Cores[0], d.Cores[1]
	if c0.Changed != 1 || c0.Added+c0.Removed+c0.MovedIn+c0.MovedOut != 0 || c1.Removed != 1 || c1.WorkloadsA != 6 || c1.WorkloadsB != 5 {
		t.Fatalf("core counts: %+v / %+v", c0, c1)
	}
	if len(d.Workloads) != 2 {
		t.Fatalf("want 2 workloads listed, got %+v", d.Workloads)
	}
	w := d.Workloads[0]
	if w.Change != "changed" || *w.CoreA != "core 0" || *w.IDA != slow.ID || len(w.Changes) != 1 ||
		w.Changes[0].What != "time" || w.Changes[0].A != before || w.Changes[0].B != before+1000 {
		t.Errorf("changed workload: %+v", w)
	}
	w = d.Workloads[1]
	if w.Change != "removed" || *w.CoreA != "core 1" || w.CoreB != nil || *w.IDA != gone.ID || w.Layer != gone.LayerName {
		t.Errorf("removed workload: %+v", w)
	}
	// The layers name the compute change and the lost workload.
	found := 0
	for _, l := range d.Layers {
		if l.Layer == slow.LayerName || l.Layer == gone.LayerName {
			found++
		}
	}
	if found == 0 {
		t.Errorf("layers: %+v", d.Layers)
	}
}

// Core names: by compact ID, with the file's key where it differs.
func TestCoreName(t *testing.T) {
	if n := (&Core{ID: 1, Key: 2}).Name(); n != "core 1 (key 2)" {
		t.Error(n)
	}
	if n := (&Core{ID: 3, Key: 3}).Name(); n != "core 3" {
		t.Error(n)
	}
}

// Check names a core as inspect does: a raw-IR style key beside the ID.
func TestCheckNamesCoresAsInspect(t *testing.T) {
	s, err := Synth(SynthConfig{Cores: 2, Workloads: 3})
	if err != nil {
		t.Fatal(err)
	}
	s.Cores[1].Key = 5
	var d *Destination
	for wi := range s.Cores[0].Workloads {
		for oi := range s.Cores[0].Workloads[wi].Ofmaps {
			for di, dd := range s.Cores[0].Workloads[wi].Ofmaps[oi].Destinations {
				if dd.Core == 1 && d == nil {
					d = &s.Cores[0].Workloads[wi].Ofmaps[oi].Destinations[di]
				}
			}
		}
	}
	if d == nil {
		t.Fatal("synth has no destination on core 1")
	}
	d.CoreKey, d.Workload = 5, 999
	var msgs []string
	for _, f := range Check(s) {
		msgs = append(msgs, f.Location+": "+f.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "core 1 (key 5) has no workload 999") || !strings.Contains(all, "core 0 / workload") {
		t.Errorf("findings do not name cores as inspect does:\n%s", all)
	}
	if strings.Contains(all, "core 5") {
		t.Errorf("a finding names core 1 by its key alone:\n%s", all)
	}
}

// The per-core traffic of a diff adds up to the summary's totals, the
// numbers of the verdict.
func TestTrafficPerCoreAddsUp(t *testing.T) {
	s, err := Synth(SynthConfig{Cores: 4, Workloads: 9, XLen: 2, DRAMEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(s, false)
	var w, f, out, sent, recv int64
	for _, c := range trafficPerCore(s) {
		w += c.weightIn
		f += c.fmapIn
		out += c.dramOut
		sent += c.sent
		recv += c.received
	}
	if w != sum.DRAM.WeightDeliveredBytes || f != sum.DRAM.FmapDeliveredBytes || out != sum.DRAM.WriteBytes ||
		sent != sum.Transfers.CoreToCoreBytes || recv != sent {
		t.Errorf("per core %d %d %d %d %d, summary %+v %+v", w, f, out, sent, recv, sum.DRAM, sum.Transfers)
	}
	if sent == 0 || out == 0 {
		t.Error("synth moves nothing between cores or to DRAM: the test proves nothing")
	}
}
