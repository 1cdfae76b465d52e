package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/npukit/npukit/sim"
	"github.com/npukit/npukit/sim/simtest"
)

func mustRun(t testing.TB, g *sim.Graph) *sim.Timeline {
	t.Helper()
	tl, err := sim.Run(g)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestSmallTraceExact(t *testing.T) {
	g := &sim.Graph{Unit: "cycles"}
	core := g.AddResource(sim.Resource{Name: "core 0", Group: "cores"})
	dram := g.AddResource(sim.Resource{Name: "DRAM", Group: "memory", Bandwidth: 2})
	ld := g.AddTask(sim.Task{Name: "ld", Cat: "load", Resource: dram, Bytes: 5})
	c := g.AddTask(sim.Task{Name: `conv "1"`, Cat: "compute", Resource: core, Duration: 7, Tag: 3})
	g.AddEdge(sim.Edge{From: ld, To: c, Flow: true})
	occ := g.AddCounter(sim.Counter{Name: "L2 bytes", Group: "memory"})
	g.AddDelta(ld, occ, false, 5)
	g.AddDelta(c, occ, true, -5)
	tl := mustRun(t, g)
	var b bytes.Buffer
	err := Write(&b, tl, Options{NanosPerUnit: 40, Metadata: [][2]string{{"source", "test"}},
		Args: func(id sim.TaskID, a *Args) {
			if g.Tasks[id].Tag != 0 {
				a.Int("layer", int64(g.Tasks[id].Tag))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"displayTimeUnit":"ns","otherData":{"time_unit":"cycles","source":"test"},
"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"cores"}},
{"ph":"M","name":"process_sort_index","pid":1,"tid":0,"args":{"sort_index":0}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"memory"}},
{"ph":"M","name":"process_sort_index","pid":2,"tid":0,"args":{"sort_index":1}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"core 0"}},
{"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}},
{"ph":"M","name":"thread_name","pid":2,"tid":2,"args":{"name":"DRAM"}},
{"ph":"M","name":"thread_sort_index","pid":2,"tid":2,"args":{"sort_index":2}},
{"ph":"X","name":"ld","cat":"load","pid":2,"tid":2,"ts":0,"dur":0.12,"args":{"bytes":5}},
{"ph":"X","name":"conv \"1\"","cat":"compute","pid":1,"tid":1,"ts":0.12,"dur":0.28,"args":{"layer":3}},
{"ph":"s","name":"flow","cat":"flow","id":1,"pid":2,"tid":2,"ts":0},
{"ph":"f","bp":"e","name":"flow","cat":"flow","id":1,"pid":1,"tid":1,"ts":0.12},
{"ph":"C","name":"L2 bytes","pid":2,"tid":0,"ts":0,"args":{"value":5}},
{"ph":"C","name":"L2 bytes","pid":2,"tid":0,"ts":0.4,"args":{"value":0}}
]}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	sum, err := Validate(&b)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Flows != 1 || sum.Phases["X"] != 2 || sum.Phases["C"] != 2 || sum.Tracks != 2 ||
		strings.Join(sum.Process, ",") != "cores,memory" {
		t.Errorf("summary %+v", sum)
	}
}

func TestPipelineValidates(t *testing.T) {
	g := simtest.Pipeline(20000, 8, 3)
	// A resource with lanes: its events must land on separate tracks.
	lanes := g.AddResource(sim.Resource{Name: "noc", Group: "NoC", Capacity: 3})
	for i := 0; i < 30; i++ {
		g.AddTask(sim.Task{Name: "hop", Resource: lanes, Duration: int64(5 + i%7)})
	}
	tl := mustRun(t, g)
	var b bytes.Buffer
	if err := Write(&b, tl, Options{NanosPerUnit: 1.0 / 3}); err != nil { // inexact unit
		t.Fatal(err)
	}
	sum, err := Validate(&b)
	if err != nil {
		t.Fatal(err)
	}
	flows := 0
	for _, e := range g.Edges {
		if e.Flow {
			flows++
		}
	}
	if sum.Phases["X"] != len(g.Tasks) || sum.Flows != flows || sum.Names["noc #2"] != 1 || sum.Names["core 7"] != 1 {
		t.Errorf("X %d of %d tasks, flows %d of %d, names %v", sum.Phases["X"], len(g.Tasks), sum.Flows, flows, sum.Names)
	}
}

func TestEscaping(t *testing.T) {
	g := &sim.Graph{}
	r := g.AddResource(sim.Resource{Name: "r\x00\t\"\\", Group: "g\xff"})
	g.AddTask(sim.Task{Name: "a\nb\u2028é", Resource: r, Duration: 1})
	var b bytes.Buffer
	if err := Write(&b, mustRun(t, g), Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if !strings.Contains(b.String(), `"a\nb`+"\u2028é\"") || doc.TraceEvents[0].Args["name"] != "g\ufffd" {
		t.Errorf("escaping: %s", b.String())
	}
}

func TestValidatorRejects(t *testing.T) {
	ok := `{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10}`
	cases := map[string]string{
		"not json":       `{"traceEvents":[`,
		"no array":       `{"events":[]}`,
		"bad unit":       `{"displayTimeUnit":"us","traceEvents":[]}`,
		"no ph":          `{"traceEvents":[{"name":"a"}]}`,
		"no pid":         `{"traceEvents":[{"ph":"X","name":"a","tid":1,"ts":0,"dur":1}]}`,
		"no dur":         `{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0}]}`,
		"negative dur":   `{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":-1}]}`,
		"overlap":        `{"traceEvents":[` + ok + `,{"ph":"X","name":"b","pid":1,"tid":1,"ts":9.999999,"dur":1}]}`,
		"dangling flow":  `{"traceEvents":[` + ok + `,{"ph":"f","bp":"e","name":"x","cat":"c","id":4,"pid":1,"tid":1,"ts":1}]}`,
		"flow cat":       `{"traceEvents":[{"ph":"s","name":"x","cat":"a","id":4,"pid":1,"tid":1,"ts":1},{"ph":"f","name":"x","cat":"b","id":4,"pid":1,"tid":1,"ts":1}]}`,
		"counter string": `{"traceEvents":[{"ph":"C","name":"c","pid":1,"ts":0,"args":{"v":"x"}}]}`,
		"meta no name":   `{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{}}]}`,
		"unknown phase":  `{"traceEvents":[{"ph":"Q","ts":0}]}`,
		"trailing":       `{"traceEvents":[]} {}`,
	}
	for name, doc := range cases {
		if _, err := Validate(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	good := `{"traceEvents":[` + ok + `,{"ph":"X","name":"child","pid":1,"tid":1,"ts":2,"dur":8},` +
		`{"ph":"X","name":"next","pid":1,"tid":1,"ts":10,"dur":0},{"ph":"X","name":"other","pid":1,"tid":2,"ts":5,"dur":10}]}`
	if _, err := Validate(strings.NewReader(good)); err != nil {
		t.Errorf("nested/adjacent slices rejected: %v", err)
	}
}

func TestWriterStreams(t *testing.T) {
	tl := mustRun(t, simtest.Pipeline(50000, 16, 4))
	allocs := testing.AllocsPerRun(2, func() {
		if err := Write(io.Discard, tl, Options{NanosPerUnit: 40}); err != nil {
			t.Fatal(err)
		}
	})
	// Per-track tables only: nothing per event.
	if allocs > 500 {
		t.Errorf("%v allocations for %d tasks: the writer is not streaming", allocs, len(tl.Start))
	}
}

func TestBadOptions(t *testing.T) {
	tl := mustRun(t, &sim.Graph{})
	if err := Write(io.Discard, tl, Options{DisplayTimeUnit: "us"}); err == nil {
		t.Error("bad display unit accepted")
	}
	if err := Write(io.Discard, tl, Options{NanosPerUnit: -1}); err == nil {
		t.Error("negative unit accepted")
	}
}

func BenchmarkWrite(b *testing.B) {
	tl := mustRun(b, simtest.Pipeline(1_000_000, 64, 16))
	for b.Loop() {
		if err := Write(io.Discard, tl, Options{NanosPerUnit: 40}); err != nil {
			b.Fatal(err)
		}
	}
}
