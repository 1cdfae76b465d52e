package dma

import (
	"fmt"
	"testing"
	"time"

	"github.com/npukit/npukit/neff/accesspattern"
)

func copyDesc(queue string, entry int, bytes int64) Descriptor {
	p := accesspattern.Pattern{Sizes: []int64{bytes}, Steps: []int64{1}}
	return Descriptor{Engine: "sg00/SP.json", Queue: queue, Index: entry, Transfer: Transfer{Op: OpCopy, From: []Side{{Var: "a", Pattern: p}}, To: Side{Var: "b", Pattern: p}}}
}

// Hand-computed timing: 1 GiB/s... use 1 byte/ns and 100 ns overhead.
func TestSimulateHandComputed(t *testing.T) {
	p := SimParams{Engines: 4, BytesPerNs: 1, OverheadNs: 100, MinChargedRun: 512}
	descs := []Descriptor{
		copyDesc("q", 0, 1000), copyDesc("q", 1, 1000), copyDesc("q", 2, 1000), // engines 0,1,0
		copyDesc("r", 0, 100), // r owns engine 2; a 100-byte run is charged 512
	}
	res, tl, err := Simulate(descs, []QueueSet{{"q", 2}, {"r", 1}}, p)
	if err != nil {
		t.Fatal(err)
	}
	// Engine 0 runs two 1100 ns transfers back to back.
	if res.TotalNs != 2200 {
		t.Fatalf("total %d ns, want 2200", res.TotalNs)
	}
	if tl.End[3] != 612 {
		t.Fatalf("short descriptor ends at %d, want 612", tl.End[3])
	}
	if res.Engines[0].BusyNs != 2200 || res.Engines[1].BusyNs != 1100 || res.Engines[2].BusyNs != 612 || res.Engines[3].BusyNs != 0 {
		t.Fatalf("%+v", res.Engines)
	}
	if res.Bytes != 3100 || len(res.Queues) != 2 || res.Queues[0].Queue != "q" || fmt.Sprint(res.Queues[0].Engines) != "[0 1]" {
		t.Fatalf("%+v", res)
	}
}

// All descriptors of one DMA entry stay on one engine, in order.
func TestEntryStaysOnOneEngine(t *testing.T) {
	p := SimParams{Engines: 16, BytesPerNs: 1, OverheadNs: 0, MinChargedRun: 1}
	d0, d1 := copyDesc("q", 0, 10), copyDesc("q", 0, 10)
	d1.Desc = 1
	g, _, err := Lower([]Descriptor{d0, d1, copyDesc("q", 1, 10)}, []QueueSet{{"q", 16}}, p)
	if err != nil {
		t.Fatal(err)
	}
	if g.Tasks[0].Resource != g.Tasks[1].Resource || g.Tasks[2].Resource == g.Tasks[0].Resource {
		t.Fatalf("%v %v %v", g.Tasks[0].Resource, g.Tasks[1].Resource, g.Tasks[2].Resource)
	}
}

// One million descriptors simulate well within the 2 s budget (the
// budget itself is measured by bench/neffdma, not asserted here).
func TestMillionDescriptorsScale(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	descs := make([]Descriptor, 1_000_000)
	for i := range descs {
		descs[i] = copyDesc("q", i, 4096)
	}
	t0 := time.Now()
	res, _, err := Simulate(descs, []QueueSet{{"q", 16}}, DefaultSimParams())
	if err != nil || res.Descriptors != 1_000_000 {
		t.Fatal(err)
	}
	t.Logf("1M descriptors simulated in %v, total %d ns", time.Since(t0), res.TotalNs)
}
