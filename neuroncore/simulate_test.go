package neuroncore

import (
	"fmt"
	"strings"
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

// A plan of an SPMD kernel says its time is one program instance's and
// what the whole grid costs run serially on one NeuronCore, as the NKI
// programming model runs it (audit r3 #26: grids of 1, 4 and 64 instances
// printed the same time, nothing said so); the grid survives encoding.
func TestSimSPMDGridSaid(t *testing.T) {
	const plan = `
arch: v2
grid: [2, 4]
program_id: [1, 3]
tensors:
  - {name: x, partitions: 128, free: [512], dtype: float32, buffer: sbuf}
body:
  - {op: load, write: x, hbm: a}
  - {op: store, read: x, hbm: out}
`
	p, err := ParsePlan([]byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary()
	l := s.SPMD
	if l == nil || l.Instances != 8 || l.InstancesSimulated != 1 || fmt.Sprint(l.ProgramID) != "[1 3]" {
		t.Fatalf("spmd %+v", l)
	}
	if want := 8*s.KernelNs + s.LaunchNs; l.SerialNs != want {
		t.Errorf("whole launch %.0f ns, want 8 x %.0f + %.0f", l.SerialNs, s.KernelNs, s.LaunchNs)
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "SPMD grid 2x4: the time is one program instance's (program_id 1,3) of 8") || !strings.Contains(b.String(), "serially on one NeuronCore") {
		t.Errorf("text does not say what is priced:\n%s", b.String())
	}
	if enc := string(EncodePlan(p)); !strings.Contains(enc, "grid: [2, 4]\nprogram_id: [1, 3]\n") {
		t.Errorf("encoded plan lost the grid:\n%s", enc)
	}
	for _, bad := range []string{"grid: [2, 0]", "grid: [2, 4]\nprogram_id: [2, 0]", "grid: [2]\nprogram_id: [0, 0]", "program_id: [0]"} {
		src := strings.Replace(plan, "grid: [2, 4]\nprogram_id: [1, 3]", bad, 1)
		if _, err := ParsePlan([]byte(src)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	q, _ := ParsePlan([]byte(strings.Replace(plan, "grid: [2, 4]\nprogram_id: [1, 3]\n", "", 1)))
	if r, _ := Simulate(q); r.Summary().SPMD != nil {
		t.Error("a plan without a grid says it has one")
	}
}
