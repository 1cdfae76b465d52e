package ruleset

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/npukit/npukit/diag"
)

// inlineIgnore matches "# npukit: ignore" and "# npukit: ignore[r1, r2]"
// anywhere in a line (after code, or alone on the line above).
var inlineIgnore = regexp.MustCompile(`#\s*npukit:\s*ignore(?:\[([^\]]*)\])?`)

// inlineReason starts the Suppressed reason of a finding hidden by an
// inline comment (InSource tells such reasons from a policy's).
const inlineReason = "ignored by the comment "

// InSource reports whether a finding's Suppressed reason is an inline
// comment in the source (SARIF's "inSource"), not a rule policy.
func InSource(reason string) bool { return strings.HasPrefix(reason, inlineReason) }

// SourcePosition splits a location of the form "FILE:LINE" or
// "FILE:LINE:COLUMN" (how kernel findings name a source line); ok is false
// for other locations ("kernel", "tensors", "sg00/def.json: var[3]").
func SourcePosition(loc string) (file string, line, col int, ok bool) {
	parts := strings.Split(loc, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || strings.ContainsAny(parts[0], " \t") {
		return "", 0, 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 1 {
		return "", 0, 0, false
	}
	if len(parts) == 3 {
		c, err := strconv.Atoi(parts[2])
		if err != nil || c < 1 {
			return "", 0, 0, false
		}
		col = c
	}
	return parts[0], n, col, true
}

// ignores reports whether a source line's ignore comment covers rule.
func ignores(line, rule string) bool {
	m := inlineIgnore.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	if strings.TrimSpace(m[1]) == "" {
		return true // "# npukit: ignore" (or "ignore[]"): every rule on the line
	}
	for _, r := range strings.Split(m[1], ",") {
		if matches(strings.TrimSpace(r), rule) {
			return true
		}
	}
	return false
}

// Inline drops the findings whose location is a source line (FILE:LINE)
// that carries an ignore comment naming the rule, or whose line above is a
// comment line that does. lines returns the source of a file by the name
// the location uses, or nil when it is not a source file npukit read.
func Inline(r diag.Report, lines func(file string) []string) (kept, suppressed diag.Report) {
	kept = r[:0:0]
	for _, d := range r {
		file, n, _, ok := SourcePosition(d.Location)
		if ok {
			if src := lines(file); n <= len(src) {
				if ignores(src[n-1], d.Rule) {
					d.Suppressed = inlineReason + "on " + d.Location
					suppressed = append(suppressed, d)
					continue
				}
				if n >= 2 && strings.HasPrefix(strings.TrimSpace(src[n-2]), "#") && ignores(src[n-2], d.Rule) {
					d.Suppressed = inlineReason + "above " + d.Location
					suppressed = append(suppressed, d)
					continue
				}
			}
		}
		kept = append(kept, d)
	}
	return kept, suppressed
}
