package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

// TestGeminiReallocCorpus: every real schedule gets a per-core report; a
// compiler-IR schedule's minimal L2 is at most its own extent and its
// rewrite checks without errors; the raw IR has nothing to rewrite.
func TestGeminiReallocCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	tmp := t.TempDir()
	for _, f := range conformance.Files(t, dir, "*.json") {
		out := filepath.Join(tmp, filepath.Base(f))
		r := run(t, "", "gemini", "realloc", "--json", "--timeout", "1s", "--budget", "3s", "--rewrite", out, f)
		var rep struct {
			Variant string
			Cores   []struct {
				Key        int64
				Status     string
				FileExtent int64 `json:"file_extent_bytes"`
				LivePeak   int64 `json:"live_peak_bytes"`
				Min        int64 `json:"min_capacity_bytes"`
				Lower      int64 `json:"lower_bound_bytes"`
			}
			Rewritten string
		}
		if strings.Contains(f, "raw") {
			if r.code != 2 || !strings.Contains(r.stderr, "nothing to rewrite") {
				t.Errorf("raw IR --rewrite: exit %d\n%s", r.code, r)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("raw IR: %s written", out)
			}
			r = run(t, "", "gemini", "realloc", "--json", f)
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Variant != "raw" || len(rep.Cores) == 0 {
				t.Fatalf("raw IR: exit %d\n%s", r.code, r)
			}
			for _, c := range rep.Cores {
				if c.Status != "no addresses" || c.LivePeak <= 0 || c.Min != 0 {
					t.Errorf("raw IR core %d: %+v", c.Key, c)
				}
			}
			continue
		}
		if r.code != 0 {
			t.Fatalf("realloc %s: exit %d\n%s", f, r.code, r)
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Cores) == 0 || rep.Rewritten != out {
			t.Fatalf("realloc %s: %v\n%s", f, err, r.stdout)
		}
		for _, c := range rep.Cores {
			if c.Min <= 0 || c.Min > c.FileExtent || c.Min < c.LivePeak || c.Lower > c.Min ||
				(c.Status == "optimal") != (c.Lower == c.Min) {
				t.Errorf("%s core %d: %+v", f, c.Key, c)
			}
		}
		if r := run(t, "", "check", out); r.code != 0 {
			t.Errorf("check of the rewrite of %s: exit %d\n%s", f, r.code, r)
		}
		// The text table names every column.
		r = run(t, "", "gemini", "realloc", "--timeout", "1s", "--budget", "2s", f)
		for _, col := range []string{"file extent", "live peak", "min L2", "status", "solve"} {
			if !strings.Contains(r.stdout, col) {
				t.Errorf("text output lacks %q:\n%s", col, r.stdout)
			}
		}
	}
	if r := run(t, "", "gemini", "realloc", filepath.Join(tmp, "missing.json")); r.code != 2 {
		t.Errorf("missing file: exit %d", r.code)
	}
	// An alignment no placement fits in the region: the table is shown,
	// nothing is written, exit 1.
	f := conformance.Files(t, dir, "*stschedule.json")[0]
	out := filepath.Join(tmp, "too-aligned.json")
	r := run(t, "", "gemini", "realloc", "--align", "1073741824", "--timeout", "500ms", "--rewrite", out, f)
	if _, err := os.Stat(out); r.code != 1 || err == nil || !strings.Contains(r.stderr, "exceeds the ring-buffer region") || !strings.Contains(r.stdout, "min L2") {
		t.Errorf("over-aligned rewrite: exit %d\n%s", r.code, r)
	}
	if r := run(t, "", "gemini", "realloc", "--prefetch", "bogus", f); r.code != 2 {
		t.Errorf("bad --prefetch: exit %d", r.code)
	}
}

// `npukit alloc --from` is the spelling of the same job: the
// minimal L2 of every compiler-IR corpus schedule, and a rewrite that checks
// clean.
func TestAllocFromCorpus(t *testing.T) {
	dir := conformance.Corpus(t, "gemini")
	tmp := t.TempDir()
	n := 0
	for _, f := range conformance.Files(t, dir, "*.json") {
		if strings.Contains(filepath.Base(f), "raw") {
			continue
		}
		n++
		out := filepath.Join(tmp, filepath.Base(f))
		r := run(t, "", "alloc", "--json", "--from", f, "--timeout", "2s", "--rewrite", out)
		if r.code != 0 {
			t.Fatalf("%s: %s", f, r)
		}
		var rep struct {
			Cores []struct {
				FileExtent int64 `json:"file_extent_bytes"`
				Min        int64 `json:"min_capacity_bytes"`
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Cores) == 0 {
			t.Fatalf("%s: %v\n%s", f, err, r.stdout)
		}
		for _, c := range rep.Cores {
			if c.Min <= 0 || c.Min > c.FileExtent {
				t.Errorf("%s: minimal L2 %d vs file extent %d", f, c.Min, c.FileExtent)
			}
		}
		if c := run(t, "", "check", out); c.code != 0 {
			t.Errorf("%s: rewritten schedule: %s", f, c)
		}
	}
	if n == 0 {
		t.Fatal("no compiler-IR schedule in the corpus")
	}
	if r := run(t, "", "alloc", "--from", "x.json", "--minimize"); r.code != 2 {
		t.Errorf("--from with --minimize: %s", r)
	}
}
