package sarif

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/sarifschema"
)

func init() {
	diag.Register(diag.Rule{ID: "sarift/a-rule", Severity: diag.Warning, Description: "a test rule"})
}

// Validate fails the test when log is not a valid SARIF 2.1.0 log.
func Validate(t testing.TB, log []byte) {
	t.Helper()
	if err := sarifschema.Validate(log); err != nil {
		t.Fatalf("SARIF log does not validate: %v", err)
	}
}

func sample() diag.Report {
	return diag.Report{
		{File: "kernels/k.py", Severity: diag.Error, Rule: "sarift/a-rule", Location: "k.py:12", Message: "overlap"},
		{File: "kernels/k.py", Severity: diag.Warning, Rule: "sarift/a-rule", Location: "helper.py:3:5", Message: "in a module"},
		{File: "a b.neff", Severity: diag.Info, Rule: "sarift/a-rule", Location: "sg00/def.json: var[3].size", Message: "binary", Count: 4},
		{File: "kernels/k.py", Severity: diag.Warning, Rule: "sarift/a-rule", Location: "k.py:14", Message: "hidden", Suppressed: "ignored by the comment on k.py:14"},
		{File: "x.json", Severity: diag.Warning, Rule: "sarift/unregistered", Location: "", Message: ""},
	}
}

func TestWriteValidates(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, Tool{Name: "npukit", Version: "devel"}, sample()); err != nil {
		t.Fatal(err)
	}
	Validate(t, b.Bytes())
	var got struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleIndex int
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
					LogicalLocations []struct{ FullyQualifiedName string }
				}
				Suppressions []struct{ Kind string }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Runs[0].Results
	if len(r) != 5 || len(got.Runs[0].Tool.Driver.Rules) != 2 {
		t.Fatalf("%d results, %d rules", len(r), len(got.Runs[0].Tool.Driver.Rules))
	}
	if l := r[0].Locations[0].PhysicalLocation; l.ArtifactLocation.URI != "kernels/k.py" || l.Region == nil || l.Region.StartLine != 12 {
		t.Errorf("kernel line: %+v", l)
	}
	if l := r[1].Locations[0].PhysicalLocation; l.ArtifactLocation.URI != "kernels/helper.py" || l.Region.StartColumn != 5 {
		t.Errorf("module line: %+v", l)
	}
	if l := r[2].Locations[0]; l.PhysicalLocation.ArtifactLocation.URI != "a%20b.neff" || l.PhysicalLocation.Region != nil || l.LogicalLocations[0].FullyQualifiedName != "sg00/def.json: var[3].size" {
		t.Errorf("binary artifact: %+v", l)
	}
	if r[2].Level != "note" || r[0].Level != "error" {
		t.Errorf("levels %s %s", r[0].Level, r[2].Level)
	}
	if len(r[3].Suppressions) != 1 || r[3].Suppressions[0].Kind != "inSource" {
		t.Errorf("suppression %+v", r[3].Suppressions)
	}
	if got.Runs[0].Tool.Driver.Rules[r[4].RuleIndex].ID != "sarift/unregistered" {
		t.Error("ruleIndex does not point at the result's rule")
	}
}

func TestWriteEmptyValidates(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, Tool{Name: "npukit"}, nil); err != nil {
		t.Fatal(err)
	}
	Validate(t, b.Bytes())
	if !strings.Contains(b.String(), `"results": []`) {
		t.Errorf("an empty run must say it has no results:\n%s", b.String())
	}
}

func TestWriteGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitHub(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := "::error file=kernels/k.py,line=12,title=sarift/a-rule::overlap\n" +
		"::warning file=kernels/helper.py,line=3,col=5,title=sarift/a-rule::in a module\n" +
		"::notice file=a b.neff,title=sarift/a-rule::sg00/def.json: var[3].size: binary\n" +
		"::warning file=x.json,title=sarift/unregistered::\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteGitHub(&b, diag.Report{{File: "a,b:c.py", Severity: diag.Error, Rule: "sarift/a-rule", Message: "50%\nnext"}}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "::error file=a%2Cb%3Ac.py,title=sarift/a-rule::50%25%0Anext\n" {
		t.Errorf("escaping: %q", got)
	}
}

// The validation above must be able to fail: a level SARIF does not know.
func TestSchemaCatchesABadLog(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, Tool{Name: "npukit"}, sample()); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(b.String(), `"level": "note"`, `"level": "fatal"`, 1)
	ft := &fakeT{TB: t}
	func() {
		defer func() { recover() }()
		Validate(ft, []byte(bad))
	}()
	if !ft.failed {
		t.Error("the schema accepted a result level of \"fatal\"")
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(string, ...any) {
	f.failed = true
	panic("stop")
}
