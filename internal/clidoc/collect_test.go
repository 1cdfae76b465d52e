package clidoc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/diag/ruleset"
	"github.com/npukit/npukit/diag/sarif"
)

func init() {
	diag.Register(
		diag.Rule{ID: "cdtest/loud", Severity: diag.Warning, Description: "a test rule"},
		diag.Rule{ID: "cdtest/bad", Severity: diag.Error, Description: "a test rule"},
	)
}

// TestCollector: findings are named by file, folded, filtered by the
// policy and by inline comments, and counted.
func TestCollector(t *testing.T) {
	p, err := ruleset.Load(ruleset.Sources{NoConfig: true, Disable: []string{"cdtest/loud"}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{Policy: p, Fold: true}
	var many diag.Report
	for i := range diag.RepeatLimit + 5 {
		many = append(many, diag.Diagnostic{Severity: diag.Error, Rule: "cdtest/bad", Location: fmt.Sprintf("x[%d]", i), Message: "m"})
	}
	c.Add("a.bin", append(many, diag.Diagnostic{Severity: diag.Warning, Rule: "cdtest/loud", Message: "w"}), nil)
	c.Add("k.py", diag.Report{{Severity: diag.Error, Rule: "cdtest/bad", Location: "k.py:2", Message: "hidden"}},
		func(string) []string { return []string{"x = 1", "y = 2  # npukit: ignore[cdtest/bad]"} })
	c.Fail("c.bin", fmt.Errorf("c.bin: unreadable"))
	doc := c.Document(3, 4)
	s := doc.Summary
	if len(doc.Diagnostics) != 1 || s.Errors != diag.RepeatLimit+5 || s.Suppressed != 2 || s.Unreadable != 1 || s.Skipped != 4 || s.Files != 3 {
		t.Errorf("document %+v, %d lines", s, len(doc.Diagnostics))
	}
	if doc.Diagnostics[0].File != "a.bin" || doc.Diagnostics[0].Count != diag.RepeatLimit+5 {
		t.Errorf("folded line %+v", doc.Diagnostics[0])
	}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := doc.Write(&b, f, sarif.Tool{Name: "npukit", Version: "test"}); err != nil || b.Len() == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if f == "sarif" && !strings.Contains(b.String(), "suppressions") {
			t.Errorf("SARIF without the suppressed findings")
		}
	}
}

// The summary line counts as checked only the files that were read: a
// path that does not exist is "could not be read", not also "checked".
func TestSummaryCountsOnlyFilesRead(t *testing.T) {
	c := &Collector{}
	c.Add("a.bin", nil, nil)
	c.Fail("gone.neff", fmt.Errorf("gone.neff: no such file or directory"))
	var b bytes.Buffer
	if err := c.Document(2, 0).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "1 file checked: ") || !strings.Contains(got, "1 could not be read") {
		t.Errorf("summary %q", got)
	}
}
