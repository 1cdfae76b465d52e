package cli_test

import (
	"encoding/json"
	"os"
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

// Audit r3 #32: with the rule disabled in the .npukit.yaml `npukit check`
// reads (from the working directory upward), check finds no error; sim,
// inspect and the report said "check finds 1 error" and listed it.
func TestCheckNoteFollowsRuleConfiguration(t *testing.T) {
	ex, err := filepath.Abs("../../../../examples")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(ex, "sbuf", "overlap-t0-t1.yaml")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".npukit.yaml"), []byte("disable: [sbuf/lifetime-overlap]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "check", bad); r.code != 0 || !strings.Contains(r.stdout, "0 errors") {
		t.Fatalf("check under the configuration: %s", r)
	}
	for _, cmd := range [][]string{{"sim"}, {"inspect"}, {"sbuf", "sim"}} {
		if r := run(t, dir, append(cmd, bad)...); r.code != 0 || strings.Contains(r.stdout, "check finds") {
			t.Errorf("%v under a configuration disabling the rule: %s", cmd, r)
		}
	}
	// nki sim said "check finds 1 error" of a kernel whose one error
	// `nki check` there does not report.
	kernel := []string{"--manifest", filepath.Join(ex, "nki", "manifest.json"), "--entry", "guide.overlap"}
	if r := run(t, dir, append([]string{"nki", "check"}, kernel...)...); r.code != 0 || !strings.Contains(r.stdout, "0 errors") {
		t.Fatalf("nki check under the configuration: %s", r)
	}
	if r := run(t, dir, append([]string{"nki", "sim"}, kernel...)...); r.code != 0 || strings.Contains(r.stdout, "check finds") {
		t.Errorf("nki sim under a configuration disabling the rule: %s", r)
	}
	if r := run(t, dir, "report", bad, "-o", "r.html"); r.code != 0 {
		t.Fatalf("report: %s", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sbuf/lifetime-overlap") || !strings.Contains(string(b), "1 finding left out by the rule configuration") {
		t.Error("the report lists the disabled rule's finding, or does not say it left it out")
	}
}
