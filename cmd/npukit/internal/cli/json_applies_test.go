package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Audit r3 #5: `--json demo` and `--json sim --host help` printed text
// with exit 0. A command gives JSON under --json or refuses the flag as a
// usage error before any output.
func TestJSONHonouredOrRefused(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, "--json", "demo", "--dir", "d"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--json does not apply") {
		t.Errorf("--json demo: want a usage error before any output: %s", r)
	}
	for _, args := range [][]string{{"--json", "sim", "--host", "help"}} {
		r := run(t, dir, args...)
		var doc struct {
			Default string `json:"default"`
			Hosts   []struct {
				Name     string  `json:"name"`
				LinkMBps float64 `json:"link_mb_per_s"`
			} `json:"hosts"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil || doc.Default == "" || len(doc.Hosts) < 2 || doc.Hosts[0].LinkMBps <= 0 {
			t.Errorf("%v: want the host classes as JSON: %s", args, r)
		}
	}
}
