package sim

import "testing"

// Overlapping tasks on one resource get separate lanes, the fewest that
// keep each lane free of overlaps; the makespan is the latest end.
func TestRecorderLanes(t *testing.T) {
	r := NewRecorder("ns")
	q := r.Resource("core 0", "queue")
	e := r.Resource("core 0", "engine")
	if r.Resource("core 0", "queue") != q || r.Resource("core 1", "queue") == q {
		t.Fatal("resources are not found by group and name")
	}
	r.Add(q, Task{Name: "a"}, 0, 10)
	r.Add(q, Task{Name: "b"}, 5, 15)
	r.Add(q, Task{Name: "c"}, 10, 20) // a's lane is free again
	r.Add(e, Task{Name: "d", Bytes: 64}, 3, 30)
	tl := r.Timeline()
	if got := []int32{tl.Lane[0], tl.Lane[1], tl.Lane[2], tl.Lane[3]}; got[0] != 0 || got[1] != 1 || got[2] != 0 || got[3] != 0 {
		t.Fatalf("lanes %v", got)
	}
	if tl.Resources[q].Lanes != 2 || tl.Graph.Resources[q].Capacity != 2 || tl.Resources[e].Lanes != 1 {
		t.Fatalf("lanes per resource %+v", tl.Resources)
	}
	if tl.Makespan != 30 || tl.Resources[q].Busy != 30 || tl.Duration(3) != 27 || tl.Graph.Tasks[3].Bytes != 64 {
		t.Fatalf("makespan %d, busy %d, duration %d", tl.Makespan, tl.Resources[q].Busy, tl.Duration(3))
	}
}
