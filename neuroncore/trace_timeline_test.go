package neuroncore

import (
	"bytes"
	"testing"

	"github.com/npukit/npukit/trace"
)

// The trace's timeline ends at the kernel body: the DMAs' fixed completion
// latency and the spill time, which the simulation adds but no task drew,
// are slices of their own (audit r3 #20), and the trace is valid.
func TestTraceTimelineEndsAtKernelBody(t *testing.T) {
	const plan = `
arch: v2
tensors:
  - {name: x, block: [100], partitions: 128, free: [512], dtype: float32}
body:
  - loop: i
    range: 100
    body: [{op: load, write: "x[i]", hbm: a}]
  - loop: j
    range: 100
    body: [{op: store, read: "x[j]", hbm: out}]
`
	p, err := ParsePlan([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.SpillPs == 0 {
		t.Fatal("the plan does not spill: the test needs it to")
	}
	tl := r.TraceTimeline()
	end := int64(0)
	cats := map[string]int{}
	for i, task := range tl.Graph.Tasks {
		if task.Resource >= 0 {
			end = max(end, tl.End[i])
			cats[task.Cat]++
		}
	}
	if want := r.Timeline.Makespan + r.SpillPs; end != want || tl.Makespan != want {
		t.Errorf("trace ends at %d ps (makespan %d), the kernel body at %d", end, tl.Makespan, want)
	}
	if cats["dma-completion"] != 200 || cats["spill"] != 1 {
		t.Errorf("slices by category %v: want 200 DMA completions and a spill", cats)
	}
	joins := 0
	for _, task := range r.Timeline.Graph.Tasks {
		if task.Cat == "dma-done" && task.Resource < 0 {
			joins++
		}
	}
	if joins != 200 {
		t.Errorf("the simulated timeline was changed: %d DMA joins left", joins)
	}
	var b bytes.Buffer
	if err := trace.Write(&b, tl, trace.Options{NanosPerUnit: 0.001}); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Validate(bytes.NewReader(b.Bytes())); err != nil {
		t.Errorf("invalid trace: %v", err)
	}
}
