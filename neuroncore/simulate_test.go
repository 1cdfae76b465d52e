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
		if e.Engine == "Scalar" {
			scalar = e
		}
	}
	// 8 exps of 512 elements at 1.4 GHz.
	if scalar.Steps != 8 || scalar.BusyNs < 8*365 || scalar.BusyNs > 8*366 {
		t.Errorf("scalar %+v", scalar)
	}
}

// A matmul step of a plan costs the architecture guide's cycles through the
// whole path (plan -> StepCycles -> simulated task): bf16 with moving free
// size 512 is 512 PE cycles (182.857 ns at 2.8 GHz); fp32 four times that.
func TestMatmulStepCost(t *testing.T) {
	for _, c := range []struct {
		dtype  string
		cycles int64
	}{{"bf16", 512}, {"fp32", 2048}} {
		p, err := ParsePlan([]byte(`tensors:
  - {name: s, partitions: 128, free: [128], dtype: ` + c.dtype + `}
  - {name: m, partitions: 128, free: [512], dtype: ` + c.dtype + `}
  - {name: p, partitions: 128, free: [512], dtype: fp32, buffer: psum}
body:
  - {op: matmul, read: [s, m], write: p}
`))
		if err != nil {
			t.Fatal(err)
		}
		s := p.Body[0].Step
		if got := StepCycles(p, s); got != c.cycles {
			t.Errorf("%s matmul: %d cycles, want %d", c.dtype, got, c.cycles)
		}
		r, err := Simulate(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := V2.CyclesToPs(TensorE, c.cycles); r.Timeline.Makespan != want {
			t.Errorf("%s matmul: simulated %d ps, want %d", c.dtype, r.Timeline.Makespan, want)
		}
	}
}
