package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/outputcheck"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// walkTree calls fn on every command of npukit's tree.
func walkTree(t *testing.T, fn func(c *cobra.Command)) {
	t.Helper()
	root := NewRoot(&Env{Stdout: io.Discard, Stderr: io.Discard})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fn(c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestHelpOneDefaultPerFlag: a flag's help states its default once.
// When pflag prints "(default X)" the usage must not state one too
// ("(default: ...)", "default 10s"), nor end in a parenthesis naming a
// value's meaning that reads as one ("(0 = none) (default 1m0s)").
func TestHelpOneDefaultPerFlag(t *testing.T) {
	n := 0
	walkTree(t, func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			n++
			fs := pflag.NewFlagSet("", pflag.ContinueOnError)
			fs.AddFlag(f)
			line := strings.TrimSpace(fs.FlagUsages())
			_, usage := pflag.UnquoteUsage(f)
			if !strings.Contains(line, usage+" (default ") {
				return // pflag states no default: the usage may
			}
			if strings.Contains(strings.ToLower(usage), "default") || valueMeaning.MatchString(usage) {
				t.Errorf("%s: two defaults: %s", c.CommandPath(), line)
			}
		})
	})
	if n < 50 {
		t.Fatalf("only %d flags walked", n)
	}
}

var valueMeaning = regexp.MustCompile(`\(\s*[-\w.]+\s*=[^()]*\)$`)

// TestHelpListsKinds: every command that reads a recognised file lists
// the kinds it accepts; for the shared commands the list is the
// registry's (npukit.Supports), so it stays true as kinds are added.
func TestHelpListsKinds(t *testing.T) {
	ops := map[string]string{
		"npukit inspect": "inspect", "npukit check": "check", "npukit report": "report",
		"npukit sim": "simulate", "npukit diff": "diff",
	}
	// Commands that read no recognised file: they generate one, take a
	// Python kernel, or take no argument.
	noInput := map[string]bool{
		"npukit": true, "npukit demo": true, "npukit version": true, "npukit gemini synth": true,
		"npukit nki inspect": true, "npukit nki check": true, "npukit nki sim": true, "npukit nki report": true, "npukit nki place": true, "npukit help": true, "npukit completion": true, "npukit lsp": true,
	}
	seen := 0
	walkTree(t, func(c *cobra.Command) {
		path := c.CommandPath()
		if c.HasSubCommands() || noInput[path] || strings.HasPrefix(path, "npukit completion") {
			return
		}
		ks := commandKinds(c)
		if len(ks) == 0 {
			t.Errorf("%s: help does not list the kinds it accepts", path)
			return
		}
		if !strings.Contains(c.Long, kindsHelp(ks)) {
			t.Errorf("%s: the kinds list is not in the help:\n%s", path, c.Long)
		}
		for _, k := range ks {
			if k.Describe() == string(k) {
				t.Errorf("%s: unknown kind %q", path, k)
			}
		}
		if op, ok := ops[path]; ok {
			seen++
			var want []detect.Kind
			for _, k := range npukit.Kinds() {
				if npukit.Supports(k, op) {
					want = append(want, k)
				}
			}
			if !slices.Equal(ks, want) || len(want) == 0 {
				t.Errorf("%s: lists %v, the registry supports %v", path, ks, want)
			}
			// Every kind line is in the help, none more.
			_, list, _ := strings.Cut(c.Long, "Accepted input")
			for _, k := range npukit.Kinds() {
				if got := strings.Contains(list, "\n  "+string(k)+" "); got != npukit.Supports(k, op) {
					t.Errorf("%s: kind %s listed %v, supported %v", path, k, got, !got)
				}
			}
		}
	})
	if seen != len(ops) {
		t.Errorf("saw %d of the %d shared commands", seen, len(ops))
	}
}

// writesFlag matches the help of a flag naming an output.
var writesFlag = regexp.MustCompile(`(^|\s)write (the|a|to)\b|file to write|^directory (to|for)\b`)

// TestOutputFlagsAudited: every flag that names something a command
// writes is one checkOutputs guards and documentOutputs documents, and
// the commands having one are the ones TestOutputsReplaceOnlyWhatWasNamed
// runs (update both when a command starts writing).
func TestOutputFlagsAudited(t *testing.T) {
	audited := map[string]bool{
		"npukit alloc": true, "npukit gemini realloc": true, "npukit gemini synth": true,
		"npukit edgetpu relayout": true, "npukit edgetpu extract": true, "npukit edgetpu link": true,
		"npukit neff unpack": true, "npukit neff pack": true, "npukit neff dma": true,
		"npukit nki check": true, "npukit nki sim": true, "npukit nki report": true, "npukit nki place": true,
		"npukit report": true, "npukit sim": true,
		"npukit sbuf sim": true, "npukit sbuf place": true, "npukit sbuf report": true,
	}
	seen := map[string]bool{}
	walkTree(t, func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if !writesFlag.MatchString(strings.ToLower(f.Usage)) || f.Value.Type() != "string" || f.Name == "dir" {
				return
			}
			if !slices.Contains(outputcheck.FileOutputFlags, f.Name) {
				t.Errorf("%s --%s writes but is not an output flag checkOutputs guards", c.CommandPath(), f.Name)
			}
			if !strings.HasSuffix(f.Usage, replacedNote) && !strings.HasSuffix(f.Usage, forceNote) {
				t.Errorf("%s --%s: help does not say what it replaces: %q", c.CommandPath(), f.Name, f.Usage)
			}
			// audit item 22: every command that writes takes --force
			if c.Flags().Lookup("force") == nil {
				t.Errorf("%s --%s: the command has no --force", c.CommandPath(), f.Name)
			}
			seen[c.CommandPath()] = true
		})
	})
	for p := range seen {
		if !audited[p] {
			t.Errorf("%s writes a file but is not in the output audit", p)
		}
	}
	for p := range audited {
		if !seen[p] {
			t.Errorf("%s is in the output audit but has no output flag", p)
		}
	}
}

// Audit item 12: every command that needs an operand says so the same
// way when given none (and when given too many): naming the command, in
// words rather than cobra's "requires at least 1 arg(s)", with its usage
// line; whichever check refuses it (cobra's count, the command's own, the
// library's).
func TestNoArgumentsShowUsage(t *testing.T) {
	noOperand := map[string]bool{"npukit demo": true, "npukit version": true, "npukit help": true, "npukit lsp": true}
	n := 0
	walkTree(t, func(c *cobra.Command) {
		if !c.HasParent() || c.HasSubCommands() || !c.Runnable() || noOperand[c.CommandPath()] ||
			c.Parent().Name() == "completion" {
			return
		}
		n++
		path := strings.Fields(c.CommandPath())[1:]
		var out, errb bytes.Buffer
		code := Main(path, &out, &errb)
		se := errb.String()
		if code != ExitUsage || !strings.Contains(se, "usage: "+c.CommandPath()+" ") || strings.Contains(se, "arg(s)") ||
			!strings.HasPrefix(se, "npukit: "+strings.Join(path, " ")+": ") {
			t.Errorf("%s with no arguments: exit %d\n%s", c.CommandPath(), code, se)
		}
	})
	if n < 20 {
		t.Errorf("only %d commands walked", n)
	}
	for _, args := range [][]string{{"sim", "a", "b"}, {"alloc", "a", "b", "c"}, {"nki", "sim", "a.py", "b.py"}} {
		var out, errb bytes.Buffer
		cmd := strings.Join(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.ContainsAny(a, ".") || len(a) == 1 }), " ")
		if code := Main(args, &out, &errb); code != ExitUsage || !strings.Contains(errb.String(), "usage: npukit "+cmd+" ") ||
			strings.Contains(errb.String(), "arg(s)") {
			t.Errorf("%v: exit %d\n%s", args, code, errb.String())
		}
	}
}

// Audit item 6: the README, the docs and --help's exit codes named a
// command (`nki lint`) that does not exist. Every subcommand they name
// must be one of the tree.
func TestDocumentedCommandsExist(t *testing.T) {
	root := NewRoot(&Env{Stdout: io.Discard, Stderr: io.Discard})
	groups := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		if c.HasSubCommands() {
			groups[c.Name()] = c
		}
	}
	exists := func(where, group, sub string) {
		g := groups[group]
		for _, c := range g.Commands() {
			if c.Name() == sub || slices.Contains(c.Aliases, sub) {
				return
			}
		}
		t.Errorf("%s names `%s %s`, which is no command", where, group, sub)
	}
	ref := regexp.MustCompile(`\b([a-z]+) ([a-z][a-z-]*)\b`)
	n := 0
	docs, _ := filepath.Glob("../../../../docs/*.md")
	for _, p := range append(docs, "../../../../README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, span := range regexp.MustCompile("`[^`\n]+`").FindAllString(string(b), -1) {
			m := ref.FindStringSubmatch(strings.TrimPrefix(strings.Trim(span, "`"), "npukit "))
			if m != nil && groups[m[1]] != nil && strings.HasPrefix(strings.TrimPrefix(strings.Trim(span, "`"), "npukit "), m[0]) {
				n++
				exists(filepath.Base(p), m[1], m[2])
			}
		}
	}
	_, codes, ok := strings.Cut(root.Long, "Exit codes:")
	if !ok {
		t.Fatal("--help lists no exit codes")
	}
	for _, m := range ref.FindAllStringSubmatch(codes, -1) {
		if groups[m[1]] != nil {
			n++
			exists("--help's exit codes", m[1], m[2])
		}
	}
	if n < 20 {
		t.Errorf("only %d command names found in the docs", n)
	}
}

// Audit item 13: --help's description names every kind npukit reads, and
// no flag's help has back-quoted text (pflag takes it for the value's
// name: "--version npukit version").
func TestRootHelpNamesEveryKind(t *testing.T) {
	root := NewRoot(&Env{Stdout: io.Discard, Stderr: io.Discard})
	desc, _, _ := strings.Cut(root.Long, "Exit codes:")
	word := map[detect.Kind]string{
		detect.NEFF: "NEFF", detect.NEFFDir: "unpacked directories", detect.EdgeTPU: "_edgetpu.tflite",
		detect.TFLite: "TFLite models", detect.DarwiNN: "DWN1", detect.GeminiIR: "scheduler IR",
		detect.MiniMallocCSV: "MiniMalloc", detect.SBUFPlan: "SBUF/PSUM allocation plans",
		detect.ZebuTrace: "ZeBu", detect.NTFF: "NTFF",
	}
	for _, k := range npukit.Kinds() {
		w, ok := word[k]
		if !ok {
			t.Errorf("kind %s: add the words that name it in --help to this test", k)
			continue
		}
		if !strings.Contains(desc, w) {
			t.Errorf("--help does not name %s (%q)", k.Describe(), w)
		}
	}
	if !strings.Contains(desc, "NKI kernels") {
		t.Error("--help does not name NKI kernels")
	}
	walkTree(t, func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); f.Value.Type() == "bool" && name != "" {
				t.Errorf("%s --%s: a switch shown taking a value %q", c.CommandPath(), f.Name, name)
			}
		})
	})
}

// Audit item 22: `report -o x.html --force` worked and `sbuf place -o
// p.yaml --force` was refused as an unknown flag.
func TestForceTakenWithNamedOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.yaml")
	var so, se bytes.Buffer
	if code := Main([]string{"sbuf", "place", "../../../../examples/sbuf/place-32.yaml", "-o", out, "--force"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}
