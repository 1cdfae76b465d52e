package ntff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/humanize"
)

// Check's findings on every corpus capture read as English: a count of
// one takes the singular ("1 instruction event without its start or
// end"; transpose_1024 said "1 instruction events"), counts carry
// thousands separators.
func TestCheckFindingsWords(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.ntff"))
	if len(paths) == 0 {
		t.Skip("no captures")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, _ := Check(data)
		var msgs []string
		for _, d := range rep {
			msgs = append(msgs, d.Message)
			// The lint reads the word after the count; a compound noun
			// needs its own look.
			if d.Rule == RuleUnpaired && strings.HasPrefix(d.Message, "1 ") && !strings.HasPrefix(d.Message, "1 instruction event without its") {
				t.Errorf("%s: %q", filepath.Base(p), d.Message)
			}
		}
		if bad := humanize.Lint(strings.Join(msgs, "\n")); len(bad) > 0 {
			t.Errorf("%s: %v", filepath.Base(p), bad)
		}
	}
}

// The window finding of a format 5 capture says what its counts span
// since they run to the capture's last event (Counting, ToCaptureEnd):
// it said "counts are taken in an estimated one", the rule before.
func TestCheckWindowFindingSaysCountingSpan(t *testing.T) {
	dir := conformance.Shared(t, "corpus3/ntff")
	p := filepath.Join(dir, "chenhzhu__asst4-trainium2__part1__transpose_1024.ntff")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	rep, prof := Check(data)
	if prof == nil || prof.Format != 5 {
		t.Skip("not the format 5 capture")
	}
	found := false
	for _, d := range rep {
		if d.Rule != RuleWindowEstimate {
			continue
		}
		found = true
		if !strings.Contains(d.Message, ToCaptureEnd) {
			t.Errorf("format 5 window finding %q does not say counts run %q", d.Message, ToCaptureEnd)
		}
	}
	if !found {
		t.Errorf("no %s finding on a format 5 capture", RuleWindowEstimate)
	}
}
