package cli

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/npukit/npukit/detect"
	"github.com/npukit/npukit/internal/atomicfile"
	"github.com/npukit/npukit/report"
	"github.com/spf13/cobra"
)

func init() { registerCommand(70, newReportCmd) }

// Reporter builds a report page from one or more files of one kind (the
// Edge TPU reporter, for instance, groups several models by caching token).
type Reporter func(env *Env, files []detect.Result) (*report.Page, error)

var reporters = map[detect.Kind]Reporter{}

func registerReporter(k detect.Kind, r Reporter) {
	if _, dup := reporters[k]; dup {
		panic("cli: reporter registered twice: " + string(k))
	}
	reporters[k] = r
}

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
			var rs []detect.Result
			for _, a := range args {
				r, _, err := detectFile(a)
				if err != nil {
					return err
				}
				if len(rs) > 0 && r.Kind != rs[0].Kind {
					return usageErr("report takes files of one kind: %s is %s, %s is %s", rs[0].Path, describe(rs[0]), a, describe(r))
				}
				rs = append(rs, r)
			}
			if out == "" {
				out = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])) + ".html"
			}
			if err := writeReport(env, rs, out); err != nil {
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
	return cmd
}

// writeReport renders the files' report to path atomically.
func writeReport(env *Env, rs []detect.Result, path string) error {
	rep, ok := reporters[rs[0].Kind]
	if !ok {
		return usageErr("%s: reports are not supported yet for %s", rs[0].Path, describe(rs[0]))
	}
	page, err := rep(env, rs)
	if err != nil {
		return usageErr("%s: %v", rs[0].Path, err)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.Render(w, page) })
}
