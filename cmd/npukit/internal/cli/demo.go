package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/internal/examples"
	"github.com/spf13/cobra"
)

func init() { registerCommand(80, newDemoCmd) }

// demoStep is an extra demo action for one kind of example (simulate,
// allocate, link, report...), registered by the format's CLI file.
type demoStep struct {
	order int
	kind  detect.Kind
	name  string
	run   func(env *Env, path, outDir string) error
}

var demoSteps []demoStep

func registerDemoStep(s demoStep) { demoSteps = append(demoSteps, s) }

func newDemoCmd(env *Env) *cobra.Command {
	var dir string
	var force bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the main job on built-in example artifacts",
		Long: `demo writes the example artifacts built into npukit (made by npukit's own writers)
into a directory and runs the main job on each: inspect and check, and for the kinds
that support it simulation, allocation and a visual report, named like npukit report
names it (the example's name without its extension, .html) in the same directory.
It prints where everything was written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				d, err := os.MkdirTemp("", "npukit-demo-")
				if err != nil {
					return err
				}
				dir = d
			} else if err := refuseNonEmptyDir("--dir", dir, force); err != nil {
				return err
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			return runDemo(env, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the examples and results into, empty or new (default: a new temporary directory)")
	cmd.Flags().BoolVar(&force, "force", false, "write into a non-empty --dir, replacing files of the demo's names")
	return cmd
}

func runDemo(env *Env, dir string) error {
	out := env.Stdout
	names := examples.Names()
	fmt.Fprintf(out, "npukit demo: %d example artifacts, written to %s\n", len(names), dir)
	if len(names) == 0 {
		fmt.Fprintln(out, "No example artifacts are built in yet: format writers add them as they land.")
	}
	kinds := npukit.Kinds()
	fmt.Fprintf(out, "Formats with a reader: %d", len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(out, "\n  - %s", k.Describe())
	}
	fmt.Fprintln(out)
	// Quiet sub-steps: the demo shows the text output but never --json.
	sub := *env
	sub.JSON = false
	failed := 0
	for _, name := range names {
		data, err := fs.ReadFile(examples.FS(), name)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, name)
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n==== %s\n", path)
		a, err := openArg(path)
		if err != nil {
			fmt.Fprintf(out, "%v\n", err)
			continue
		}
		fmt.Fprintf(out, "-- inspect (%s)\n", a.Describe())
		o, err := a.Inspect(nil)
		if err != nil {
			failed++
			fmt.Fprintf(out, "inspect failed: %v\n", err)
			continue
		}
		if err := o.WriteText(out); err != nil {
			return err
		}
		if npukit.Supports(a.Kind, "check") {
			fmt.Fprintln(out, "-- check")
			rep, err := a.Check(nil)
			if err != nil {
				failed++
				fmt.Fprintf(out, "check failed: %v\n", err)
			} else {
				rep = rep.WithFile(name)
				rep.Sort()
				rep.WriteText(out)
				fmt.Fprintf(out, "%s\n", rep.Summary())
			}
		}
		steps := stepsFor(a.Kind)
		for _, s := range steps {
			fmt.Fprintf(out, "-- %s\n", s.name)
			if err := s.run(&sub, path, dir); err != nil {
				failed++
				fmt.Fprintf(out, "%s failed: %v\n", s.name, err)
			}
		}
	}
	failed += demoNKI(&sub, dir)
	var reports []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		a, err := npukit.Open(path)
		if err != nil || !npukit.Supports(a.Kind, "report") {
			continue
		}
		html, err := defaultReportPath(dir, []string{path}, true)
		if err != nil {
			failed++
			fmt.Fprintf(out, "report of %s failed: %v\n", name, err)
			continue
		}
		if err := writeReport([]*npukit.Artifact{a}, html); err != nil {
			failed++
			fmt.Fprintf(out, "report of %s failed: %v\n", name, err)
			continue
		}
		reports = append(reports, html)
	}
	if len(reports) > 0 {
		fmt.Fprintln(out, "\nVisual reports (open in any browser):")
		for _, r := range reports {
			fmt.Fprintf(out, "  %s\n", r)
		}
	}
	fmt.Fprintf(out, "\nDemo finished. Examples and results are in %s\n", dir)
	if failed > 0 {
		return &ExitError{Code: ExitUnexpected, Err: fmt.Errorf("demo: %d steps failed", failed)}
	}
	return nil
}

func stepsFor(k detect.Kind) []demoStep {
	var out []demoStep
	for _, s := range demoSteps {
		if s.kind == k {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}
