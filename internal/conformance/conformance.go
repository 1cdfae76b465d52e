// Package conformance finds the shared real-file corpus for tests. The
// corpus lives beside the checkout at ../shared (override with the
// NPUKIT_SHARED environment variable); tests that need it skip with a
// clear message when it is absent, as in a user's fresh clone, and the
// run says so in one line on the terminal (see noteAbsent). CI sets
// NPUKIT_REQUIRE_SHARED=1 so that a missing corpus fails instead.
package conformance

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// ModuleRoot returns the directory holding go.mod, searching upward from
// the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// SharedDir returns the shared folder, or "" when it does not exist (and
// then says so once, see noteAbsent).
func SharedDir() string {
	d := sharedDir()
	if d == "" {
		noteAbsent()
	}
	return d
}

func sharedDir() string {
	if d := os.Getenv("NPUKIT_SHARED"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		return ""
	}
	root, err := ModuleRoot()
	if err != nil {
		return ""
	}
	d := filepath.Join(root, "..", "shared")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d)
	}
	return ""
}

// Shared returns ../shared/<rel>, skipping the test when it is absent.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	base := SharedDir()
	if base == "" && os.Getenv("NPUKIT_REQUIRE_SHARED") != "" {
		t.Fatal("conformance: ../shared not found but NPUKIT_REQUIRE_SHARED is set")
	}
	if base == "" {
		t.Skip("conformance: ../shared not found beside the checkout (set NPUKIT_SHARED); skipping real-file test")
	}
	p := filepath.Join(base, rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("NPUKIT_REQUIRE_SHARED") != "" {
			t.Fatalf("conformance: %s missing: %v", p, err)
		}
		t.Skipf("conformance: %s not present: %v", p, err)
	}
	return p
}

// Corpus returns ../shared/corpus/<sub>.
func Corpus(t testing.TB, sub string) string { return Shared(t, filepath.Join("corpus", sub)) }

// Benchmarks returns ../shared/benchmarks/<sub>.
func Benchmarks(t testing.TB, sub string) string {
	return Shared(t, filepath.Join("benchmarks", sub))
}

// Files lists the files of dir matching a glob pattern, sorted; it fails
// the test when there are none, so a conformance test cannot pass on
// nothing.
func Files(t testing.TB, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	if len(m) == 0 {
		t.Fatalf("conformance: no %s in %s", pattern, dir)
	}
	return m
}

// CorpusFiles lists the files matching pattern in <sub> of both corpora,
// ../shared/corpus (the first round's producers) and ../shared/corpus2
// (other producers), sorted by path. Like Files it fails the test when
// neither holds a match, and it skips as Shared does when ../shared is
// absent.
func CorpusFiles(t testing.TB, sub, pattern string) []string {
	t.Helper()
	base := Shared(t, ".")
	var all []string
	for _, c := range []string{"corpus", "corpus2"} {
		m, err := filepath.Glob(filepath.Join(base, c, sub, pattern))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	sort.Strings(all)
	if len(all) == 0 {
		t.Fatalf("conformance: no %s in corpus/%s or corpus2/%s", pattern, sub, sub)
	}
	return all
}

// CSV reads a corpus table with a header row (truth.csv, say) as one map
// per row, keyed by the header's column names.
func CSV(t testing.TB, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no header row", path)
	}
	out := make([]map[string]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			if i < len(r) {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	return out
}
