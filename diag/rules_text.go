package diag

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteRules writes rules as an aligned table: ID, severity, description
// (`npukit check --list-rules`).
func WriteRules(w io.Writer, rules []Rule) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tDESCRIPTION")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Description)
	}
	return tw.Flush()
}
