package npukit

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/npukit/npukit/alloc"
)

// Audit r3 #31: a file whose `end` column is over capacity read inclusive
// (more bytes alive at once than the capacity: no placement can exist) and
// fits read half-open (MiniMalloc's own benchmark files) was "infeasible",
// exit 1, with "this file probably uses it". It is solved half-open and
// said so, and the solution written names the column `upper`, so that it
// checks clean as written.
func TestSolveAllocReadsHalfOpenEnds(t *testing.T) {
	tab, err := alloc.ReadCSV(strings.NewReader("buffer,start,end,size\na,0,5,10\nb,5,10,10\n"), 10, alloc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := SolveAlloc(context.Background(), "p.10.csv", tab, alloc.OffsetsAuto, AllocSolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "solved" || !res.EndsHalfOpen || res.Peak != 10 || !strings.Contains(res.Message, "read as half-open") {
		t.Fatalf("status %s, half-open %v, peak %d: %s", res.Status, res.EndsHalfOpen, res.Peak, res.Message)
	}
	var buf bytes.Buffer
	if err := tab.WriteSolution(&buf, res.Solution); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "buffer,start,upper,size,offset\n") {
		t.Fatalf("solution header: %q", buf.String())
	}
	back, err := alloc.ReadCSV(&buf, 10, alloc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := alloc.Check(back); rep.HasErrors() {
		t.Errorf("the solution written does not check clean: %v", rep)
	}
	// Inclusive ends that are simply too many for the capacity either way
	// stay infeasible.
	tab, err = alloc.ReadCSV(strings.NewReader("buffer,start,end,size\na,0,5,10\nb,4,10,10\n"), 10, alloc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := SolveAlloc(context.Background(), "q.10.csv", tab, alloc.OffsetsAuto, AllocSolveOptions{}); err != nil || res.Status != "infeasible" || res.EndsHalfOpen {
		t.Errorf("over capacity either way: %+v, %v", res, err)
	}
}

// Audit r3 #17: a size under 1 KiB was printed twice ("578 B (578
// bytes)"); larger ones keep their exact count.
func TestAllocResultSizes(t *testing.T) {
	var buf bytes.Buffer
	r := &AllocResult{Problem: "p.csv", Status: "solved", Capacity: 578, Height: 4096, Peak: 500, Seconds: 0.0012}
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	// Audit r3 #30: the time in the unit gemini realloc uses.
	if !strings.Contains(s, "time        1.200 ms") {
		t.Errorf("time:\n%s", s)
	}
	if strings.Contains(s, "578 B (578 bytes)") || !strings.Contains(s, "578 B\n") || !strings.Contains(s, "4.0 KiB (4,096 bytes)") {
		t.Errorf("sizes:\n%s", s)
	}
}
