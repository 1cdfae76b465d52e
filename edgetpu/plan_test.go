package edgetpu

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
	"github.com/npukit/npukit/tflite"
)

// truth is ../shared/corpus2/edgetpu-pairs/truth.json: per uncompiled
// model, its operators with the placement the compiler chose (from the
// compiled twin or the compiler's log).
type truth struct {
	Entries []struct {
		ID         string `json:"id"`
		Uncompiled struct {
			File string `json:"file"`
		} `json:"uncompiled"`
		Ops []struct {
			Index      int            `json:"index"`
			Op         string         `json:"op"`
			Placement  string         `json:"placement"`
			Status     string         `json:"status"`
			Candidates map[string]int `json:"status_candidates"`
		} `json:"ops"`
		Logs []struct {
			File string `json:"file"`
		} `json:"logs"`
	} `json:"entries"`
}

// The predicted CPU operators (type and position) equal the compiler's on
// at least 90% of the shared pairs, and the predicted statuses agree with
// the compiler's logs where it gave them. Misses are logged with the op.
func TestPlanAgainstCompiler(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	agree, statusAgree, statusTotal := 0, 0, 0
	for _, e := range tr.Entries {
		m, err := tflite.ReadFile(filepath.Join(dir, e.Uncompiled.File))
		if err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		p := PlanModel(m, PlanOptions{})
		if len(p.Ops) != len(e.Ops) {
			t.Errorf("%s: %d operators planned, truth has %d", e.ID, len(p.Ops), len(e.Ops))
			continue
		}
		var miss []string
		for i, o := range p.Ops {
			want := e.Ops[i]
			if o.Op != want.Op && !(strings.HasPrefix(o.Op, "custom:") && strings.HasPrefix(want.Op, "custom:")) {
				t.Fatalf("%s op %d: %s, truth %s", e.ID, i, o.Op, want.Op)
			}
			if (o.Placement == "CPU") != (want.Placement == "CPU") {
				miss = append(miss, fmt.Sprintf("op %d %s: predicted %s (%s: %s), compiler %s", i, o.Op, o.Placement, o.Status, o.Reason, want.Placement))
			}
			if want.Status != "" || len(want.Candidates) > 0 {
				statusTotal++
				if o.Status == want.Status || want.Candidates[o.Status] > 0 {
					statusAgree++
				} else {
					t.Logf("%s op %d %s: status %q, compiler %q %v", e.ID, i, o.Op, o.Status, want.Status, want.Candidates)
				}
			}
		}
		if len(miss) == 0 {
			agree++
			t.Logf("%s: agrees (%s)", e.ID, p)
		} else {
			sort.Strings(miss)
			if len(miss) > 6 {
				miss = append(miss[:6], fmt.Sprintf("... %d more", len(miss)-6))
			}
			t.Logf("%s: MISS (%s)\n  %s", e.ID, p, strings.Join(miss, "\n  "))
		}
	}
	pct := 100 * float64(agree) / float64(len(tr.Entries))
	t.Logf("CPU operator sets agree on %d of %d models (%.0f%%); log statuses agree on %d of %d operators", agree, len(tr.Entries), pct, statusAgree, statusTotal)
	// Every shared pair is exact, placement and log status.
	if agree != len(tr.Entries) || statusAgree != statusTotal {
		t.Errorf("placement agrees on %d of %d models, statuses on %d of %d operators: every shared pair must be exact", agree, len(tr.Entries), statusAgree, statusTotal)
	}
}

// compilerTable is the "Operator / Count / Status" table of a compiler log
// or of CompilerForm, as sorted "OP COUNT STATUS" lines.
func compilerTable(text string) []string {
	var rows []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "Operator" && f[1] == "Count":
			in = true
		case in && len(f) >= 3:
			if _, err := fmt.Sscanf(f[1], "%d", new(int)); err != nil {
				in = false
				continue
			}
			rows = append(rows, strings.Join(f, " "))
		}
	}
	sort.Strings(rows)
	return rows
}

// The compiler's own form of the prediction (plan -s) prints the same
// Operator / Count / Status table as the compiler's log, row for row, for
// every shared model whose log is the default-option compile of it.
func TestPlanCompilerFormMatchesLogs(t *testing.T) {
	dir := conformance.Shared(t, "corpus2/edgetpu-pairs")
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range tr.Entries {
		for _, l := range e.Logs {
			lb, err := os.ReadFile(filepath.Join(dir, l.File))
			if err != nil || !strings.HasSuffix(l.File, ".log") {
				continue
			}
			want := compilerTable(string(lb))
			if len(want) == 0 {
				continue
			}
			m, err := tflite.ReadFile(filepath.Join(dir, e.Uncompiled.File))
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			if err := PlanModel(m, PlanOptions{}).CompilerForm(&sb, "model.tflite", 0); err != nil {
				t.Fatal(err)
			}
			got := compilerTable(sb.String())
			compared++
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: table differs\n got:\n  %s\n log:\n  %s", l.File, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		}
	}
	t.Logf("%d logs compared", compared)
	if compared == 0 {
		t.Skip("no logs with their model")
	}
}
