// Package humanize renders quantities for people: bytes in binary units,
// large counts with separators, times in us, ms or s.
package humanize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
// file", "2 files", "1,530 files", "2 entries", "2 passes" (regular
// English plurals only).
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(int64(n)) + " " + plural(noun)
}

// plural is a regular English plural: -y after a consonant becomes -ies,
// -s, -x, -z, -ch and -sh take -es, the rest -s.
func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Agree picks the word that agrees with a count: Agree(1, "is", "are")
// is "is", Agree(2, "is", "are") "are" ("1 output is", "2 outputs are").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WithArticle puts "a" or "an" before a name ("an NTFF capture", "a
// NEFF ..."), by its first letter.
func WithArticle(s string) string {
	if s != "" && strings.ContainsRune("AEIOUaeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// Micros is the one formatter of a time in every text output (JSON keeps
// its fields' units): microseconds below 1 ms, milliseconds below 1 s,
// seconds above, always with three decimals in the unit shown ("0.850 us",
// "29.133 us", "22.537 ms", "1.234 s"), so that times below 1 ms read as
// they always did and a long one is not "22536.867 us" in one command
// and "13.85 ms" in the next.
func Micros(us float64) string {
	a := math.Abs(us)
	switch {
	case a < 999.9995:
		return fmt.Sprintf("%.3f us", us)
	case a < 999_999.5:
		return fmt.Sprintf("%.3f ms", us/1e3)
	default:
		return fmt.Sprintf("%.3f s", us/1e6)
	}
}

// Nanos is Micros of a time in nanoseconds.
func Nanos(ns int64) string { return Micros(float64(ns) / 1e3) }
