package npukit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoHedgedPlurals: no message of the module prints a count beside a
// hedged noun ("%d output(s) are"); humanize.Plural and humanize.Agree
// make it agree ("1 output is", "2 outputs are"). Issue 32: "1 errors",
// "1 infos", "1 operators"; a sweep of the corpus found "1 output(s)".
func TestNoHedgedPlurals(t *testing.T) {
	hedge := regexp.MustCompile(`%[dsv][^"%]{0,40}?[A-Za-z]\(s\)`)
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && hedge.MatchString(lit.Value) {
				t.Errorf("%s: %s: use humanize.Plural (and humanize.Agree for the verb)", fset.Position(lit.Pos()), hedge.FindString(lit.Value))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
