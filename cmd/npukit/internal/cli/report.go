package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/report"
	"github.com/spf13/cobra"
)

func init() { registerCommand(70, newReportCmd) }

func newReportCmd(env *Env) *cobra.Command {
	var out string
	var force bool
	var options func() (*npukit.Options, error)
	cmd := &cobra.Command{
		Use:   "report FILE... [-o report.html]",
		Short: "Render artifacts as one self-contained HTML page with SVG charts",
		Long:  longHelp("report") + reportNameRule("FILE", "model_edgetpu.tflite") + "\nWith several files, the first names the page.",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var as []*npukit.Artifact
			for _, path := range args {
				a, err := openArg(path)
				if err != nil {
					return err
				}
				if len(as) > 0 && !npukit.Comparable(as[0], a) {
					return usageErr("report takes files of one kind: %s is %s, %s is %s", as[0].Name, as[0].Describe(), path, a.Describe())
				}
				as = append(as, a)
			}
			if err := refuseInapplicableFlags(cmd.Flags(), as); err != nil {
				return err
			}
			if out == "" {
				var err error
				if out, err = defaultReportPath(".", args, force); err != nil {
					return err
				}
			}
			o, err := options()
			if err != nil {
				return err
			}
			if err := writeReportWith(as, out, o); err != nil {
				return err
			}
			return reportWritten(env, out)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", reportOutputUsage("FILE"))
	cmd.Flags().BoolVar(&force, "force", false, "without -o: replace an existing file of the default name")
	options = bindKindFlags("report", cmd.Flags())
	return acceptsOp(cmd, "report")
}

// reportNameRule states the one rule naming a report written without -o,
// in every command that writes one (report, sbuf report, demo), for the
// argument arg of a command whose example input is example.
func reportNameRule(arg, example string) string {
	return fmt.Sprintf("Without -o the page is written to the current directory, named after %s's base\nname without its extension (%s gives %s; standard input, -,\ngives stdin.html). An existing file of that name is replaced only with --force; a file\nnamed with -o is replaced.", arg, example, report.FileName(example))
}

// reportOutputUsage is the -o usage of a command writing a report.
func reportOutputUsage(arg string) string {
	return "HTML file to write (default: " + arg + "'s base name without extension, .html, in the current directory)"
}

// defaultReportPath is where a report of inputs goes without -o: dir
// joined with reportName of the first input. It refuses to name one of
// the inputs themselves (a schedule called x.html is recognised by
// content, and its report must not replace it).
func defaultReportPath(dir string, inputs []string, force bool) (string, error) {
	p := filepath.Join(dir, report.FileName(inputs[0]))
	st, err := os.Stat(p)
	if err != nil {
		return p, nil
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return "", usageErr("%s: the report's default name %s is the input itself: give -o", in, p)
		}
	}
	// A name the user did not give replaces nothing unasked.
	if !force {
		return "", usageErr("%s exists: name the report with -o, or pass --force to replace it", p)
	}
	return p, nil
}

// writeReport renders the artifacts' report page to path atomically.
func writeReport(as []*npukit.Artifact, path string) error {
	o, err := libOptions()
	if err != nil {
		return err
	}
	return writeReportWith(as, path, o)
}

// writeReportWith renders the page with the given library options.
func writeReportWith(as []*npukit.Artifact, path string, o *npukit.Options) error {
	page, err := npukit.Report(as, o)
	if err != nil {
		return libErr(as[0].Name, err)
	}
	return writePage(path, page)
}

// writePage renders a report page to path atomically.
func writePage(path string, page *report.Page) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.Render(w, page) })
}

// reportWritten says where a report went.
func reportWritten(env *Env, out string) error {
	if env.JSON {
		return writeJSON(env.Stdout, map[string]string{"report": out})
	}
	_, err := fmt.Fprintf(env.Stdout, "report written to %s\n", out)
	return err
}
