package zebu

import (
	"fmt"

	"github.com/npukit/npukit/diag"
)

// Rule IDs of Check. The three public traces hold both: inst_idx numbers
// the lines 1, 2, 3..., and the run ends with ct_ed, whose end is the
// total. (An instruction ending before it starts is a read error: Parse
// rejects it.) Neither is documented, so both are warnings.
const (
	RuleIndexOrder = "zebu/inst-index-order"
	RuleNoEnd      = "zebu/no-end"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleIndexOrder, Severity: diag.Warning, Description: "inst_idx does not ascend in file order (a merged or reordered trace: per-line positions may not be the emulator's order)"},
		diag.Rule{ID: RuleNoEnd, Severity: diag.Warning, Description: "the trace does not end with ct_ed ending last (a cut trace: its total understates the run)"},
	)
}

// maxReported bounds the findings of one rule.
const maxReported = 20

// Check verifies a trace's timing invariants.
func Check(t *Trace) diag.Report {
	var rep diag.Report
	order := 0
	for i, in := range t.Insts {
		loc := func() string { return fmt.Sprintf("line %d (%s, inst_idx %d)", in.Line, in.Name, in.Index) }
		if i > 0 && in.Index <= t.Insts[i-1].Index {
			if order++; order <= maxReported {
				rep.Add(RuleIndexOrder, loc(), "inst_idx %d follows %d", in.Index, t.Insts[i-1].Index)
			}
		}
	}
	if n := len(t.Insts); n > 0 {
		last := t.Insts[n-1]
		if last.Name != "ct_ed" || last.End != t.Total() {
			rep.Add(RuleNoEnd, fmt.Sprintf("line %d (%s)", last.Line, last.Name), "the last instruction is %s ending at %d; the latest end is %d", last.Name, last.End, t.Total())
		}
	}
	rep.Sort()
	return rep
}
