package humanize

// Shorten fits s into at most n characters (runes) for a text table or a
// message: a longer s keeps its start and its end, which together tell a
// layer or file name from its neighbours, and loses its middle to "…"
// (as the HTML reports shorten names). Converters join the names of fused
// operators with ';' into names of hundreds of characters.
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	head := n / 2 // of the n-1 kept, the start gets the odd one
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// NameColumn is the width of a name column in a text table: a longer
// name is shortened (Shorten) so one name cannot widen every row.
const NameColumn = 48
