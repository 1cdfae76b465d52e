package sbufreport

import (
	"strings"
	"testing"

	"github.com/npukit/npukit/neuroncore"
)

// The engine timeline and its table say which simulation they draw (audit
// item 16): the run of "Simulated time" (unlimited memory for the
// automatic tensors), not the placed run the summary also gives, which
// said "(drawn below)".
func TestTimelineSaysWhichRun(t *testing.T) {
	p, err := neuroncore.ReadPlanFile("../../examples/sbuf/place-32.yaml")
	if err != nil {
		t.Fatal(err)
	}
	page, err := Page(p)
	if err != nil {
		t.Fatal(err)
	}
	var simulated, placed string
	for _, kv := range page.Summary {
		switch kv.Key {
		case "Simulated time":
			simulated = kv.Value
		case "Simulated time, placed":
			placed = kv.Value
		}
	}
	if simulated == "" || placed == "" {
		t.Fatalf("the plan has automatic tensors: want both times, got %+v", page.Summary)
	}
	if strings.Contains(placed, "(drawn below)") || !strings.Contains(placed, "the engine timeline draws the run of \"Simulated time\"") {
		t.Errorf("the placed time does not say what is drawn: %q", placed)
	}
	run, _, _ := strings.Cut(simulated, ", assuming")
	for _, s := range page.Sections {
		if s.ID != "timeline" {
			continue
		}
		if !strings.Contains(s.Intro, "the run of \"Simulated time\", "+run) {
			t.Errorf("the timeline's introduction does not name its run (%s): %q", run, s.Intro)
		}
		return
	}
	t.Error("no timeline section")
}
