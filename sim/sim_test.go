package sim

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func run(t *testing.T, g *Graph) *Timeline {
	t.Helper()
	tl, err := Run(g)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, tl)
	return tl
}

type span struct{ s, e int64 }

func spans(tl *Timeline) []span {
	out := make([]span, len(tl.Start))
	for i := range out {
		out[i] = span{tl.Start[i], tl.End[i]}
	}
	return out
}

func TestChainAndBandwidth(t *testing.T) {
	var g Graph
	core := g.AddResource(Resource{Name: "core"})
	dram := g.AddResource(Resource{Name: "dram", Bandwidth: 10, Overhead: 5})
	ld := g.AddTask(Task{Name: "ld", Resource: dram, Bytes: 1001}) // 5 + ceil(100.1) = 106
	c := g.AddTask(Task{Name: "c", Resource: core, Duration: 50})
	st := g.AddTask(Task{Name: "st", Resource: dram, Bytes: 10}) // 5 + 1
	g.AddDep(ld, c)
	g.AddEdge(Edge{From: c, To: st, Lag: 4, Flow: true})
	tl := run(t, &g)
	want := []span{{0, 106}, {106, 156}, {160, 166}}
	if got := spans(tl); !reflect.DeepEqual(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	if tl.Makespan != 166 {
		t.Errorf("makespan %d", tl.Makespan)
	}
	if tl.Crit[c] != ld || tl.Crit[st] != c || tl.Crit[ld] != None {
		t.Errorf("crit %v", tl.Crit)
	}
	if tl.Resources[dram].Busy != 112 || tl.Resources[dram].Bytes != 1011 || tl.Resources[dram].Tasks != 2 {
		t.Errorf("dram stats %+v", tl.Resources[dram])
	}
	if u := tl.Utilisation(core); u < 0.301 || u > 0.302 {
		t.Errorf("core utilisation %v", u)
	}
}

func TestCapacityLanes(t *testing.T) {
	var g Graph
	r := g.AddResource(Resource{Name: "dma", Capacity: 2})
	for i := 0; i < 3; i++ {
		g.AddTask(Task{Resource: r, Duration: 10})
	}
	tl := run(t, &g)
	if got, want := spans(tl), []span{{0, 10}, {0, 10}, {10, 20}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	if !reflect.DeepEqual(tl.Lane, []int32{0, 1, 0}) || tl.Resources[r].Lanes != 2 {
		t.Errorf("lanes %v stats %+v", tl.Lane, tl.Resources[r])
	}
}

func TestInOrderHeadOfLine(t *testing.T) {
	for _, inOrder := range []bool{true, false} {
		var g Graph
		other := g.AddResource(Resource{Name: "other"})
		q := g.AddResource(Resource{Name: "q", InOrder: inOrder})
		long := g.AddTask(Task{Resource: other, Duration: 100})
		a := g.AddTask(Task{Resource: q, Duration: 10}) // waits for long
		b := g.AddTask(Task{Resource: q, Duration: 10}) // ready at 0
		g.AddDep(long, a)
		tl := run(t, &g)
		if inOrder && (tl.Start[a] != 100 || tl.Start[b] != 110) {
			t.Errorf("in-order: a %d b %d", tl.Start[a], tl.Start[b])
		}
		if !inOrder && (tl.Start[b] != 0 || tl.Start[a] != 100) {
			t.Errorf("out-of-order: a %d b %d", tl.Start[a], tl.Start[b])
		}
		if tl.Ready[b] != 0 || tl.Ready[a] != 100 {
			t.Errorf("ready %v", tl.Ready)
		}
	}
}

func TestPriorityAndSimultaneousEvents(t *testing.T) {
	var g Graph
	r := g.AddResource(Resource{Name: "r"})
	x := g.AddResource(Resource{Name: "x"})
	gate := g.AddTask(Task{Resource: x, Duration: 5})
	lo := g.AddTask(Task{Resource: r, Duration: 1, Priority: 9, Earliest: 5})
	hi := g.AddTask(Task{Resource: r, Duration: 1, Priority: 1, Earliest: 5})
	mid := g.AddTask(Task{Resource: r, Duration: 1, Priority: 5}) // released by gate at 5
	g.AddDep(gate, mid)
	tl := run(t, &g)
	// All three become ready at 5 (lo's event first): every event of the
	// instant is applied before dispatching, so priority decides.
	if tl.Start[hi] != 5 || tl.Start[mid] != 6 || tl.Start[lo] != 7 {
		t.Errorf("hi %d mid %d lo %d", tl.Start[hi], tl.Start[mid], tl.Start[lo])
	}
}

func TestEarliestAndNoResource(t *testing.T) {
	var g Graph
	d := g.AddTask(Task{Name: "delay", Resource: None, Duration: 7, Earliest: 3})
	r := g.AddResource(Resource{Name: "r"})
	u := g.AddTask(Task{Resource: r, Duration: 2})
	g.AddDep(d, u)
	z := g.AddTask(Task{Resource: r, Duration: 0, Earliest: 20})
	tl := run(t, &g)
	if got, want := spans(tl), []span{{3, 10}, {10, 12}, {20, 20}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	_ = z
}

func TestCycleAndInvalid(t *testing.T) {
	var g Graph
	r := g.AddResource(Resource{Name: "r"})
	a := g.AddTask(Task{Name: "a", Resource: r, Duration: 1})
	b := g.AddTask(Task{Name: "b", Resource: r, Duration: 1})
	g.AddDep(a, b)
	g.AddDep(b, a)
	if _, err := Run(&g); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	bad := []Graph{
		{Tasks: []Task{{Resource: 3}}},
		{Tasks: []Task{{Duration: -1, Resource: None}}},
		{Tasks: []Task{{Resource: None}}, Edges: []Edge{{From: 0, To: 1}}},
		{Tasks: []Task{{Resource: None}}, Edges: []Edge{{From: 0, To: 0}}},
		{Resources: []Resource{{Bandwidth: -1}}},
		{Resources: []Resource{{Capacity: -2}}},
		{Tasks: []Task{{Resource: None}}, Deltas: []Delta{{Task: 0, Counter: 0}}},
	}
	for i := range bad {
		if _, err := Run(&bad[i]); err == nil {
			t.Errorf("bad graph %d accepted", i)
		}
	}
}

func TestCounters(t *testing.T) {
	var g Graph
	r := g.AddResource(Resource{Name: "r"})
	occ := g.AddCounter(Counter{Name: "L2", Init: 5})
	a := g.AddTask(Task{Resource: r, Duration: 10})
	b := g.AddTask(Task{Resource: r, Duration: 10})
	g.AddDelta(a, occ, false, 100) // +100 at 0
	g.AddDelta(a, occ, true, -40)  // -40 at 10
	g.AddDelta(b, occ, false, 7)   // +7 at 10 (same instant: merged)
	g.AddDelta(b, occ, true, -72)  // at 20
	tl := run(t, &g)
	want := Series{Points: []Point{{0, 105}, {10, 72}, {20, 0}}, Max: 105, Min: 0}
	if !reflect.DeepEqual(tl.Counters[occ], want) {
		t.Errorf("series %+v, want %+v", tl.Counters[occ], want)
	}
}

// randomGraph builds a DAG (edges only from lower to higher IDs) over a
// few resources of mixed kinds.
func randomGraph(rng *rand.Rand, n int) *Graph {
	g := &Graph{}
	for r := 0; r < 4; r++ {
		g.AddResource(Resource{Capacity: 1 + r%3, InOrder: r%2 == 0, Bandwidth: float64(r), Overhead: int64(r)})
	}
	for i := 0; i < n; i++ {
		res := ResourceID(rng.IntN(5) - 1)
		g.AddTask(Task{Resource: res, Duration: rng.Int64N(20), Bytes: rng.Int64N(3) * rng.Int64N(50),
			Earliest: rng.Int64N(3) * rng.Int64N(100), Priority: rng.Int64N(4)})
		for k := 0; i > 0 && k < 3; k++ {
			if rng.IntN(2) == 0 {
				g.AddEdge(Edge{From: TaskID(rng.IntN(i)), To: TaskID(i), Lag: rng.Int64N(3)})
			}
		}
	}
	return g
}

func checkInvariants(t *testing.T, g *Graph, tl *Timeline) {
	t.Helper()
	for i := range g.Tasks {
		tk := &g.Tasks[i]
		if tl.Start[i] < tl.Ready[i] || tl.Ready[i] < tk.Earliest {
			t.Fatalf("task %d starts %d before ready %d / earliest %d", i, tl.Start[i], tl.Ready[i], tk.Earliest)
		}
		if tl.End[i]-tl.Start[i] != g.TaskDuration(TaskID(i)) {
			t.Fatalf("task %d: wrong duration", i)
		}
		if tk.Resource == None && tl.Start[i] != tl.Ready[i] {
			t.Fatalf("task %d without resource waited", i)
		}
	}
	for _, e := range g.Edges {
		if tl.Ready[e.To] < tl.End[e.From]+e.Lag {
			t.Fatalf("edge %v violated", e)
		}
	}
	// Lanes never overlap; in-order resources start in ID order; a task
	// waits only while every lane is busy (work conservation).
	for r := range g.Resources {
		c := g.capacity(ResourceID(r))
		var ids []int
		for i := range g.Tasks {
			if g.Tasks[i].Resource == ResourceID(r) {
				ids = append(ids, i)
			}
		}
		busyAt := func(x int64, skip int) (n int) {
			for _, j := range ids {
				if j != skip && tl.Start[j] <= x && x < tl.End[j] {
					n++
				}
			}
			return n
		}
		for a, i := range ids {
			if int(tl.Lane[i]) >= c {
				t.Fatalf("task %d lane %d >= capacity %d", i, tl.Lane[i], c)
			}
			for _, j := range ids[a+1:] {
				if tl.Lane[i] == tl.Lane[j] && tl.Start[i] < tl.End[j] && tl.Start[j] < tl.End[i] &&
					tl.Start[i] != tl.End[i] && tl.Start[j] != tl.End[j] {
					t.Fatalf("tasks %d and %d overlap on resource %d lane %d", i, j, r, tl.Lane[i])
				}
				if g.Resources[r].InOrder && tl.Start[j] < tl.Start[i] {
					t.Fatalf("in-order resource %d: task %d starts before %d", r, j, i)
				}
			}
			if !g.Resources[r].InOrder && tl.Start[i] > tl.Ready[i] {
				for _, x := range []int64{tl.Ready[i], tl.Start[i] - 1} {
					if busyAt(x, i) < c {
						t.Fatalf("task %d ready %d start %d on resource %d: idle lane at %d", i, tl.Ready[i], tl.Start[i], r, x)
					}
				}
			}
		}
	}
}

func TestRandomInvariantsAndDeterminism(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		g := randomGraph(rand.New(rand.NewPCG(seed, 7)), 300)
		a := run(t, g)
		b := run(t, g)
		if !reflect.DeepEqual(a.Start, b.Start) || !reflect.DeepEqual(a.Lane, b.Lane) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}
