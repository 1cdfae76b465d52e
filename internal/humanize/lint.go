package humanize

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Lint finds, in a command's text output, what breaks the conventions
// Count and Plural keep, so that a test or a sweep over every command and
// file can hold the whole tool to them (issue 32: "1,530,664" beside
// "1128059" in one output; "1 errors", "1 infos", "1 operators"):
//
//   - a plural after a count of one ("1 errors"), or hedged ("1 file(s)");
//   - integers of five digits or more written both with and without
//     thousands separators in one output.
//
// Numbers that are not counts are left alone: inside words and paths
// (sg00, bw16, 0x1f400), decimals, inside [shapes], after '#', values
// beside a diff's "->", in JSON ("key":123456), after a flag and as a
// keyword argument of code (base_addr=16384: written as read or typed),
// and after a name of what is numbered ("core 1 workloads" is core 1's
// workloads).
func Lint(text string) []string {
	var out []string
	if p := wrongPlural(text); p != "" {
		out = append(out, fmt.Sprintf("plural after one: %q", p))
	}
	if h := hedgeRe.FindString(text); h != "" {
		out = append(out, fmt.Sprintf("plural hedged instead of agreeing with its count: %q", h))
	}
	sep, bare := separatedRe.FindString(text), ""
	for _, m := range bareRe.FindAllStringSubmatchIndex(stripBrackets(text), -1) {
		if asWritten(text[:m[2]], text[m[3]:]) {
			continue
		}
		bare = text[m[2]:m[3]]
		break
	}
	if sep != "" && bare != "" {
		out = append(out, fmt.Sprintf("thousands separators mixed: %q beside %q", sep, bare))
	}
	return out
}

// asWritten reports whether the number between before and after is a
// value written as it is to be read or typed, which Lint and BareCounts
// leave alone: as a file holds it ("size: 1473280 -> 2619456" in a diff,
// "key":123456 in JSON), as a flag takes it ("--capacity 1048576") or as
// code passes it (base_addr=16384).
func asWritten(before, after string) bool {
	return strings.HasSuffix(strings.TrimRight(before, " "), "->") || strings.HasSuffix(before, "\":") || strings.HasPrefix(strings.TrimLeft(after, " "), "->") ||
		flagValueRe.MatchString(before) || codeArgRe.MatchString(before)
}

var (
	// A count of one followed by a word ending in s (not -ss, -us, -is:
	// class, bus, basis are singular).
	pluralRe = regexp.MustCompile(`(?:^|[^0-9A-Za-z_.,:/#+\-])(?:([A-Za-z]+) )?1 ([a-z]*[a-hj-rtv-z]s)\b(?:[^(]|$)`)
	// "3 file(s)": Plural and Agree know the count.
	hedgeRe = regexp.MustCompile(`[0-9][^\n]{0,40}?\b[A-Za-z]+\(s\)`)
	// 1,234 and up (a decimal part allowed).
	separatedRe = regexp.MustCompile(`(?:^|[^0-9A-Za-z_.,])[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?(?:$|[^0-9A-Za-z_,])`)
	flagValueRe = regexp.MustCompile(`--[a-z][a-z-]*[ =]$`)
	// A keyword argument as code writes it: base_addr=16384.
	codeArgRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*=$`)
	// 12345 and up, standing alone.
	bareRe = bareFrom(5)
)

// bareFrom matches an integer of digits digits or more standing alone:
// not in a word, path, decimal or version, not after 0x or '#'.
func bareFrom(digits int) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s(=:<>])([1-9][0-9]{` + strconv.Itoa(digits-1) + `,})(?:$|[\s),;:%<>]|\.(?:\s|$))`)
}

// notPlural are words ending in s that follow a count of one correctly.
var notPlural = map[string]bool{"us": true, "ns": true, "ms": true, "s": true, "is": true, "was": true, "has": true,
	"does": true, "its": true, "this": true, "as": true, "plus": true, "minus": true, "times": false, "series": true,
	"bias": true, "alias": true, "axis": true, "status": true, "corpus": true, "versus": true, "nms": true, "gelus": false}

// indexWords name what a number numbers: "core 1 workloads" is core 1's
// workloads, "layer 1 outputs" layer 1's outputs.
var indexWords = map[string]bool{"core": true, "cores": true, "layer": true, "engine": true, "queue": true, "subgraph": true,
	"sg": true, "workload": true, "partition": true, "tile": true, "row": true, "column": true, "step": true, "op": true,
	"operator": true, "node": true, "id": true, "index": true, "exe": true, "executable": true, "segment": true, "set": true,
	"batch": true, "input": true, "output": true, "channel": true, "line": true, "kernel": true, "part": true, "region": true,
	"bank": true, "port": true, "link": true, "level": true, "file": true, "stage": true, "axis": true, "dim": true,
	"entry": true, "var": true, "buffer": true, "tensor": true, "block": true, "group": true, "chip": true, "device": true,
	"call": true, "instruction": true, "version": true, "v": true, "rank": true, "program": true, "pass": true, "phase": true,
	"iteration": true, "loop": true, "case": true, "model": true, "graph": true, "run": true, "exec": true, "nc": true,
	"tpb": true, "lnc": true, "slot": true, "lane": true, "window": true, "problem": true, "solution": true, "argument": true}

func wrongPlural(text string) string {
	for _, m := range pluralRe.FindAllStringSubmatch(text, -1) {
		prev, noun := strings.ToLower(m[1]), m[2]
		if notPlural[noun] || indexWords[prev] {
			continue
		}
		return strings.TrimLeft(m[0][strings.Index(m[0], "1 "):], " ")
	}
	return ""
}

// stripBrackets blanks what lies between square brackets (shapes, lists
// of indices) and in a call's parentheses after '=' (code as a kernel
// writes it: address=(0, 10464)), keeping the text's length.
func stripBrackets(s string) string {
	b := []byte(s)
	depth, code := 0, false
	for i, c := range b {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == '(' && i > 0 && b[i-1] == '=':
			code = true
		case c == ')' && code:
			code = false
		case c == '\n':
			depth, code = 0, false
		case depth > 0 || code:
			b[i] = ' '
		}
	}
	return string(b)
}

// BareCounts lists the integers of four digits or more that a text output
// writes without thousands separators where Count would put them, for a
// test to hold one command's output to Count beside the others (nki sim
// said "8452 steps" where nki check said "8,452 steps executed"). It
// leaves alone what Lint leaves alone (words, paths, decimals, [shapes],
// code after '=', '#' numbers, a file's values beside "->" or in JSON,
// flag values) and what is not a count: line:column positions, ranges of
// positions ("1024..2047"), times in ns and byte sizes under 1 KiB as
// Bytes writes them ("1000 B").
func BareCounts(text string) []string {
	var out []string
	stripped := tupleRe.ReplaceAllStringFunc(stripBrackets(text), func(s string) string { return strings.Repeat(" ", len(s)) })
	for _, m := range bare4Re.FindAllStringSubmatchIndex(stripped, -1) {
		before, after := text[:m[2]], text[m[3]:]
		if asWritten(before, after) || strings.HasSuffix(before, "..") || strings.HasPrefix(after, "..") ||
			strings.HasPrefix(after, ":") && len(after) > 1 && after[1] >= '0' && after[1] <= '9' ||
			strings.HasPrefix(after, " ns") || strings.HasPrefix(after, " B") && !strings.HasPrefix(after, " By") {
			continue
		}
		out = append(out, text[m[2]:m[3]])
	}
	return out
}

var (
	// bare4Re is bareRe from four digits.
	bare4Re = bareFrom(4)
	// A shape or a tuple of integers as Python writes it: (2000, 4096),
	// (2000, par_dim(128), 4096).
	tupleRe = regexp.MustCompile(`\((?:[0-9]+|par_dim\([0-9]+\))(?:, (?:[0-9]+|par_dim\([0-9]+\)))+\)`)
)
