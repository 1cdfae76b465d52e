package diag

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteRules(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRules(&b, []Rule{{ID: "x/long-rule-name", Severity: Warning, Description: "d1"}, {ID: "x/a", Severity: Error, Description: "d2"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "RULE") || strings.Index(lines[1], "warning") != strings.Index(lines[2], "error") {
		t.Errorf("table:\n%s", b.String())
	}
}
