package ntff

import (
	"fmt"

	"github.com/npukit/npukit/diag"
	"github.com/npukit/npukit/internal/humanize"
)

// Rule IDs of Check.
const (
	RuleMalformed      = "ntff/malformed"
	RuleNoTotal        = "ntff/no-total-time"
	RuleNoEvents       = "ntff/no-events"
	RuleUnpaired       = "ntff/unpaired-events"
	RuleWindowEstimate = "ntff/window-estimated"
)

func init() {
	diag.Register(
		diag.Rule{ID: RuleMalformed, Severity: diag.Error, Description: "the capture cannot be read: its metadata message or event regions do not fit the file"},
		diag.Rule{ID: RuleNoTotal, Severity: diag.Warning, Description: "a NeuronCore records no kernel time (an interrupted capture)"},
		diag.Rule{ID: RuleNoEvents, Severity: diag.Warning, Description: "a NeuronCore records no instruction event (nothing to measure)"},
		diag.Rule{ID: RuleUnpaired, Severity: diag.Info, Description: "instruction start or end events without their pair (the trace buffer's first or last records)"},
		diag.Rule{ID: RuleWindowEstimate, Severity: diag.Info, Description: "the capture (format before 6) does not record the profiled window; counts start where it is estimated to (format 5: to the capture's last event) or span the whole capture (format 4)"},
	)
}

// Check reads a capture and reports its structure's problems; a capture
// that cannot be read at all is one ntff/malformed finding.
func Check(data []byte) (diag.Report, *Profile) {
	var rep diag.Report
	p, err := Parse(data)
	if err != nil {
		loc := ""
		if fe, ok := err.(*FormatError); ok && fe.Offset >= 0 {
			loc = fmt.Sprintf("offset %#x", fe.Offset)
			err = &FormatError{Offset: -1, Msg: fe.Msg}
		}
		rep.Add(RuleMalformed, loc, "%v", err)
		return rep, nil
	}
	for _, c := range p.Cores {
		if c.TotalPs == 0 {
			rep.Add(RuleNoTotal, c.Name, "no kernel time recorded")
		}
		if len(c.Instrs) == 0 {
			rep.Add(RuleNoEvents, c.Name, "no instruction event recorded")
		}
		if c.Unpaired > 0 {
			rep.Add(RuleUnpaired, c.Name, "%s without %s start or end", humanize.Plural(c.Unpaired, "instruction event"), humanize.Agree(c.Unpaired, "its", "their"))
		}
	}
	if !p.HasWindow {
		switch _, _, how := p.Counting(); how {
		case WholeCapture:
			rep.Add(RuleWindowEstimate, "", "format %d records no profiled window and stamps instructions and DMA from two clocks: every event of the capture is counted", p.Format)
		case ToCaptureEnd:
			rep.Add(RuleWindowEstimate, "", "format %d records no profiled window: counts run %s, as neuron-profile counts them (the runtime's postamble included)", p.Format, ToCaptureEnd)
		default:
			rep.Add(RuleWindowEstimate, "", "format %d records no profiled window: counts are taken in an estimated one", p.Format)
		}
	}
	return rep, p
}
