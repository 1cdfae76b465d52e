// Package humanize renders quantities for people: bytes in binary units,
// large counts with separators.
package humanize

import (
	"fmt"
	"strconv"
)

// Bytes renders n as "123 B", "1.5 KiB", "12.0 MiB", "1.00 GiB".
func Bytes(n int64) string {
	neg := n < 0
	v := float64(n)
	if neg {
		v = -v
	}
	sign := ""
	if neg {
		sign = "-"
	}
	switch {
	case v < 1024:
		return fmt.Sprintf("%s%d B", sign, int64(v))
	case v < 1<<20:
		return fmt.Sprintf("%s%.1f KiB", sign, v/1024)
	case v < 1<<30:
		return fmt.Sprintf("%s%.1f MiB", sign, v/(1<<20))
	default:
		return fmt.Sprintf("%s%.2f GiB", sign, v/(1<<30))
	}
}

// Count renders n with thousands separators: 1234567 -> "1,234,567".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Plural renders a count with its noun and thousands separators: "1
// file", "2 files", "1,530 files" (regular English plurals only).
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(int64(n)) + " " + noun + "s"
}

// Nanos renders a time in nanoseconds in the largest unit that keeps it
// at least 1: "850 ns", "12.3 us", "4.56 ms", "1.23 s".
func Nanos(ns int64) string {
	v := float64(ns)
	switch {
	case ns < 1000 && ns > -1000:
		return fmt.Sprintf("%d ns", ns)
	case ns < 1_000_000 && ns > -1_000_000:
		return fmt.Sprintf("%.1f us", v/1e3)
	case ns < 1_000_000_000 && ns > -1_000_000_000:
		return fmt.Sprintf("%.2f ms", v/1e6)
	default:
		return fmt.Sprintf("%.2f s", v/1e9)
	}
}
