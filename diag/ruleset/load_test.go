package ruleset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadOrder: the file's directives apply first, then the flags', and a
// malformed --severity names the flag.
func TestLoadOrder(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), ConfigName)
	if err := os.WriteFile(cfg, []byte("disable: [rstest/*]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(Sources{Config: cfg, Enable: []string{"rstest/quiet"}, Severity: []string{"rsother/bad=warning"}})
	if err != nil {
		t.Fatal(err)
	}
	kept, hidden := p.Apply(sample())
	if got := rules(kept); got != "rstest/quiet=info rsother/bad=warning" {
		t.Errorf("kept %q", got)
	}
	if len(hidden) != 1 || hidden[0].Rule != "rstest/loud" {
		t.Errorf("hidden %v", hidden)
	}
	if _, err := Load(Sources{NoConfig: true, Severity: []string{"rsother/bad"}}); err == nil || !strings.Contains(err.Error(), "--severity") {
		t.Errorf("malformed --severity: %v", err)
	}
	if _, err := Load(Sources{NoConfig: true, Disable: []string{"rstest/nosuch"}}); err == nil {
		t.Error("an unknown rule was accepted")
	}
	if _, err := Load(Sources{Config: filepath.Join(t.TempDir(), "missing.yaml")}); err == nil {
		t.Error("a missing --config was accepted")
	}
}
