package alloc

import "strings"

// Column is a canonical column of a MiniMalloc-style CSV.
type Column string

// Canonical columns. Lifespans are half-open [lower, upper); the `end`
// alias is inclusive and is converted by adding one (MiniMalloc's CSV
// reader does the same; see ../shared/notes/alloc.md).
const (
	ColID        Column = "id"
	ColLower     Column = "lower"
	ColUpper     Column = "upper"
	ColSize      Column = "size"
	ColAlignment Column = "alignment"
	ColGaps      Column = "gaps"
	ColOffset    Column = "offset"
	ColHint      Column = "hint"
	ColFixed     Column = "fixed"
)

// columnAliases maps every accepted header name (lower case) to its
// canonical column and whether the value is an inclusive end.
var columnAliases = map[string]struct {
	col       Column
	inclusive bool
}{
	"id": {ColID, false}, "buffer": {ColID, false}, "buffer_id": {ColID, false},
	"lower": {ColLower, false}, "begin": {ColLower, false}, "start": {ColLower, false},
	"upper": {ColUpper, false}, "end": {ColUpper, true},
	"size":      {ColSize, false},
	"alignment": {ColAlignment, false}, "align": {ColAlignment, false},
	"gaps":   {ColGaps, false},
	"offset": {ColOffset, false},
	"hint":   {ColHint, false},
	"fixed":  {ColFixed, false},
}

// CanonicalColumn resolves a header name. inclusive is true for `end`.
func CanonicalColumn(name string) (col Column, inclusive, ok bool) {
	a, ok := columnAliases[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, bom)))]
	return a.col, a.inclusive, ok
}

// IsProblemHeader reports whether a CSV header row names the four required
// columns (id, lower, upper, size), through any alias.
func IsProblemHeader(fields []string) bool {
	seen := map[Column]bool{}
	for _, f := range fields {
		if c, _, ok := CanonicalColumn(f); ok {
			seen[c] = true
		}
	}
	return seen[ColID] && seen[ColLower] && seen[ColUpper] && seen[ColSize]
}
