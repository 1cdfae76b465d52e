package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// edgetpu plan --host help lists the host classes without a model, as
// sim --host help does (it failed "edgetpu plan: needs MODEL.tflite"),
// and as JSON with --json.
func TestEdgeTPUPlanHostHelpNeedsNoModel(t *testing.T) {
	r := run(t, "", "edgetpu", "plan", "--host", "help")
	if r.code != 0 || !strings.Contains(r.stdout, "devboard-pcie") {
		t.Errorf("edgetpu plan --host help: %s", r)
	}
	r = run(t, "", "--json", "edgetpu", "plan", "--host", "help")
	var v struct {
		Hosts []struct{ Name string } `json:"hosts"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || len(v.Hosts) == 0 {
		t.Errorf("--json edgetpu plan --host help: %s", r)
	}
	if r := run(t, "", "edgetpu", "plan"); r.code != 2 {
		t.Errorf("edgetpu plan without a model: %s", r)
	}
}
