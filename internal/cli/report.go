package cli

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/report"
	"github.com/spf13/cobra"
)

func init() { registerCommand(70, newReportCmd) }

func newReportCmd(env *Env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report FILE... [-o report.html]",
		Short: "Render artifacts as one self-contained HTML page with SVG charts",
		Long: `report renders FILE (or several files of one kind) as a single HTML page that opens
offline in any browser: no external scripts, fonts or requests. Charts are SVG with
labelled axes, legends and units; hovering shows details, the mouse wheel zooms
timelines. The check diagnostics are included and linked to the part of the page
they concern. Without -o the page is written to FILE.html in the current directory.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var as []*npukit.Artifact
			for _, path := range args {
				a, err := openArg(path)
				if err != nil {
					return err
				}
				if len(as) > 0 && a.Kind != as[0].Kind {
					return usageErr("report takes files of one kind: %s is %s, %s is %s", as[0].Name, as[0].Describe(), path, a.Describe())
				}
				as = append(as, a)
			}
			if out == "" {
				out = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])) + ".html"
			}
			if err := writeReport(as, out); err != nil {
				return err
			}
			if env.JSON {
				return writeJSON(env.Stdout, map[string]string{"report": out})
			}
			_, err := io.WriteString(env.Stdout, "report written to "+out+"\n")
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "HTML file to write (default: FILE.html)")
	return acceptsOp(cmd, "report")
}

// writeReport renders the artifacts' report page to path atomically.
func writeReport(as []*npukit.Artifact, path string) error {
	o, err := libOptions()
	if err != nil {
		return err
	}
	page, err := npukit.Report(o, as...)
	if err != nil {
		return libErr(as[0].Name, err)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.Render(w, page) })
}
