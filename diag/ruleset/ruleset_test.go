package ruleset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/npukit/npukit/diag"
)

func init() {
	diag.Register(
		diag.Rule{ID: "rstest/loud", Severity: diag.Warning, Description: "a test rule"},
		diag.Rule{ID: "rstest/quiet", Severity: diag.Info, Description: "a test rule"},
		diag.Rule{ID: "rsother/bad", Severity: diag.Error, Description: "a test rule"},
	)
}

func sample() diag.Report {
	return diag.Report{
		{Severity: diag.Warning, Rule: "rstest/loud", Location: "k.py:3", Message: "a"},
		{Severity: diag.Info, Rule: "rstest/quiet", Location: "k.py:5", Message: "b"},
		{Severity: diag.Error, Rule: "rsother/bad", Location: "kernel", Message: "c"},
	}
}

func rules(r diag.Report) string {
	var s []string
	for _, d := range r {
		s = append(s, d.Rule+"="+d.Severity.String())
	}
	return strings.Join(s, " ")
}

func TestPolicyDisableEnableSeverity(t *testing.T) {
	var p Policy
	if err := p.Add(Config{Disable: []string{"rstest/*"}, Severity: map[string]string{"rsother/bad": "warning"}}, ".npukit.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := p.Add(Config{Enable: []string{"rstest/quiet"}}, "--enable"); err != nil {
		t.Fatal(err)
	}
	kept, sup := p.Apply(sample())
	if got, want := rules(kept), "rstest/quiet=info rsother/bad=warning"; got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if len(sup) != 1 || sup[0].Rule != "rstest/loud" || !strings.Contains(sup[0].Suppressed, ".npukit.yaml") {
		t.Errorf("suppressed %+v", sup)
	}
}

func TestPolicyFormatPrefixAndLastWins(t *testing.T) {
	var p Policy
	if err := p.Add(Config{Disable: []string{"rsother"}}, "--disable"); err != nil {
		t.Fatal(err)
	}
	kept, _ := p.Apply(sample())
	if got := rules(kept); got != "rstest/loud=warning rstest/quiet=info" {
		t.Errorf("kept %q", got)
	}
	if err := p.Add(Config{Enable: []string{"rsother/bad"}}, "--enable"); err != nil {
		t.Fatal(err)
	}
	kept, sup := p.Apply(sample())
	if len(kept) != 3 || len(sup) != 0 {
		t.Errorf("a later enable must win: kept %q, suppressed %d", rules(kept), len(sup))
	}
}

func TestPolicyRefusesUnknownRules(t *testing.T) {
	for _, c := range []Config{
		{Disable: []string{"rstest/lod"}},
		{Enable: []string{"nosuchformat/*"}},
		{Severity: map[string]string{"rstest/loud": "fatal"}},
		{Disable: []string{"["}},
	} {
		var p Policy
		if err := p.Add(c, "--disable"); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestConfigFileFoundUpward(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if FindConfig(sub) != "" {
		t.Skip("a .npukit.yaml above the temporary directory")
	}
	cfg := filepath.Join(root, ConfigName)
	if err := os.WriteFile(cfg, []byte("disable: [rstest/loud]\nseverity:\n  rsother/bad: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindConfig(sub); got != cfg {
		t.Fatalf("FindConfig = %q, want %q", got, cfg)
	}
	c, err := ReadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var p Policy
	if err := p.Add(c, cfg); err != nil {
		t.Fatal(err)
	}
	kept, _ := p.Apply(sample())
	if got := rules(kept); got != "rstest/quiet=info rsother/bad=info" {
		t.Errorf("kept %q", got)
	}
	// A misspelt key is an error, not a configuration that does nothing.
	if err := os.WriteFile(cfg, []byte("disabled: [rstest/loud]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfig(cfg); err == nil {
		t.Error("unknown key accepted")
	}
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfig(cfg); err != nil {
		t.Errorf("empty file: %v", err)
	}
}

func TestInlineSuppression(t *testing.T) {
	src := strings.Split(`import x
def k():
    a = 1  # npukit: ignore[rstest/loud]
    # npukit: ignore[rstest/*]
    b = 2
    c = 3 # npukit: ignore[rsother/bad]`, "\n")
	r := sample()
	r = append(r, diag.Diagnostic{Severity: diag.Error, Rule: "rsother/bad", Location: "k.py:3", Message: "not named on line 3"})
	r = append(r, diag.Diagnostic{Severity: diag.Error, Rule: "rsother/bad", Location: "other.py:6", Message: "another file"})
	kept, sup := Inline(r, func(f string) []string {
		if f == "k.py" {
			return src
		}
		return nil
	})
	if got := rules(kept); got != "rsother/bad=error rsother/bad=error rsother/bad=error" {
		t.Errorf("kept %q", got)
	}
	if len(sup) != 2 || !strings.Contains(sup[0].Suppressed, "on k.py:3") || !strings.Contains(sup[1].Suppressed, "above k.py:5") {
		t.Errorf("suppressed %+v", sup)
	}
}

func TestSourcePosition(t *testing.T) {
	for loc, want := range map[string]bool{"k.py:3": true, "k.py:3:7": true, "kernel": false, "sg00/def.json: var[3]": false, "k.py:0": false, "a b:3": false} {
		if _, _, _, ok := SourcePosition(loc); ok != want {
			t.Errorf("%q: ok=%v", loc, ok)
		}
	}
}

// An error names the flag once ("--disable: no rule ..."), a file with
// its key (".npukit.yaml: disable: no rule ..."): the flag's said
// "--disable: disable: no rule".
func TestPolicyErrorSource(t *testing.T) {
	var p Policy
	for _, c := range []struct {
		cfg          Config
		source, want string
	}{
		{Config{Disable: []string{"rstest/lod"}}, "--disable", "--disable: no rule"},
		{Config{Severity: map[string]string{"rstest/lod": "info"}}, "--severity", "--severity: no rule"},
		{Config{Disable: []string{"rstest/lod"}}, ".npukit.yaml", ".npukit.yaml: disable: no rule"},
	} {
		err := p.Add(c.cfg, c.source)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q...", c.source, err, c.want)
		}
	}
}
