package gemini

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummarizeSynth(t *testing.T) {
	s := synthOK(t, SynthConfig{Cores: 2, Workloads: 10})
	sum := Summarize(s, true)
	var time int64
	for _, c := range s.Cores {
		for _, w := range c.Workloads {
			time += w.Time
		}
	}
	// Layers 0, 4, 8 read from DRAM; 3, 7, 9 write to DRAM; the other
	// seven send their ofmap to the own core and one neighbour.
	d, tr := sum.DRAM, sum.Transfers
	if d.WeightReads != 20 || d.FmapReads != 6 || d.Writes != 6 || d.WriteBytes != 6*synthFmap || d.FmapReadBytes != 6*synthFmap {
		t.Errorf("DRAM %+v", d)
	}
	if tr.CoreToCore != 14 || tr.SameCore != 14 || tr.ViaDRAM != 6 || tr.CoreToCoreBytes != 14*synthFmap {
		t.Errorf("transfers %+v", tr)
	}
	if sum.TimeSum != time || sum.Workloads != 20 || sum.Layers != 10 || len(sum.LayerTraffic) != 10 {
		t.Errorf("time %d (want %d), %d workloads, %d layers, %d rows", sum.TimeSum, time, sum.Workloads, sum.Layers, len(sum.LayerTraffic))
	}
	var wsum int64
	for i, l := range sum.LayerTraffic {
		if l.Name != layerName(i) || l.Cores != 2 || l.Workloads != 2 {
			t.Errorf("layer %d: %+v", i, l)
		}
		wsum += l.WeightReadBytes
	}
	if wsum != d.WeightReadBytes {
		t.Errorf("per-layer weights %d != total %d", wsum, d.WeightReadBytes)
	}
	for _, c := range sum.Cores {
		if c.L2Peak <= 0 || c.L2Peak > s.BufferSize || c.L2Mean > c.L2Peak || c.WLPeak <= 0 || c.WLKey != "wl0_buffer" {
			t.Errorf("core %+v", c)
		}
	}
	var b bytes.Buffer
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "2 cores on a 2x1 mesh, 20 workloads") || !strings.Contains(b.String(), "Conv_9") {
		t.Errorf("text:\n%s", b.String())
	}
	if Summarize(s, false).LayerTraffic != nil {
		t.Error("layer table without asking")
	}
}

// Audit r3 #17: a file with no L2 size (the raw IR) said "OF L2 as a
// share of the 0 B L2".
func TestSummaryWithoutL2Size(t *testing.T) {
	s := synthOK(t, SynthConfig{Cores: 1, Workloads: 3})
	sum := Summarize(s, false)
	sum.BufferSize = 0
	var buf bytes.Buffer
	if err := sum.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "of the 0 B L2") || !strings.Contains(buf.String(), "the file gives no L2 size") {
		t.Errorf("summary without an L2 size:\n%s", buf.String())
	}
}
