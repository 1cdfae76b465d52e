package neuroncore

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// manyReaders is a plan whose weights w are loaded once and read n times,
// while x, placed over half of w's bytes with one physical tile, is
// loaded again before each read: every load of x must wait for the reads
// of w so far (write after read), which the earlier load of x already
// waited for.
func manyReaders(n int) string {
	return fmt.Sprintf(`name: many readers of one tile
arch: v2
tensors:
  - {name: w, partitions: 128, free: [512], dtype: bf16, alloc: {mod_alloc: {base_addr: 0}}}
  - {name: x, block: [%[1]d], partitions: 128, free: [512], dtype: bf16, alloc: {mod_alloc: {base_addr: 512}}}
  - {name: y, block: [%[1]d], partitions: 128, free: [512], dtype: bf16, alloc: {mod_alloc: {base_addr: 4096}}}
body:
  - {op: load, write: "w"}
  - loop: i
    range: %[1]d
    body:
      - {op: load, write: "x[i]"}
      - {op: tensor_tensor, read: ["w", "x[i]"], write: "y[i]"}
      - {op: store, read: "y[i]"}
`, n)
}

// sameTimes fails unless the simulation with the redundant write-after-read
// edges (every reader since the last write) gives every task the same
// ready, start and end time as SimulateExecution; it returns the edges of
// both.
func sameTimes(t *testing.T, name string, x *Execution) (edges, allEdges int) {
	t.Helper()
	r, err := SimulateExecution(x)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ra, err := simulateExecution(x, true)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	a, b := r.Timeline, ra.Timeline
	if a.Makespan != b.Makespan || !slices.Equal(a.Ready, b.Ready) || !slices.Equal(a.Start, b.Start) || !slices.Equal(a.End, b.End) {
		t.Errorf("%s: the times differ without the redundant edges: makespan %d, with them %d", name, a.Makespan, b.Makespan)
	}
	return len(r.Graph.Edges), len(ra.Graph.Edges)
}

// A tile read by many steps between writes of a tile overlapping it costs
// edges in proportion to the steps (each read waited for once), not to the
// reads times the writes: a placed 64k-step kernel (corpus3's
// kda.gqa_full_v1) built 7.9 million edges, 1.2 GB, for `nki report`'s
// placement view. The times stay those of waiting for every reader.
func TestSimEdgesLinearInReaders(t *testing.T) {
	const n = 400
	x, err := mustParse(t, manyReaders(n)).Execute()
	if err != nil {
		t.Fatal(err)
	}
	edges, all := sameTimes(t, "many readers", x)
	tasks := 0
	if r, err := SimulateExecution(x); err == nil {
		tasks = len(r.Graph.Tasks)
	}
	t.Logf("%d steps, %d tasks: %d edges (%d with the redundant ones)", len(x.Events), tasks, edges, all)
	// each load's transfers wait for at most the last load of x, the load
	// of w and the one read of w since: a bounded number per task
	if edges > 4*tasks {
		t.Errorf("%d edges for %d tasks: quadratic in the readers of w", edges, tasks)
	}
	if all < n*edges/100 {
		t.Errorf("the plan no longer exercises the redundant edges (%d edges with them, %d without)", all, edges)
	}
}

// The example plans and their placements (tensors sharing bytes) simulate
// to the same times with and without the redundant edges.
func TestSimEdgesSameTimes(t *testing.T) {
	files, err := filepath.Glob("../examples/sbuf/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		name := filepath.Base(f)
		p, err := ReadPlanFile(f)
		if err != nil {
			t.Fatal(err)
		}
		plans := []*Plan{p}
		if pl, err := Place(p, PlaceOptions{Fewest: true}); err == nil {
			plans = append(plans, pl.Plan)
		}
		for i, pp := range plans {
			x, err := pp.Execute()
			if err != nil {
				continue
			}
			sameTimes(t, fmt.Sprintf("%s (%d)", name, i), x)
			checked++
		}
	}
	if checked < 8 {
		t.Errorf("only %d plans compared", checked)
	}
}
