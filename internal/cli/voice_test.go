package cli_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestUnknownSubcommand: a mistyped subcommand of any group is a usage
// error (exit 2) with cobra's suggestion, never the group's help and exit 0.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct{ group, typo, want string }{
		{"neff", "unpak", "unpack"},
		{"edgetpu", "lnk", "link"},
		{"gemini", "synt", "synth"},
		{"sbuf", "chek", "check"},
	} {
		r := run(t, t.TempDir(), c.group, c.typo)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown command") || !strings.Contains(r.stderr, "Did you mean this?\n\t"+c.want) {
			t.Errorf("%s %s: %s", c.group, c.typo, r)
		}
		// The bare group still prints its help.
		if r := run(t, t.TempDir(), c.group); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
			t.Errorf("%s: %s", c.group, r)
		}
	}
}

// demoFiles writes npukit's built-in examples (one file of every kind)
// into a temporary directory and returns it.
func demoFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r := run(t, dir, "demo", "--dir", "."); r.code != 0 {
		t.Fatalf("demo: %s", r)
	}
	return dir
}

// TestWrongKind: every command given a file of another kind answers
// "this is a <kind>, not a <kind>", exit 2: no reader's message about
// fields of the wrong format, no Go type names.
func TestWrongKind(t *testing.T) {
	dir := demoFiles(t)
	const (
		neffF = "demo.neff"
		tfl   = "demo_edgetpu.tflite"
		sched = "demo_gemini_schedule.json"
		csv   = "demo_alloc.65536.csv"
	)
	cases := [][]string{
		{"neff", "unpack", tfl, "-o", "x"},
		{"neff", "dma", tfl},
		{"neff", "dma", sched},
		{"neff", "pack", tfl, "-o", "x.neff"},
		{"edgetpu", "memory", neffF},
		{"edgetpu", "extract", sched, "-o", "x"},
		{"edgetpu", "dma", csv},
		{"edgetpu", "plan", neffF},
		{"gemini", "realloc", neffF},
		{"gemini", "realloc", csv},
		{"alloc", neffF},
		{"alloc", sched},
		{"alloc", "--validate", csv, tfl},
		{"alloc", "--from", tfl},
		{"alloc", "--from", csv},
		{"sbuf", "check", neffF},
		{"sbuf", "show", sched},
		{"sbuf", "sim", tfl},
		{"sbuf", "place", csv},
		{"sbuf", "report", neffF, "-o", "x.html"},
		{"sim", sched, "--zebu", neffF},
	}
	var all strings.Builder
	for _, args := range cases {
		r := run(t, dir, args...)
		if r.code != 2 || !wrongKindMsg.MatchString(r.stderr) || strings.Contains(r.stderr, "neuroncore.") {
			t.Errorf("%v: %s", args, r)
		}
		fmt.Fprintf(&all, "$ npukit %s\n%s\n", strings.Join(args, " "), r)
	}
	golden(t, "wrong-kind", all.String())
}

var wrongKindMsg = regexp.MustCompile(`^npukit: [^:]+: this is an? [^\n]+, not an? [^\n]+\n$`)
