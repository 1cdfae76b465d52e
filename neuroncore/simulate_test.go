package neuroncore

import (
	"testing"
)

func simFile(t *testing.T, name string) *SimResult {
	t.Helper()
	p, err := ReadPlanFile("../examples/sbuf/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Double buffering overlaps the DMA loads with the ScalarE exps; a single
// physical tile serialises them.
func TestDoubleBufferingOverlaps(t *testing.T) {
	single := simFile(t, "single-buffer.yaml")
	double := simFile(t, "double-buffer.yaml")
	ts, td := single.Timeline.Makespan, double.Timeline.Makespan
	t.Logf("single %.3f us, double %.3f us", float64(ts)/1e6, float64(td)/1e6)
	if td >= ts*3/4 {
		t.Errorf("double buffering %d ps is not clearly faster than single %d ps", td, ts)
	}
	// With one tile, load x[i+1] starts only after exp x[i] ended.
	ex := single.Exec
	var exp0, load1 int = -1, -1
	for i := range ex.Events {
		e := &ex.Events[i]
		if e.Step.Op == OpActivation && e.Vars[0] == 0 {
			exp0 = i
		}
		if e.Step.Op == OpLoad && e.Vars[0] == 1 {
			load1 = i
		}
	}
	tl := single.Timeline
	if tl.Start[firstTransfer(single, load1)] < tl.End[single.Done[exp0]] {
		t.Errorf("single buffer: load x[1] starts at %d before exp x[0] ends at %d", tl.Start[firstTransfer(single, load1)], tl.End[single.Done[exp0]])
	}
	// With two tiles, load x[1] runs before exp x[0] ends.
	dl := double.Timeline
	if dl.Start[firstTransfer(double, load1)] >= dl.End[double.Done[exp0]] {
		t.Errorf("double buffer: load x[1] does not overlap exp x[0]")
	}
}

func firstTransfer(r *SimResult, ev int) int {
	for i, tk := range r.Graph.Tasks {
		if int(tk.Tag) == ev && tk.Resource == r.Resources[DMA] {
			return i
		}
	}
	return -1
}

func TestSimSummary(t *testing.T) {
	r := simFile(t, "double-buffer.yaml")
	s := r.Summary()
	if s.Steps != 24 {
		t.Errorf("steps %d", s.Steps)
	}
	// 8 loads + 8 stores of 128 x 1 KiB.
	if s.DMABytes != 16*128*1024 {
		t.Errorf("DMA bytes %d", s.DMABytes)
	}
	var scalar EngineStats
	for _, e := range s.Engines {
		if e.Engine == "scalar" {
			scalar = e
		}
	}
	// 8 exps of 512 elements at 1.4 GHz.
	if scalar.Steps != 8 || scalar.BusyNs < 8*365 || scalar.BusyNs > 8*366 {
		t.Errorf("scalar %+v", scalar)
	}
}
