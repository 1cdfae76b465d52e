package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// sim and inspect of a file check finds errors in say so in one line, in
// the text and in --json (audit item 25: sim of a Gemini schedule check
// fails ran silently with exit 0); a clean file gets no such line.
func TestSimAndInspectNoteCheckErrors(t *testing.T) {
	ex, err := filepath.Abs("../../../../examples")
	if err != nil {
		t.Fatal(err)
	}
	bad, good := filepath.Join(ex, "sbuf", "overlap-t0-t1.yaml"), filepath.Join(ex, "sbuf", "disjoint-t0-t1.yaml")
	if r := run(t, "", "check", bad); r.code != 1 {
		t.Fatalf("the example was meant to fail check: %s", r)
	}
	const note = "check finds 1 error in this file (run `npukit check "
	for _, cmd := range [][]string{{"sim"}, {"inspect"}, {"sbuf", "sim"}} {
		r := run(t, "", append(cmd, bad)...)
		if r.code != 0 || !strings.Contains(r.stdout, "Note: "+note+bad+"`)") {
			t.Errorf("%v of a plan check fails: no note:\n%s", cmd, r)
		}
		if r := run(t, "", append(cmd, good)...); r.code != 0 || strings.Contains(r.stdout, "check finds") {
			t.Errorf("%v of a clean plan: %s", cmd, r)
		}
		r = run(t, "", append(append([]string{"--json"}, cmd...), bad)...)
		var doc any
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v --json: %v\n%s", cmd, err, r.stdout)
		}
		if l, ok := doc.([]any); ok && len(l) == 1 { // inspect: one entry per file
			doc = l[0].(map[string]any)["result"]
		}
		if m, ok := doc.(map[string]any); !ok || m["check_errors"] != float64(1) || !strings.HasPrefix(m["check_note"].(string), note) {
			t.Errorf("%v --json: no check_errors 1 and check_note:\n%s", cmd, r.stdout)
		}
	}
	r := run(t, "", "nki", "sim", "--manifest", filepath.Join(ex, "nki", "manifest.json"), "--entry", "guide.overlap")
	if r.code != 0 || !strings.Contains(r.stdout, "Note: check finds 1 error in this file (run `npukit nki check` with the same arguments)") {
		t.Errorf("nki sim of a kernel nki check fails: no note:\n%s", r)
	}
}
