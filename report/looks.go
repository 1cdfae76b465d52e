package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// palette holds 20 categorical colours: ten mid-tone hues, then ten deep
// or vivid ones in another hue order, so that neighbouring indices always
// differ in hue and index i and i+10 differ in lightness.
var palette = []string{
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
	"#1f3f66", "#b35900", "#2d6a26", "#8f1d22", "#2f6f6a", "#8a6d00",
	"#6a3d7a", "#c2456a", "#5a3a22", "#55606e",
}

// patterns overlay the colours once the palette is used up: category i
// has colour i mod 20 and pattern (i / 20) mod 4, 80 distinct looks. The
// SVG patterns are defined once per page (patternDefs); legend swatches
// draw the same pattern with CSS gradients.
var patterns = []struct{ id, css string }{
	{"", ""},
	{"npk-stripes", "repeating-linear-gradient(45deg,rgba(255,255,255,.75) 0 2px,transparent 2px 5px)"},
	{"npk-dots", "radial-gradient(rgba(255,255,255,.85) 1.2px,transparent 1.6px) 0 0/4px 4px"},
	{"npk-cross", "repeating-linear-gradient(45deg,rgba(0,0,0,.45) 0 1px,transparent 1px 5px),repeating-linear-gradient(-45deg,rgba(0,0,0,.45) 0 1px,transparent 1px 5px)"},
}

// patternDefs is an invisible SVG holding the patterns the charts of a
// page refer to (fill="url(#npk-stripes)": a reference inside the page).
const patternDefs = `<svg class="pattern-defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>` +
	`<pattern id="npk-stripes" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="5" fill="#fff" fill-opacity="0.75"/></pattern>` +
	`<pattern id="npk-dots" width="4" height="4" patternUnits="userSpaceOnUse"><circle cx="2" cy="2" r="1.2" fill="#fff" fill-opacity="0.85"/></pattern>` +
	`<pattern id="npk-cross" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="1" height="5" fill="#000" fill-opacity="0.45"/><rect width="5" height="1" fill="#000" fill-opacity="0.45"/></pattern>` +
	`</defs></svg>`

// colorOf maps a category index to a colour.
func colorOf(i int) string {
	if i < 0 {
		return "#bab0ac"
	}
	return palette[i%len(palette)]
}

// patternOf is the overlay pattern index of a category (0 = none).
func patternOf(i int) int {
	if i < 0 {
		return 0
	}
	return i / len(palette) % len(patterns)
}

// seriesPattern is the overlay of a series: none when the series has its
// own colour.
func seriesPattern(ss []Series, i int) int {
	if i >= 0 && i < len(ss) && ss[i].Color != "" {
		return 0
	}
	return patternOf(i)
}

// overlay draws the pattern of series i over a mark's box, if it has one.
func overlay(s *strings.Builder, ss []Series, i int, x, y, w, h string) {
	if p := seriesPattern(ss, i); p > 0 {
		fmt.Fprintf(s, `<rect class="pattern" x="%s" y="%s" width="%s" height="%s" fill="url(#%s)" pointer-events="none"/>`, x, y, w, h, patterns[p].id)
	}
}

// swatchStyle is the legend swatch's CSS for series i.
func swatchStyle(ss []Series, i int) string {
	st := "background:" + seriesColor(ss, i)
	if p := seriesPattern(ss, i); p > 0 {
		st = "background:" + patterns[p].css + "," + seriesColor(ss, i)
	}
	return st
}

// textWidth estimates the width in px of s drawn at size px in the page's
// sans-serif font. It errs wide: the widths are those of DejaVu Sans, the
// widest common fallback of system-ui (digits 0.64 em), rounded up.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("il.,:;!|'`", r):
			w += 0.30
		case strings.ContainsRune("jtfr ()[]{}/\\-", r):
			w += 0.42
		case strings.ContainsRune("mwMW%@", r):
			w += 1.0
		case r == '…':
			w += 1.0
		case unicode.IsUpper(r):
			w += 0.78
		case r < 0x80:
			w += 0.64
		default: // CJK and other wide scripts
			w += 1.0
		}
	}
	return w * size
}

// fitText shortens s to at most width px at size px by replacing its
// middle with an ellipsis: a file or layer name keeps its start and its
// end, which together tell it from its neighbours.
func fitText(s string, size, width float64) string {
	if textWidth(s, size) <= width {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs) // keep lo runes from each end at most
	for lo < hi {
		mid := (lo + hi + 1) / 2
		k := mid
		if 2*k >= len(rs) {
			hi = mid - 1
			continue
		}
		if textWidth(string(rs[:k])+"…"+string(rs[len(rs)-k:]), size) <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "…"
	}
	return string(rs[:lo]) + "…" + string(rs[len(rs)-lo:])
}

// svgText writes a text element; when the shown text is a shortened
// form, hovering it shows the full text.
func svgText(s *strings.Builder, attrs, shown, full string) {
	if shown != full {
		fmt.Fprintf(s, `<text %s data-tip="%s">%s</text>`, attrs, esc(full), esc(shown))
		return
	}
	fmt.Fprintf(s, `<text %s>%s</text>`, attrs, esc(shown))
}

// shortLabel is the length in runes up to which an axis label is never
// shortened: the chart makes room for it. A short name cut in its middle
// is no name at all (issue 32: "sg00/Pool.json qPoolIO0" read
// "sg00/Pool.…n qPoolIO0" under a column).
const shortLabel = 32

// fitLabels shortens the labels of one axis to width px at size px. A
// label of at most shortLabel runes is kept whole; a longer one keeps its
// start and its end (fitText) unless that reads like another label of the
// axis ("dequantize_Add_98_input_2_1" and "dequantize_Add_121_input_2_1"
// both read "dequantize…_input_2_1"): then it shows, between ellipses,
// the part where it differs from them.
func fitLabels(labels []string, size, width float64) []string {
	shown := make([]string, len(labels))
	for i, l := range labels {
		if utf8.RuneCountInString(l) <= shortLabel {
			shown[i] = l
		} else {
			shown[i] = fitText(l, size, width)
		}
	}
	groups := map[string][]int{}
	for i, s := range shown {
		if s != labels[i] {
			groups[s] = append(groups[s], i)
		}
	}
	for _, g := range groups {
		distinct := map[string]bool{}
		for _, i := range g {
			distinct[labels[i]] = true
		}
		if len(distinct) < 2 {
			continue
		}
		for _, i := range g {
			d := 0 // where labels[i] departs from the others of its group
			for _, j := range g {
				if labels[j] != labels[i] {
					d = max(d, commonPrefix([]rune(labels[i]), []rune(labels[j])))
				}
			}
			shown[i] = window(labels[i], max(0, d-6), size, width)
		}
	}
	return shown
}

// commonPrefix is the number of leading runes a and b share.
func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// window shows s from rune start on, as much as fits in width px at size
// px, with an ellipsis for each end left out.
func window(s string, start int, size, width float64) string {
	rs := []rune(s)
	head := ""
	if start > 0 {
		head = "…"
	}
	best := head + string(rs[start:start+min(1, len(rs)-start)])
	for n := 1; start+n <= len(rs); n++ {
		t := head + string(rs[start:start+n])
		if start+n < len(rs) {
			t += "…"
		}
		if textWidth(t, size) > width {
			break
		}
		best = t
	}
	return best
}

// labelRoom is the width in px the labels of an axis take at size px: the
// widest, at most limit, but never less than the widest label of
// shortLabel runes or fewer (which fitLabels keeps whole).
func labelRoom(labels []string, size, limit float64) float64 {
	w, short := 0.0, 0.0
	for _, l := range labels {
		lw := textWidth(l, size)
		w = max(w, lw)
		if utf8.RuneCountInString(l) <= shortLabel {
			short = max(short, lw)
		}
	}
	return max(min(w, limit), short)
}
