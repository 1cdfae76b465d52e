package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	nkiexamples "github.com/npukit/npukit/examples/nki"
	"github.com/npukit/npukit/examples/sbuf"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/internal/sarifschema"
)

// sbufTree lays out a small tree of plan files (two with errors, one
// clean) and files that are not artifacts, as a repository would hold them.
func sbufTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, example := range map[string]string{
		"plans/overlap.yaml":      "overlap-t0-t1.yaml",
		"plans/deep/few.yaml":     "too-few-tiles.yaml",
		"plans/deep/double.yaml":  "double-buffer.yaml",
		"plans/.hidden/skip.yaml": "overlap-t0-t1.yaml",
	} {
		data, err := sbuf.Plans.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"plans/README.md", "plans/deep/notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("not an artifact\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func checkDoc(t *testing.T, r result) (doc struct {
	Diagnostics []struct{ File, Rule, Severity, Suppressed string }
	Suppressed  []struct{ File, Rule, Suppressed string }
	Summary     struct{ Files, Errors, Warnings, Infos, Suppressed, Skipped int }
}) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	return doc
}

func TestCheckTree(t *testing.T) {
	dir := sbufTree(t)
	r := run(t, dir, "--json", "check", "plans")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (errors found)\n%s", r.code, r)
	}
	doc := checkDoc(t, r)
	if doc.Summary.Files != 3 || doc.Summary.Skipped != 2 || doc.Summary.Errors != 2 {
		t.Errorf("summary %+v, want 3 files, 2 skipped, 2 errors", doc.Summary)
	}
	if !strings.Contains(r.stderr, "skipped 2 files") {
		t.Errorf("stderr does not count the skipped files: %s", r.stderr)
	}
	r = run(t, dir, "check", "-v", "plans")
	if !strings.Contains(r.stderr, filepath.Join("plans", "deep", "notes.txt")) {
		t.Errorf("-v does not list the skipped files: %s", r.stderr)
	}
	// A quoted glob is expanded; the clean file alone exits 0.
	r = run(t, dir, "check", "plans/deep/d*.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "1 file checked") {
		t.Errorf("glob: %s", r)
	}
	// A directory with no artifact under it is a usage error.
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r = run(t, dir, "check", "empty"); r.code != 2 {
		t.Errorf("empty directory: %s", r)
	}
}

func TestCheckRuleControlByFlag(t *testing.T) {
	dir := sbufTree(t)
	r := run(t, dir, "--json", "check", "--disable", "sbuf/lifetime-overlap", "--severity", "sbuf/too-few-physical-tiles=warning", "plans")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 once the errors are disabled or re-graded\n%s", r.code, r)
	}
	doc := checkDoc(t, r)
	if doc.Summary.Errors != 0 || doc.Summary.Warnings != 1 || doc.Summary.Suppressed != 1 {
		t.Errorf("summary %+v", doc.Summary)
	}
	if len(doc.Suppressed) != 1 || doc.Suppressed[0].Rule != "sbuf/lifetime-overlap" || !strings.Contains(doc.Suppressed[0].Suppressed, "--disable") {
		t.Errorf("suppressed %+v", doc.Suppressed)
	}
	if r = run(t, dir, "check", "--disable", "sbuf/no-such-rule", "plans"); r.code != 2 || !strings.Contains(r.stderr, "no rule") {
		t.Errorf("a misspelt rule must be refused: %s", r)
	}
}

func TestCheckRuleControlByConfig(t *testing.T) {
	dir := sbufTree(t)
	cfg := "disable: [sbuf/*]\nenable: [sbuf/too-few-physical-tiles]\n"
	if err := os.WriteFile(filepath.Join(dir, ".npukit.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	// Found from a subdirectory upward.
	r := run(t, filepath.Join(dir, "plans"), "--json", "check", ".")
	doc := checkDoc(t, r)
	if r.code != 1 || doc.Summary.Errors != 1 || doc.Diagnostics[0].Rule != "sbuf/too-few-physical-tiles" {
		t.Errorf("config: exit %d %+v", r.code, doc)
	}
	// A flag after the file wins; --no-config reads none.
	r = run(t, filepath.Join(dir, "plans"), "--json", "check", "--enable", "sbuf/lifetime-overlap", ".")
	if doc = checkDoc(t, r); doc.Summary.Errors != 2 {
		t.Errorf("--enable over the file: %+v", doc.Summary)
	}
	r = run(t, filepath.Join(dir, "plans"), "--json", "check", "--no-config", ".")
	if doc = checkDoc(t, r); doc.Summary.Errors != 2 || doc.Summary.Suppressed != 0 {
		t.Errorf("--no-config: %+v", doc.Summary)
	}
}

func TestCheckFormats(t *testing.T) {
	dir := sbufTree(t)
	r := run(t, dir, "check", "--format", "sarif", "plans")
	var log struct {
		Version string
		Runs    []struct {
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || log.Version != "2.1.0" || len(log.Runs[0].Results) != 2 {
		t.Fatalf("sarif: %v %s", err, r)
	}
	r = run(t, dir, "check", "--format", "github", "plans")
	if r.code != 1 || strings.Count(r.stdout, "::error file=plans/") != 2 {
		t.Errorf("github: %s", r)
	}
	if r = run(t, dir, "--json", "check", "--format", "sarif", "plans"); r.code != 2 {
		t.Errorf("--json with --format sarif: %s", r)
	}
}

// overlapKernel is the guide's overlap kernel (one sbuf/lifetime-overlap
// error, reported at the declaration of t0) with a check directive on top; ignore adds
// an inline suppression to the line of t0, where the finding is reported.
func overlapKernel(t *testing.T, dir string, ignore bool) string {
	t.Helper()
	src, err := nkiexamples.Kernels.ReadFile("lifetime_conflicts.py")
	if err != nil {
		t.Fatal(err)
	}
	text := "# npukit: check overlap_kernel(x=bfloat16[256,512])\n" + string(src)
	if ignore {
		text = strings.Replace(text, "  t0 = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,\n", "  t0 = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,  # npukit: ignore[sbuf/lifetime-overlap]\n", 1)
	}
	p := filepath.Join(dir, "kernels", "overlap.py")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernels", "host.py"), []byte("print('no kernel here')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNkiCheckDirectivesAndInlineSuppression(t *testing.T) {
	dir := t.TempDir()
	overlapKernel(t, dir, false)
	r := run(t, dir, "--json", "nki", "check", "kernels")
	doc := checkDoc(t, r)
	if r.code != 1 || doc.Summary.Errors != 1 || doc.Summary.Skipped != 1 {
		t.Fatalf("directive: exit %d %+v\n%s", r.code, doc.Summary, r)
	}
	r = run(t, dir, "nki", "check", "--format", "sarif", "kernels")
	if !strings.Contains(r.stdout, `"uri": "kernels/overlap.py"`) || !strings.Contains(r.stdout, `"startLine": 20`) {
		t.Errorf("SARIF region of the kernel finding:\n%s", r.stdout)
	}

	overlapKernel(t, dir, true)
	r = run(t, dir, "--json", "nki", "check", "kernels/overlap.py")
	doc = checkDoc(t, r)
	if r.code != 0 || doc.Summary.Errors != 0 || len(doc.Suppressed) != 1 || !strings.Contains(doc.Suppressed[0].Suppressed, "comment") {
		t.Fatalf("inline suppression: exit %d %+v\n%s", r.code, doc, r)
	}
	// The same kernel named by flags (one-kernel mode) honours the comment too.
	r = run(t, dir, "--json", "nki", "check", "kernels/overlap.py", "--kernel", "overlap_kernel", "--arg", "x=bfloat16[256,512]")
	if doc = checkDoc(t, r); r.code != 0 || doc.Summary.Suppressed != 1 {
		t.Errorf("one-kernel mode: exit %d %+v", r.code, doc.Summary)
	}
	// And rule control by flag there.
	overlapKernel(t, dir, false)
	r = run(t, dir, "--json", "nki", "check", "kernels/overlap.py", "--kernel", "overlap_kernel", "--arg", "x=bfloat16[256,512]", "--severity", "sbuf/lifetime-overlap=warning")
	if doc = checkDoc(t, r); r.code != 0 || doc.Summary.Warnings != 1 {
		t.Errorf("--severity: exit %d %+v", r.code, doc.Summary)
	}
}

// Every artifact of the shared corpora is checked as a tree, and the
// SARIF log of the whole lot validates against the SARIF 2.1.0 schema.
func TestCheckCorpusTreeAsSARIF(t *testing.T) {
	shared := conformance.Shared(t, ".")
	var dirs []string
	for _, d := range []string{"corpus", "corpus2", "corpus3", "hw", "benchmarks"} {
		if st, err := os.Stat(filepath.Join(shared, d)); err == nil && st.IsDir() {
			dirs = append(dirs, filepath.Join(shared, d))
		}
	}
	r := run(t, ".", append([]string{"check", "--format", "sarif"}, dirs...)...)
	if r.code > 1 {
		t.Fatalf("exit %d: a file of the corpus could not be checked\n%s", r.code, r.stderr)
	}
	if err := sarifschema.Validate([]byte(r.stdout)); err != nil {
		t.Fatalf("SARIF of the corpus does not validate: %v", err)
	}
	var log struct {
		Runs []struct{ Results []struct{ Level string } }
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	if n := len(log.Runs[0].Results); n < 30 {
		t.Errorf("only %d results for the whole corpus", n)
	}
	// The exit code is the worst finding's (1 when any error is shown).
	hasError := strings.Contains(r.stdout, `"level": "error"`)
	if hasError != (r.code == 1) {
		t.Errorf("exit %d with errors shown: %v", r.code, hasError)
	}
}
