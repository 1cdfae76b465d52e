package npukit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestJSONRatesNameTheirUnit: every JSON field of the module that holds a
// rate names its unit in one spelling per unit, and the field's comment
// does not give another (issue 32: Gemini's dram_gbps held GiB/s, and
// "gbps" reads as gigabits per second, the unit of the deprecated
// --pcie-gbps). Bandwidths are GB/s of 10^9 bytes (*_gb_per_s) or a
// unit of the hardware the name spells out (bytes_per_ns, bytes_per_cycle,
// *_mb_per_s, bits_per_second); never gbps, gibps, mbps, *_bw or GiB/s.
func TestJSONRatesNameTheirUnit(t *testing.T) {
	rate := regexp.MustCompile(`(?i)(bps|_bw$|^bw_|bandwidth|_per_s$|_per_sec|per_second|per_ns|per_cycle|throughput)`)
	allowed := regexp.MustCompile(`^[a-z0-9_]*(_gb_per_s|_mb_per_s|^bits_per_second|bytes_per_ns|bytes_per_cycle|_gmac_per_s)$`)
	binary := regexp.MustCompile(`GiB/s|MiB/s|KiB/s|Gb/s|Mb/s|GiBps`)
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(x ast.Node) bool {
			st, ok := x.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				if fld.Tag == nil {
					continue
				}
				tag, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					continue
				}
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				if name == "" || name == "-" || !rate.MatchString(name) {
					continue
				}
				n++
				where := fset.Position(fld.Pos()).String()
				if !allowed.MatchString(name) {
					t.Errorf("%s: JSON field %q: a rate's name ends in its unit: _gb_per_s (GB/s of 10^9 bytes), bytes_per_ns, bytes_per_cycle, _mb_per_s or bits_per_second", where, name)
				}
				doc := fld.Doc.Text() + fld.Comment.Text()
				if m := binary.FindString(doc); m != "" && !strings.Contains(doc, "bwN") {
					t.Errorf("%s: JSON field %q is documented in %s: its value must be in the unit its name gives", where, name, m)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no JSON rate field found: the walk looked in the wrong place")
	}
}
