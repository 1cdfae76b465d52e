package viewer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/examples/sbuf"
	"github.com/npukit/npukit/internal/clidoc"
	"github.com/npukit/npukit/internal/viewer"
)

func TestAnalysePlan(t *testing.T) {
	data, err := sbuf.Plans.ReadFile("overlap-t0-t1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := viewer.Analyse("overlap-t0-t1.yaml", data)
	if res.Error != "" || res.Unsupported {
		t.Fatalf("error %q (unsupported %v)", res.Error, res.Unsupported)
	}
	if res.Kind != "sbuf-plan" || !strings.Contains(res.HTML, "<!DOCTYPE html>") || len(res.Summary) == 0 {
		t.Fatalf("kind %q, %d bytes of HTML, %d summary facts", res.Kind, len(res.HTML), len(res.Summary))
	}
	// The check document is the one `npukit check --json` prints, and the
	// counts are those of the library's own check.
	var doc clidoc.CheckDocument
	if err := json.Unmarshal([]byte(res.Check), &doc); err != nil {
		t.Fatal(err)
	}
	a, _ := npukit.OpenBytes("overlap-t0-t1.yaml", data)
	rep, err := a.Check(nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(diag.Error) == 0 {
		t.Fatal("the overlapping plan should have an error")
	}
	if doc.Summary.Errors != rep.Count(diag.Error) || res.Errors != rep.Count(diag.Error) || len(doc.Diagnostics) != len(rep) {
		t.Errorf("check document %+v, result errors %d; library: %d errors, %d findings", doc.Summary, res.Errors, rep.Count(diag.Error), len(rep))
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(res.Inspect), &entries); err != nil || len(entries) != 1 || entries[0]["kind"] != "sbuf-plan" || entries[0]["result"] == nil {
		t.Errorf("inspect document %s (%v)", res.Inspect, err)
	}
}

func TestAnalyseUnsupported(t *testing.T) {
	res := viewer.Analyse("notes.txt", []byte("plain words, no artifact\n"))
	if !res.Unsupported || !strings.HasPrefix(res.Error, "notes.txt: unrecognised input") || res.HTML != "" {
		t.Errorf("got unsupported %v, error %q", res.Unsupported, res.Error)
	}
}
