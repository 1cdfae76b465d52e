package npukit_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect/detecttest"
	"github.com/npukit/npukit/edgetpu"
	"github.com/npukit/npukit/gemini"
	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/neff"
)

// packageDoc returns the package documentation as written in npukit.go.
func packageDoc(t *testing.T) *ast.CommentGroup {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "npukit.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("npukit.go has no package documentation")
	}
	return f.Doc
}

// TestPackageDocFragments holds every code block of the package
// documentation to an example in example_test.go, which go vet and go
// test compile: a fragment that no longer compiles fails there.
func TestPackageDocFragments(t *testing.T) {
	var blocks [][]string
	var cur []string
	for _, c := range packageDoc(t).List {
		if line, ok := strings.CutPrefix(c.Text, "//\t"); ok {
			cur = append(cur, strings.TrimSpace(line))
			continue
		}
		if cur != nil {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	if len(blocks) == 0 {
		t.Fatal("no code block found in the package documentation (has its form changed?)")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The trimmed lines of every example's body.
	var bodies [][]string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fd.Name.Name, "Example") || fd.Body == nil {
			continue
		}
		body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
		var lines []string
		for _, l := range strings.Split(body, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		bodies = append(bodies, lines)
	}
	for _, b := range blocks {
		found := false
		for _, body := range bodies {
			found = found || containsRun(body, b)
		}
		if !found {
			t.Errorf("this fragment of the package documentation is in no example of example_test.go, so nothing compiles it:\n%s", strings.Join(b, "\n"))
		}
	}
}

// containsRun reports whether want occurs in lines as consecutive lines.
func containsRun(lines, want []string) bool {
	for i := 0; i+len(want) <= len(lines); i++ {
		if reflect.DeepEqual(lines[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// docRow is one item of the package documentation's list of kinds.
type docRow struct {
	kinds                   []npukit.Kind
	accessor                string
	inspect, simulate, diff string // Go types as %v prints them; "" none
}

var (
	docItem     = regexp.MustCompile(`^([a-z0-9, -]+): (\w+)`)
	docInspect  = regexp.MustCompile(`\bInspect returns (\S+)`)
	docSimulate = regexp.MustCompile(`\bSimulate (\*\S+)`)
	docDiff     = regexp.MustCompile(`\bDiff (\*\S+)`)
)

// docRows reads the list of kinds from the package documentation.
func docRows(t *testing.T) []docRow {
	t.Helper()
	var items []string
	for _, l := range strings.Split(packageDoc(t).Text(), "\n") {
		switch {
		case strings.HasPrefix(l, "  - "):
			items = append(items, strings.TrimPrefix(l, "  - "))
		case strings.HasPrefix(l, "    ") && len(items) > 0:
			items[len(items)-1] += " " + strings.TrimSpace(l)
		}
	}
	qualify := func(m []string) string {
		if m == nil {
			return ""
		}
		ty := strings.TrimRight(m[1], ",.;")
		if !strings.Contains(ty, ".") {
			ty = "*npukit." + strings.TrimPrefix(ty, "*")
		}
		return ty
	}
	var rows []docRow
	for _, it := range items {
		m := docItem.FindStringSubmatch(it)
		if m == nil {
			t.Errorf("package documentation: cannot read the list item %q", it)
			continue
		}
		r := docRow{accessor: m[2],
			inspect:  qualify(docInspect.FindStringSubmatch(it)),
			simulate: qualify(docSimulate.FindStringSubmatch(it)),
			diff:     qualify(docDiff.FindStringSubmatch(it))}
		for _, k := range strings.Split(m[1], ",") {
			r.kinds = append(r.kinds, npukit.Kind(strings.TrimSpace(k)))
		}
		rows = append(rows, r)
	}
	return rows
}

// docSample opens a small artifact of kind k: synthetic where npukit can
// write the kind, else the first one of the shared corpus (skipping the
// test when it is absent).
func docSample(t *testing.T, k npukit.Kind) *npukit.Artifact {
	t.Helper()
	var name string
	var data []byte
	var err error
	tinyNeff := func() *neff.Builder {
		b := neff.NewBuilder("tiny.neff")
		sg := b.Subgraph("sg00")
		sg.AddVar("x", "input", 512)
		sg.AddVar("y", "output", 512)
		sg.AddQueue("qSPIO0", "in", 16, "sp")
		sp := sg.Engine("sp", "SP")
		sp.AddDMA("qSPIO0", "copy x to y", neff.Copy("x", 0, []int64{512}, []int64{1}, "y", 0, []int64{512}, []int64{1}))
		return b
	}
	switch k {
	case "edgetpu-tflite":
		name = "demo_edgetpu.tflite"
		data, err = edgetpu.Write(edgetpu.Synthetic(edgetpu.DemoSpec()))
	case "tflite":
		name, data = "model.tflite", detecttest.PlainTFLite()
	case "darwinn-package":
		name = "demo.dwn"
		data, err = edgetpu.WritePackage(edgetpu.SynthPackage(edgetpu.DemoSpec()))
	case "neff":
		name = "tiny.neff"
		data, err = tinyNeff().Bytes(neff.PackOptions{})
	case "neff-dir":
		dir := t.TempDir()
		ms, err := tinyNeff().Members()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			p := filepath.Join(dir, filepath.FromSlash(m.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, m.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a, err := npukit.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return a
	case "ntff":
		files := conformance.Files(t, conformance.Shared(t, "corpus3/ntff"), "*.ntff")
		a, err := npukit.Open(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return a
	case "gemini-ir":
		var buf bytes.Buffer
		err = gemini.SynthWrite(&buf, gemini.SynthConfig{Cores: 2, Workloads: 4})
		name, data = "synthetic_bw16_schedule.json", buf.Bytes()
	case "minimalloc-csv":
		name, data = "problem.1024.csv", []byte("id,lower,upper,size\na,0,2,400\nb,1,3,300\n")
	case "sbuf-plan":
		name, data = "plan.yaml", []byte(`name: two
arch: v2
tensors:
  - {name: a, partitions: 128, free: [512], dtype: float32, buffer: sbuf}
  - {name: b, partitions: 128, free: [512], dtype: float32, buffer: sbuf}
body:
  - {op: activation, func: exp, read: a, write: b}
`)
	case "zebu-trace":
		name, data = "run_sim.txt", []byte("[ct_st, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': -1}, {'inst_idx': 1, 'time': [0, 33]}, {}]\n"+
			"[pe_conv, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': 0}, {'inst_idx': 2, 'time': [33, 400]}, {}]\n"+
			"[ct_ed, {'slyr': 0, 'clyr': [], 's_flyr': 0, 'c_flyr': [], 'wkl': 0, 'tile': -1}, {'inst_idx': 3, 'time': [400, 410]}, {}]\n")
	default:
		t.Fatalf("no sample of kind %s: add one to docSample", k)
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := npukit.OpenBytes(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPackageDocTypes holds the package documentation's list of kinds to
// the library: every registered kind is listed, its accessor is a method
// of *Artifact, and Inspect, Simulate and Diff return the types the list
// names (and are unsupported where it names none).
func TestPackageDocTypes(t *testing.T) {
	rows := docRows(t)
	listed := map[npukit.Kind]docRow{}
	for _, r := range rows {
		for _, k := range r.kinds {
			listed[k] = r
		}
	}
	for _, k := range npukit.Kinds() {
		if _, ok := listed[k]; !ok {
			t.Errorf("kind %s is missing from the package documentation's list", k)
		}
	}
	for k, r := range listed {
		t.Run(string(k), func(t *testing.T) {
			if _, ok := reflect.TypeFor[*npukit.Artifact]().MethodByName(r.accessor); !ok {
				t.Errorf("%s is not a method of *Artifact", r.accessor)
			}
			a := docSample(t, k)
			if a.Kind != k {
				t.Fatalf("the sample of %s opens as %s", k, a.Kind)
			}
			for _, op := range []struct {
				name, want string
				run        func() (npukit.Output, error)
			}{
				{"inspect", r.inspect, func() (npukit.Output, error) { return a.Inspect(nil) }},
				{"simulate", r.simulate, func() (npukit.Output, error) { return a.Simulate(nil) }},
				{"diff", r.diff, func() (npukit.Output, error) { out, _, err := npukit.Diff(a, a, nil); return out, err }},
			} {
				if op.want == "" {
					if npukit.Supports(k, op.name) {
						t.Errorf("%s is supported but the list names no type for it", op.name)
					}
					continue
				}
				out, err := op.run()
				if err != nil {
					t.Errorf("%s: %v", op.name, err)
					continue
				}
				if got := fmt.Sprintf("%T", out); got != op.want {
					t.Errorf("%s returns %s, the documentation says %s", op.name, got, op.want)
				}
			}
		})
	}
}
