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
	// Engine 0 moves two 1000-byte descriptors back to back; the 100 ns
	// fixed cost is latency after the last one.
	if res.TotalNs != 2100 {
		t.Fatalf("total %d ns, want 2100", res.TotalNs)
	}
	if tl.End[3] != 512 {
		t.Fatalf("short descriptor ends at %d, want 512", tl.End[3])
	}
	if res.Engines[0].BusyNs != 2000 || res.Engines[1].BusyNs != 1000 || res.Engines[2].BusyNs != 512 || res.Engines[3].BusyNs != 0 {
		t.Fatalf("%+v", res.Engines)
	}
	if res.Bytes != 3100 || len(res.Queues) != 2 || res.Queues[0].Queue != "q" || fmt.Sprint(res.Queues[0].Engines) != "[0 1]" {
		t.Fatalf("%+v", res)
	}
}

// A descriptor's partition rows spread over its queue's engines: one
// descriptor of 128 rows of 4000 bytes and the same data as two
// descriptors of 64 rows take the same time (the model put each descriptor
// on one engine, so halving the descriptor count doubled the time), and
// that time is the bytes over 16 engines plus the fixed latency.
func TestRowsSpreadOverEngines(t *testing.T) {
	p := SimParams{Engines: 16, BytesPerNs: 23, OverheadNs: 1300, MinChargedRun: 512}
	rows := func(n int64, entry int) Descriptor {
		pat := accesspattern.Pattern{Sizes: []int64{4000, n}, Steps: []int64{1, 262144}}
		hbm := accesspattern.Pattern{Sizes: []int64{4000 * n}, Steps: []int64{1}}
		return Descriptor{Engine: "sg00/SP.json", Queue: "q", Index: entry, Transfer: Transfer{Op: OpCopy, From: []Side{{Var: "a", Pattern: hbm}}, To: Side{Var: "SB", Pattern: pat}}}
	}
	one, _, err := Simulate([]Descriptor{rows(128, 0)}, []QueueSet{{"q", 16}}, p)
	if err != nil {
		t.Fatal(err)
	}
	two, _, err := Simulate([]Descriptor{rows(64, 0), rows(64, 1)}, []QueueSet{{"q", 16}}, p)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(1300 + 128*4000/16/23)
	if one.TotalNs < want-2 || one.TotalNs > want+2 || two.TotalNs != one.TotalNs {
		t.Fatalf("one descriptor %d ns, two %d ns; want both %d", one.TotalNs, two.TotalNs, want)
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
