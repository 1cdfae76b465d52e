package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit/cmd/npukit/internal/cli"
	"github.com/npukit/npukit/detect"
)

// TestEveryKindFlagRefusedWhereItDoesNotApply: one rule for every flag of
// a kind in every command that takes such flags (inspect, check, sim,
// report, diff): given with files it applies to none of, it is a usage error
// (exit 2) naming the flag and the kinds, before any output (issue 32: an
// error in sim, a note after the output in inspect and check, silently
// ignored by report).
func TestEveryKindFlagRefusedWhereItDoesNotApply(t *testing.T) {
	dir := demoFiles(t)
	demo := []struct {
		file string
		kind detect.Kind
	}{
		{"demo.neff", detect.NEFF},
		{"demo_edgetpu.tflite", detect.EdgeTPU},
		{"demo_gemini_schedule.json", detect.GeminiIR},
	}
	commands := map[string]bool{}
	tried := 0
	for _, kf := range cli.KindFlags() {
		commands[kf.Command] = true
		file := ""
		for _, d := range demo {
			if !slices.Contains(kf.Kinds, d.kind) {
				file = d.file
				break
			}
		}
		if len(kf.Kinds) == 0 || file == "" {
			continue
		}
		arg := "--" + kf.Name
		switch kf.Type {
		case "bool":
		case "string":
			arg += "=" + file // an existing path, for flags that name one
		case "duration":
			arg += "=1s"
		default:
			arg += "=1"
		}
		args := []string{kf.Command, file, arg}
		switch kf.Command {
		case "report":
			args = append(args, "-o", "page.html")
		case "diff":
			args = []string{kf.Command, file, file, arg}
		}
		r := run(t, dir, args...)
		tried++
		if r.code != 2 || !strings.Contains(r.stderr, "--"+kf.Name+" applies to") || r.stdout != "" {
			t.Errorf("npukit %s: want exit 2, nothing on stdout and \"--%s applies to ...\" on stderr: %s", strings.Join(args, " "), kf.Name, r)
		}
	}
	if len(commands) < 4 {
		t.Errorf("kind flags on %v only", commands)
	}
	if tried < 10 {
		t.Fatalf("only %d command/flag pairs tried", tried)
	}
}

// A deprecated flag still works and says so on stderr; stdout keeps only
// the output (its notice was printed on stdout, above --json's document).
func TestDeprecatedFlagNoticeOnStderr(t *testing.T) {
	dir := demoFiles(t)
	for _, args := range [][]string{
		{"--json", "sim", "demo.neff", "--dma-gibps", "27"},
		{"--json", "edgetpu", "dma", "demo_edgetpu.tflite", "--pcie-gbps", "4"},
	} {
		r := run(t, dir, args...)
		if r.code != 0 || !json.Valid([]byte(r.stdout)) || !strings.Contains(r.stderr, "is deprecated") {
			t.Errorf("npukit %s: want exit 0, JSON on stdout and the deprecation on stderr: %s", strings.Join(args, " "), r)
		}
	}
}
